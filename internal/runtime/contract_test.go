package runtime_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"mime"
	"net"
	"net/http"
	"net/url"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/google/uuid"
	"github.com/santhosh-tekuri/jsonschema/v6"
	"github.com/stretchr/testify/require"

	adapterv1 "github.com/monitorhq/monitor/api/adapter/v1"
	"github.com/monitorhq/monitor/internal/adapterapi"
	"github.com/monitorhq/monitor/internal/config"
	"github.com/monitorhq/monitor/internal/testkit"
)

// contractDocURL names openapi.json for the schema compiler; its $refs
// ("#/components/schemas/...") resolve inside it.
const contractDocURL = "https://monitor.invalid/openapi.json"

// contract checks answers against the OpenAPI document a core serves, as a
// contract proxy would: the operation the request matches must document the
// status, the media type and the headers, and JSON bodies must validate
// against the response's schema (JSON Schema 2020-12).
type contract struct {
	doc      map[string]any
	compiler *jsonschema.Compiler
	schemas  map[string]*jsonschema.Schema
	ops      []contractOp
	// seen are the operations answered at least once, by operationId.
	seen       map[string]bool
	violations []string
}

// contractOp is one documented operation and the pattern of its path.
type contractOp struct {
	method, template, id string
	path                 *regexp.Regexp
	params               int
	op                   map[string]any
}

func newContract(t *testing.T, rc *restCore) *contract {
	t.Helper()
	raw := rc.do(t, "", "GET", "/v1/openapi.json", nil)
	require.Equal(t, http.StatusOK, raw.status)
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(raw.body))
	require.NoError(t, err)
	c := &contract{doc: doc.(map[string]any), compiler: jsonschema.NewCompiler(), schemas: map[string]*jsonschema.Schema{}, seen: map[string]bool{}}
	c.compiler.DefaultDraft(jsonschema.Draft2020)
	require.NoError(t, c.compiler.AddResource(contractDocURL, doc))
	param := regexp.MustCompile(`\{[^}/]+\}`)
	for tmpl, item := range c.doc["paths"].(map[string]any) {
		for method, op := range item.(map[string]any) {
			opm, ok := op.(map[string]any)
			if !ok || method == "parameters" {
				continue
			}
			// QuoteMeta escapes the braces; unescape them for the parameter match.
			re := regexp.MustCompile("^" + param.ReplaceAllString(strings.NewReplacer(`\{`, "{", `\}`, "}").Replace(regexp.QuoteMeta(tmpl)), `[^/]+`) + "$")
			c.ops = append(c.ops, contractOp{method: strings.ToUpper(method), template: tmpl, id: opm["operationId"].(string),
				path: re, params: len(param.FindAllString(tmpl, -1)), op: opm})
		}
	}
	// A literal segment beats a parameter: try the templates with fewer
	// parameters first.
	sort.Slice(c.ops, func(i, j int) bool {
		if c.ops[i].params != c.ops[j].params {
			return c.ops[i].params < c.ops[j].params
		}
		return c.ops[i].template < c.ops[j].template
	})
	return c
}

// match is the operation documented for method on path, or nil.
func (c *contract) match(method, path string) *contractOp {
	for i := range c.ops {
		if o := &c.ops[i]; o.method == method && o.path.MatchString(path) {
			return o
		}
	}
	return nil
}

// pointerEscape escapes a JSON pointer token.
func pointerEscape(s string) string { return strings.NewReplacer("~", "~0", "/", "~1").Replace(s) }

// resolve follows a local $ref from pointer, returning the object and the
// pointer it lives at.
func (c *contract) resolve(v map[string]any, pointer string) (map[string]any, string) {
	for {
		ref, ok := v["$ref"].(string)
		if !ok {
			return v, pointer
		}
		pointer = strings.TrimPrefix(ref, "#")
		var node any = c.doc
		for _, part := range strings.Split(strings.TrimPrefix(pointer, "/"), "/") {
			part = strings.NewReplacer("~1", "/", "~0", "~").Replace(part)
			node = node.(map[string]any)[part]
		}
		v = node.(map[string]any)
	}
}

func (c *contract) schema(pointer string) (*jsonschema.Schema, error) {
	if s, ok := c.schemas[pointer]; ok {
		return s, nil
	}
	s, err := c.compiler.Compile(contractDocURL + "#" + pointer)
	if err != nil {
		return nil, err
	}
	c.schemas[pointer] = s
	return s, nil
}

// check records every way the answer to method path differs from the
// document. Paths no operation documents (unknown routes) are not checked.
func (c *contract) check(method, path string, a answer) {
	u, _ := url.Parse(path)
	op := c.match(method, u.Path)
	if op == nil && method == http.MethodHead {
		op = c.match(http.MethodGet, u.Path) // a GET route also serves HEAD
	}
	if op == nil {
		return
	}
	c.seen[op.id] = true
	where := fmt.Sprintf("%s %s (%s) answered %d", method, path, op.id, a.status)
	fail := func(format string, args ...any) {
		c.violations = append(c.violations, where+": "+fmt.Sprintf(format, args...))
	}
	responses := op.op["responses"].(map[string]any)
	base := "/paths/" + pointerEscape(op.template) + "/" + strings.ToLower(op.method) + "/responses/"
	code := strconv.Itoa(a.status)
	rawResp, ok := responses[code]
	if !ok {
		if rawResp, ok = responses["default"]; !ok {
			fail("status %d is not documented", a.status)
			return
		}
		code = "default"
	}
	resp, ptr := c.resolve(rawResp.(map[string]any), base+code)
	c.against(where, method, resp, ptr, a)
}

// checkResponse checks an answer against the response object at pointer,
// for answers no operation owns (405).
func (c *contract) checkResponse(where, pointer string, a answer) {
	resp, ptr := c.resolve(map[string]any{"$ref": "#" + pointer}, pointer)
	c.against(where, http.MethodGet, resp, ptr, a)
}

// against checks an answer's headers, media type and body against the
// response object resp found at ptr.
func (c *contract) against(where, method string, resp map[string]any, ptr string, a answer) {
	fail := func(format string, args ...any) {
		c.violations = append(c.violations, where+": "+fmt.Sprintf(format, args...))
	}
	headers, _ := resp["headers"].(map[string]any)
	for name, h := range headers {
		hm, hptr := c.resolve(h.(map[string]any), ptr+"/headers/"+pointerEscape(name))
		v := a.header.Get(name)
		if v == "" {
			if req, _ := hm["required"].(bool); req {
				fail("header %s is required and missing", name)
			}
			continue
		}
		if _, ok := hm["schema"]; !ok {
			continue
		}
		s, err := c.schema(hptr + "/schema")
		if err != nil {
			fail("header %s: schema does not compile: %v", name, err)
			continue
		}
		var inst any = v
		if n, err := strconv.ParseInt(v, 10, 64); err == nil {
			if typ, _ := c.resolveSchemaType(hptr + "/schema"); typ == "integer" {
				inst = json.Number(strconv.FormatInt(n, 10))
			}
		}
		if err := s.Validate(inst); err != nil {
			fail("header %s: %q: %v", name, v, err)
		}
	}

	content, _ := resp["content"].(map[string]any)
	if len(content) == 0 {
		if len(a.body) > 0 && method != http.MethodHead {
			fail("a body of %d bytes where the document promises none", len(a.body))
		}
		return
	}
	if method == http.MethodHead {
		return
	}
	mt, _, err := mime.ParseMediaType(a.header.Get("Content-Type"))
	if err != nil {
		fail("Content-Type %q: %v", a.header.Get("Content-Type"), err)
		return
	}
	key := mt
	if _, ok := content[mt]; !ok {
		if _, ok := content["*/*"]; !ok {
			fail("media type %s is not documented (documented: %v)", mt, keys(content))
			return
		}
		key = "*/*"
	}
	if mt != "application/json" && !strings.HasSuffix(mt, "+json") {
		return
	}
	s, err := c.schema(ptr + "/content/" + pointerEscape(key) + "/schema")
	if err != nil {
		fail("schema does not compile: %v", err)
		return
	}
	inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(a.body))
	if err != nil {
		fail("body is not JSON: %v", err)
		return
	}
	if err := s.Validate(inst); err != nil {
		fail("body does not match the schema: %v\nbody: %s", err, clipBody(a.body))
	}
}

// resolveSchemaType is the "type" of the schema at pointer, after $refs.
func (c *contract) resolveSchemaType(pointer string) (string, bool) {
	var node any = c.doc
	for _, part := range strings.Split(strings.TrimPrefix(pointer, "/"), "/") {
		m, ok := node.(map[string]any)
		if !ok {
			return "", false
		}
		node = m[strings.NewReplacer("~1", "/", "~0", "~").Replace(part)]
	}
	m, ok := node.(map[string]any)
	if !ok {
		return "", false
	}
	m, _ = c.resolve(m, pointer)
	t, ok := m["type"].(string)
	return t, ok
}

func keys(m map[string]any) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

func clipBody(b []byte) string {
	if len(b) > 600 {
		return string(b[:600]) + "…"
	}
	return string(b)
}

// do calls the core and checks the answer against the document.
func (c *contract) do(t *testing.T, rc *restCore, token, method, path string, body any, headers ...string) answer {
	t.Helper()
	a := rc.do(t, token, method, path, body, headers...)
	c.check(method, path, a)
	return a
}

// doRaw sends a body as is (not JSON-encoded) and checks the answer.
func (c *contract) doRaw(t *testing.T, rc *restCore, token, method, path, body string) answer {
	t.Helper()
	req, err := http.NewRequest(method, rc.base+path, strings.NewReader(body))
	require.NoError(t, err)
	req.Header.Set("Authorization", "Bearer "+token)
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	defer resp.Body.Close()
	var buf bytes.Buffer
	_, err = buf.ReadFrom(resp.Body)
	require.NoError(t, err)
	a := answer{status: resp.StatusCode, header: resp.Header, body: buf.Bytes()}
	c.check(method, path, a)
	return a
}

// TestContractEveryOperation calls every operation of openapi.json on a
// running core, answers good and bad, and checks each answer against the
// document: zero violations, and no operation left uncalled.
func TestContractEveryOperation(t *testing.T) {
	t.Parallel()
	accounts := testkit.NewAccountAdapter()
	accountsAddr := serveAdapter(t, accounts)
	rc := newRESTCore(t, func(cfg *config.Config) {
		cfg.Adapters.Addrs = append(cfg.Adapters.Addrs, accountsAddr)
		cfg.MasterKey = "contract-test-master-key-0123456789"
	})
	c := newContract(t, rc)
	user := rc.tenant(t, "alice", nil)
	_, err := rc.core.App().CreateTenant(context.Background(), "test", "root", nil)
	require.NoError(t, err)
	adminToken, _, err := rc.core.App().CreateToken(context.Background(), "test", "root", "ops", true)
	require.NoError(t, err)
	const missing = "00000000-0000-7000-8000-000000000000"

	// Probes, document and metrics need no token.
	for _, p := range []string{"/healthz", "/readyz", "/metrics", "/v1/openapi.json"} {
		require.Equal(t, http.StatusOK, c.do(t, rc, "", "GET", p, nil).status, p)
	}

	// Captures and their reads.
	require.Equal(t, http.StatusUnauthorized, c.do(t, rc, "", "POST", "/v1/captures", map[string]string{"url": "https://x.com/a/status/1"}).status)
	require.Equal(t, http.StatusBadRequest, c.doRaw(t, rc, user, "POST", "/v1/captures", `{"url": `).status)
	require.Equal(t, http.StatusUnprocessableEntity, c.do(t, rc, user, "POST", "/v1/captures", map[string]string{"url": "https://example.org/not-a-post"}).status)
	sub := c.do(t, rc, user, "POST", "/v1/captures", map[string]string{"url": "https://x.com/archivist_demo/status/2078399740166950912"}, "Idempotency-Key", "contract-1")
	require.Equal(t, http.StatusAccepted, sub.status, string(sub.body))
	s := sub.json(t)
	rc.core.WaitEnded(t, uuid.MustParse(s["capture_id"].(string)))
	require.Equal(t, http.StatusUnprocessableEntity, c.do(t, rc, user, "POST", "/v1/captures",
		map[string]string{"url": "https://x.com/archivist_demo/status/2079251421658238976"}, "Idempotency-Key", "contract-1").status)
	require.Equal(t, http.StatusOK, c.do(t, rc, user, "GET", "/v1/captures/"+s["capture_id"].(string), nil).status)
	require.Equal(t, http.StatusNotFound, c.do(t, rc, user, "GET", "/v1/captures/"+missing, nil).status)
	require.Equal(t, http.StatusOK, c.do(t, rc, user, "GET", "/v1/submissions/"+s["submission_id"].(string), nil).status)
	require.Equal(t, http.StatusNotFound, c.do(t, rc, user, "GET", "/v1/submissions/"+missing, nil).status)

	collID := s["collection_id"].(string)
	coll := c.do(t, rc, user, "GET", "/v1/collections/"+collID, nil)
	require.Equal(t, http.StatusOK, coll.status)
	require.Equal(t, http.StatusNotFound, c.do(t, rc, user, "GET", "/v1/collections/"+missing, nil).status)
	require.Equal(t, http.StatusOK, c.do(t, rc, user, "GET", "/v1/collections?limit=1", nil).status)
	require.Equal(t, http.StatusBadRequest, c.do(t, rc, user, "GET", "/v1/collections?limit=0", nil).status)
	require.Equal(t, http.StatusOK, c.do(t, rc, user, "GET", "/v1/search?q=archivist", nil).status)
	require.Equal(t, http.StatusBadRequest, c.do(t, rc, user, "GET", "/v1/search?q=archivist&limit=-1", nil).status)
	revs := c.do(t, rc, user, "GET", "/v1/collections/"+collID+"/revisions", nil)
	require.Equal(t, http.StatusOK, revs.status)
	revID := revs.json(t)["items"].([]any)[0].(map[string]any)["id"].(string)
	require.Equal(t, http.StatusOK, c.do(t, rc, user, "GET", "/v1/revisions/"+revID, nil).status)
	require.Equal(t, http.StatusNotFound, c.do(t, rc, user, "GET", "/v1/revisions/"+missing, nil).status)
	require.Equal(t, http.StatusOK, c.do(t, rc, user, "GET", "/v1/collections/"+collID+"/proof", nil).status)
	require.Equal(t, http.StatusNotFound, c.do(t, rc, user, "GET", "/v1/collections/"+missing+"/proof", nil).status)
	inst := c.do(t, rc, "", "GET", "/v1/instance", nil)
	require.Equal(t, http.StatusOK, inst.status)
	require.NotEmpty(t, inst.json(t)["signing_key"], "the instance made its key at first start")
	body := coll.json(t)
	entityID := body["graph"].(map[string]any)["entities"].([]any)[0].(map[string]any)["entity_id"].(string)
	require.Equal(t, http.StatusOK, c.do(t, rc, user, "GET", "/v1/entities/"+entityID, nil).status)
	require.Equal(t, http.StatusNotFound, c.do(t, rc, user, "GET", "/v1/entities/"+missing, nil).status)

	// Media: whole, a range, not modified, a range past the end, unknown.
	m := body["media"].([]any)[0].(map[string]any)
	mediaURL := m["url"].(string)
	whole := c.do(t, rc, user, "GET", mediaURL, nil)
	require.Equal(t, http.StatusOK, whole.status)
	require.Equal(t, http.StatusOK, c.do(t, rc, user, "HEAD", mediaURL, nil).status)
	require.Equal(t, http.StatusPartialContent, c.do(t, rc, user, "GET", mediaURL, nil, "Range", "bytes=0-9").status)
	require.Equal(t, http.StatusNotModified, c.do(t, rc, user, "GET", mediaURL, nil, "If-None-Match", whole.header.Get("ETag")).status)
	require.Equal(t, http.StatusRequestedRangeNotSatisfiable, c.do(t, rc, user, "GET", mediaURL, nil, "Range", "bytes=99999999-").status)
	require.Equal(t, http.StatusNotFound, c.do(t, rc, user, "GET", "/v1/media/"+strings.Repeat("0", 64), nil).status)

	// A profile's pages: members, more, stop.
	prof := c.do(t, rc, user, "POST", "/v1/captures", map[string]any{"url": "https://x.com/archivist_demo", "limit": 1})
	require.Equal(t, http.StatusAccepted, prof.status, string(prof.body))
	p := prof.json(t)
	rc.core.WaitEnded(t, uuid.MustParse(p["capture_id"].(string)))
	require.Equal(t, http.StatusOK, c.do(t, rc, user, "GET", "/v1/collections/"+p["collection_id"].(string)+"/members", nil).status)
	require.Equal(t, http.StatusBadRequest, c.do(t, rc, user, "GET", "/v1/collections/"+p["collection_id"].(string)+"/members?limit=0", nil).status)
	more := c.do(t, rc, user, "POST", "/v1/submissions/"+p["submission_id"].(string)+"/more", nil)
	require.Contains(t, []int{http.StatusAccepted, http.StatusConflict}, more.status, string(more.body))
	require.Equal(t, http.StatusNotFound, c.do(t, rc, user, "POST", "/v1/submissions/"+missing+"/more", nil).status)
	require.Equal(t, http.StatusOK, c.do(t, rc, user, "POST", "/v1/submissions/"+p["submission_id"].(string)+"/stop", nil).status)
	require.Equal(t, http.StatusNotFound, c.do(t, rc, user, "POST", "/v1/submissions/"+missing+"/stop", nil).status)

	refresh := c.do(t, rc, user, "POST", "/v1/collections/"+collID+"/refresh", nil)
	require.Equal(t, http.StatusAccepted, refresh.status, string(refresh.body))
	rc.core.WaitEnded(t, uuid.MustParse(refresh.json(t)["capture_id"].(string)))
	require.Equal(t, http.StatusNotFound, c.do(t, rc, user, "POST", "/v1/collections/"+missing+"/refresh", nil).status)
	require.Equal(t, http.StatusOK, c.do(t, rc, user, "GET", "/v1/usage", nil).status)
	require.Equal(t, http.StatusOK, c.do(t, rc, user, "GET", "/v1/adapters", nil).status)
	// Pushes to a cloud destination: none is defined here, so a push is
	// refused; an unknown collection or push is not found.
	refusedPush := c.do(t, rc, user, "POST", "/v1/collections/"+collID+"/push", map[string]string{"destination": "nowhere"})
	require.Contains(t, []int{http.StatusBadRequest, http.StatusNotFound, http.StatusConflict}, refusedPush.status, string(refusedPush.body))
	require.Equal(t, http.StatusNotFound, c.do(t, rc, user, "POST", "/v1/collections/"+missing+"/push", nil).status)
	require.Equal(t, http.StatusNotFound, c.do(t, rc, user, "GET", "/v1/pushes/"+missing, nil).status)
	require.Equal(t, http.StatusNoContent, c.do(t, rc, user, "DELETE", "/v1/collections/"+collID, nil).status)
	require.Equal(t, http.StatusNotFound, c.do(t, rc, user, "DELETE", "/v1/collections/"+collID, nil).status)

	// The operator API, right and wrong.
	require.Equal(t, http.StatusForbidden, c.do(t, rc, user, "GET", "/v1/admin/tenants", nil).status)
	require.Equal(t, http.StatusOK, c.do(t, rc, adminToken, "GET", "/v1/admin/tenants", nil).status)
	require.Equal(t, http.StatusCreated, c.do(t, rc, adminToken, "POST", "/v1/admin/tenants", map[string]any{"name": "bob", "quota_bytes": 1000}).status)
	require.Equal(t, http.StatusConflict, c.do(t, rc, adminToken, "POST", "/v1/admin/tenants", map[string]any{"name": "bob"}).status)
	require.Equal(t, http.StatusBadRequest, c.do(t, rc, adminToken, "POST", "/v1/admin/tenants", map[string]any{"name": "no spaces"}).status)
	require.Equal(t, http.StatusOK, c.do(t, rc, adminToken, "GET", "/v1/admin/tenants/bob", nil).status)
	require.Equal(t, http.StatusNotFound, c.do(t, rc, adminToken, "GET", "/v1/admin/tenants/nobody", nil).status)
	require.Equal(t, http.StatusOK, c.do(t, rc, adminToken, "PATCH", "/v1/admin/tenants/bob",
		map[string]any{"limits": map[string]int{"submit_interval_seconds": 3600}}).status)
	require.Equal(t, http.StatusOK, c.do(t, rc, adminToken, "PATCH", "/v1/admin/tenants/bob", map[string]any{"admin": true}).status)
	require.Equal(t, http.StatusOK, c.do(t, rc, adminToken, "PATCH", "/v1/admin/tenants/bob", map[string]any{"admin": false}).status)
	require.Equal(t, http.StatusNotFound, c.do(t, rc, adminToken, "PATCH", "/v1/admin/tenants/nobody", map[string]any{"status": "disabled"}).status)
	require.Equal(t, http.StatusBadRequest, c.do(t, rc, adminToken, "PATCH", "/v1/admin/tenants/bob", map[string]any{"status": "sleeping"}).status)
	require.Equal(t, http.StatusNoContent, c.do(t, rc, adminToken, "POST", "/v1/admin/tenants/bob/reset-day", nil).status)
	require.Equal(t, http.StatusNotFound, c.do(t, rc, adminToken, "POST", "/v1/admin/tenants/nobody/reset-day", nil).status)
	tok := c.do(t, rc, adminToken, "POST", "/v1/admin/tenants/bob/tokens", map[string]any{"name": "cli"})
	require.Equal(t, http.StatusCreated, tok.status)
	require.Equal(t, http.StatusNotFound, c.do(t, rc, adminToken, "POST", "/v1/admin/tenants/nobody/tokens", map[string]any{"name": "cli"}).status)
	require.Equal(t, http.StatusOK, c.do(t, rc, adminToken, "GET", "/v1/admin/tenants/bob/tokens", nil).status)
	require.Equal(t, http.StatusNotFound, c.do(t, rc, adminToken, "GET", "/v1/admin/tenants/nobody/tokens", nil).status)

	// bob's token: a limit (429 with Retry-After), the quota (403), then
	// disabled (403 tenant-not-enabled) everywhere.
	bob := tok.json(t)["token"].(string)
	first := c.do(t, rc, bob, "POST", "/v1/captures", map[string]string{"url": "https://x.com/archivist_demo/status/2079251421658238976"})
	require.Contains(t, []int{http.StatusAccepted, http.StatusForbidden}, first.status, string(first.body))
	limited := c.do(t, rc, bob, "POST", "/v1/captures", map[string]string{"url": "https://x.com/archivist_demo/status/2080424850067443712"})
	require.Equal(t, http.StatusTooManyRequests, limited.status, string(limited.body))
	require.NotEmpty(t, limited.header.Get("Retry-After"))
	require.Equal(t, http.StatusOK, c.do(t, rc, adminToken, "PATCH", "/v1/admin/tenants/bob", map[string]any{"status": "disabled"}).status)
	for _, path := range []string{"/v1/usage", "/v1/collections", "/v1/adapters", "/v1/captures/" + missing} {
		refused := c.do(t, rc, bob, "GET", path, nil)
		require.Equal(t, http.StatusForbidden, refused.status, path)
		require.Equal(t, "urn:monitor:problem:tenant-not-enabled", refused.json(t)["type"])
	}
	require.Equal(t, http.StatusForbidden, c.do(t, rc, bob, "POST", "/v1/captures", map[string]string{"url": "https://x.com/a/status/1"}).status)
	require.Equal(t, http.StatusNoContent, c.do(t, rc, adminToken, "DELETE", "/v1/admin/tenants/bob/tokens/"+tok.json(t)["id"].(string), nil).status)
	require.Equal(t, http.StatusNotFound, c.do(t, rc, adminToken, "DELETE", "/v1/admin/tenants/bob/tokens/"+missing, nil).status)
	require.Equal(t, http.StatusUnauthorized, c.do(t, rc, bob, "GET", "/v1/usage", nil).status, "revoked: 401 again")

	require.Equal(t, http.StatusOK, c.do(t, rc, adminToken, "GET", "/v1/admin/usage", nil).status)
	require.Equal(t, http.StatusOK, c.do(t, rc, adminToken, "GET", "/v1/admin/audit?limit=5", nil).status)
	require.Equal(t, http.StatusBadRequest, c.do(t, rc, adminToken, "GET", "/v1/admin/audit?limit=x", nil).status)
	require.Equal(t, http.StatusOK, c.do(t, rc, adminToken, "GET", "/v1/admin/config", nil).status)
	require.Equal(t, http.StatusOK, c.do(t, rc, adminToken, "PUT", "/v1/admin/config/timezone", map[string]string{"value": "Asia/Shanghai"}).status)
	require.Equal(t, http.StatusBadRequest, c.do(t, rc, adminToken, "PUT", "/v1/admin/config/timezone", map[string]string{"value": "Mars/Olympus"}).status)
	require.Equal(t, http.StatusOK, c.do(t, rc, adminToken, "GET", "/v1/admin/events?status=all", nil).status)
	require.Equal(t, http.StatusBadRequest, c.do(t, rc, adminToken, "GET", "/v1/admin/events?limit=0", nil).status)
	require.Equal(t, http.StatusNotFound, c.do(t, rc, adminToken, "POST", "/v1/admin/events/no.such.event/resolve", nil).status)
	require.Equal(t, http.StatusOK, c.do(t, rc, adminToken, "GET", "/v1/admin/errors?limit=5", nil).status)
	require.Equal(t, http.StatusBadRequest, c.do(t, rc, adminToken, "GET", "/v1/admin/errors?limit=5000", nil).status)

	// Watches, the tenant's and the operator's.
	require.Equal(t, http.StatusBadRequest, c.do(t, rc, user, "POST", "/v1/watches", map[string]any{"url": "https://x.com/archivist_demo/status/2078399740166950912"}).status)
	w := c.do(t, rc, user, "POST", "/v1/watches", map[string]any{"url": "https://x.com/archivist_demo", "interval_seconds": 3600})
	require.Equal(t, http.StatusCreated, w.status, string(w.body))
	wid := w.json(t)["id"].(string)
	require.Equal(t, http.StatusOK, c.do(t, rc, user, "GET", "/v1/watches", nil).status)
	require.Equal(t, http.StatusOK, c.do(t, rc, user, "GET", "/v1/watches/"+wid, nil).status)
	require.Equal(t, http.StatusNotFound, c.do(t, rc, user, "GET", "/v1/watches/"+missing, nil).status)
	require.Equal(t, http.StatusOK, c.do(t, rc, user, "GET", "/v1/watches/"+wid+"/runs", nil).status)
	require.Equal(t, http.StatusOK, c.do(t, rc, user, "PATCH", "/v1/watches/"+wid, map[string]any{"interval_seconds": 7200}).status)
	require.Equal(t, http.StatusBadRequest, c.do(t, rc, user, "PATCH", "/v1/watches/"+wid, map[string]any{"interval_seconds": 1}).status)
	require.Equal(t, http.StatusOK, c.do(t, rc, user, "POST", "/v1/watches/"+wid+"/pause", nil).status)
	require.Equal(t, http.StatusOK, c.do(t, rc, user, "POST", "/v1/watches/"+wid+"/resume", nil).status)
	require.Equal(t, http.StatusNotFound, c.do(t, rc, user, "POST", "/v1/watches/"+missing+"/pause", nil).status)
	require.Equal(t, http.StatusNotFound, c.do(t, rc, user, "POST", "/v1/watches/"+missing+"/resume", nil).status)
	require.Equal(t, http.StatusOK, c.do(t, rc, adminToken, "GET", "/v1/admin/watches", nil).status)
	require.Equal(t, http.StatusForbidden, c.do(t, rc, user, "GET", "/v1/admin/watches", nil).status)
	require.Equal(t, http.StatusOK, c.do(t, rc, adminToken, "POST", "/v1/admin/watches/"+wid+"/pause", nil).status)
	require.Equal(t, http.StatusOK, c.do(t, rc, adminToken, "POST", "/v1/admin/watches/"+wid+"/resume", nil).status)
	for _, action := range []string{"approve", "reject"} {
		a := c.do(t, rc, adminToken, "POST", "/v1/admin/watches/"+missing+"/"+action, nil)
		require.Equal(t, http.StatusNotFound, a.status, string(a.body))
	}
	ok := c.do(t, rc, adminToken, "POST", "/v1/admin/watches/"+wid+"/approve", nil)
	require.Contains(t, []int{http.StatusOK, http.StatusConflict}, ok.status, string(ok.body))
	rej := c.do(t, rc, adminToken, "POST", "/v1/admin/watches/"+wid+"/reject", nil)
	require.Contains(t, []int{http.StatusOK, http.StatusConflict}, rej.status, string(rej.body))
	require.Equal(t, http.StatusNoContent, c.do(t, rc, user, "DELETE", "/v1/watches/"+wid, nil).status)
	require.Equal(t, http.StatusNotFound, c.do(t, rc, user, "DELETE", "/v1/watches/"+wid, nil).status)

	// Accounts: add (new, replaced, refused), list, check, a capture
	// through one, revoke.
	require.Equal(t, http.StatusBadRequest, c.do(t, rc, user, "POST", "/v1/connections", map[string]string{"adapter": "acct", "secret": "account=1"}).status)
	conn := c.do(t, rc, user, "POST", "/v1/connections", map[string]string{"adapter": "acct", "secret": "account=1;handle=h;token=contract"})
	require.Equal(t, http.StatusCreated, conn.status, string(conn.body))
	connID := conn.json(t)["id"].(string)
	require.Equal(t, http.StatusOK, c.do(t, rc, user, "POST", "/v1/connections", map[string]string{"adapter": "acct", "secret": "account=1;handle=h;token=contract2"}).status)
	require.Equal(t, http.StatusOK, c.do(t, rc, user, "GET", "/v1/connections", nil).status)
	require.Equal(t, http.StatusOK, c.do(t, rc, user, "POST", "/v1/connections/"+connID+"/check", nil).status)
	require.Equal(t, http.StatusNotFound, c.do(t, rc, user, "POST", "/v1/connections/"+missing+"/check", nil).status)
	acap := c.do(t, rc, user, "POST", "/v1/captures", map[string]string{"url": testkit.AccountPostURL("1"), "connection_id": connID})
	require.Equal(t, http.StatusAccepted, acap.status, string(acap.body))
	rc.core.WaitEnded(t, uuid.MustParse(acap.json(t)["capture_id"].(string)))
	got := c.do(t, rc, user, "GET", "/v1/captures/"+acap.json(t)["capture_id"].(string), nil)
	require.Equal(t, http.StatusOK, got.status)
	require.Equal(t, connID, got.json(t)["connection_id"])
	// Joining by invite link is off by default: asked, it is refused;
	// the lists answer, and an unknown request is not found.
	ask := c.do(t, rc, user, "POST", "/v1/connections/"+connID+"/join", map[string]string{"invite": "https://t.me/+AbCdEf012345"})
	require.Contains(t, []int{http.StatusForbidden, http.StatusBadRequest}, ask.status, string(ask.body))
	require.Equal(t, http.StatusOK, c.do(t, rc, user, "GET", "/v1/joins", nil).status)
	require.Equal(t, http.StatusNotFound, c.do(t, rc, user, "GET", "/v1/joins/"+missing, nil).status)
	require.Equal(t, http.StatusOK, c.do(t, rc, adminToken, "GET", "/v1/admin/joins", nil).status)
	require.Contains(t, []int{http.StatusForbidden, http.StatusNotFound}, c.do(t, rc, adminToken, "POST", "/v1/admin/joins/"+missing+"/approve", nil).status)
	require.Equal(t, http.StatusNotFound, c.do(t, rc, adminToken, "POST", "/v1/admin/joins/"+missing+"/deny", map[string]string{"reason": "no"}).status)
	require.Equal(t, http.StatusNoContent, c.do(t, rc, user, "DELETE", "/v1/connections/"+connID, nil).status)
	require.Equal(t, http.StatusNotFound, c.do(t, rc, user, "DELETE", "/v1/connections/"+missing, nil).status)
	require.Equal(t, http.StatusConflict, c.do(t, rc, user, "POST", "/v1/connections/"+connID+"/check", nil).status)

	// A 405 belongs to no operation; it must still be the documented answer.
	wrong := rc.do(t, user, "PUT", "/v1/usage", nil)
	require.Equal(t, http.StatusMethodNotAllowed, wrong.status)
	require.NotEmpty(t, wrong.header.Get("Allow"))
	c.checkResponse("PUT /v1/usage", "/components/responses/MethodNotAllowed", wrong)

	require.Empty(t, c.violations, "answers that differ from openapi.json:\n%s", strings.Join(c.violations, "\n"))
	var uncalled []string
	for _, o := range c.ops {
		if !c.seen[o.id] {
			uncalled = append(uncalled, o.method+" "+o.template+" ("+o.id+")")
		}
	}
	sort.Strings(uncalled)
	require.Empty(t, uncalled, "operations this test does not call yet; add a call for each")
}

// TestContractCatchesDifferences: the checker itself finds an undocumented
// status, bodies off their schema, a header off its schema and an
// undocumented media type.
func TestContractCatchesDifferences(t *testing.T) {
	t.Parallel()
	rc := newRESTCore(t)
	c := newContract(t, rc)
	js := http.Header{"Content-Type": []string{"application/json"}}
	problem := http.Header{"Content-Type": []string{"application/problem+json"}, "Retry-After": []string{"soon"}}
	c.check("GET", "/v1/usage", answer{status: http.StatusTeapot, header: js, body: []byte(`{}`)})
	c.check("GET", "/v1/usage", answer{status: http.StatusOK, header: js, body: []byte(`{"used_bytes": "lots"}`)})
	c.check("POST", "/v1/captures", answer{status: http.StatusTooManyRequests, header: problem,
		body: []byte(`{"type": "urn:monitor:problem:limit-exceeded", "title": "Limit reached", "status": 429, "limit": "hourly"}`)})
	c.check("GET", "/v1/usage", answer{status: http.StatusOK, header: http.Header{"Content-Type": []string{"text/html"}}, body: []byte(`<p>`)})
	require.Len(t, c.violations, 5, strings.Join(c.violations, "\n"))
	require.Contains(t, c.violations[0], "status 418 is not documented")
	require.Contains(t, c.violations[1], "at '/used_bytes': got string, want integer")
	require.Contains(t, c.violations[2], "header Retry-After")
	require.Contains(t, c.violations[3], "at '/limit': value must be one of")
	require.Contains(t, c.violations[4], "media type text/html is not documented")
}

// serveAdapter serves an adapter over gRPC on a loopback port until the
// test ends, as an external adapter (MONITOR_ADAPTERS) is served.
func serveAdapter(t *testing.T, ad adapterv1.AdapterServer) string {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	lis, err := (&net.ListenConfig{}).Listen(ctx, "tcp", "127.0.0.1:0")
	require.NoError(t, err)
	done := make(chan error, 1)
	go func() { done <- adapterapi.Serve(ctx, lis, ad, slog.New(slog.DiscardHandler)) }()
	t.Cleanup(func() { cancel(); <-done })
	return lis.Addr().String()
}
