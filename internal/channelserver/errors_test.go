package channelserver

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	adapterv1 "github.com/monitorhq/monitor/api/adapter/v1"
	"github.com/monitorhq/monitor/internal/adapterapi"
	"github.com/monitorhq/monitor/internal/app"
	"github.com/monitorhq/monitor/internal/channelapi"
)

// TestAppErrorsMapToTheWireOnce pins the one mapping of app's errors to
// the protocol's answers: the status, the code the channel branches on,
// the message it shows, and when to retry.
func TestAppErrorsMapToTheWireOnce(t *testing.T) {
	t.Parallel()
	in := time.Now().Add(90 * time.Second)
	quota := &app.QuotaError{UsedBytes: 10, QuotaBytes: 10, AddBytes: 5}
	for _, tc := range []struct {
		name string
		err  error
		want channelapi.Error
	}{
		{"lease lost", fmt.Errorf("claim: %w", app.ErrLeaseLost),
			channelapi.Error{Status: http.StatusConflict, Code: channelapi.CodeLeaseLost, Message: "claim: lease lost"}},
		{"forbidden", app.ErrForbidden,
			channelapi.Error{Status: http.StatusForbidden, Code: channelapi.CodeForbidden, Message: "forbidden"}},
		{"tenant not active", app.ErrTenantNotActive,
			channelapi.Error{Status: http.StatusForbidden, Code: channelapi.CodeTenantNotActive, Message: "tenant not active"}},
		{"quota, with its numbers", fmt.Errorf("save: %w", quota),
			channelapi.Error{Status: http.StatusForbidden, Code: channelapi.CodeQuota, Message: quota.Error()}},
		{"quota", app.ErrQuota,
			channelapi.Error{Status: http.StatusForbidden, Code: channelapi.CodeQuota, Message: "storage quota exceeded"}},
		{"a rate limit says when it lifts", &app.LimitError{Limit: "daily", Max: 3, ResetAt: &in},
			channelapi.Error{Status: http.StatusTooManyRequests, Code: channelapi.CodeLimit, RetryAfterSeconds: 90}},
		{"a limit that lifts when something happens", &app.LimitError{Limit: "concurrent", Max: 2},
			channelapi.Error{Status: http.StatusTooManyRequests, Code: channelapi.CodeLimit}},
		{"the tenant's status is not a rate limit", &app.LimitError{Limit: "pending"},
			channelapi.Error{Status: http.StatusForbidden, Code: channelapi.CodeTenantNotActive}},
		{"the link's fault", &adapterapi.Error{Code: adapterv1.ErrorCode_ERROR_CODE_NEEDS_ACCOUNT, Message: "sign in"},
			channelapi.Error{Status: http.StatusUnprocessableEntity, Code: channelapi.CodeUnsupported, Message: "sign in"}},
		{"a passing failure", &adapterapi.Error{Code: adapterv1.ErrorCode_ERROR_CODE_RATE_LIMITED, Message: "slow down", Retryable: true, RetryAfter: 1500 * time.Millisecond},
			channelapi.Error{Status: http.StatusServiceUnavailable, Code: channelapi.CodeUnavailable, Message: "slow down", RetryAfterSeconds: 2}},
		{"the adapter's own failure", &adapterapi.Error{Code: adapterv1.ErrorCode_ERROR_CODE_BAD_RESPONSE, Message: "broken"},
			channelapi.Error{Status: http.StatusBadGateway, Code: channelapi.CodeInternal, Message: "broken"}},
		{"invalid", fmt.Errorf("limit must be from 1 to 20: %w", app.ErrInvalid),
			channelapi.Error{Status: http.StatusBadRequest, Code: channelapi.CodeInvalid, Message: "limit must be from 1 to 20: invalid input"}},
		{"an idempotency key reused", app.ErrIdempotencyMismatch,
			channelapi.Error{Status: http.StatusBadRequest, Code: channelapi.CodeInvalid, Message: "idempotency key reused"}},
		{"not now", fmt.Errorf("this collection was stopped: %w", app.ErrConflict),
			channelapi.Error{Status: http.StatusConflict, Code: channelapi.CodeConflict, Message: "this collection was stopped: conflict"}},
		{"not found", app.ErrNotFound,
			channelapi.Error{Status: http.StatusNotFound, Code: channelapi.CodeNotFound, Message: "not found"}},
		{"the server's own answer", invalid("work id %q is not a UUID", "x"),
			channelapi.Error{Status: http.StatusBadRequest, Code: channelapi.CodeInvalid, Message: `work id "x" is not a UUID`}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var got *channelapi.Error
			require.ErrorAs(t, wireError(tc.err), &got)
			require.Equal(t, tc.want, *got)
		})
	}

	for _, err := range []error{context.Canceled, fmt.Errorf("read: %w", context.Canceled), errors.New("disk on fire"), app.ErrUnauthorized} {
		require.Same(t, err, wireError(err), "%v is answered as an internal error, or not at all", err)
	}
}
