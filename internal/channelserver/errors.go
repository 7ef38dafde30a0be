package channelserver

import (
	"context"
	"errors"
	"net/http"
	"time"

	"github.com/monitorhq/monitor/internal/adapterapi"
	"github.com/monitorhq/monitor/internal/app"
	"github.com/monitorhq/monitor/internal/channelapi"
)

// wireError maps an error of the business layer to its answer, a
// *channelapi.Error, as httpapi's problemFor does for the REST API.
// Messages are the app's, written for the person who sent the update, so
// the channel may show them as they are. Errors it does not know stay as
// they are, and so do the server's own answers and a cancelled request:
// fail answers the rest as an internal error, or not at all when the
// channel is gone.
func wireError(err error) error {
	var (
		wire  *channelapi.Error
		quota *app.QuotaError
		limit *app.LimitError
		aerr  *adapterapi.Error
		query *app.QueryError
	)
	switch {
	case errors.As(err, &wire), errors.Is(err, context.Canceled):
		return err
	case errors.Is(err, app.ErrLeaseLost):
		return answer(http.StatusConflict, channelapi.CodeLeaseLost, err.Error())
	case errors.Is(err, app.ErrForbidden):
		return answer(http.StatusForbidden, channelapi.CodeForbidden, err.Error())
	case errors.Is(err, app.ErrTenantNotActive):
		return answer(http.StatusForbidden, channelapi.CodeTenantNotActive, err.Error())
	case errors.As(err, &quota):
		return answer(http.StatusForbidden, channelapi.CodeQuota, quota.Error())
	case errors.Is(err, app.ErrQuota):
		return answer(http.StatusForbidden, channelapi.CodeQuota, err.Error())
	case errors.As(err, &limit):
		return limitError(limit)
	case errors.As(err, &aerr):
		return adapterError(aerr)
	case errors.As(err, &query):
		w := answer(http.StatusBadRequest, channelapi.CodeInvalid, query.Error())
		w.Query = queryProblem(query)
		return w
	case errors.Is(err, app.ErrInvalid), errors.Is(err, app.ErrIdempotencyMismatch):
		return answer(http.StatusBadRequest, channelapi.CodeInvalid, err.Error())
	case errors.Is(err, app.ErrNotFound):
		return answer(http.StatusNotFound, channelapi.CodeNotFound, err.Error())
	case errors.Is(err, app.ErrConflict):
		return answer(http.StatusConflict, channelapi.CodeConflict, err.Error())
	}
	return err
}

func answer(status int, code, msg string) *channelapi.Error {
	return &channelapi.Error{Status: status, Code: code, Message: msg}
}

// limitError answers a refused submit: 403 for the tenant's status, 429
// with the seconds until the limit lifts for a rate limit.
func limitError(e *app.LimitError) *channelapi.Error {
	if e.Status() {
		return answer(http.StatusForbidden, channelapi.CodeTenantNotActive, e.Error())
	}
	w := answer(http.StatusTooManyRequests, channelapi.CodeLimit, e.Error())
	if e.ResetAt != nil {
		w.RetryAfterSeconds = max(1, int(time.Until(*e.ResetAt).Seconds()+0.999))
	}
	return w
}

// adapterError maps an adapter's failure by app's classification: the
// link's fault, a passing one, or the adapter's own.
func adapterError(e *adapterapi.Error) *channelapi.Error {
	switch app.AdapterFaultOf(e) {
	case app.FaultLink:
		return answer(http.StatusUnprocessableEntity, channelapi.CodeUnsupported, e.Error())
	case app.FaultPassing:
		w := answer(http.StatusServiceUnavailable, channelapi.CodeUnavailable, e.Error())
		w.RetryAfterSeconds = int(e.RetryAfter.Seconds() + 0.999)
		return w
	}
	return answer(http.StatusBadGateway, channelapi.CodeInternal, e.Error())
}
