package httpapi

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// openAPIOperations are the HTTP methods an OpenAPI path item may hold.
var openAPIOperations = []string{"get", "put", "post", "delete", "options", "head", "patch", "trace"}

func loadOpenAPI(t *testing.T) map[string]any {
	t.Helper()
	var doc map[string]any
	require.NoError(t, json.Unmarshal(openAPIDoc, &doc), "openapi.json is not valid JSON")
	return doc
}

func TestOpenAPIVersion(t *testing.T) {
	t.Parallel()
	doc := loadOpenAPI(t)
	version, _ := doc["openapi"].(string)
	require.True(t, strings.HasPrefix(version, "3.1."), "openapi is %q, want 3.1.x", version)
	require.Contains(t, doc, "info")
	require.Contains(t, doc["components"].(map[string]any)["securitySchemes"], "bearer")
}

// TestOpenAPIMatchesRoutes keeps openapi.json and the route table in step:
// every route is documented, every documented operation is routed, and the
// routes that need no token are exactly those documented with `security: []`.
func TestOpenAPIMatchesRoutes(t *testing.T) {
	t.Parallel()
	doc := loadOpenAPI(t)

	routed := map[string]access{}
	for _, rt := range (Deps{}).routes() {
		routed[rt.method+" "+rt.pattern] = rt.access
	}

	documented := map[string]access{}
	for path, item := range doc["paths"].(map[string]any) {
		for method, op := range item.(map[string]any) {
			if !slices.Contains(openAPIOperations, method) {
				continue // parameters, summary, …
			}
			a := bearer
			if sec, ok := op.(map[string]any)["security"].([]any); ok && len(sec) == 0 {
				a = public
			}
			if adm, _ := op.(map[string]any)["x-admin"].(bool); adm {
				a = admin
			}
			if method == "head" { // a GET pattern also serves HEAD
				require.Contains(t, routed, "GET "+path, "openapi.json documents HEAD %s, but no GET route serves it", path)
				continue
			}
			documented[strings.ToUpper(method)+" "+path] = a
		}
	}

	for r, a := range routed {
		require.Contains(t, documented, r, "route %s is not in openapi.json", r)
		require.Equal(t, a, documented[r], "route %s: token requirement differs from openapi.json", r)
	}
	for r := range documented {
		require.Contains(t, routed, r, "openapi.json documents %s, but no route serves it", r)
	}
}

// TestOpenAPIRefs checks that every $ref points at something the document defines.
func TestOpenAPIRefs(t *testing.T) {
	t.Parallel()
	doc := loadOpenAPI(t)
	var walk func(v any)
	walk = func(v any) {
		switch v := v.(type) {
		case map[string]any:
			if ref, ok := v["$ref"].(string); ok {
				require.True(t, strings.HasPrefix(ref, "#/"), "external $ref %q", ref)
				var node any = doc
				for part := range strings.SplitSeq(strings.TrimPrefix(ref, "#/"), "/") {
					m, ok := node.(map[string]any)
					require.True(t, ok, "$ref %q does not resolve", ref)
					node, ok = m[part]
					require.True(t, ok, "$ref %q does not resolve", ref)
				}
			}
			for _, child := range v {
				walk(child)
			}
		case []any:
			for _, child := range v {
				walk(child)
			}
		}
	}
	walk(doc)
}

func TestOpenAPIProblemTypes(t *testing.T) {
	t.Parallel()
	doc := loadOpenAPI(t)
	problem := doc["components"].(map[string]any)["schemas"].(map[string]any)["Problem"].(map[string]any)
	var documented []string
	for _, v := range problem["properties"].(map[string]any)["type"].(map[string]any)["enum"].([]any) {
		documented = append(documented, v.(string))
	}
	known := []string{ProblemUnauthorized, ProblemInvalidRequest, ProblemNotFound, ProblemMethodNotAllowed,
		ProblemQuotaExceeded, ProblemIdempotencyKeyReused, ProblemUnsupportedLink, ProblemAdapterUnavailable,
		ProblemAdapterError, ProblemRangeNotSatisfiable, ProblemNotReady, ProblemInternal,
		ProblemForbidden, ProblemLimitExceeded, ProblemTenantNotEnabled, ProblemConflict}
	sort.Strings(documented)
	sort.Strings(known)
	require.Equal(t, known, documented)
}

func TestOpenAPIServed(t *testing.T) {
	t.Parallel()
	rec := httptest.NewRecorder()
	NewHandler(Deps{}).ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/v1/openapi.json", nil))
	require.Equal(t, http.StatusOK, rec.Code)
	require.Equal(t, "application/json", rec.Header().Get("Content-Type"))
	require.Equal(t, openAPIDoc, rec.Body.Bytes())
}
