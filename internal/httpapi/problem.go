package httpapi

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"math"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/monitorhq/monitor/internal/adapterapi"
	"github.com/monitorhq/monitor/internal/app"
	"github.com/monitorhq/monitor/internal/blob"
)

// Problem type URIs: the stable `type` of every problem document, so
// clients branch on them instead of on titles or details.
const (
	// ProblemUnauthorized: no bearer token, or one that is not valid (401).
	ProblemUnauthorized = "urn:monitor:problem:unauthorized"
	// ProblemInvalidRequest: the request itself is wrong; detail says how (400).
	ProblemInvalidRequest = "urn:monitor:problem:invalid-request"
	// ProblemNotFound: no such route, or nothing the tenant may see (404).
	ProblemNotFound = "urn:monitor:problem:not-found"
	// ProblemMethodNotAllowed: the path exists, the method does not (405).
	ProblemMethodNotAllowed = "urn:monitor:problem:method-not-allowed"
	// ProblemQuotaExceeded: the tenant's storage quota does not allow the save (403).
	ProblemQuotaExceeded = "urn:monitor:problem:quota-exceeded"
	// ProblemIdempotencyKeyReused: an Idempotency-Key was sent before with another request (422).
	ProblemIdempotencyKeyReused = "urn:monitor:problem:idempotency-key-reused"
	// ProblemUnsupportedLink: no adapter can archive the link as sent (422).
	ProblemUnsupportedLink = "urn:monitor:problem:unsupported-link"
	// ProblemAdapterUnavailable: the adapter cannot answer now; try again later (503).
	ProblemAdapterUnavailable = "urn:monitor:problem:adapter-unavailable"
	// ProblemAdapterError: the adapter failed in a way retrying will not fix (502).
	ProblemAdapterError = "urn:monitor:problem:adapter-error"
	// ProblemRangeNotSatisfiable: the Range header selects nothing of the media (416).
	ProblemRangeNotSatisfiable = "urn:monitor:problem:range-not-satisfiable"
	// ProblemNotReady: the process cannot do its work yet (503, /readyz).
	ProblemNotReady = "urn:monitor:problem:not-ready"
	// ProblemForbidden: the token may not do this, e.g. an admin operation (403).
	ProblemForbidden = "urn:monitor:problem:forbidden"
	// ProblemLimitExceeded: a tenant limit (interval, daily, concurrent) refuses the submit for now (429).
	ProblemLimitExceeded = "urn:monitor:problem:limit-exceeded"
	// ProblemTenantNotEnabled: the tenant awaits approval or is disabled or archived (403).
	ProblemTenantNotEnabled = "urn:monitor:problem:tenant-not-enabled"
	// ProblemInternal: a server fault; the detail is generic, the log has the cause (500).
	ProblemInternal = "urn:monitor:problem:internal"
	// ProblemConflict: the request does not fit the current state.
	ProblemConflict = "urn:monitor:problem:conflict"
)

// Problem is an RFC 9457 problem document, the body of every error answer.
// The extension members are set only by the problems that define them.
type Problem struct {
	Type   string `json:"type"`
	Title  string `json:"title"`
	Status int    `json:"status"`
	Detail string `json:"detail,omitempty"`

	// Code is the adapter's error code in lowercase without its
	// ERROR_CODE_ prefix, e.g. "invalid_url" (adapter problems).
	Code string `json:"code,omitempty"`
	// UsedBytes, ReservedBytes and QuotaBytes are the tenant's storage
	// accounting (quota-exceeded).
	UsedBytes     *int64 `json:"used_bytes,omitempty"`
	ReservedBytes *int64 `json:"reserved_bytes,omitempty"`
	QuotaBytes    *int64 `json:"quota_bytes,omitempty"`

	// Limit, Max and ResetAt describe the refusing limit (limit-exceeded,
	// tenant-not-enabled).
	Limit   string     `json:"limit,omitempty"`
	Max     *int       `json:"max,omitempty"`
	ResetAt *time.Time `json:"reset_at,omitempty"`

	// header holds response headers that belong to the problem
	// (WWW-Authenticate, Retry-After).
	header http.Header
}

// internalDetail is all a client learns of a server fault; the cause goes
// to the log.
const internalDetail = "internal error; see the server log"

// unauthorizedDetail answers every failed authentication alike, so a caller
// learns nothing about why a token was refused.
const unauthorizedDetail = "send a valid token as `Authorization: Bearer <token>`; an operator creates one with `monitor admin token create --tenant NAME`"

func unauthorized() Problem {
	p := Problem{Type: ProblemUnauthorized, Title: "Unauthorized", Status: http.StatusUnauthorized, Detail: unauthorizedDetail, header: http.Header{}}
	p.header.Set("WWW-Authenticate", "Bearer")
	return p
}

func invalidRequest(detail string) Problem {
	return Problem{Type: ProblemInvalidRequest, Title: "Invalid request", Status: http.StatusBadRequest, Detail: detail}
}

func notFoundProblem(detail string) Problem {
	return Problem{Type: ProblemNotFound, Title: "Not found", Status: http.StatusNotFound, Detail: detail}
}

// problemFor maps an error of the business layer to its answer. ok is false
// for a cancelled request, which gets no answer: the client is gone.
func problemFor(err error) (p Problem, ok bool) {
	var (
		quota *app.QuotaError
		limit *app.LimitError
		aerr  *adapterapi.Error
	)
	switch {
	case errors.Is(err, context.Canceled):
		return Problem{}, false
	case errors.Is(err, app.ErrUnauthorized):
		return unauthorized(), true
	case errors.As(err, &quota):
		return Problem{Type: ProblemQuotaExceeded, Title: "Storage quota exceeded", Status: http.StatusForbidden,
			Detail: quota.Error(), UsedBytes: &quota.UsedBytes, ReservedBytes: &quota.ReservedBytes, QuotaBytes: &quota.QuotaBytes}, true
	case errors.Is(err, app.ErrQuota):
		return Problem{Type: ProblemQuotaExceeded, Title: "Storage quota exceeded", Status: http.StatusForbidden, Detail: err.Error()}, true
	case errors.As(err, &limit):
		return limitProblem(limit), true
	case errors.Is(err, app.ErrIdempotencyMismatch):
		return Problem{Type: ProblemIdempotencyKeyReused, Title: "Idempotency key reused", Status: http.StatusUnprocessableEntity, Detail: err.Error()}, true
	case errors.As(err, &aerr):
		return adapterProblem(aerr), true
	case errors.Is(err, blob.ErrInvalidRange):
		return Problem{Type: ProblemRangeNotSatisfiable, Title: "Range not satisfiable", Status: http.StatusRequestedRangeNotSatisfiable, Detail: err.Error()}, true
	case errors.Is(err, app.ErrInvalid):
		return invalidRequest(err.Error()), true
	case errors.Is(err, app.ErrNotFound):
		return notFoundProblem(err.Error()), true
	case errors.Is(err, app.ErrConflict):
		return Problem{Type: ProblemConflict, Title: "Conflict", Status: http.StatusConflict, Detail: err.Error()}, true
	case errors.Is(err, app.ErrForbidden):
		return Problem{Type: ProblemForbidden, Title: "Forbidden", Status: http.StatusForbidden, Detail: err.Error()}, true
	}
	return Problem{Type: ProblemInternal, Title: "Internal error", Status: http.StatusInternalServerError, Detail: internalDetail}, true
}

// limitProblem answers a refused submit: 403 for the tenant's status, 429
// with Retry-After for a rate limit.
func limitProblem(e *app.LimitError) Problem {
	if e.Status() {
		return Problem{Type: ProblemTenantNotEnabled, Title: "Tenant not enabled", Status: http.StatusForbidden, Detail: e.Error(), Limit: e.Limit}
	}
	p := Problem{Type: ProblemLimitExceeded, Title: "Limit reached", Status: http.StatusTooManyRequests, Detail: e.Error(),
		Limit: e.Limit, Max: &e.Max, ResetAt: e.ResetAt}
	if e.ResetAt != nil {
		p.header = http.Header{}
		p.header.Set("Retry-After", strconv.FormatInt(int64(math.Ceil(max(time.Until(*e.ResetAt).Seconds(), 1))), 10))
	}
	return p
}

// adapterProblem maps a typed adapter failure by app's classification: the
// link's fault (422), a passing one (503) or the adapter's (502).
func adapterProblem(e *adapterapi.Error) Problem {
	code := strings.ToLower(strings.TrimPrefix(e.Code.String(), "ERROR_CODE_"))
	switch app.AdapterFaultOf(e) {
	case app.FaultLink:
		return Problem{Type: ProblemUnsupportedLink, Title: "Unsupported link", Status: http.StatusUnprocessableEntity, Detail: e.Error(), Code: code}
	case app.FaultPassing:
		p := Problem{Type: ProblemAdapterUnavailable, Title: "Adapter unavailable", Status: http.StatusServiceUnavailable, Detail: e.Error(), Code: code}
		if e.RetryAfter > 0 {
			p.header = http.Header{}
			p.header.Set("Retry-After", strconv.FormatInt(int64(math.Ceil(e.RetryAfter.Seconds())), 10))
		}
		return p
	}
	return Problem{Type: ProblemAdapterError, Title: "Adapter error", Status: http.StatusBadGateway, Detail: e.Error(), Code: code}
}

// writeError answers with the problem err maps to. Server faults are logged
// with the request's method and path (never its headers, which carry the
// token); a cancelled request is not answered.
func (d Deps) writeError(w http.ResponseWriter, r *http.Request, err error) {
	p, ok := problemFor(err)
	if !ok {
		d.Log.DebugContext(r.Context(), "request cancelled", slog.String("method", r.Method), slog.String("path", r.URL.Path))
		return
	}
	switch {
	case p.Status == http.StatusInternalServerError:
		d.Log.ErrorContext(r.Context(), "request failed", slog.String("method", r.Method), slog.String("path", r.URL.Path),
			slog.Int("status", p.Status), slog.Any("err", err))
	case p.Status > http.StatusInternalServerError:
		d.Log.WarnContext(r.Context(), "adapter failed", slog.String("method", r.Method), slog.String("path", r.URL.Path),
			slog.Int("status", p.Status), slog.Any("err", err))
	}
	writeProblem(w, p)
}

// writeProblem answers with a problem document.
func writeProblem(w http.ResponseWriter, p Problem) {
	for k, v := range p.header {
		w.Header()[k] = v
	}
	w.Header().Set("Content-Type", "application/problem+json")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(p.Status)
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false) // JSON, never embedded in HTML: keep details readable
	_ = enc.Encode(p)
}

// writeJSON answers with a JSON document.
// encodeJSON is v as writeJSON writes it.
func encodeJSON(v any) ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

// writeJSONBytes writes a JSON answer encoded before (encodeJSON).
func writeJSONBytes(w http.ResponseWriter, status int, body []byte) {
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	w.Header().Set("Content-Length", strconv.Itoa(len(body)))
	w.WriteHeader(status)
	_, _ = w.Write(body)
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(status)
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(v)
}
