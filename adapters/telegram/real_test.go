package telegram_test

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/monitorhq/monitor/adapters/kit/kittest"
	adapterv1 "github.com/monitorhq/monitor/api/adapter/v1"
	"github.com/monitorhq/monitor/internal/testkit"
)

// The real-sample suite: t.me pages saved from real public channels
// (shared/fixtures/real/tme, provenance in its SOURCES.md), which may not
// be copied into this repository. testkit.RealFixturesDir skips it when
// they are absent and fails it then on CI.

// dataPost finds the post a whole message block is.
var dataPost = regexp.MustCompile(`data-post="([^"/]+)/(\d+)"`)

// fragmentPost wraps an inner fragment (a medium, a link preview, a poll)
// in the least a message block needs, so it reaches Fetch as a post; the
// markup around it is ours, the fragment is the sample's.
const fragmentPost = `<div class="tgme_widget_message_wrap"><div class="tgme_widget_message" data-post="any2feed_demo/%d">` +
	`<div class="tgme_widget_message_bubble">%s<div class="tgme_widget_message_footer"><div class="tgme_widget_message_info">` +
	`<span class="tgme_widget_message_meta"><a class="tgme_widget_message_date" href="https://t.me/any2feed_demo/%[1]d">` +
	`<time datetime="2023-02-28T08:48:01+00:00" class="time">08:48</time></a></span></div></div></div></div></div>`

// fragmentTime is the time fragmentPost gives every fragment.
const fragmentTime = "2023-02-28T08:48:01Z"

// realMessage is what a person reads of a telegram.message on the live
// page; the signed CDN addresses are checked apart (realPreview).
type realMessage struct {
	ID            int64        `json:"id"`
	Channel       string       `json:"channel"`
	Text          string       `json:"text"`
	PublishedAt   string       `json:"published_at"`
	Edited        bool         `json:"edited"`
	Signature     string       `json:"signature"`
	AuthorName    string       `json:"author_name"`
	Views         int64        `json:"views"`
	ViewsText     string       `json:"views_text"`
	AlbumID       int64        `json:"album_id"`
	Media         []realMedium `json:"media"`
	ForwardedFrom *realForward `json:"forwarded_from"`
	LinkPreview   *realPreview `json:"link_preview"`
	Poll          *realPoll    `json:"poll"`
}

type realMedium struct {
	MessageID   int64  `json:"message_id"`
	Kind        string `json:"kind"`
	DurationMS  uint32 `json:"duration_ms"`
	Title       string `json:"title"`
	Size        string `json:"size"`
	Unavailable string `json:"unavailable_reason"`
	Format      string `json:"format"`
	// PreviewData is compared by its start: "data:image/svg+xml;base64,…".
	PreviewData string `json:"preview_data_url"`
}

type realForward struct {
	Name string `json:"name"`
	URL  string `json:"url"`
}

type realPreview struct {
	URL           string `json:"url"`
	SiteName      string `json:"site_name"`
	Title         string `json:"title"`
	Description   string `json:"description"`
	ImageURL      string `json:"image_url"`
	Video         bool   `json:"video"`
	VideoURL      string `json:"video_url"`
	VideoDuration uint32 `json:"video_duration_ms"`
}

type realPoll struct {
	Question    string           `json:"question"`
	Type        string           `json:"type"`
	Voters      string           `json:"voters"`
	VotersCount *int64           `json:"voters_count"`
	Multiple    bool             `json:"multiple_answers"`
	Options     []realPollOption `json:"options"`
}

type realPollOption struct {
	Text    string `json:"text"`
	Percent int64  `json:"percent"`
}

// realFile is one Media of the response: URL is a pattern, its fixed
// parts joined by "…" (the signed tokens between them are not ours to
// repeat).
type realFile struct {
	Kind        adapterv1.MediaKind
	Mime        string
	URL         string
	Duration    uint32
	Alt         string
	Purpose     string
	Unavailable string
}

// like reports whether s starts with the pattern's first part and holds
// its other parts in order after it.
func like(s, pattern string) bool {
	parts := strings.Split(pattern, "…")
	if len(parts) == 1 {
		return s == pattern
	}
	if !strings.HasPrefix(s, parts[0]) {
		return false
	}
	rest := s[len(parts[0]):]
	for _, p := range parts[1:] {
		i := strings.Index(rest, p)
		if i < 0 {
			return false
		}
		rest = rest[i+len(p):]
	}
	return true
}

// realCase is the expectation of one sample, written from reading it.
type realCase struct {
	// id is the message id a fragment is served under (whole blocks carry
	// their own data-post).
	id      int
	message realMessage
	files   []realFile
	summary string
}

func n(v int64) *int64 { return &v }

// Addresses as the samples give them: host, path start, the type.
const (
	tmeCDN   = "https://cdn4.telegram-cdn.org/file/"
	avatarOf = tmeCDN + "…" // every channel's avatar is a signed .jpg
	fileOnly = "Telegram's web preview does not offer files for download; this one (%s) needs a Telegram account connection"
)

var (
	gif      = adapterv1.MediaKind_MEDIA_KIND_GIF
	audio    = adapterv1.MediaKind_MEDIA_KIND_AUDIO
	document = adapterv1.MediaKind_MEDIA_KIND_DOCUMENT
)

// The link previews two samples share: a site card with an image, and a
// t.me post's video.
var (
	vnnewsPreview = &realPreview{
		URL:      "https://vnnews.ru/georgiy-zotov-okkupaciya-volosatym-kr/",
		SiteName: "Ваши новости — интернет-газета",
		Title:    "Георгий Зотов: ОККУПАЦИЯ ВОЛОСАТЫМ КРАБОМ",
		Description: "Современная журналистика превратилась в комедию и тщетную охоту за лайками с перепостами " +
			"в попытке обогнать популярные блоги. Выглядит сие довольно жалко…",
		ImageURL: tmeCDN + "Vk3eUCs_p7BY…jpg",
	}
	vnnewsImage     = realFile{Kind: image, Mime: "image/jpeg", URL: tmeCDN + "Vk3eUCs_p7BY…jpg", Purpose: "link_preview"}
	shalnyakPreview = &realPreview{
		URL:      "https://t.me/shalnyak/5410",
		SiteName: "Telegram",
		Title:    "Shalnyak",
		Description: "Дядь @fighter_bomber глянь!!!\nУ меня такааая разработка🔥\n" +
			"Для чего пока не знаю, но жути наводит пздц как🤓",
		ImageURL:      tmeCDN + "RJ8QZu8BMHl5…",
		Video:         true,
		VideoURL:      tmeCDN + "0f5ac11ec6.mp4?token=…",
		VideoDuration: 11000,
	}
	shalnyakFiles = []realFile{
		{Kind: image, Mime: "image/jpeg", URL: tmeCDN + "RJ8QZu8BMHl5…", Purpose: "link_preview"},
		{Kind: video, Mime: "video/mp4", URL: tmeCDN + "0f5ac11ec6.mp4?token=…", Duration: 11000, Purpose: "link_preview_video"},
	}
	pollOptions = []realPollOption{
		{"Несколько постов в день", 16}, {"Один пост в несколько дней", 83}, {"Свой вариант в комментарии", 3},
	}
	avatar = realFile{Kind: image, Mime: "image/jpeg", URL: avatarOf, Purpose: "avatar"}
)

// realCases holds one expectation per sample file in tme/any2feed, read
// from the HTML as the live page shows it (white space as a browser
// collapses it). A sample without one fails the suite.
var realCases = map[string]realCase{
	"link_preview.html": {id: 2001,
		message: realMessage{ID: 2001, Channel: "any2feed_demo", PublishedAt: fragmentTime, LinkPreview: vnnewsPreview},
		files:   []realFile{vnnewsImage},
		summary: "@any2feed_demo：",
	},
	"link_preview_video.html": {id: 2002,
		message: realMessage{ID: 2002, Channel: "any2feed_demo", PublishedAt: fragmentTime, LinkPreview: shalnyakPreview},
		files:   shalnyakFiles,
		summary: "@any2feed_demo：",
	},
	"media_cicrle_video.html": {id: 2003,
		message: realMessage{ID: 2003, Channel: "any2feed_demo", PublishedAt: fragmentTime,
			Media: []realMedium{{MessageID: 2003, Kind: "round_video", DurationMS: 57000}}},
		files: []realFile{
			{Kind: video, Mime: "video/mp4", URL: tmeCDN + "f30ab8b2f9.mp4?token=…", Duration: 57000},
			{Kind: image, Mime: "image/jpeg", URL: tmeCDN + "rmNTA-JE0BB_…", Purpose: "poster"},
		},
		summary: "@any2feed_demo：⟦video⟧",
	},
	"media_photo.html": {id: 2004,
		message: realMessage{ID: 2004, Channel: "any2feed_demo", PublishedAt: fragmentTime,
			Media: []realMedium{{MessageID: 2004, Kind: "photo"}}},
		files:   []realFile{{Kind: image, Mime: "image/jpeg", URL: tmeCDN + "A6p54HYaRl2Y…jpg"}},
		summary: "@any2feed_demo：⟦image⟧",
	},
	"media_video.html": {id: 2005,
		message: realMessage{ID: 2005, Channel: "any2feed_demo", PublishedAt: fragmentTime,
			Media: []realMedium{{MessageID: 2005, Kind: "video", DurationMS: 34000}}},
		files: []realFile{
			{Kind: video, Mime: "video/mp4", URL: tmeCDN + "6a6c95d988.mp4?token=…", Duration: 34000},
			{Kind: image, Mime: "image/jpeg", URL: tmeCDN + "sXJ2Wl2lf_FS…", Purpose: "poster"},
		},
		summary: "@any2feed_demo：⟦video⟧",
	},
	"media_video_gif.html": {id: 2006,
		message: realMessage{ID: 2006, Channel: "any2feed_demo", PublishedAt: fragmentTime,
			Media: []realMedium{{MessageID: 2006, Kind: "gif"}}},
		files: []realFile{
			{Kind: gif, Mime: "video/mp4", URL: tmeCDN + "77..0c.mp4?token=..."},
			{Kind: image, Mime: "image/jpeg", URL: tmeCDN + "lttz79MkTD38…", Purpose: "poster"},
		},
		summary: "@any2feed_demo：⟦video⟧",
	},
	"media_video_too_big.html": {id: 2007,
		message: realMessage{ID: 2007, Channel: "any2feed_demo", PublishedAt: fragmentTime,
			Media: []realMedium{{MessageID: 2007, Kind: "video", DurationMS: 69000, Unavailable: tooBig}}},
		files: []realFile{
			{Kind: video, Mime: "video/mp4", Duration: 69000, Unavailable: tooBig},
			{Kind: image, Mime: "image/jpeg", URL: tmeCDN + "IMkSHRbvHUII…", Purpose: "thumbnail"},
		},
		summary: "@any2feed_demo：⟦video⟧",
	},
	"message_link_preview.html": {
		message: realMessage{ID: 22360, Channel: "oper_goblin", AuthorName: "Tynu40k Goblina (oper.ru)",
			Text:        "https://vnnews.ru/georgiy-zotov-okkupaciya-volosatym-kr/",
			PublishedAt: "2023-02-27T07:33:14Z", Views: 226200, ViewsText: "226.2K", LinkPreview: vnnewsPreview},
		files:   []realFile{vnnewsImage, avatar},
		summary: "Tynu40k Goblina (oper.ru)：https://vnnews.ru/georgiy-zotov-okkupaciya-volosatym-kr/",
	},
	"message_link_preview_text_only.html": {
		message: realMessage{ID: 22368, Channel: "oper_goblin", AuthorName: "Tynu40k Goblina (oper.ru)",
			Text:        "http://publication.pravo.gov.ru/Document/View/0001202302270011?index=7&rangeSize=1",
			PublishedAt: "2023-02-27T15:08:05Z", Views: 246800, ViewsText: "246.8K",
			LinkPreview: &realPreview{
				URL:      "http://publication.pravo.gov.ru/Document/View/0001202302270011?index=7&rangeSize=1",
				SiteName: "publication.pravo.gov.ru",
				Title: "Распоряжение Президента Российской Федерации от 27.02.2023 № 59-рп ∙ " +
					"Официальное опубликование правовых актов ∙ Официальный интернет…",
				Description: "Распоряжение Президента Российской Федерации от 27.02.2023 № 59-рп\n\"О поощрении\"",
			}},
		files:   []realFile{avatar},
		summary: "Tynu40k Goblina (oper.ru)：http://publication.pravo.gov.ru/Document/View/0001202302270011?index=7&rangeSize=1",
	},
	"message_link_preview_video.html": {
		message: realMessage{ID: 11226, Channel: "fighter_bomber", AuthorName: "Fighterbomber",
			Text:        "Жениться вам, барин, пора! 😁\n\nhttps://t.me/shalnyak/5410",
			PublishedAt: "2023-03-01T07:37:02Z", Edited: true, Views: 69400, ViewsText: "69.4K", LinkPreview: shalnyakPreview},
		files:   append(slices.Clone(shalnyakFiles), avatar),
		summary: "Fighterbomber：Жениться вам, барин, пора! 😁 https://t.me/shalnyak/5410",
	},
	"message_media_file.html": {
		message: realMessage{ID: 16936, Channel: "oper_goblin", AuthorName: "Tynu40k Goblina (oper.ru)",
			Text: "Центр изучения новых коммуникаций подготовил исследование: «Оппозиционные проекты, " +
				"запущенные или получившие дополнительное финансирование на фоне СВО»",
			PublishedAt: "2022-08-03T19:31:10Z", Views: 171900, ViewsText: "171.9K",
			Media: []realMedium{{MessageID: 16936, Kind: "document", Title: "Оппозиционные медиапроекты.pdf", Size: "2.1 MB",
				Unavailable: fmt.Sprintf(fileOnly, "Оппозиционные медиапроекты.pdf")}},
			ForwardedFrom: &realForward{Name: "Кремлёвская прачка", URL: "https://t.me/kremlinprachka/20294"}},
		files: []realFile{
			{Kind: document, Alt: "Оппозиционные медиапроекты.pdf", Unavailable: fmt.Sprintf(fileOnly, "Оппозиционные медиапроекты.pdf")},
			avatar,
		},
		summary: "Tynu40k Goblina (oper.ru)：Центр изучения новых коммуникаций подготовил исследование: «Оппозиционные проекты, " +
			"запущенные или получившие дополнительное финансирование на фоне СВО» ⟦file⟧",
	},
	"message_media_forwarded_from.html": {
		message: realMessage{ID: 22358, Channel: "oper_goblin", AuthorName: "Tynu40k Goblina (oper.ru)",
			Text:        "Британская разведка выяснила, почему Ким Чен Ын начал выводить дочку в свет",
			PublishedAt: "2023-02-27T07:20:50Z", Views: 214400, ViewsText: "214.4K",
			Media:         []realMedium{{MessageID: 22358, Kind: "photo"}},
			ForwardedFrom: &realForward{Name: "Пул N3", URL: "https://t.me/dimsmirnov175/44604"}},
		files:   []realFile{{Kind: image, Mime: "image/jpeg", URL: tmeCDN + "…jpg"}, avatar},
		summary: "Tynu40k Goblina (oper.ru)：Британская разведка выяснила, почему Ким Чен Ын начал выводить дочку в свет ⟦image⟧",
	},
	"message_media_photo_and_video.html": {
		message: realMessage{ID: 46908, Channel: "anna_news", AuthorName: "ANNA-NEWS", AlbumID: 46908,
			Text: "Ночью над Белгородом сбили 3 беспилотника\n\nОни упали на улицы города.\n\n" +
				"Сообщается, что на себе БПЛА несли взрывчатку из пластида.\n\n#Белгород #Беспилотники\n\n@anna_news",
			PublishedAt: "2023-02-28T06:48:36Z", Views: 59500, ViewsText: "59.5K",
			Media: []realMedium{{MessageID: 46908, Kind: "video", DurationMS: 5000}, {MessageID: 46909, Kind: "photo"}, {MessageID: 46910, Kind: "photo"}}},
		files: []realFile{
			{Kind: video, Mime: "video/mp4", URL: tmeCDN + "3fc678ce81.mp4?token=…", Duration: 5000},
			{Kind: image, Mime: "image/jpeg", URL: tmeCDN + "…jpg"},
			{Kind: image, Mime: "image/jpeg", URL: tmeCDN + "…jpg"},
			avatar,
			{Kind: image, Mime: "image/jpeg", URL: tmeCDN + "…", Purpose: "poster"},
		},
		summary: "ANNA-NEWS：Ночью над Белгородом сбили 3 беспилотника Они упали на улицы города. " +
			"Сообщается, что на себе БПЛА несли взрывчатку из пластида. #Белгород #Беспилотники @anna_news ⟦video⟧⟦image⟧⟦image⟧",
	},
	"message_media_round_video.html": {
		message: realMessage{ID: 3495, Channel: "bolshiepushki", AuthorName: "Крупнокалиберный Переполох",
			PublishedAt: "2023-03-01T09:35:31Z", Views: 54200, ViewsText: "54.2K",
			Media: []realMedium{{MessageID: 3495, Kind: "round_video", DurationMS: 44000}}},
		files: []realFile{
			{Kind: video, Mime: "video/mp4", URL: tmeCDN + "abbcfd1c60.mp4?token=…", Duration: 44000},
			avatar,
			{Kind: image, Mime: "image/jpeg", URL: tmeCDN + "…", Purpose: "poster"},
		},
		summary: "Крупнокалиберный Переполох：⟦video⟧",
	},
	"message_poll.html": {
		message: realMessage{ID: 488, Channel: "it_begin", AuthorName: "IT-старт",
			PublishedAt: "2023-02-27T16:21:02Z", Views: 1100, ViewsText: "1.1K",
			Poll: &realPoll{Question: "Как лучше?", Type: "Anonymous Poll", Voters: "222", VotersCount: n(222),
				Multiple: true, Options: pollOptions}},
		files:   []realFile{avatar},
		summary: "IT-старт：Как лучше?",
	},
	"message_sticker.html": {
		message: realMessage{ID: 5, Channel: "channel", AuthorName: "Mein Leben", Signature: "🅰️User",
			PublishedAt: "2023-03-01T08:01:50Z", Views: 1, ViewsText: "1",
			Media: []realMedium{{MessageID: 5, Kind: "sticker", Format: "tgs", PreviewData: "data:image/svg+xml;base64,PHN2Zy…"}}},
		files: []realFile{
			{Kind: document, Mime: "application/x-tgsticker", URL: tmeCDN + "sticker.tgs?token=H..G"},
			{Kind: image, Mime: "image/jpeg", URL: tmeCDN + "d..u.jpg", Purpose: "avatar"},
		},
		summary: "Mein Leben：⟦image⟧",
	},
	"message_text.html": {
		message: realMessage{ID: 70991, Channel: "topwar_official", AuthorName: "Военное обозрение",
			Text: "Неопознанный летающий объект замечен в 160 – 200 км от Петербурга\n\n" +
				"По данным «Фонтанки», такую информацию министерство обороны по своим каналам сообщило в службу аэропорта Пулково. " +
				"В связи с этим по установленной процедуре петербургский аэропорт пока не принимает самолёты и не даёт разрешения на взлёт. " +
				"Какой-либо другой информации Минобороны в гражданские службы не сообщает.\n\n" +
				"Источник, близкий к Смольному, подтвердил, что небо закрыто из-за неопознанного летающего объекта. " +
				"В воздух подняты истребители. Читатели «Фонтанки» рассказывают, что услышать их можно даже в центре: «Звуки как на параде».",
			PublishedAt: "2023-02-28T08:48:01Z", Views: 33400, ViewsText: "33.4K"},
		files: []realFile{avatar},
		summary: "Военное обозрение：Неопознанный летающий объект замечен в 160 – 200 км от Петербурга " +
			"По данным «Фонтанки», такую информацию министерство обороны по своим каналам сообщило в службу аэропорта Пулково. " +
			"В связи с этим по установленной процедуре петербургский аэропорт пока не принимает самолёты и не даёт разрешения на взлёт. " +
			"Какой-либо другой информации Минобороны в гражданские службы не сообщает. " +
			"Источник, близкий к Смольному, подтвердил, что небо закрыто из-за неопознанного летающего объекта. " +
			"В воздух подняты истребители. Читатели «Фонтанки» рассказывают, что услышать их можно даже в центре: «Звуки как на параде».",
	},
	"message_voice.html": {
		message: realMessage{ID: 939, Channel: "oper_goblin", AuthorName: "Tynu40k Goblina (oper.ru)",
			Text: "Обсудили:\n\n- Сталина не забыть\n- Плохие фильмы\n- Смешные переводы\nможно, матерные - нет\n\n" +
				"Слушайте: @kakberadio\nПишите нам: @kakberadiobot",
			PublishedAt: "2018-04-24T15:28:46Z", Views: 746, ViewsText: "746",
			Media:         []realMedium{{MessageID: 939, Kind: "voice", DurationMS: (27*60 + 40) * 1000}},
			ForwardedFrom: &realForward{Name: "Спортивный Екб"}},
		files: []realFile{
			{Kind: audio, Mime: "audio/ogg", URL: tmeCDN + "e7ba63f364.ogg?token=…", Duration: (27*60 + 40) * 1000},
			avatar,
		},
		summary: "Tynu40k Goblina (oper.ru)：Обсудили: - Сталина не забыть - Плохие фильмы - Смешные переводы можно, матерные - нет " +
			"Слушайте: @kakberadio Пишите нам: @kakberadiobot ⟦audio⟧",
	},
	"message_with_from_author.html": {
		message: realMessage{ID: 4, Channel: "channel", AuthorName: "Channel title", Text: "test", Signature: "🅰️rkadiy Ivanov",
			PublishedAt: "2023-02-28T16:38:34Z", Views: 1, ViewsText: "1"},
		files:   []realFile{avatar},
		summary: "Channel title：test",
	},
	"poll.html": {id: 2008,
		message: realMessage{ID: 2008, Channel: "any2feed_demo", PublishedAt: fragmentTime,
			Poll: &realPoll{Question: "Как лучше?", Type: "Anonymous Poll", Multiple: true, Options: pollOptions}},
		summary: "@any2feed_demo：Как лучше?",
	},
}

// TestRealPages serves every saved t.me page as the embed page of its
// post and fetches it: each parses into a graph the declared schemas
// accept, and shows what the live page shows.
func TestRealPages(t *testing.T) {
	t.Parallel()
	dir := testkit.RealFixturesDir(t, "tme/any2feed")
	files, err := filepath.Glob(filepath.Join(dir, "*.html"))
	require.NoError(t, err)
	require.Len(t, files, len(realCases), "one expectation per sample")
	h := newHarness(t, nil)
	for _, f := range files {
		name := filepath.Base(f)
		want, ok := realCases[name]
		require.True(t, ok, "no expectation written for %s", name)
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			b, err := os.ReadFile(f)
			require.NoError(t, err)
			ch, id := "any2feed_demo", want.id
			if m := dataPost.FindSubmatch(b); m != nil {
				ch = string(m[1])
				_, err := fmt.Sscan(string(m[2]), &id)
				require.NoError(t, err)
			} else {
				b = []byte(fmt.Sprintf(fragmentPost, id, b))
			}
			h.fake.SetOverride(fmt.Sprintf("/%s/%d", ch, id), 200, "text/html; charset=utf-8", b)
			resp := h.fetchMessage(t, strings.ToLower(ch), id)
			require.Nil(t, resp.GetError(), "%s", resp.GetError().GetMessage())
			kittest.CheckGraph(t, h.schemas, resp)
			require.NotEmpty(t, resp.GetSourceResponses())
			checkReal(t, want, resp)
		})
	}
}

// checkReal compares a response with what the sample shows.
func checkReal(t *testing.T, want realCase, resp *adapterv1.FetchResponse) {
	t.Helper()
	var got realMessage
	root := resp.GetGraph().GetRootKey()
	require.NoError(t, json.Unmarshal([]byte(kittest.EntityData(t, resp, root)), &got))

	// Signed addresses and inline images by their fixed parts.
	for i := range got.Media {
		if i < len(want.message.Media) && got.Media[i].PreviewData != "" {
			require.True(t, like(got.Media[i].PreviewData, want.message.Media[i].PreviewData), got.Media[i].PreviewData)
			got.Media[i].PreviewData = want.message.Media[i].PreviewData
		}
	}
	if got.LinkPreview != nil && want.message.LinkPreview != nil {
		lp, wlp := *got.LinkPreview, want.message.LinkPreview
		require.True(t, like(lp.ImageURL, wlp.ImageURL), "image_url %s", lp.ImageURL)
		require.True(t, like(lp.VideoURL, wlp.VideoURL), "video_url %s", lp.VideoURL)
		lp.ImageURL, lp.VideoURL = wlp.ImageURL, wlp.VideoURL
		got.LinkPreview = &lp
	}
	require.Equal(t, want.message, got)

	require.Len(t, resp.GetMedia(), len(want.files), "media and resources")
	for i, m := range resp.GetMedia() {
		w := want.files[i]
		require.True(t, like(m.GetUrl(), w.URL), "media %d: %s is not %s", i, m.GetUrl(), w.URL)
		require.Equal(t, w, realFile{Kind: m.GetKind(), Mime: m.GetMime(), URL: w.URL, Duration: m.GetDurationMs(),
			Alt: m.GetAlt(), Purpose: m.GetPurpose(), Unavailable: m.GetUnavailableReason()}, "media %d", i)
	}
	require.Equal(t, want.message.Text, resp.GetDisplay().GetText())
	require.Equal(t, want.summary, resp.GetDisplay().GetSummary())
}

// channelPage wraps real message blocks in a t.me/s page of channel; the
// header, the history section and its link to older posts are ours.
func channelPage(channel string, older int64, blocks ...[]byte) []byte {
	var b strings.Builder
	fmt.Fprintf(&b, `<html><body><section class="tgme_channel_info"><div class="tgme_channel_info_header_title"><span dir="auto">%s</span></div>`+
		`<div class="tgme_channel_info_header_username"><a href="https://t.me/%[1]s">@%[1]s</a></div></section>`+
		`<main class="tgme_main"><section class="tgme_channel_history js-message_history">`, channel)
	if older > 0 {
		fmt.Fprintf(&b, `<div class="tgme_widget_message_centered js-messages_more_wrap"><a href="/s/%s?before=%d" class="tme_messages_more js-messages_more" data-before="%[2]d"></a></div>`, channel, older)
	}
	for _, bl := range blocks {
		b.Write(bl)
	}
	b.WriteString(`</section></main></body></html>`)
	return []byte(b.String())
}

// TestRealChannelPages lists the real posts of oper_goblin, put on one
// t.me/s page in their order, newest first; the real album of anna_news
// is one post, never its members.
func TestRealChannelPages(t *testing.T) {
	t.Parallel()
	dir := testkit.RealFixturesDir(t, "tme/any2feed")
	read := func(name string) []byte {
		b, err := os.ReadFile(filepath.Join(dir, name))
		require.NoError(t, err)
		return b
	}
	h := newHarness(t, nil)
	h.fake.SetOverride("/s/oper_goblin", 200, "text/html; charset=utf-8", channelPage("oper_goblin", 939,
		read("message_voice.html"), read("message_media_file.html"), read("message_media_forwarded_from.html"),
		read("message_link_preview.html"), read("message_link_preview_text_only.html")))
	h.fake.SetOverride("/s/anna_news", 200, "text/html; charset=utf-8", channelPage("anna_news", 0, read("message_media_photo_and_video.html")))

	resp := h.fetchChannel(t, "oper_goblin")
	require.Nil(t, resp.GetError(), resp.GetError().GetMessage())
	kittest.CheckGraph(t, h.schemas, resp)
	var got []string
	for _, rt := range resp.GetRelatedTargets() {
		got = append(got, rt.GetUrl())
	}
	require.Equal(t, []string{
		"https://t.me/oper_goblin/22368", "https://t.me/oper_goblin/22360", "https://t.me/oper_goblin/22358",
		"https://t.me/oper_goblin/16936", "https://t.me/oper_goblin/939",
	}, got)
	require.Equal(t, h.fake.URL()+"/s/oper_goblin?before=939", resp.GetSourceResponses()[1].GetRequestUrl(), "older posts are asked for")

	resp = h.fetchChannel(t, "anna_news")
	require.Nil(t, resp.GetError(), resp.GetError().GetMessage())
	require.Len(t, resp.GetRelatedTargets(), 1)
	require.Equal(t, "https://t.me/anna_news/46908", resp.GetRelatedTargets()[0].GetUrl())
	require.Empty(t, resp.GetNextPageCursor())
}

// tmeClasses is the field table of t.me's markup: every class the saved
// pages use, and what the adapter does with it. "kept: ..." names the
// field it becomes; "ignored: ..." says why not. TestRealPageClassesKnown
// fails on a class the table does not list, so a new shape in the samples
// gets a decision.
var tmeClasses = map[string]string{
	// The post and its header.
	"tgme_widget_message":                     "kept: data-post is channel and id, data-view the channel's numeric id and the album hint",
	"tgme_widget_message_bubble":              "kept: a post without one is refused (unexpected page shape)",
	"tgme_widget_message_owner_name":          "kept: author_name, and the channel's title when the post is the channel's own",
	"tgme_widget_message_user_photo":          "kept: its <img> is the channel's avatar (avatar resource of telegram.channel)",
	"tgme_widget_message_forwarded_from":      "kept: forwarded_from (name, and url when the source is public)",
	"tgme_widget_message_forwarded_from_name": "kept: forwarded_from.name, its link forwarded_from.url/channel/message_id",
	"tgme_widget_message_text":                "kept: text (browser white space) and text_markdown",
	"emoji":                                   "kept: the emoji character inside, as text",
	// The footer.
	"tgme_widget_message_date":        "kept: its <time datetime> is published_at",
	"tgme_widget_message_meta":        "kept: the word \"edited\" in it is edited",
	"tgme_widget_message_from_author": "kept: signature",
	"tgme_widget_message_views":       "kept: views (read from the rounded count) and views_text",
	"tgme_widget_message_voters":      "kept: poll.voters and poll.voters_count (the footer holds the poll's voters)",
	// Media.
	"tgme_widget_message_photo_wrap":          "kept: a photo; its style's background-image is the file",
	"tgme_widget_message_video_player":        "kept: a video, or a GIF when it has no play button",
	"message_video_play":                      "kept: its absence marks a GIF",
	"tgme_widget_message_video_thumb":         "kept: the poster resource (or thumbnail when the video is not given)",
	"message_video_duration":                  "kept: duration_ms",
	"not_supported":                           "kept: a video too big for the preview (unavailable_reason)",
	"message_media_not_supported_label":       "kept: tells a too-big medium from one the page cannot show",
	"tgme_widget_message_roundvideo_player":   "kept: a round video (kind round_video)",
	"tgme_widget_message_roundvideo_wrap":     "kept: a round video on pages without the player",
	"tgme_widget_message_roundvideo":          "ignored: the class of the player's <video>, whose src the round video player gives",
	"tgme_widget_message_roundvideo_thumb":    "kept: the round video's poster",
	"tgme_widget_message_roundvideo_duration": "kept: duration_ms",
	"tgme_widget_message_voice_player":        "kept: a voice message (kind voice)",
	"tgme_widget_message_voice":               "ignored: the class of the player's <audio>, whose src (Ogg) the voice player gives",
	"tgme_widget_message_voice_duration":      "kept: duration_ms",
	"tgme_widget_message_document_wrap":       "kept: a document; the page gives no address, so unavailable_reason says an account is needed",
	"tgme_widget_message_document_title":      "kept: media.title (the file's name)",
	"tgme_widget_message_document_extra":      "kept: media.size as shown (\"2.1 MB\")",
	"tgme_widget_message_document_icon":       "kept: with class audio, the document is music (kind audio)",
	"tgme_widget_message_sticker_wrap":        "kept: a sticker",
	"tgme_widget_message_tgsticker_wrap":      "kept: an animated sticker",
	"tgme_widget_message_tgsticker":           "kept: the .tgs <source> is the file (format tgs), an image <source> its preview",
	"tgme_widget_message_grouped_wrap":        "kept: an album: one message, every member in media",
	"grouped_media_wrap":                      "kept: an album member; its ?single link is the member's message id",
	"media_supported_cont":                    "ignored: a wrapper (with tgme_widget_message_one_media, the 2024 one) around media and text; the parser reads inside it",
	// Polls.
	"tgme_widget_message_poll":                "kept: poll; class multiple is multiple_answers",
	"multiple":                                "kept: poll.multiple_answers",
	"tgme_widget_message_poll_question":       "kept: poll.question",
	"tgme_widget_message_poll_type":           "kept: poll.type (\"Anonymous Poll\")",
	"tgme_widget_message_poll_option":         "kept: poll.options in order",
	"tgme_widget_message_poll_option_text":    "kept: option text",
	"tgme_widget_message_poll_option_percent": "kept: option percent",
	// Link previews.
	"tgme_widget_message_link_preview": "kept: link_preview.url",
	"link_preview_site_name":           "kept: link_preview.site_name",
	"link_preview_title":               "kept: link_preview.title",
	"link_preview_description":         "kept: link_preview.description",
	"link_preview_image":               "kept: link_preview.image_url, the link_preview resource",
	"link_preview_video_player":        "kept: link_preview.video",
	"link_preview_video_thumb":         "kept: the link_preview resource when the card has no image",
	"link_preview_video":               "ignored: the class of the card player's <video>, whose src is link_preview.video_url",

	// Ignored.
	"tgme_widget_message_wrap":                     "ignored: the page's wrapper of one post",
	"tgme_widget_message_user":                     "ignored: wrapper of the avatar (read through)",
	"tgme_widget_message_author":                   "ignored: wrapper of the owner name (read through)",
	"tgme_widget_message_bubble_tail":              "ignored: the drawing of the bubble's tail",
	"bubble_icon":                                  "ignored: the tail's SVG",
	"background":                                   "ignored: a path of the tail's SVG",
	"border_1x":                                    "ignored: a path of the tail's SVG",
	"border_2x":                                    "ignored: a path of the tail's SVG",
	"border_3x":                                    "ignored: a path of the tail's SVG",
	"tgme_widget_message_footer":                   "ignored: layout of the footer (its parts are read)",
	"tgme_widget_message_info":                     "ignored: layout of the footer",
	"compact":                                      "ignored: footer layout",
	"short":                                        "ignored: footer layout",
	"copyonly":                                     "ignored: the words \" views\"/\" voters\" added for copying the footer",
	"time":                                         "ignored: the class of <time>; its datetime is read",
	"tgme_widget_message_service_date_wrap":        "ignored: the day separator of the page, derived from the posts' times",
	"tgme_widget_message_service_date":             "ignored: the day separator's text (\"February 27\")",
	"date_visible":                                 "ignored: whether the day separator shows",
	"tgme_widget_message_photo":                    "ignored: the photo's aspect-ratio box",
	"tgme_widget_message_video":                    "ignored: the <video>'s class; the element's src is read",
	"tgme_widget_message_video_wrap":               "ignored: the video's display box (width, padding-top), not the file's size",
	"link_preview_video_wrap":                      "ignored: the card video's display box",
	"tgme_widget_message_grouped":                  "ignored: the album's layout box",
	"tgme_widget_message_grouped_layer":            "ignored: the album's layout layer",
	"grouped_media":                                "ignored: a member's position in the album layout",
	"grouped_media_helper":                         "ignored: a member's position in the album layout",
	"tgme_widget_message_poll_options":             "ignored: the options' link to the post",
	"tgme_widget_message_poll_option_value":        "ignored: wrapper of an option's text and bar",
	"tgme_widget_message_poll_option_bar":          "ignored: the bar's width is relative to the leading option; the percent is kept",
	"tgme_widget_message_roundvideo_border":        "ignored: the circle's drawing",
	"tgme_widget_message_roundvideo_muted":         "ignored: player control",
	"tgme_widget_message_roundvideo_play":          "ignored: player control",
	"tgme_widget_message_roundvideo_progress":      "ignored: player progress",
	"tgme_widget_message_roundvideo_progress_wrap": "ignored: player progress",
	"tgme_widget_message_voice_play":               "ignored: player control",
	"tgme_widget_message_voice_wrap":               "ignored: player layout",
	"tgme_widget_message_voice_progress":           "ignored: player progress",
	"tgme_widget_message_voice_progress_bg":        "ignored: the waveform's drawing (data-waveform is empty on the page)",
	"tgme_widget_message_voice_progress_wrap":      "ignored: player progress",
	"bar":                              "ignored: the waveform's bars",
	"tgme_widget_message_document":     "ignored: wrapper of a document's title and size",
	"message_media_not_supported_wrap": "ignored: the notice a browser that cannot play a medium shows (its label is read)",
	"message_media_not_supported":      "ignored: the notice's box",
	"message_media_view_in_telegram":   "ignored: the notice's \"VIEW IN TELEGRAM\" link",
	"media_not_supported_cont":         "ignored: the notice shown instead of a sticker in browsers that cannot play it",
	"text_not_supported_wrap":          "ignored: layout class of every post",
	"no_bubble":                        "ignored: layout (stickers and round videos have no bubble)",
	"sticker_media":                    "ignored: layout of a sticker post",
	"roundvideo_media":                 "ignored: layout of a round-video post",
	"before_footer":                    "ignored: layout of the text",
	"blured":                           "ignored: the album's blurred background",
	"ready":                            "ignored: player state",
	"playing":                          "ignored: player state",
	"accent_color":                     "ignored: colour",
	"accent_bg":                        "ignored: colour",
	"accent_bghover":                   "ignored: colour",
}

// Classes matched by their shape rather than by name.
var (
	tmeScriptHook  = regexp.MustCompile(`^js-`)         // the page's script hooks
	tmeColour      = regexp.MustCompile(`^bgcolor\d+$`) // the avatar's placeholder colour
	tmeInternalIDs = regexp.MustCompile(`^\d+(_\d+)?$`) // Telegram's own ids on a photo, with no documented meaning
	classAttr      = regexp.MustCompile(`class="([^"]*)"`)
)

// TestRealPageClassesKnown holds the field table to the samples: every
// class they use is in tmeClasses or one of the ignored shapes, and every
// class the table says is kept is read by the parser.
func TestRealPageClassesKnown(t *testing.T) {
	t.Parallel()
	dir := testkit.RealFixturesDir(t, "tme/any2feed")
	files, err := filepath.Glob(filepath.Join(dir, "*.html"))
	require.NoError(t, err)
	seen := map[string]bool{}
	for _, f := range files {
		b, err := os.ReadFile(f)
		require.NoError(t, err)
		for _, m := range classAttr.FindAllSubmatch(b, -1) {
			for _, c := range strings.Fields(string(m[1])) {
				if tmeScriptHook.MatchString(c) || tmeColour.MatchString(c) || tmeInternalIDs.MatchString(c) {
					continue
				}
				seen[c] = true
				_, ok := tmeClasses[c]
				require.True(t, ok, "%s uses class %s, which the field table (tmeClasses) does not list", filepath.Base(f), c)
			}
		}
	}
	var parser strings.Builder
	for _, src := range []string{"page.go", "text.go"} {
		b, err := os.ReadFile(src)
		require.NoError(t, err)
		parser.Write(b)
	}
	for c, what := range tmeClasses {
		require.True(t, strings.HasPrefix(what, "kept: ") || strings.HasPrefix(what, "ignored: "), c)
		if strings.HasPrefix(what, "kept: ") {
			named := regexp.MustCompile(`["., (]` + regexp.QuoteMeta(c) + `\b`).MatchString(parser.String())
			require.True(t, named, "the table says %s is kept, but the parser never names it", c)
		}
	}
}
