package httpapi_test

import (
	"context"
	"net/http"
	"testing"

	"github.com/google/uuid"
	"github.com/stretchr/testify/require"

	adapterv1 "github.com/monitorhq/monitor/api/adapter/v1"
	"github.com/monitorhq/monitor/internal/store/storetest"
	"github.com/monitorhq/monitor/internal/testkit"
	"github.com/monitorhq/monitor/internal/testkit/testcore"
)

// Accounts over REST: add (201, then 200 when the credential is
// replaced), list, check (reauth_required on the platform's refusal, 503
// on its rate limit), revoke (204, kept as revoked); bad input is a 400
// that says what to fix; nobody reaches another tenant's connection; no
// answer ever carries the secret.
func TestConnectionRoutes(t *testing.T) {
	t.Parallel()
	for _, d := range storetest.Drivers() {
		t.Run(d, func(t *testing.T) {
			fake := testkit.NewAccountAdapter()
			c := testcore.New(t, testcore.Options{DB: d, NoStart: true, MasterKey: "rest-accounts-master-key-0123456789",
				Adapters: []adapterv1.AdapterServer{fake}})
			srv, alice, bob := twoTenants(t, c)
			do := func(token, method, path, body string) (int, map[string]any) {
				t.Helper()
				return callJSON(t, srv, token, method, path, body)
			}
			const secret = `"account=1001\nhandle=alice_rest\ntoken=rest-session-secret-1"`

			for _, bad := range []struct{ body, detail string }{
				{`{}`, "adapter is required"},
				{`{"adapter": "acct"}`, "secret is required"},
				{`{"adapter": "acct", "secret": ""}`, "secret is required"},
				{`{"adapter": "acct", "secret": "account=1001"}`, "the token line is missing"},
				{`{"adapter": "telegram", "secret": "account=1;token=t"}`, "this is not a Telegram session"},
				{`{"adapter": "x", "secret": "account=1;token=t"}`, "no auth_token or ct0 cookie of x.com found"},
				{`{"adapter": "acct", "provider": "public", "secret": "account=1;token=t"}`, "is public and takes no account"},
				{`{"adapter": "acct", "secret": "account=1;token=t", "cookie": "x"}`, "cookie"},
			} {
				status, p := do(alice, http.MethodPost, "/v1/connections", bad.body)
				require.Equal(t, http.StatusBadRequest, status, bad.body)
				require.Equal(t, "urn:monitor:problem:invalid-request", p["type"])
				require.Contains(t, p["detail"], bad.detail)
			}

			status, conn := do(alice, http.MethodPost, "/v1/connections", `{"adapter": "acct", "secret": `+secret+`}`)
			require.Equal(t, http.StatusCreated, status, conn)
			require.Equal(t, "active", conn["status"])
			require.Equal(t, "1001", conn["account_id"])
			require.Equal(t, "alice_rest", conn["handle"])
			require.Equal(t, "session", conn["provider"])
			require.EqualValues(t, 1, conn["credential_revision"])
			require.Equal(t, true, conn["default"])
			require.NotContains(t, conn, "secret")
			id := conn["id"].(string)

			status, again := do(alice, http.MethodPost, "/v1/connections",
				`{"adapter": "acct", "secret": "account=1001\nhandle=alice_rest\ntoken=rest-session-secret-2"}`)
			require.Equal(t, http.StatusOK, status, again)
			require.Equal(t, id, again["id"])
			require.EqualValues(t, 2, again["credential_revision"])

			status, list := do(alice, http.MethodGet, "/v1/connections", "")
			require.Equal(t, http.StatusOK, status)
			require.Len(t, list["items"], 1)
			status, list = do(bob, http.MethodGet, "/v1/connections", "")
			require.Equal(t, http.StatusOK, status)
			require.Empty(t, list["items"])
			status, _ = do(bob, http.MethodPost, "/v1/connections/"+id+"/check", "")
			require.Equal(t, http.StatusNotFound, status)
			status, _ = do(bob, http.MethodDelete, "/v1/connections/"+id, "")
			require.Equal(t, http.StatusNotFound, status)
			status, p := do(alice, http.MethodDelete, "/v1/connections/nope", "")
			require.Equal(t, http.StatusNotFound, status)
			require.Contains(t, p["detail"], "connection")

			status, res := do(alice, http.MethodPost, "/v1/connections/"+id+"/check", "")
			require.Equal(t, http.StatusOK, status, res)
			require.Equal(t, true, res["ok"])
			fake.RateLimit(true)
			status, p = do(alice, http.MethodPost, "/v1/connections/"+id+"/check", "")
			require.Equal(t, http.StatusServiceUnavailable, status, p)
			require.Equal(t, "rate_limited", p["code"])
			fake.RateLimit(false)
			fake.Expire("rest-session-secret-2")
			status, res = do(alice, http.MethodPost, "/v1/connections/"+id+"/check", "")
			require.Equal(t, http.StatusOK, status, res)
			require.Equal(t, false, res["ok"])
			require.Equal(t, "reauth_required", res["connection"].(map[string]any)["status"])
			require.Contains(t, res["message"], "no longer accepts this session")

			// Wrong cookies for the account: refused, the credential untouched.
			status, p = do(alice, http.MethodPost, "/v1/connections",
				`{"adapter": "acct", "secret": "account=1001\nhandle=alice_rest\ntoken=rest-session-secret-2"}`)
			require.Equal(t, http.StatusBadRequest, status, p)
			require.Contains(t, p["detail"], "nothing was stored")
			require.NotContains(t, p["detail"], "rest-session-secret")

			status, _ = do(alice, http.MethodDelete, "/v1/connections/"+id, "")
			require.Equal(t, http.StatusNoContent, status)
			status, list = do(alice, http.MethodGet, "/v1/connections", "")
			require.Equal(t, http.StatusOK, status)
			item := list["items"].([]any)[0].(map[string]any)
			require.Equal(t, "revoked", item["status"])
			require.Contains(t, item, "revoked_at")
			status, p = do(alice, http.MethodPost, "/v1/connections/"+id+"/check", "")
			require.Equal(t, http.StatusConflict, status)
			require.Contains(t, p["detail"], "revoked")
		})
	}
}

// connection_id on POST /v1/captures: a malformed one is a 400, another
// tenant's a 404; one's own archives the post privately and the capture
// shows the provider, connection and credential revision it ran with.
func TestCaptureWithConnectionID(t *testing.T) {
	t.Parallel()
	for _, d := range storetest.Drivers() {
		t.Run(d, func(t *testing.T) {
			fake := testkit.NewAccountAdapter()
			c := testcore.New(t, testcore.Options{DB: d, MasterKey: "rest-accounts-master-key-0123456789",
				Adapters: []adapterv1.AdapterServer{fake}})
			srv, alice, bob := twoTenants(t, c)
			tn, err := c.App.TenantByName(context.Background(), "alice")
			require.NoError(t, err)
			status, conn := callJSON(t, srv, alice, http.MethodPost, "/v1/connections", `{"adapter": "acct", "secret": "account=1001;token=rest-cap"}`)
			require.Equal(t, http.StatusCreated, status, conn)
			id := conn["id"].(string)
			post := testkit.AccountPostURL("99")

			status, p := callJSON(t, srv, alice, http.MethodPost, "/v1/captures", `{"url": "`+post+`", "connection_id": "nope"}`)
			require.Equal(t, http.StatusBadRequest, status)
			require.Contains(t, p["detail"], "connection_id must be the id of one of your connections")
			status, _ = callJSON(t, srv, bob, http.MethodPost, "/v1/captures", `{"url": "`+post+`", "connection_id": "`+id+`"}`)
			require.Equal(t, http.StatusNotFound, status)

			status, res := callJSON(t, srv, alice, http.MethodPost, "/v1/captures", `{"url": "`+post+`", "connection_id": "`+id+`"}`)
			require.Equal(t, http.StatusAccepted, status, res)
			captureID := res["capture_id"].(string)
			v := c.WaitCapture(t, tn.ID, uuid.MustParse(captureID))
			require.Equal(t, "complete", v.State, v.Error)
			status, got := callJSON(t, srv, alice, http.MethodGet, "/v1/captures/"+captureID, "")
			require.Equal(t, http.StatusOK, status)
			require.Equal(t, "session", got["provider"])
			require.Equal(t, id, got["connection_id"])
			require.EqualValues(t, 1, got["credential_revision"])
			status, coll := callJSON(t, srv, alice, http.MethodGet, "/v1/collections/"+res["collection_id"].(string), "")
			require.Equal(t, http.StatusOK, status)
			require.Equal(t, "private", coll["visibility"])
		})
	}
}
