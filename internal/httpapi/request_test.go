package httpapi

import (
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"

	"github.com/google/uuid"
	"github.com/monitorhq/monitor/internal/app"
	"github.com/stretchr/testify/require"
)

func TestIdempotencyKey(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name    string
		values  []string
		want    string
		problem string // substring of the detail; "" = valid
	}{
		{"absent", nil, "", ""},
		{"uuid", []string{"8e03978e-40d5-43e8-bc93-6894a57f9324"}, "8e03978e-40d5-43e8-bc93-6894a57f9324", ""},
		{"printable", []string{`a b~!"{}`}, `a b~!"{}`, ""},
		{"longest", []string{strings.Repeat("k", 200)}, strings.Repeat("k", 200), ""},
		{"too long", []string{strings.Repeat("k", 201)}, "", "1 to 200 characters"},
		{"empty", []string{""}, "", "1 to 200 characters"},
		{"control", []string{"a\tb"}, "", "printable ASCII"},
		{"non-ascii", []string{"clé"}, "", "printable ASCII"},
		{"twice", []string{"a", "b"}, "", "at most one"},
	} {
		h := http.Header{}
		for _, v := range tc.values {
			h.Add("Idempotency-Key", v)
		}
		got, err := idempotencyKey(h)
		if tc.problem == "" {
			require.NoError(t, err, tc.name)
			require.Equal(t, tc.want, got, tc.name)
			continue
		}
		require.ErrorIs(t, err, app.ErrInvalid, tc.name)
		require.Contains(t, err.Error(), tc.problem, tc.name)
	}
}

func TestPageParams(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		query  string
		limit  int
		cursor string
		ok     bool
	}{
		{"", 20, "", true},
		{"limit=", 20, "", true},
		{"limit=1", 1, "", true},
		{"limit=100&cursor=abc", 100, "abc", true},
		{"cursor=opaque%2Bvalue", 20, "opaque+value", true},
		{"limit=0", 0, "", false},
		{"limit=101", 0, "", false},
		{"limit=-1", 0, "", false},
		{"limit=ten", 0, "", false},
		{"limit=1.5", 0, "", false},
		{"limit=99999999999999999999", 0, "", false},
	} {
		q, err := url.ParseQuery(tc.query)
		require.NoError(t, err)
		limit, cursor, err := pageParams(q)
		if !tc.ok {
			require.ErrorIs(t, err, app.ErrInvalid, tc.query)
			require.Contains(t, err.Error(), "limit must be a whole number from 1 to 100", tc.query)
			continue
		}
		require.NoError(t, err, tc.query)
		require.Equal(t, tc.limit, limit, tc.query)
		require.Equal(t, tc.cursor, cursor, tc.query)
	}
}

func TestDecodeJSON(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name, body string
		problem    string // substring of the detail; "" = valid
	}{
		{"object", `{"url": "https://x.com/a/status/1"}`, ""},
		{"trailing space", "{\"url\": \"u\"}\n  ", ""},
		{"empty", ``, "request body is empty"},
		{"syntax", `{"url": }`, "not valid JSON"},
		{"truncated", `{"url": "u"`, "not valid JSON"},
		{"unknown field", `{"url": "u", "tenant": "x"}`, `unknown field "tenant"`},
		{"wrong type", `{"url": 5}`, `field "url" must be a string`},
		{"not an object", `["u"]`, "must be a JSON object"},
		{"two values", `{"url": "u"} {"url": "v"}`, "more after the JSON object"},
		{"too large", `{"url": "` + strings.Repeat("a", maxBodyBytes) + `"}`, "larger than 65536 bytes"},
		{"too large after the value", `{"url": "u"}` + strings.Repeat(" ", maxBodyBytes), "larger than 65536 bytes"},
	} {
		r := httptest.NewRequest(http.MethodPost, "/v1/captures", strings.NewReader(tc.body))
		var body submitBody
		err := decodeJSON(httptest.NewRecorder(), r, &body)
		if tc.problem == "" {
			require.NoError(t, err, tc.name)
			require.NotNil(t, body.URL, tc.name)
			continue
		}
		require.ErrorIs(t, err, app.ErrInvalid, tc.name)
		require.Contains(t, err.Error(), tc.problem, tc.name)
	}
}

func TestPathID(t *testing.T) {
	t.Parallel()
	id := uuid.New()
	for raw, ok := range map[string]bool{
		id.String():                              true,
		strings.ToUpper(id.String()):             true,
		"":                                       false,
		"nope":                                   false,
		strings.ReplaceAll(id.String(), "-", ""): false,
		"urn:uuid:" + id.String():                false,
		"{" + id.String() + "}":                  false,
	} {
		r := httptest.NewRequest(http.MethodGet, "/v1/captures/x", nil)
		r.SetPathValue("id", raw)
		got, err := pathID(r, "capture")
		if ok {
			require.NoError(t, err, raw)
			require.Equal(t, id, got, raw)
			continue
		}
		require.ErrorIs(t, err, app.ErrNotFound, raw)
		require.Equal(t, `no capture with id "`+raw+`"`, err.Error())
	}
}
