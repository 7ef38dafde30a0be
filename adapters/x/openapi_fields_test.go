package x_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/monitorhq/monitor/internal/testkit"
)

// Every field FxTwitter's OpenAPI document gives an APITwitterStatus (and
// what it references: the author's APIUser, APIReplyingTo, APIRepostedBy,
// a quote's APIStatusTombstone) is either kept and asserted by a test, or
// knowingly left out with the reason. The fields are read from the
// document at test time, so a field FxTwitter adds that is in neither
// list fails this test. A listed path covers the fields below it.

// statusFieldsKept maps a kept field to the test that asserts it.
var statusFieldsKept = map[string]string{
	"type":                                 "TestRealSample991001 (a tombstone quote is told apart by type)",
	"id":                                   "TestRealSample20",
	"url":                                  "TestRealSample1902059299591090335 (the quote's url)",
	"text":                                 "TestRealSample20",
	"created_at":                           "TestFetchKeepsCardsArticlesAndLinks (when created_timestamp is missing)",
	"created_timestamp":                    "TestRealSample20",
	"likes":                                "TestRealSample20",
	"reposts":                              "TestRealSample20",
	"quotes":                               "TestRealSample20",
	"replies":                              "TestRealSample20",
	"views":                                "TestRealSample1848831595014459513",
	"bookmarks":                            "TestRealSample20",
	"lang":                                 "TestRealSample20",
	"source":                               "TestRealSample20",
	"possibly_sensitive":                   "TestFetchFixtures (status-sensitive-gif)",
	"is_note_tweet":                        "TestSchemasRefuseWhatFetchNeverProduces (note_tweet)",
	"raw_text.text":                        "TestFetchFixtures",
	"raw_text.display_text_range":          "TestRealSample1841206275088290279",
	"raw_text.facets":                      "TestRealSample1841206275088290279",
	"poll.choices":                         "TestRealSample1899954694652309701",
	"poll.total_votes":                     "TestRealSample1899954694652309701",
	"poll.ends_at":                         "TestRealSample1899954694652309701",
	"poll.time_left_en":                    "TestRealSample1899954694652309701 (\"Final results\" is read as ended)",
	"quote":                                "TestRealSample1902059299591090335 (a quote is its own x.post entity)",
	"quote.reason":                         "TestRealSample991004",
	"quote.message":                        "TestRealSample991004",
	"quote.id":                             "TestRealSample991001",
	"quote.url":                            "TestRealSample991001",
	"quote.type":                           "TestRealSample991001",
	"author.id":                            "TestRealSample20",
	"author.screen_name":                   "TestRealSample20",
	"author.name":                          "TestRealSample20",
	"author.avatar_url":                    "TestRealSample20 (without the size suffix)",
	"author.banner_url":                    "TestFetchFixtures",
	"author.description":                   "TestFetchFixtures",
	"author.location":                      "TestFetchFixtures",
	"author.followers":                     "TestFetchFixtures",
	"author.following":                     "TestFetchFixtures",
	"author.statuses":                      "TestFetchFixtures",
	"author.joined":                        "TestFetchFixtures",
	"author.protected":                     "TestFetchFixtures",
	"author.website.url":                   "TestFetchFixtures",
	"author.verification.verified":         "TestRealSample1848831595014459513",
	"author.verification.type":             "TestRealSample1848831595014459513",
	"media.all":                            "TestRealSample1848831595014459513",
	"media.all.id":                         "TestRealSample991610",
	"media.all.type":                       "TestRealSample1848831595014459513",
	"media.all.url":                        "TestRealSample1848831595014459513",
	"media.all.width":                      "TestRealSample1848831595014459513",
	"media.all.height":                     "TestRealSample1848831595014459513",
	"media.all.altText":                    "TestFetchFixtures",
	"media.all.duration":                   "TestRealSample1841206275088290279",
	"media.all.format":                     "TestBestMP4 (a video without renditions, format video/mp4)",
	"media.all.thumbnail_url":              "TestRealSample1841206275088290279 (the poster)",
	"media.all.formats":                    "TestRealSample1841206275088290279",
	"media.all.formats.codec":              "TestBestMP4ByCodecThenResolution",
	"media.all.publisher":                  "TestFetchKeepsCardsArticlesAndLinks (media record publisher)",
	"media.photos":                         "TestStatusMediaFallsBackToPhotosThenVideos",
	"media.videos":                         "TestStatusMediaFallsBackToPhotosThenVideos",
	"media.external.url":                   "TestFetchKeepsCardsArticlesAndLinks",
	"media.external.type":                  "TestFetchKeepsCardsArticlesAndLinks",
	"media.external.thumbnail_url":         "TestFetchKeepsCardsArticlesAndLinks",
	"media.external.width":                 "TestFetchKeepsCardsArticlesAndLinks",
	"media.external.height":                "TestFetchKeepsCardsArticlesAndLinks",
	"media.broadcast.url":                  "TestFetchKeepsCardsArticlesAndLinks",
	"media.broadcast.title":                "TestFetchKeepsCardsArticlesAndLinks",
	"media.broadcast.state":                "TestFetchKeepsCardsArticlesAndLinks",
	"media.broadcast.broadcast_id":         "TestFetchKeepsCardsArticlesAndLinks",
	"media.broadcast.broadcaster.username": "TestFetchKeepsCardsArticlesAndLinks",
	"media.broadcast.broadcaster.display_name": "TestFetchKeepsCardsArticlesAndLinks",
	"media.broadcast.thumbnail.original":       "TestFetchKeepsCardsArticlesAndLinks",
	"replying_to.screen_name":                  "TestFetchKeepsCardsArticlesAndLinks",
	"replying_to.status":                       "TestFetchKeepsCardsArticlesAndLinks",
	"replying_to.display_name":                 "TestFetchKeepsCardsArticlesAndLinks",
	"reposted_by.id":                           "TestFetchKeepsCardsArticlesAndLinks",
	"reposted_by.name":                         "TestFetchKeepsCardsArticlesAndLinks",
	"reposted_by.screen_name":                  "TestFetchKeepsCardsArticlesAndLinks",
	"reposted_by.url":                          "TestFetchKeepsCardsArticlesAndLinks",
	"community.id":                             "TestRealSample1964084223871971826",
	"community.name":                           "TestRealSample1964084223871971826",
	"community.description":                    "TestRealSample1964084223871971826",
	"community.created_at":                     "TestRealSample1964084223871971826",
	"community.is_nsfw":                        "TestRealSample1964084223871971826",
	"community.topic":                          "TestRealSample1964084223871971826",
	"community.admin.screen_name":              "TestRealSample1964084223871971826",
	"community_note.text":                      "TestFetchFixtures (status-sensitive-gif)",
	"community_note.facets":                    "TestFetchFixtures (status-sensitive-gif)",
	"card.url":                                 "TestFetchKeepsCardsArticlesAndLinks",
	"card.title":                               "TestFetchKeepsCardsArticlesAndLinks",
	"card.description":                         "TestFetchKeepsCardsArticlesAndLinks",
	"card.domain":                              "TestFetchKeepsCardsArticlesAndLinks",
	"card.card_name":                           "TestFetchKeepsCardsArticlesAndLinks",
	"card.image.url":                           "TestFetchKeepsCardsArticlesAndLinks (downloaded, purpose card)",
	"card.image.alt":                           "TestFetchKeepsCardsArticlesAndLinks",
	"card.image.width":                         "TestFetchKeepsCardsArticlesAndLinks",
	"card.image.height":                        "TestFetchKeepsCardsArticlesAndLinks",
	"article.id":                               "TestFetchKeepsCardsArticlesAndLinks",
	"article.title":                            "TestFetchKeepsCardsArticlesAndLinks",
	"article.preview_text":                     "TestFetchKeepsCardsArticlesAndLinks",
	"article.created_at":                       "TestFetchKeepsCardsArticlesAndLinks",
	"article.modified_at":                      "TestFetchKeepsCardsArticlesAndLinks",
	"article.content.blocks.text":              "TestFetchKeepsCardsArticlesAndLinks (paragraphs as plain text)",
	"article.cover_media.media_info":           "TestFetchKeepsCardsArticlesAndLinks (original_img_url downloaded, purpose article_cover)",
}

// statusFieldsIgnored maps a field left out to the reason.
var statusFieldsIgnored = map[string]string{
	"provider":                                 "always \"twitter\" on this route",
	"embed_card":                               "how FxTwitter embeds the post in chat apps, not part of the post",
	"translation":                              "a machine translation FxTwitter makes on request, not what the author wrote",
	"media.mosaic":                             "a picture FxTwitter composes from the photos, which are kept themselves",
	"media.all.transcode_url":                  "FxTwitter's own re-encoding service; the original MP4 is kept",
	"media.all.filesize":                       "the bytes are downloaded and measured",
	"media.all.formats.container":              "only read to choose MP4s; the kept rendition is an MP4",
	"media.all.formats.bitrate":                "read to choose; the kept bitrate is in the media record",
	"media.all.formats.url":                    "read to choose; the kept one is the media's URL",
	"media.all.formats.size":                   "the bytes are downloaded and measured",
	"media.all.formats.width":                  "read to choose; the kept size is the media's",
	"media.all.formats.height":                 "read to choose; the kept size is the media's",
	"media.photos.transcode_url":               "as media.all.transcode_url",
	"media.videos.transcode_url":               "as media.all.transcode_url",
	"media.broadcast.width":                    "a broadcast is not downloaded, so its frame size says nothing about a file",
	"media.broadcast.height":                   "as media.broadcast.width",
	"media.broadcast.orientation":              "as media.broadcast.width",
	"media.broadcast.source":                   "the client that streamed it; not shown on X",
	"media.broadcast.stream":                   "a live HLS stream URL that expires; broadcasts are not downloaded",
	"media.broadcast.media_id":                 "internal ids; broadcast_id names it",
	"media.broadcast.media_key":                "internal ids; broadcast_id names it",
	"media.broadcast.is_high_latency":          "a property of the live stream",
	"media.broadcast.broadcaster.id":           "the handle and name are kept",
	"media.broadcast.thumbnail.small":          "the original thumbnail is kept",
	"media.broadcast.thumbnail.medium":         "the original thumbnail is kept",
	"media.broadcast.thumbnail.large":          "the original thumbnail is kept",
	"media.broadcast.thumbnail.x_large":        "the original thumbnail is kept",
	"replying_to.url":                          "built from screen_name and status",
	"replying_to.profile_url":                  "built from screen_name",
	"reposted_by.avatar_url":                   "the reposter is named, not archived as a profile",
	"quote.provider":                           "always \"twitter\" on this route",
	"quote.author":                             "a tombstone's author, when given, is not enough to archive as a profile",
	"quote.at_uri":                             "Bluesky only",
	"quote.cid":                                "Bluesky only",
	"author.type":                              "always \"profile\"",
	"author.url":                               "built from the handle",
	"author.raw_description":                   "the expanded description is kept; its facets are not rendered on profiles yet",
	"author.website.display_url":               "the website's URL is kept",
	"author.likes":                             "a profile count X hides from others since 2024",
	"author.media_count":                       "a profile count not shown in the archive",
	"author.birthday":                          "personal data the archive has no use for",
	"author.about_account":                     "\"about this account\" details (country, username changes) are not part of the post",
	"author.profile_embed":                     "an FxTwitter presentation flag",
	"author.verification.verified_at":          "null in every sample; the check mark and its kind are kept",
	"author.verification.identity_verified":    "ID verification, not shown as a check mark",
	"author.verification.verified_by":          "who granted a check mark to an affiliate; not shown",
	"community.admin":                          "only the admin's handle is kept, not a profile",
	"community.creator":                        "usually the admin; not shown with a post",
	"community.search_tags":                    "community search metadata",
	"community.join_policy":                    "community settings, not part of the post",
	"community.invites_policy":                 "community settings, not part of the post",
	"community.is_pinned":                      "whether the community is pinned by the viewer",
	"article.content.blocks.key":               "Draft.js block keys",
	"article.content.blocks.data":              "Draft.js block data",
	"article.content.blocks.type":              "block styles (headings, lists) flattened into paragraphs",
	"article.content.blocks.entityRanges":      "inline links and media of the article; the text is kept plain",
	"article.content.blocks.inlineStyleRanges": "bold and italic inside the article; the text is kept plain",
	"article.content.entityMap":                "what entityRanges point at; the text is kept plain",
	"article.cover_media.id":                   "internal ids; the cover image is kept",
	"article.cover_media.media_id":             "internal ids; the cover image is kept",
	"article.cover_media.media_key":            "internal ids; the cover image is kept",
	"article.media_entities":                   "images inside the article body are not downloaded yet",
}

func TestOpenAPIStatusFieldsAreKeptOrIgnored(t *testing.T) {
	t.Parallel()
	dir := testkit.RealFixturesDir(t, "fxtwitter/spec")
	b, err := os.ReadFile(filepath.Join(dir, "FxEmbed-fxtwitter-openapi.json"))
	require.NoError(t, err)
	var doc struct {
		Components struct {
			Schemas map[string]json.RawMessage `json:"schemas"`
		} `json:"components"`
	}
	require.NoError(t, json.Unmarshal(b, &doc))
	schemas := map[string]map[string]any{}
	for name, raw := range doc.Components.Schemas {
		var s map[string]any
		require.NoError(t, json.Unmarshal(raw, &s))
		schemas[name] = s
	}
	require.Contains(t, schemas, "APITwitterStatus")

	fields := map[string]bool{}
	var walk func(node map[string]any, path string, seen map[string]bool)
	walk = func(node map[string]any, path string, seen map[string]bool) {
		if ref, ok := node["$ref"].(string); ok {
			name := ref[strings.LastIndex(ref, "/")+1:]
			if seen[name] {
				return
			}
			next := map[string]bool{name: true}
			for k := range seen {
				next[k] = true
			}
			walk(schemas[name], path, next)
			return
		}
		for _, k := range []string{"anyOf", "allOf", "oneOf"} {
			subs, _ := node[k].([]any)
			for _, s := range subs {
				if m, ok := s.(map[string]any); ok {
					walk(m, path, seen)
				}
			}
		}
		if items, ok := node["items"].(map[string]any); ok {
			walk(items, path, seen)
		}
		props, _ := node["properties"].(map[string]any)
		for k, v := range props {
			p := k
			if path != "" {
				p = path + "." + k
			}
			fields[p] = true
			if m, ok := v.(map[string]any); ok {
				walk(m, p, seen)
			}
		}
	}
	walk(schemas["APITwitterStatus"], "", map[string]bool{"APITwitterStatus": true})
	require.Greater(t, len(fields), 100)

	covered := func(p string) bool {
		for {
			if _, ok := statusFieldsKept[p]; ok {
				return true
			}
			if _, ok := statusFieldsIgnored[p]; ok {
				return true
			}
			i := strings.LastIndex(p, ".")
			if i < 0 {
				return false
			}
			p = p[:i]
		}
	}
	// A field is covered by itself or an ancestor; a parent that is only a
	// container (media, poll, ...) is covered when every child is.
	hasChild := func(p string) bool {
		for f := range fields {
			if strings.HasPrefix(f, p+".") {
				return true
			}
		}
		return false
	}
	var missing []string
	for f := range fields {
		if !covered(f) && !hasChild(f) {
			missing = append(missing, f)
		}
	}
	sort.Strings(missing)
	require.Empty(t, missing, "APITwitterStatus fields neither kept (statusFieldsKept) nor knowingly ignored (statusFieldsIgnored)")

	// Each listed field exists in the document, is listed once, and an
	// ignored one says why.
	for p := range statusFieldsKept {
		require.True(t, fields[p], "kept field %s is not in FxTwitter's OpenAPI document", p)
		_, both := statusFieldsIgnored[p]
		require.False(t, both, "%s is both kept and ignored", p)
	}
	for p, why := range statusFieldsIgnored {
		require.True(t, fields[p], "ignored field %q is not in FxTwitter's OpenAPI document", p)
		require.NotEmpty(t, why, "ignored field %s needs its reason", p)
	}
}
