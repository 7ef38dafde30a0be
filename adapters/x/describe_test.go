package x_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/monitorhq/monitor/adapters/kit/kittest"
	"github.com/monitorhq/monitor/adapters/x"
	adapterv1 "github.com/monitorhq/monitor/api/adapter/v1"
)

func TestDescribe(t *testing.T) {
	t.Parallel()
	client := kittest.Serve(t, x.New(x.Options{}))
	d, err := client.Describe(context.Background(), &adapterv1.DescribeRequest{
		Protocol: &adapterv1.ProtocolVersion{Major: 1, Minor: 0},
	})
	require.NoError(t, err)
	require.Equal(t, "x", d.GetAdapterId())
	require.Equal(t, "X", d.GetDisplayName())
	require.EqualValues(t, 1, d.GetProtocol().GetMajor())
	require.EqualValues(t, 3, d.GetProtocol().GetMinor())
	require.Equal(t, x.Version, d.GetAdapterVersion())
	require.ElementsMatch(t, []string{
		"x.com", "www.x.com", "twitter.com", "www.twitter.com", "mobile.twitter.com", "mobile.x.com",
		"fxtwitter.com", "www.fxtwitter.com", "fixupx.com", "www.fixupx.com", "vxtwitter.com", "www.vxtwitter.com",
	}, d.GetHosts())

	require.Len(t, d.GetProviders(), 2)
	p := d.GetProviders()[0]
	require.Equal(t, "fxtwitter", p.GetId())
	require.Equal(t, adapterv1.AuthMode_AUTH_MODE_NONE, p.GetAuthMode())
	require.True(t, p.GetDefaultProvider())
	require.Equal(t, []adapterv1.Visibility{adapterv1.Visibility_VISIBILITY_PUBLIC}, p.GetVisibilities())
	require.EqualValues(t, 1000, p.GetMaxBatchSize(), "a batch archives up to 1,000 posts of a profile")
	require.Equal(t, []string{"x.post", "x.profile"}, p.GetEntityTypes())
	var caps []string
	for _, c := range p.GetCapabilities() {
		require.EqualValues(t, 1, c.GetMajor(), c.GetName())
		require.EqualValues(t, 0, c.GetMinor(), c.GetName())
		caps = append(caps, c.GetName())
	}
	require.ElementsMatch(t, []string{
		"capture.fetch", "capture.related", "capture.page", "capture.canonical", "capture.thread", "content.text", "entity.graph", "source.raw", "media.image", "media.video",
	}, caps)

	// Every host resolves, and every declared entity type has a schema.
	for _, h := range d.GetHosts() {
		resp, err := client.Resolve(context.Background(), &adapterv1.ResolveRequest{Url: "https://" + h + "/a/status/1"})
		require.NoError(t, err)
		require.Nil(t, resp.GetError(), h)
	}
	// The account provider: the same content through a tenant's session.
	s := d.GetProviders()[1]
	require.Equal(t, "x-session", s.GetId())
	require.Equal(t, adapterv1.AuthMode_AUTH_MODE_ACCOUNT, s.GetAuthMode())
	require.True(t, s.GetDefaultProvider(), "the default account provider")
	require.ElementsMatch(t, []adapterv1.Visibility{adapterv1.Visibility_VISIBILITY_PRIVATE, adapterv1.Visibility_VISIBILITY_PUBLIC}, s.GetVisibilities())
	require.Contains(t, s.GetCredentialHelp(), "auth_token and ct0")
	var scaps []string
	for _, c := range s.GetCapabilities() {
		scaps = append(scaps, c.GetName())
	}
	require.ElementsMatch(t, append(caps, "credential.prepare", "connection.check"), scaps)

	schemas := kittest.CompileSchemas(t, d)
	require.Len(t, schemas, 2)
	for _, name := range p.GetEntityTypes() {
		require.Contains(t, schemas, name)
	}
}

func TestSchemasRefuseWhatFetchNeverProduces(t *testing.T) {
	t.Parallel()
	d, err := x.New(x.Options{}).Describe(context.Background(), nil)
	require.NoError(t, err)
	h := &harness{schemas: kittest.CompileSchemas(t, d)}
	tests := []struct {
		typ, data string
		ok        bool
	}{
		{"x.post", `{"id":"1","text":""}`, true},
		{"x.post", `{"id":"1","text":"a","views":null,"likes":0,"edit_ids":["1","2"],"edited_at":"2026-01-01T00:00:00Z","edited_at_source":"x_snowflake"}`, true},
		{"x.post", `{"id":"1"}`, false},                         // text is required
		{"x.post", `{"text":"a"}`, false},                       // id is required
		{"x.post", `{"id":"1","text":"a","retweets":3}`, false}, // unknown field
		{"x.post", `{"id":"abc","text":"a"}`, false},            // not an id
		{"x.post", `{"id":"1","text":"a","likes":-1}`, false},   // negative count
		{"x.post", `{"id":"1","text":"a","likes":1.5}`, false},  // not an integer
		{"x.post", `{"id":"1","text":"a","edited_at_source":"guess"}`, false},
		{"x.profile", `{"id":"1","handle":"a"}`, true},
		{"x.profile", `{"id":"1","handle":"a","followers":null,"protected":true}`, true},
		{"x.profile", `{"id":"1"}`, false},
		{"x.profile", `{"id":"1","handle":""}`, false},
		{"x.profile", `{"id":"1","handle":"a","verified":true,"verified_type":"organization"}`, true},
		{"x.profile", `{"id":"1","handle":"a","verified_type":"blue"}`, false}, // not a kind X has
		{"x.profile", `{"id":"1","handle":"a","verified":"yes"}`, false},
		{"x.post", `{"id":"1","text":"a","quotes":2,"bookmarks":0,"poll":{"choices":[{"label":"x"}],"ended":true}}`, true},
		{"x.post", `{"id":"1","text":"a","facets":[{"type":"url","start":0,"end":1,"replacement":"https://a.example/"}]}`, true},
		{"x.post", `{"id":"1","text":"a","facets":[{"type":"url","start":-1,"end":1}]}`, false}, // before the text
		{"x.post", `{"id":"1","text":"a","media":[{"kind":"video","codec":"mpeg2"}]}`, false},   // not a codec FxTwitter names
		{"x.post", `{"id":"1","text":"a","card":{"title":"no url"}}`, false},
		{"x.post", `{"id":"1","text":"a","quote_unavailable":{"reason":"suspended","message":"This post is from a suspended account"}}`, true},
	}
	for _, tt := range tests {
		err := h.schemas.Validate(tt.typ, tt.data)
		if tt.ok {
			require.NoError(t, err, "%s %s", tt.typ, tt.data)
		} else {
			require.Error(t, err, "%s %s", tt.typ, tt.data)
		}
	}
}
