package httpapi_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/gotd/td/tg"
	"github.com/stretchr/testify/require"

	"github.com/monitorhq/monitor/adapters/telegram"
	"github.com/monitorhq/monitor/internal/app"
	"github.com/monitorhq/monitor/internal/httpapi"
	"github.com/monitorhq/monitor/internal/store/storetest"
	"github.com/monitorhq/monitor/internal/testkit"
	"github.com/monitorhq/monitor/internal/testkit/testcore"
)

// Join requests over REST: 403 while account_join_enabled is off, then
// asked (201, pending), listed, approved by an admin token (joined with
// the channel's link); a tenant token cannot approve, and Bob sees
// nothing of Alice's; bad links are 400; a rate limit is 503 and the
// request stays pending.
func TestJoinRoutes(t *testing.T) {
	t.Parallel()
	for _, db := range storetest.Drivers() {
		t.Run(db, func(t *testing.T) {
			ctx := context.Background()
			fake := testkit.NewTelegram(t)
			fake.AddInvite("HarbourInvite01", testkit.FakeInvite{Channel: &tg.Channel{ID: 5550001, AccessHash: 5, Title: "Harbour Watch", Broadcast: true}})
			fake.AddInvite("BusyInvite001", testkit.FakeInvite{Channel: &tg.Channel{ID: 5550002, AccessHash: 6, Title: "Busy", Broadcast: true}})
			c := testcore.New(t, testcore.Options{DB: db, NoStart: true, MasterKey: "rest-joins-master-key-0123456789", TelegramMTProto: &telegram.MTProto{
				AppID: 1, AppHash: "test-hash", DCList: fake.DCList(), Resolver: fake.Resolver(), PublicKeys: fake.PublicKeys()}})
			aliceID := c.Tenant(t, "alice", nil)
			c.Tenant(t, "bob", nil)
			alice, _, err := c.App.CreateToken(ctx, "test", "alice", "laptop", false)
			require.NoError(t, err)
			bob, _, err := c.App.CreateToken(ctx, "test", "bob", "laptop", false)
			require.NoError(t, err)
			root, _, err := c.App.CreateToken(ctx, "test", "alice", "ops", true)
			require.NoError(t, err)
			srv := httptest.NewServer(newJoinHandler(c))
			t.Cleanup(srv.Close)
			do := func(token, method, path, body string) (int, map[string]any) {
				t.Helper()
				return callJSON(t, srv, token, method, path, body)
			}
			res, err := c.App.AddConnection(ctx, app.AddConnectionRequest{TenantID: aliceID, Adapter: "telegram", Secret: fake.Session(t)})
			require.NoError(t, err)
			conn := res.Connection.ID.String()

			status, p := do(alice, http.MethodPost, "/v1/connections/"+conn+"/join", `{"invite": "https://t.me/+HarbourInvite01"}`)
			require.Equal(t, http.StatusForbidden, status, p)
			require.Contains(t, p["detail"], "account_join_enabled")
			status, _ = do(root, http.MethodPut, "/v1/admin/config/account_join_enabled", `{"value": "true"}`)
			require.Equal(t, http.StatusOK, status)

			for _, bad := range []struct{ body, detail string }{
				{`{}`, "give the invite link"},
				{`{"invite": "https://t.me/durov"}`, "not a Telegram invite link"},
				{`{"invite": "https://t.me/+NobodyKnows01"}`, "does not know this invite link"},
				{`{"invite": "x", "extra": 1}`, "extra"},
			} {
				status, p := do(alice, http.MethodPost, "/v1/connections/"+conn+"/join", bad.body)
				require.Equal(t, http.StatusBadRequest, status, bad.body)
				require.Contains(t, p["detail"], bad.detail, bad.body)
			}

			status, r := do(alice, http.MethodPost, "/v1/connections/"+conn+"/join", `{"invite": "https://t.me/+HarbourInvite01"}`)
			require.Equal(t, http.StatusCreated, status, r)
			require.Equal(t, "pending", r["state"])
			require.Equal(t, "Harbour Watch", r["title"])
			require.Equal(t, "https://t.me/+Harb…01", r["invite"], "the code masked")
			id := r["id"].(string)

			status, _ = do(bob, http.MethodGet, "/v1/joins/"+id, "")
			require.Equal(t, http.StatusNotFound, status)
			status, list := do(bob, http.MethodGet, "/v1/joins", "")
			require.Equal(t, http.StatusOK, status)
			require.Empty(t, list["items"])
			status, _ = do(bob, http.MethodPost, "/v1/connections/"+conn+"/join", `{"invite": "https://t.me/+HarbourInvite01"}`)
			require.Equal(t, http.StatusNotFound, status, "not Bob's connection")
			status, _ = do(alice, http.MethodPost, "/v1/admin/joins/"+id+"/approve", "")
			require.Equal(t, http.StatusForbidden, status, "a tenant token approves nothing")
			require.False(t, fake.Member(5550001))

			status, all := do(root, http.MethodGet, "/v1/admin/joins?state=pending", "")
			require.Equal(t, http.StatusOK, status)
			require.Len(t, all["items"], 1)
			status, got := do(root, http.MethodPost, "/v1/admin/joins/"+id+"/approve", "")
			require.Equal(t, http.StatusOK, status, got)
			require.Equal(t, "joined", got["state"])
			require.Equal(t, "https://t.me/c/5550001", got["channel_url"])
			status, got = do(alice, http.MethodGet, "/v1/joins/"+id, "")
			require.Equal(t, http.StatusOK, status)
			require.Equal(t, "joined", got["state"])
			status, _ = do(root, http.MethodPost, "/v1/admin/joins/"+id+"/deny", `{"reason": "late"}`)
			require.Equal(t, http.StatusConflict, status)

			// A rate limit: 503 with Retry-After, still pending.
			_, busy := do(alice, http.MethodPost, "/v1/connections/"+conn+"/join", `{"invite": "https://t.me/+BusyInvite001"}`)
			fake.Fail(tg.MessagesImportChatInviteRequestTypeID, testkit.ErrFloodWait3)
			status, p = do(root, http.MethodPost, "/v1/admin/joins/"+busy["id"].(string)+"/approve", "")
			require.Equal(t, http.StatusServiceUnavailable, status, p)
			_, got = do(alice, http.MethodGet, "/v1/joins/"+busy["id"].(string), "")
			require.Equal(t, "pending", got["state"])
			status, got = do(root, http.MethodPost, "/v1/admin/joins/"+busy["id"].(string)+"/deny", `{"reason": "not a source we archive"}`)
			require.Equal(t, http.StatusOK, status, got)
			require.Equal(t, "denied", got["state"])
			require.Equal(t, "not a source we archive", got["reason"])
		})
	}
}

func newJoinHandler(c *testcore.Core) http.Handler {
	return httpapi.NewHandler(httpapi.Deps{App: c.App, Admin: c.App})
}
