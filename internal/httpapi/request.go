package httpapi

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"strconv"
	"strings"

	"github.com/google/uuid"
	"github.com/monitorhq/monitor/internal/app"
)

// This file holds the decoding and validation every handler shares. Faults
// in a request are errors wrapping app.ErrInvalid or app.ErrNotFound, so
// handlers answer every error through writeError alike.

// requestError is a fault in the request whose message is the problem's
// detail; it matches its kind (app.ErrInvalid, app.ErrNotFound) with errors.Is.
type requestError struct {
	msg  string
	kind error
}

func (e *requestError) Error() string { return e.msg }
func (e *requestError) Unwrap() error { return e.kind }

func requestErrorf(kind error, format string, args ...any) error {
	return &requestError{msg: fmt.Sprintf(format, args...), kind: kind}
}

// pathID parses the {id} path value. A malformed id names nothing, so it is
// not found rather than invalid; what names the resource for the message.
func pathID(r *http.Request, what string) (uuid.UUID, error) {
	raw := r.PathValue("id")
	id, err := uuid.Parse(raw)
	if err != nil || len(raw) != 36 { // only the canonical form: one URL per resource
		return uuid.Nil, requestErrorf(app.ErrNotFound, "no %s with id %q", what, raw)
	}
	return id, nil
}

// maxIdemKeyLen bounds an Idempotency-Key.
const maxIdemKeyLen = 200

// idempotencyKey returns the optional Idempotency-Key header: "" when
// absent, else 1 to maxIdemKeyLen printable ASCII characters.
func idempotencyKey(h http.Header) (string, error) {
	values := h.Values("Idempotency-Key")
	switch {
	case len(values) == 0:
		return "", nil
	case len(values) > 1:
		return "", requestErrorf(app.ErrInvalid, "send at most one Idempotency-Key header")
	}
	key := values[0]
	if key == "" || len(key) > maxIdemKeyLen {
		return "", requestErrorf(app.ErrInvalid, "Idempotency-Key must be 1 to %d characters, not %d", maxIdemKeyLen, len(key))
	}
	for i := 0; i < len(key); i++ {
		if key[i] < 0x20 || key[i] > 0x7e {
			return "", requestErrorf(app.ErrInvalid, "Idempotency-Key may only contain printable ASCII characters; byte %d is 0x%02x", i, key[i])
		}
	}
	return key, nil
}

// maxBodyBytes bounds a JSON request body.
const maxBodyBytes = 64 << 10

// decodeJSON reads the request body as exactly one JSON value into dst,
// refusing unknown fields and bodies over maxBodyBytes.
func decodeJSON(w http.ResponseWriter, r *http.Request, dst any) error {
	dec := json.NewDecoder(http.MaxBytesReader(w, r.Body, maxBodyBytes))
	dec.DisallowUnknownFields()
	if err := dec.Decode(dst); err != nil {
		return bodyError(err)
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		var tooLarge *http.MaxBytesError
		if errors.As(err, &tooLarge) {
			return bodyError(err)
		}
		return requestErrorf(app.ErrInvalid, "request body has more after the JSON object; send one object")
	}
	return nil
}

// bodyError turns a decoding failure into a detail that says what to fix.
func bodyError(err error) error {
	var (
		syntax   *json.SyntaxError
		typ      *json.UnmarshalTypeError
		tooLarge *http.MaxBytesError
	)
	switch {
	case errors.Is(err, os.ErrDeadlineExceeded):
		// The server's ReadTimeout passed while the body was still arriving.
		return requestErrorf(app.ErrInvalid, "request body did not arrive in time; send the whole body at once, right after the headers")
	case errors.Is(err, io.EOF):
		return requestErrorf(app.ErrInvalid, "request body is empty; send a JSON object such as {\"url\": \"https://…\"}")
	case errors.As(err, &tooLarge):
		return requestErrorf(app.ErrInvalid, "request body is larger than %d bytes", tooLarge.Limit)
	case errors.As(err, &syntax):
		return requestErrorf(app.ErrInvalid, "request body is not valid JSON: %v (at byte %d)", syntax, syntax.Offset)
	case errors.Is(err, io.ErrUnexpectedEOF):
		return requestErrorf(app.ErrInvalid, "request body is not valid JSON: it ends in the middle of a value")
	case errors.As(err, &typ):
		if typ.Field == "" {
			return requestErrorf(app.ErrInvalid, "request body must be a JSON object, not %s", typ.Value)
		}
		return requestErrorf(app.ErrInvalid, "request body field %q must be a %s, not %s", typ.Field, typ.Type, typ.Value)
	}
	if field, ok := strings.CutPrefix(err.Error(), "json: unknown field "); ok {
		return requestErrorf(app.ErrInvalid, "request body has unknown field %s", field)
	}
	return requestErrorf(app.ErrInvalid, "request body is not valid JSON: %v", err)
}

// Page sizes of GET /v1/collections.
const (
	defaultLimit = 20
	maxLimit     = 100
)

// pageParams reads the limit and cursor query parameters of a listing. The
// cursor is opaque here; the business layer judges it.
func pageParams(q url.Values) (limit int, cursor string, err error) {
	limit = defaultLimit
	if raw := q.Get("limit"); raw != "" {
		n, err := strconv.Atoi(raw)
		if err != nil || n < 1 || n > maxLimit {
			return 0, "", requestErrorf(app.ErrInvalid, "limit must be a whole number from 1 to %d, not %q", maxLimit, raw)
		}
		limit = n
	}
	return limit, q.Get("cursor"), nil
}
