package httpapi_test

import (
	"net/http"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/monitorhq/monitor/internal/store"
	"github.com/monitorhq/monitor/internal/store/storetest"
)

// TestAdminTenantAnswers: an unknown tenant is 404 on every operation that
// names one, a second tenant of a name 409, and the details say what to do.
func TestAdminTenantAnswers(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, st *store.Store) {
		s := newOpsServer(t, st)
		for _, rt := range []struct{ method, path, body string }{
			{"GET", "/v1/admin/tenants/nobody", ""},
			{"PATCH", "/v1/admin/tenants/nobody", `{"status": "disabled"}`},
			{"POST", "/v1/admin/tenants/nobody/reset-day", ""},
			{"GET", "/v1/admin/tenants/nobody/tokens", ""},
			{"POST", "/v1/admin/tenants/nobody/tokens", `{"name": "ci"}`},
		} {
			code, p := s.do(t, opsAdminToken, rt.method, rt.path, rt.body)
			require.Equal(t, http.StatusNotFound, code, "%s %s: %v", rt.method, rt.path, p)
			require.Equal(t, "urn:monitor:problem:not-found", p["type"], "%s %s", rt.method, rt.path)
			require.Equal(t, "no tenant named \"nobody\"; create it with `monitor admin tenant create nobody`", p["detail"], "%s %s", rt.method, rt.path)
		}

		code, p := s.do(t, opsAdminToken, "POST", "/v1/admin/tenants", `{"name": "carol"}`)
		require.Equal(t, http.StatusCreated, code, "%v", p)
		code, p = s.do(t, opsAdminToken, "POST", "/v1/admin/tenants", `{"name": "carol"}`)
		require.Equal(t, http.StatusConflict, code, "%v", p)
		require.Equal(t, "urn:monitor:problem:conflict", p["type"])
		require.Equal(t, `tenant "carol" already exists; choose another name`, p["detail"])
		code, p = s.do(t, opsAdminToken, "POST", "/v1/admin/tenants", `{"name": "ops"}`)
		require.Equal(t, http.StatusConflict, code, "the tenant of the admin's own token: %v", p)
	})
}

// TestNotEnabledTenantToken: a genuine token of a tenant that is not
// enabled gets 403 tenant-not-enabled naming the status, on plain and admin
// routes alike; a revoked or unknown token still gets 401.
func TestNotEnabledTenantToken(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, st *store.Store) {
		s := newOpsServer(t, st)
		code, p := s.do(t, opsAdminToken, "POST", "/v1/admin/tenants", `{"name": "dave"}`)
		require.Equal(t, http.StatusCreated, code, "%v", p)
		code, p = s.do(t, opsAdminToken, "POST", "/v1/admin/tenants/dave/tokens", `{"name": "cli"}`)
		require.Equal(t, http.StatusCreated, code, "%v", p)
		dave := p["token"].(string)
		code, _ = s.do(t, dave, "GET", "/v1/usage", "")
		require.Equal(t, http.StatusOK, code)

		for _, status := range []string{"disabled", "pending", "archived"} {
			code, p = s.do(t, opsAdminToken, "PATCH", "/v1/admin/tenants/dave", `{"status": "`+status+`"}`)
			require.Equal(t, http.StatusOK, code, "%v", p)
			code, p = s.do(t, dave, "GET", "/v1/usage", "")
			require.Equal(t, http.StatusForbidden, code, "%s: %v", status, p)
			require.Equal(t, "urn:monitor:problem:tenant-not-enabled", p["type"])
			require.Equal(t, status, p["limit"])
			require.NotEmpty(t, p["detail"])
		}

		code, p = s.do(t, "mon_not_a_token_anyone_was_given_0000000000000", "GET", "/v1/usage", "")
		require.Equal(t, http.StatusUnauthorized, code, "%v", p)
		require.Equal(t, "urn:monitor:problem:unauthorized", p["type"])
	})
}

// PATCH {"admin": true} marks a tenant as an operator, as the answer and a
// later GET say; a non-boolean is refused.
func TestAdminMarksATenantAsOperator(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, st *store.Store) {
		s := newOpsServer(t, st)
		code, p := s.do(t, opsAdminToken, "POST", "/v1/admin/tenants", `{"name": "erin"}`)
		require.Equal(t, http.StatusCreated, code, "%v", p)
		require.Equal(t, false, p["admin"])
		code, p = s.do(t, opsAdminToken, "PATCH", "/v1/admin/tenants/erin", `{"admin": true}`)
		require.Equal(t, http.StatusOK, code, "%v", p)
		require.Equal(t, true, p["admin"])
		code, p = s.do(t, opsAdminToken, "GET", "/v1/admin/tenants/erin", "")
		require.Equal(t, http.StatusOK, code, "%v", p)
		require.Equal(t, true, p["admin"])
		code, p = s.do(t, opsAdminToken, "PATCH", "/v1/admin/tenants/erin", `{"admin": "yes"}`)
		require.Equal(t, http.StatusBadRequest, code, "%v", p)
	})
}
