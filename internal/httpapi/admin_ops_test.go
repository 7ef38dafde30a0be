package httpapi_test

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/google/uuid"
	"github.com/stretchr/testify/require"

	"github.com/monitorhq/monitor/internal/app"
	"github.com/monitorhq/monitor/internal/httpapi"
	"github.com/monitorhq/monitor/internal/store"
	"github.com/monitorhq/monitor/internal/store/storetest"
)

const (
	opsAdminToken = "mon_admin_token_for_the_operations_api_tests_000"
	opsUserToken  = "mon_plain_token_for_the_operations_api_tests_0000"
	opsMasterKey  = "0123456789abcdef0123456789abcdef"
)

// opsServer is the REST API on a real store with one tenant that holds an
// admin token and a plain one.
type opsServer struct {
	app     *app.App
	handler http.Handler
}

func newOpsServer(t *testing.T, st *store.Store) *opsServer {
	t.Helper()
	a := app.New(app.Deps{Store: st, Log: storetest.Logger(t), MasterKey: opsMasterKey})
	tenantID := uuid.Must(uuid.NewV7())
	ctx := store.WithTenant(context.Background(), tenantID)
	require.NoError(t, st.InTx(ctx, func(tx *store.Tx) error {
		if _, err := tx.TenantInsert(ctx, store.Tenant{ID: tenantID, Name: "ops", Kind: store.TenantManaged, Status: store.TenantEnabled}); err != nil {
			return err
		}
		if _, err := tx.TokenInsert(ctx, store.Token{TenantID: tenantID, Name: "admin", Digest: app.TokenDigest(opsAdminToken), Admin: true}); err != nil {
			return err
		}
		_, err := tx.TokenInsert(ctx, store.Token{TenantID: tenantID, Name: "user", Digest: app.TokenDigest(opsUserToken)})
		return err
	}))
	return &opsServer{app: a, handler: httpapi.NewHandler(httpapi.Deps{App: a, Admin: a, Log: storetest.Logger(t)})}
}

func (s *opsServer) do(t *testing.T, token, method, path, body string) (int, map[string]any) {
	t.Helper()
	var r *bytes.Reader
	if body != "" {
		r = bytes.NewReader([]byte(body))
	} else {
		r = bytes.NewReader(nil)
	}
	req := httptest.NewRequest(method, path, r)
	req.Header.Set("Authorization", "Bearer "+token)
	rec := httptest.NewRecorder()
	s.handler.ServeHTTP(rec, req)
	var m map[string]any
	require.NoError(t, json.Unmarshal(rec.Body.Bytes(), &m), rec.Body.String())
	return rec.Code, m
}

// opsRoutes are the operator routes this file's API adds.
var opsRoutes = []struct{ method, path, body string }{
	{"GET", "/v1/admin/config", ""},
	{"PUT", "/v1/admin/config/timezone", `{"value": "Asia/Shanghai"}`},
	{"GET", "/v1/admin/events", ""},
	{"POST", "/v1/admin/events/queue.backlog/resolve", ""},
	{"GET", "/v1/admin/errors", ""},
}

func TestOpsAdminNeedsAnAdminToken(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, st *store.Store) {
		s := newOpsServer(t, st)
		for _, rt := range opsRoutes {
			code, p := s.do(t, opsUserToken, rt.method, rt.path, rt.body)
			require.Equal(t, http.StatusForbidden, code, rt.path)
			require.Equal(t, httpapi.ProblemForbidden, p["type"], rt.path)

			code, p = s.do(t, "", rt.method, rt.path, rt.body)
			require.Equal(t, http.StatusUnauthorized, code, rt.path)
			require.Equal(t, httpapi.ProblemUnauthorized, p["type"], rt.path)
		}
		// Nothing changed.
		v, err := s.app.Setting(context.Background(), "timezone")
		require.NoError(t, err)
		require.False(t, v.Set)
	})
}

func TestOpsAdminConfig(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, st *store.Store) {
		s := newOpsServer(t, st)
		code, body := s.do(t, opsAdminToken, "GET", "/v1/admin/config", "")
		require.Equal(t, http.StatusOK, code)
		items := body["items"].([]any)
		require.NotEmpty(t, items)
		keys := map[string]map[string]any{}
		for _, it := range items {
			m := it.(map[string]any)
			keys[m["key"].(string)] = m
		}
		require.Equal(t, "30", keys["error_log_retention_days"]["value"])
		require.Equal(t, true, keys["telegram_token"]["secret"])

		code, body = s.do(t, opsAdminToken, "PUT", "/v1/admin/config/error_log_retention_days", `{"value": "14"}`)
		require.Equal(t, http.StatusOK, code, body)
		require.Equal(t, "14", body["value"])
		require.Equal(t, true, body["set"])

		code, body = s.do(t, opsAdminToken, "PUT", "/v1/admin/config/error_log_retention_days", `{"value": "0"}`)
		require.Equal(t, http.StatusBadRequest, code)
		require.Equal(t, httpapi.ProblemInvalidRequest, body["type"])
		code, body = s.do(t, opsAdminToken, "PUT", "/v1/admin/config/no_such_key", `{"value": "1"}`)
		require.Equal(t, http.StatusBadRequest, code)
		require.Contains(t, body["detail"], "no setting named")
		code, _ = s.do(t, opsAdminToken, "PUT", "/v1/admin/config/timezone", `{}`)
		require.Equal(t, http.StatusBadRequest, code)

		token := "123456789:AAEhBOweik9ad9r3uWk_6gSqYvLmC8T1aHk"
		code, body = s.do(t, opsAdminToken, "PUT", "/v1/admin/config/telegram_token", `{"value": "`+token+`"}`)
		require.Equal(t, http.StatusOK, code, body)
		require.Equal(t, "<redacted>", body["value"])
		code, body = s.do(t, opsAdminToken, "GET", "/v1/admin/config", "")
		require.Equal(t, http.StatusOK, code)
		raw, _ := json.Marshal(body)
		require.NotContains(t, string(raw), token[10:])

		// The audit entry names the token that made the change.
		entries, err := s.app.Audit(context.Background(), 10)
		require.NoError(t, err)
		require.NotEmpty(t, entries)
		require.Equal(t, "config.set", entries[0].Action)
		require.True(t, strings.HasPrefix(entries[0].Actor, "token:"), entries[0].Actor)
	})
}

func TestOpsAdminEventsAndErrors(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, st *store.Store) {
		s := newOpsServer(t, st)
		ctx := context.Background()
		require.NoError(t, s.app.RecordEvent(ctx, app.EventQueueBacklog, app.SeverityWarn, "the oldest capture job has waited 6m"))
		require.NoError(t, s.app.RecordEvent(ctx, app.EventQueueBacklog, app.SeverityWarn, "the oldest capture job has waited 7m"))

		code, body := s.do(t, opsAdminToken, "GET", "/v1/admin/events", "")
		require.Equal(t, http.StatusOK, code)
		items := body["items"].([]any)
		require.Len(t, items, 1)
		ev := items[0].(map[string]any)
		require.Equal(t, "queue.backlog", ev["key"])
		require.Equal(t, float64(2), ev["count"])
		require.Equal(t, "open", ev["status"])

		code, body = s.do(t, opsAdminToken, "POST", "/v1/admin/events/queue.backlog/resolve", "")
		require.Equal(t, http.StatusOK, code, body)
		require.Equal(t, "resolved", body["status"])
		code, body = s.do(t, opsAdminToken, "GET", "/v1/admin/events", "")
		require.Equal(t, http.StatusOK, code)
		require.Empty(t, body["items"])
		code, body = s.do(t, opsAdminToken, "GET", "/v1/admin/events?status=all", "")
		require.Equal(t, http.StatusOK, code)
		require.Len(t, body["items"], 1)
		code, body = s.do(t, opsAdminToken, "GET", "/v1/admin/events?status=closed", "")
		require.Equal(t, http.StatusBadRequest, code)
		require.Equal(t, httpapi.ProblemInvalidRequest, body["type"])
		code, body = s.do(t, opsAdminToken, "POST", "/v1/admin/events/no.such/resolve", "")
		require.Equal(t, http.StatusNotFound, code)
		require.Equal(t, httpapi.ProblemNotFound, body["type"])

		capture := uuid.Must(uuid.NewV7())
		s.app.LogError(ctx, app.ErrorRecord{Source: app.SourceDownload, Stage: "download", Message: "media download failed",
			Detail: "the media host answered 404 Not Found", Context: map[string]string{"asset_id": "a1"}, CaptureID: capture})
		s.app.LogError(ctx, app.ErrorRecord{Source: app.SourceCapture, Stage: "fetch", Message: "capture failed", Code: "not_found"})
		code, body = s.do(t, opsAdminToken, "GET", "/v1/admin/errors?source=download", "")
		require.Equal(t, http.StatusOK, code)
		rows := body["items"].([]any)
		require.Len(t, rows, 1)
		row := rows[0].(map[string]any)
		require.Equal(t, "download", row["source"])
		require.Equal(t, capture.String(), row["capture_id"])
		require.Equal(t, map[string]any{"asset_id": "a1"}, row["context"])
		code, body = s.do(t, opsAdminToken, "GET", "/v1/admin/errors?limit=1", "")
		require.Equal(t, http.StatusOK, code)
		require.Len(t, body["items"], 1)
		code, _ = s.do(t, opsAdminToken, "GET", "/v1/admin/errors?limit=5000", "")
		require.Equal(t, http.StatusBadRequest, code)
	})
}
