package httpapi

import (
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestHealthRoutes(t *testing.T) {
	t.Parallel()
	var readyErr error
	h := NewHandler(Deps{Ready: func(context.Context) error { return readyErr }, Log: slog.New(slog.DiscardHandler)})

	get := func(path string) (*http.Response, map[string]any) {
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, path, nil))
		var body map[string]any
		require.NoError(t, json.Unmarshal(rec.Body.Bytes(), &body))
		return rec.Result(), body
	}

	resp, body := get("/healthz")
	require.Equal(t, http.StatusOK, resp.StatusCode)
	require.Equal(t, "ok", body["status"])

	resp, body = get("/readyz")
	require.Equal(t, http.StatusOK, resp.StatusCode)
	require.Equal(t, "ready", body["status"])

	readyErr = errors.New("database: disk I/O error")
	resp, body = get("/readyz")
	require.Equal(t, http.StatusServiceUnavailable, resp.StatusCode)
	require.Equal(t, "application/problem+json", resp.Header.Get("Content-Type"))
	require.Equal(t, "database: disk I/O error", body["detail"])

	resp, body = get("/v0/nothing")
	require.Equal(t, http.StatusNotFound, resp.StatusCode)
	require.Equal(t, "application/problem+json", resp.Header.Get("Content-Type"))
	require.Equal(t, "no route for GET /v0/nothing", body["detail"])
}

func TestUnroutedProblems(t *testing.T) {
	t.Parallel()
	h := NewHandler(Deps{Ready: func(context.Context) error { return nil }})
	serve := func(method, path string) (*http.Response, map[string]any) {
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, httptest.NewRequest(method, path, nil))
		var body map[string]any
		require.NoError(t, json.Unmarshal(rec.Body.Bytes(), &body))
		require.Equal(t, "application/problem+json", rec.Header().Get("Content-Type"))
		return rec.Result(), body
	}

	resp, body := serve(http.MethodPost, "/healthz")
	require.Equal(t, http.StatusMethodNotAllowed, resp.StatusCode)
	require.Equal(t, "GET, HEAD", resp.Header.Get("Allow"))
	require.Equal(t, ProblemMethodNotAllowed, body["type"])
	require.Equal(t, float64(http.StatusMethodNotAllowed), body["status"])

	// Without a business layer the token-protected routes do not exist.
	resp, body = serve(http.MethodGet, "/v1/usage")
	require.Equal(t, http.StatusNotFound, resp.StatusCode)
	require.Equal(t, ProblemNotFound, body["type"])
}
