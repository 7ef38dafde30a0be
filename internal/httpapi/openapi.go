package httpapi

import (
	_ "embed"
	"net/http"
)

// openAPIDoc is the OpenAPI 3.1 description of this API, written by hand
// and served byte for byte; openapi_test.go keeps it in step with routes().
//
//go:embed openapi.json
var openAPIDoc []byte

// openAPI serves the OpenAPI document: GET /v1/openapi.json, no token needed.
func openAPI(w http.ResponseWriter, _ *http.Request) {
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-cache")
	_, _ = w.Write(openAPIDoc)
}
