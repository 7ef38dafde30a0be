package telegram_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/monitorhq/monitor/adapters/kit/kittest"
	"github.com/monitorhq/monitor/adapters/telegram"
	"github.com/monitorhq/monitor/adapters/x"
	adapterv1 "github.com/monitorhq/monitor/api/adapter/v1"
)

func TestDescribe(t *testing.T) {
	t.Parallel()
	client := kittest.Serve(t, telegram.New(telegram.Options{}))
	d, err := client.Describe(context.Background(), &adapterv1.DescribeRequest{
		Protocol: &adapterv1.ProtocolVersion{Major: 1, Minor: 0},
	})
	require.NoError(t, err)
	require.Equal(t, "telegram", d.GetAdapterId())
	require.Equal(t, "Telegram", d.GetDisplayName())
	require.EqualValues(t, 1, d.GetProtocol().GetMajor())
	require.EqualValues(t, 3, d.GetProtocol().GetMinor())
	require.Equal(t, telegram.Version, d.GetAdapterVersion())
	require.ElementsMatch(t, []string{"t.me", "telegram.me", "www.telegram.me", "telegram.dog"}, d.GetHosts())

	require.Len(t, d.GetProviders(), 2)
	p := d.GetProviders()[0]
	require.Equal(t, "tme-public", p.GetId())
	require.Equal(t, adapterv1.AuthMode_AUTH_MODE_NONE, p.GetAuthMode())
	require.True(t, p.GetDefaultProvider())
	require.Equal(t, []adapterv1.Visibility{adapterv1.Visibility_VISIBILITY_PUBLIC}, p.GetVisibilities())
	require.EqualValues(t, 1000, p.GetMaxBatchSize(), "a batch archives up to 1,000 posts of a channel")
	require.Equal(t, []string{"telegram.message", "telegram.channel"}, p.GetEntityTypes())
	var caps []string
	for _, c := range p.GetCapabilities() {
		require.EqualValues(t, 1, c.GetMajor(), c.GetName())
		require.EqualValues(t, 0, c.GetMinor(), c.GetName())
		caps = append(caps, c.GetName())
	}
	require.ElementsMatch(t, []string{
		"capture.fetch", "capture.canonical", "capture.related", "capture.page", "content.text", "entity.graph", "source.raw", "media.image", "media.video",
	}, caps)

	// Every host resolves, and every declared entity type has a schema.
	for _, h := range d.GetHosts() {
		resp, err := client.Resolve(context.Background(), &adapterv1.ResolveRequest{Url: "https://" + h + "/tidewatch_demo/120"})
		require.NoError(t, err)
		require.Nil(t, resp.GetError(), h)
		require.Equal(t, "tidewatch_demo/120", resp.GetTarget().GetExternalId(), h)
	}
	// The account provider: a Telegram session, media streamed.
	mt := d.GetProviders()[1]
	require.Equal(t, "mtproto", mt.GetId())
	require.Equal(t, adapterv1.AuthMode_AUTH_MODE_ACCOUNT, mt.GetAuthMode())
	require.True(t, mt.GetDefaultProvider())
	require.NotEmpty(t, mt.GetCredentialHelp())
	caps = nil
	for _, c := range mt.GetCapabilities() {
		caps = append(caps, c.GetName())
	}
	require.ElementsMatch(t, []string{"capture.fetch", "capture.canonical", "capture.related", "capture.page", "content.text", "entity.graph",
		"media.image", "media.video", "media.stream", "credential.prepare", "connection.check", "account.join", "credential.interactive"}, caps)
	require.Equal(t, uint32(1000), mt.GetMaxBatchSize(), "a channel through a session pages like the public one")

	schemas := kittest.CompileSchemas(t, d)
	require.Len(t, schemas, 2)
	for _, name := range p.GetEntityTypes() {
		require.Contains(t, schemas, name)
	}
}

// Core refuses to start when two adapters claim one host.
func TestHostsDoNotOverlapX(t *testing.T) {
	t.Parallel()
	for _, h := range telegram.Hosts() {
		require.NotContains(t, x.Hosts(), h)
	}
}

func TestSchemasRefuseWhatFetchNeverProduces(t *testing.T) {
	t.Parallel()
	d, err := telegram.New(telegram.Options{}).Describe(context.Background(), nil)
	require.NoError(t, err)
	h := &harness{schemas: kittest.CompileSchemas(t, d)}
	const msg = `"id":101,"channel":"tidewatch_demo","url":"https://t.me/tidewatch_demo/101"`
	tests := []struct {
		typ, data string
		ok        bool
	}{
		{"telegram.message", `{` + msg + `}`, true},
		{"telegram.message", `{` + msg + `,"preview":true,"text":""}`, true},
		{"telegram.message", `{` + msg + `,"text":"a","edited":true,"views":0,"album_id":101,
			"media":[{"message_id":101,"kind":"photo"},{"message_id":102,"kind":"video","duration_ms":8000,"unavailable_reason":"too big"}],
			"forwarded_from":{"name":"A"},"reply_to":{"channel":"tidewatch_demo","message_id":9},
			"link_preview":{"url":"https://a.example/"},"poll":{"question":"q","options":[{"text":"yes","percent":100}]}}`, true},
		// What the adapter wrote before polls kept their voter count and
		// stickers their format: old revisions still validate.
		{"telegram.message", `{` + msg + `,"media":[{"message_id":101,"kind":"sticker","unavailable_reason":"not shown"}],` +
			`"poll":{"question":"q","voters":"222","options":[{"text":"a","percent":16}]},"link_preview":{"url":"https://a.example/","image_url":"https://cdn/i.jpg"}}`, true},
		// The fields added for issue 21.
		{"telegram.message", `{` + msg + `,"media":[{"message_id":101,"kind":"sticker","format":"tgs","preview_data_url":"data:image/svg+xml;base64,PHN2Zy8+"},` +
			`{"message_id":101,"kind":"round_video","duration_ms":57000}],` +
			`"poll":{"question":"q","voters":"222","voters_count":222,"multiple_answers":true,"options":[{"text":"a","percent":83}]},` +
			`"link_preview":{"url":"https://t.me/shalnyak/5410","video":true,"video_url":"https://cdn/v.mp4?token=x","video_duration_ms":11000}}`, true},
		{"telegram.message", `{` + msg + `,"media":[{"message_id":101,"kind":"sticker","format":"lottie"}]}`, false},                               // unknown format
		{"telegram.message", `{` + msg + `,"media":[{"message_id":101,"kind":"sticker","preview_data_url":"data:text/html;base64,PA=="}]}`, false}, // not an image
		{"telegram.message", `{` + msg + `,"media":[{"message_id":101,"kind":"sticker","preview_data_url":"https://cdn/a.webp"}]}`, false},         // not inline
		{"telegram.message", `{` + msg + `,"poll":{"voters_count":-1}}`, false},                                                                    // negative count
		{"telegram.message", `{"id":1,"channel":"tidewatch_demo"}`, false},                                                                         // url is required
		{"telegram.message", `{"id":0,"channel":"tidewatch_demo","url":"https://t.me/a"}`, false},                                                  // ids start at 1
		{"telegram.message", `{"id":"101","channel":"tidewatch_demo","url":"https://t.me/a"}`, false},                                              // ids are numbers
		{"telegram.message", `{"id":9223372036854775808,"channel":"abcd","url":"https://t.me/a"}`, false},                                          // past int64
		{"telegram.message", `{"id":1,"channel":"TideWatch","url":"https://t.me/a"}`, false},                                                       // lowercase
		{"telegram.message", `{"id":1,"channel":"abc","url":"https://t.me/a"}`, false},                                                             // too short
		{"telegram.message", `{"id":1,"channel":"1abcd","url":"https://t.me/a"}`, false},                                                           // starts with a letter
		{"telegram.message", `{` + msg + `,"likes":3}`, false},                                                                                     // unknown field
		{"telegram.message", `{` + msg + `,"views":-1}`, false},                                                                                    // negative count
		{"telegram.message", `{` + msg + `,"media":[{"message_id":101,"kind":"hologram"}]}`, false},                                                // unknown kind
		{"telegram.message", `{` + msg + `,"media":[{"kind":"photo"}]}`, false},                                                                    // member id required
		{"telegram.message", `{` + msg + `,"reply_to":{"channel":"tidewatch_demo"}}`, false},                                                       // reply needs its id
		{"telegram.message", `{` + msg + `,"poll":{"options":[{"text":"a","percent":101}]}}`, false},                                               // percent
		{"telegram.channel", `{"username":"tidewatch_demo","url":"https://t.me/tidewatch_demo"}`, true},
		{"telegram.channel", `{"username":"tidewatch_demo","url":"https://t.me/tidewatch_demo","id":-1001874921563,"title":"T","subscribers":27400,"verified":true}`, true},
		{"telegram.channel", `{"username":"tidewatch_demo"}`, false},
		{"telegram.channel", `{"username":"tidewatch_demo","url":"https://t.me/a","id":1874921563}`, false}, // marked ids are negative
		{"telegram.channel", `{"username":"tidewatch_demo","url":"https://t.me/a","followers":1}`, false},
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
