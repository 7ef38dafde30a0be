package telegram

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strconv"
	"strings"
	"time"

	adapterv1 "github.com/monitorhq/monitor/api/adapter/v1"
)

// upstreamResponse is one complete, size-checked upstream answer.
type upstreamResponse struct {
	requestURL  string
	statusCode  int
	header      http.Header
	contentType string
	body        []byte
}

// get sends GET {baseURL}{path} with the adapter's User-Agent and reads the
// whole body, refusing bodies over the size limit. It returns an error
// ready for the RPC answer when the exchange itself failed; HTTP statuses
// are classified by statusError.
func (a *Adapter) get(ctx context.Context, path string) (*upstreamResponse, *adapterv1.Error) {
	reqURL := a.baseURL + path
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, reqURL, nil)
	if err != nil {
		return nil, &adapterv1.Error{Code: adapterv1.ErrorCode_ERROR_CODE_INVALID_REQUEST,
			Message: fmt.Sprintf("cannot build the t.me request: %v", err)}
	}
	req.Header.Set("User-Agent", a.userAgent)
	req.Header.Set("Accept", "text/html,application/xhtml+xml")
	req.Header.Set("Accept-Language", "en")
	resp, err := a.client.Do(req)
	if err != nil {
		return nil, transportError(err)
	}
	defer resp.Body.Close()
	if resp.ContentLength > a.maxBytes {
		return nil, a.tooLarge()
	}
	body, err := io.ReadAll(io.LimitReader(resp.Body, a.maxBytes+1))
	if err != nil {
		return nil, transportError(err)
	}
	if int64(len(body)) > a.maxBytes {
		return nil, a.tooLarge()
	}
	return &upstreamResponse{
		requestURL:  reqURL,
		statusCode:  resp.StatusCode,
		header:      resp.Header,
		contentType: resp.Header.Get("Content-Type"),
		body:        body,
	}, nil
}

// source is the response kept byte for byte with the capture.
func (r *upstreamResponse) source() *adapterv1.SourceResponse {
	return &adapterv1.SourceResponse{
		Body:        r.body,
		ContentType: r.contentType,
		RequestUrl:  r.requestURL,
		Visibility:  adapterv1.Visibility_VISIBILITY_PUBLIC,
		StatusCode:  uint32(r.statusCode),
	}
}

func (a *Adapter) tooLarge() *adapterv1.Error {
	return &adapterv1.Error{
		Code:    adapterv1.ErrorCode_ERROR_CODE_TOO_LARGE,
		Message: fmt.Sprintf("t.me's page is larger than the %s limit; it was not kept", byteSize(a.maxBytes)),
	}
}

// transportError classifies a failed exchange: timeouts, refused
// connections and resets may work later; a redirect off t.me will not.
func transportError(err error) *adapterv1.Error {
	if errors.Is(err, errForeignRedirect) {
		return &adapterv1.Error{Code: adapterv1.ErrorCode_ERROR_CODE_BAD_RESPONSE,
			Message: "could not read this post: t.me redirected to another site"}
	}
	msg := "could not reach t.me; try again later"
	var ne net.Error
	if errors.Is(err, context.DeadlineExceeded) || (errors.As(err, &ne) && ne.Timeout()) {
		msg = "t.me did not answer in time; try again later"
	} else if errors.Is(err, context.Canceled) {
		msg = "the request to t.me was cancelled"
	}
	return &adapterv1.Error{Code: adapterv1.ErrorCode_ERROR_CODE_UNAVAILABLE, Message: msg, Retryable: true}
}

// statusError maps an HTTP status of t.me to the protocol's error;
// notFound is the message for 404 and 410. It returns nil for 2xx.
func statusError(resp *upstreamResponse, notFound string) *adapterv1.Error {
	code := resp.statusCode
	switch {
	case code >= 200 && code < 300:
		return nil
	case code == http.StatusNotFound || code == http.StatusGone:
		return &adapterv1.Error{Code: adapterv1.ErrorCode_ERROR_CODE_NOT_FOUND, Message: notFound}
	case code == http.StatusTooManyRequests:
		return &adapterv1.Error{
			Code:              adapterv1.ErrorCode_ERROR_CODE_RATE_LIMITED,
			Message:           "t.me asked us to slow down; the capture will be retried",
			Retryable:         true,
			RetryAfterSeconds: retryAfter(resp.header.Get("Retry-After"), time.Now()),
		}
	case code >= 500 || code == http.StatusRequestTimeout || code == http.StatusTooEarly || code == http.StatusForbidden:
		// 403 from t.me is its edge refusing us for a while, not a
		// statement about the post.
		return &adapterv1.Error{Code: adapterv1.ErrorCode_ERROR_CODE_UNAVAILABLE,
			Message: fmt.Sprintf("t.me failed (HTTP %d); try again later", code), Retryable: true}
	}
	return &adapterv1.Error{Code: adapterv1.ErrorCode_ERROR_CODE_BAD_RESPONSE,
		Message: fmt.Sprintf("could not read this post: t.me answered with unexpected HTTP status %d", code)}
}

// defaultRetryAfter is used when a 429 names no usable delay.
const defaultRetryAfter = 60

// maxRetryAfter caps what an upstream can ask for, so a bad header cannot
// park a capture for weeks.
const maxRetryAfter = 24 * 60 * 60

// retryAfter reads a Retry-After header: delta seconds or an HTTP date.
func retryAfter(v string, now time.Time) uint32 {
	v = strings.TrimSpace(v)
	if v == "" {
		return defaultRetryAfter
	}
	if n, err := strconv.ParseInt(v, 10, 64); err == nil {
		return clampRetry(n)
	}
	if t, err := http.ParseTime(v); err == nil {
		return clampRetry(int64(t.Sub(now).Round(time.Second) / time.Second))
	}
	return defaultRetryAfter
}

func clampRetry(n int64) uint32 {
	return uint32(min(max(n, 1), maxRetryAfter))
}

// byteSize formats a byte count for messages.
func byteSize(n int64) string {
	switch {
	case n >= 1<<20 && n%(1<<20) == 0:
		return fmt.Sprintf("%d MiB", n>>20)
	case n >= 1<<10 && n%(1<<10) == 0:
		return fmt.Sprintf("%d KiB", n>>10)
	}
	return fmt.Sprintf("%d bytes", n)
}
