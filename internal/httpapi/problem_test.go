package httpapi

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	adapterv1 "github.com/monitorhq/monitor/api/adapter/v1"
	"github.com/monitorhq/monitor/internal/adapterapi"
	"github.com/monitorhq/monitor/internal/app"
	"github.com/monitorhq/monitor/internal/blob"
	"github.com/stretchr/testify/require"
)

func TestProblemFor(t *testing.T) {
	t.Parallel()
	quota := &app.QuotaError{UsedBytes: 900, ReservedBytes: 50, QuotaBytes: 1000, AddBytes: 100}
	for _, tc := range []struct {
		name    string
		err     error
		status  int
		typ     string
		detail  string            // "" = not checked
		code    string            // adapter code
		headers map[string]string // expected problem headers
	}{
		{"unauthorized", fmt.Errorf("%w: token revoked", app.ErrUnauthorized), 401, ProblemUnauthorized,
			unauthorizedDetail, "", map[string]string{"WWW-Authenticate": "Bearer"}},
		{"tenant not enabled", fmt.Errorf("authenticate: %w", &app.LimitError{Limit: "disabled"}), 403, ProblemTenantNotEnabled,
			"", "", nil},
		{"conflict", requestErrorf(app.ErrConflict, `tenant "bob" already exists; choose another name`), 409, ProblemConflict,
			`tenant "bob" already exists; choose another name`, "", nil},
		{"invalid", requestErrorf(app.ErrInvalid, "url is required"), 400, ProblemInvalidRequest,
			"url is required", "", nil},
		{"not found", requestErrorf(app.ErrNotFound, "no collection with id x"), 404, ProblemNotFound,
			"no collection with id x", "", nil},
		{"quota", fmt.Errorf("submit: %w", quota), 403, ProblemQuotaExceeded, quota.Error(), "", nil},
		{"quota sentinel", app.ErrQuota, 403, ProblemQuotaExceeded, "storage quota exceeded", "", nil},
		{"idempotency", app.ErrIdempotencyMismatch, 422, ProblemIdempotencyKeyReused, "idempotency key reused", "", nil},
		{"invalid url", &adapterapi.Error{Code: adapterv1.ErrorCode_ERROR_CODE_INVALID_URL, Message: "not a web link"}, 422,
			ProblemUnsupportedLink, "not a web link", "invalid_url", nil},
		{"not this adapter", fmt.Errorf("resolve: %w", &adapterapi.Error{Code: adapterv1.ErrorCode_ERROR_CODE_NOT_THIS_ADAPTER, Message: "no adapter handles links to example.com"}), 422,
			ProblemUnsupportedLink, "no adapter handles links to example.com", "not_this_adapter", nil},
		{"unsupported", &adapterapi.Error{Adapter: "x", Code: adapterv1.ErrorCode_ERROR_CODE_UNSUPPORTED, Message: "lists come later"}, 422,
			ProblemUnsupportedLink, "adapter x: lists come later", "unsupported", nil},
		{"needs account", &adapterapi.Error{Code: adapterv1.ErrorCode_ERROR_CODE_NEEDS_ACCOUNT, Message: "connect an account"}, 422,
			ProblemUnsupportedLink, "connect an account", "needs_account", nil},
		{"unavailable", &adapterapi.Error{Code: adapterv1.ErrorCode_ERROR_CODE_UNAVAILABLE, Message: "down", Retryable: true}, 503,
			ProblemAdapterUnavailable, "down", "unavailable", map[string]string{"Retry-After": ""}},
		{"rate limited", &adapterapi.Error{Code: adapterv1.ErrorCode_ERROR_CODE_RATE_LIMITED, Message: "slow down", Retryable: true, RetryAfter: 1500 * time.Millisecond}, 503,
			ProblemAdapterUnavailable, "slow down", "rate_limited", map[string]string{"Retry-After": "2"}},
		{"bad response", &adapterapi.Error{Code: adapterv1.ErrorCode_ERROR_CODE_BAD_RESPONSE, Message: "garbage"}, 502,
			ProblemAdapterError, "garbage", "bad_response", nil},
		{"range", fmt.Errorf("blob: %w: offset 20 outside 10-byte object", blob.ErrInvalidRange), 416, ProblemRangeNotSatisfiable, "", "", nil},
		{"internal", errors.New("store: disk I/O error"), 500, ProblemInternal, internalDetail, "", nil},
		{"deadline", context.DeadlineExceeded, 500, ProblemInternal, internalDetail, "", nil},
	} {
		p, ok := problemFor(tc.err)
		require.True(t, ok, tc.name)
		require.Equal(t, tc.status, p.Status, tc.name)
		require.Equal(t, tc.typ, p.Type, tc.name)
		require.NotEmpty(t, p.Title, tc.name)
		if tc.detail != "" {
			require.Equal(t, tc.detail, p.Detail, tc.name)
		}
		require.Equal(t, tc.code, p.Code, tc.name)
		for k, v := range tc.headers {
			require.Equal(t, v, p.header.Get(k), tc.name+" "+k)
		}
		if tc.headers == nil {
			require.Empty(t, p.header, tc.name)
		}
	}

	_, ok := problemFor(fmt.Errorf("store: %w", context.Canceled))
	require.False(t, ok, "a cancelled request gets no answer")
}

func TestWriteProblemQuota(t *testing.T) {
	t.Parallel()
	p, _ := problemFor(&app.QuotaError{UsedBytes: 0, ReservedBytes: 0, QuotaBytes: 0})
	rec := httptest.NewRecorder()
	writeProblem(rec, p)
	require.Equal(t, http.StatusForbidden, rec.Code)
	require.Equal(t, "application/problem+json", rec.Header().Get("Content-Type"))
	var body map[string]any
	require.NoError(t, json.Unmarshal(rec.Body.Bytes(), &body))
	// Zero is a real value here, so the members stay present.
	require.Equal(t, map[string]any{
		"type": ProblemQuotaExceeded, "title": "Storage quota exceeded", "status": float64(403), "detail": p.Detail,
		"used_bytes": float64(0), "reserved_bytes": float64(0), "quota_bytes": float64(0),
	}, body)
}
