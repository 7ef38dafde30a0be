package tgchannel

import (
	"fmt"
	"strings"
	"testing"

	"github.com/go-telegram/bot/models"
	"github.com/google/uuid"
	"github.com/stretchr/testify/require"

	"github.com/monitorhq/monitor/internal/channelapi"
)

// wire is what Telegram sends back of a message the bot sent: its text
// and entities.
func wire(m outMessage) []channelapi.Entity {
	var out []channelapi.Entity
	for _, e := range m.entities {
		out = append(out, channelapi.Entity{Type: string(e.Type), Offset: e.Offset, Length: e.Length, URL: e.URL})
	}
	return out
}

// entityText is the text an entity of m covers.
func entityText(m outMessage, typ models.MessageEntityType) []string {
	var out []string
	for _, e := range m.entities {
		if e.Type == typ {
			out = append(out, utf16Slice(m.text, e.Offset, e.Length))
		}
	}
	return out
}

func searchItems(n int, snippet string) []channelapi.SearchItem {
	var out []channelapi.SearchItem
	for i := range n {
		out = append(out, channelapi.SearchItem{
			Item: channelapi.Item{ID: uuid.New(), SourceURL: fmt.Sprintf("https://x.com/a/status/%d", i+1),
				Summary: fmt.Sprintf("Ada：post %d [photo]", i+1)},
			Snippet: snippet,
		})
	}
	return out
}

func TestRenderSearchPageReadsItsQueryBack(t *testing.T) {
	t.Parallel()
	// A query with an emoji (two UTF-16 units), CJK and quotes.
	q := `"涨潮 🌊" -moon from:ada`
	items := searchItems(3, "…the «tide» & the «Tide» <b>")
	m := renderSearch(langEN, q, items, 2, true)
	require.True(t, strings.HasPrefix(m.text, "🔎 Search: "+q+" — page 2\n\n11. Ada：post 1 [photo]\n…the tide & the Tide <b>\n\n12. "), m.text)
	got, ok := searchQueryOf(m.text, wire(m))
	require.True(t, ok)
	require.Equal(t, q, got, "a page button finds the query in its message")
	require.Equal(t, []string{"tide", "Tide", "tide", "Tide", "tide", "Tide"}, entityText(m, models.MessageEntityTypeBold))
	require.Equal(t, []string{"Ada：post 1 [photo]", "Ada：post 2 [photo]", "Ada：post 3 [photo]"}, entityText(m, models.MessageEntityTypeTextLink))

	rows := m.kb.InlineKeyboard
	require.Len(t, rows, 4)
	require.Equal(t, "👁 View 11", rows[0][0].Text)
	require.Equal(t, "🔗 Original 11", rows[0][1].Text)
	require.Equal(t, []kbButton{{Text: "‹ Previous", CallbackData: "f:1"}, {Text: "Next ›", CallbackData: "f:3:" + items[2].ID.String()}}, rows[3])
	require.LessOrEqual(t, len(searchPageData(channelapi.MaxSearchPage, &items[2].ID)), 64, "within Telegram's callback data")

	// The first page has no way back, the last no way on.
	first := renderSearch(langZH, q, searchItems(1, ""), 1, false)
	require.True(t, strings.HasPrefix(first.text, "🔎 搜索："+q+" — 第 1 页\n\n1. Ada：post 1 [photo]"), first.text)
	require.Len(t, first.kb.InlineKeyboard, 1, "no page buttons")
	require.Empty(t, entityText(first, models.MessageEntityTypeBold))
}

func TestRenderSearchMarksAShortPostInItsSummary(t *testing.T) {
	t.Parallel()
	items := []channelapi.SearchItem{{Item: channelapi.Item{ID: uuid.New(), Summary: "Ada：the high 🌊 tide [photo]"},
		Snippet: "the high 🌊 «tide»"}}
	m := renderSearch(langEN, "tide", items, 1, false)
	require.Equal(t, "🔎 Search: tide — page 1\n\n1. Ada：the high 🌊 tide [photo]", m.text, "no second line repeating the post")
	require.Equal(t, []string{"tide"}, entityText(m, models.MessageEntityTypeBold))
}

func TestRenderSearchWithoutResults(t *testing.T) {
	t.Parallel()
	m := renderSearch(langEN, "nothing", nil, 1, false)
	require.Equal(t, "🔎 Search: nothing — page 1\n\nNothing you saved matches. Try fewer or shorter words, or send /search alone to see how to write a query.", m.text)
	require.Nil(t, m.kb)
	later := renderSearch(langZH, "nothing", nil, 3, false)
	require.Contains(t, later.text, "没有更多结果了。")
	require.Equal(t, "f:2", later.kb.InlineKeyboard[0][0].CallbackData, "a way back from a page that emptied")

	deepest := renderSearch(langEN, "x", searchItems(1, ""), channelapi.MaxSearchPage, true)
	require.Contains(t, deepest.text, "Only the first 500 results are shown")
	for _, b := range deepest.kb.InlineKeyboard[len(deepest.kb.InlineKeyboard)-1] {
		require.NotEqual(t, "Next ›", b.Text)
	}
}

func TestRenderSearchFitsOneMessage(t *testing.T) {
	t.Parallel()
	// Ten results with long snippets of emoji and a long query.
	snippet := strings.Repeat("🌊«潮»", 200)
	q := strings.Repeat("潮", 900)
	m := renderSearch(langEN, q, searchItems(10, snippet), 1, true)
	require.LessOrEqual(t, utf16Len(m.text), maxText)
	got, ok := searchQueryOf(m.text, wire(m))
	require.True(t, ok)
	require.Equal(t, q, got)
	for _, e := range m.entities {
		require.LessOrEqual(t, e.Offset+e.Length, utf16Len(m.text))
	}
}

func TestHighlight(t *testing.T) {
	t.Parallel()
	plain, bold := highlight("«潮»の満ち引き «tide» x", -1)
	require.Equal(t, "潮の満ち引き tide x", plain)
	require.Equal(t, [][2]int{{0, 3}, {19, 23}}, bold)
	require.Equal(t, "潮", plain[bold[0][0]:bold[0][1]])

	plain, bold = highlight("a «b» c «d", -1)
	require.Equal(t, "a b c «d", plain, "a marker without its partner stays")
	require.Len(t, bold, 1)

	plain, bold = highlight("one «two» three «four»", 6)
	require.Equal(t, "one tw…", plain)
	require.Equal(t, [][2]int{{4, 6}}, bold, "a match cut in two keeps its part")

	plain, _ = highlight("anything", 0)
	require.Empty(t, plain)
}

func TestQueryProblemShowsACaretUnderTheProblem(t *testing.T) {
	t.Parallel()
	p := &channelapi.QueryProblem{Position: 5, Message: "this phrase is not closed", Expected: "a closing quote",
		MessageZH: "短语没有闭合", ExpectedZH: "右引号"}
	m := renderQueryProblem(langEN, `tide "moon`, p)
	require.Equal(t, "⚠️ I could not read that query. At character 6: this phrase is not closed (expected a closing quote).\n\n"+
		"tide \"moon\n     ^\n\nSend /search alone to see how to write a query.", m.text)
	require.Equal(t, []string{"tide \"moon\n     ^"}, entityText(m, models.MessageEntityTypePre))

	zh := renderQueryProblem(langZH, `潮汐 "月`, &channelapi.QueryProblem{Position: 3, Message: "x", Expected: "y", MessageZH: "短语没有闭合", ExpectedZH: "右引号"})
	require.True(t, strings.HasPrefix(zh.text, "⚠️ 无法理解这个查询。第 4 个字符处：短语没有闭合（应为右引号）。"), zh.text)
	require.Contains(t, zh.text, "潮汐 \"月\n     ^", "a CJK character takes two columns")

	// A long query shows the part around the problem.
	long := strings.Repeat("a", 100) + ")" + strings.Repeat("b", 100)
	require.Equal(t, "…"+strings.Repeat("a", 30)+")"+strings.Repeat("b", 29)+"…\n"+strings.Repeat(" ", 31)+"^", caretLines(long, 100))
	// A problem at the end (something missing) points past the last character.
	require.Equal(t, "from:\n     ^", caretLines("from:", 5))
}

func TestSearchButtons(t *testing.T) {
	t.Parallel()
	r := newRegistry()
	b, arg, err := r.parseCallback("f:2")
	require.NoError(t, err)
	require.Equal(t, btnSearch, b.prefix)
	require.Equal(t, "2", arg)
	id := uuid.New()
	_, arg, err = r.parseCallback("f:3:" + id.String())
	require.NoError(t, err)
	page, after, err := parseSearchPage(arg)
	require.NoError(t, err)
	require.Equal(t, 3, page)
	require.Equal(t, id, *after)
	for _, bad := range []string{"f:0", "f:-1", "f:02", "f:x", "f:", "f:2:", "f:2:nope", "f:2:" + id.String()[:35],
		fmt.Sprintf("f:%d", channelapi.MaxSearchPage+1)} {
		_, _, err := r.parseCallback(bad)
		require.Error(t, err, bad)
	}
	_, ok := searchQueryOf("no query here", []channelapi.Entity{{Type: "bold", Offset: 0, Length: 2}})
	require.False(t, ok, "a message without the query: the press is answered with 'search again'")

	// /search takes the rest of the message as its query, /search alone
	// too (it answers with the usage).
	req := r.parseMessage(msg(`/search@`+testBot+` "high tide" -moon`, "supergroup"), testBot, langEN)
	require.NotNil(t, req.cmd)
	require.Equal(t, "search", req.cmd.name)
	require.Equal(t, []string{`"high`, `tide"`, "-moon"}, req.args)
	req = r.parseMessage(msg("/search", "private"), testBot, langEN)
	require.NotNil(t, req.cmd)
	require.Empty(t, req.args)
}

func TestNormalizeKeepsTheTextOfSearchPagesOnly(t *testing.T) {
	t.Parallel()
	me := botIdentity{ID: 7000001, Username: testBot}
	from := models.User{ID: 42, FirstName: "Ada"}
	chat := models.Chat{ID: 42, Type: models.ChatTypePrivate}
	pressed := &models.Message{ID: 20, Chat: chat, Text: "🔎 Search: tide — page 1",
		Entities: []models.MessageEntity{{Type: models.MessageEntityTypeCode, Offset: 11, Length: 4}}}
	press := func(data string) channelapi.Update {
		n, ok := normalize(&models.Update{ID: 1, CallbackQuery: &models.CallbackQuery{ID: "cb", From: from, Data: data,
			Message: models.MaybeInaccessibleMessage{Type: models.MaybeInaccessibleMessageTypeMessage, Message: pressed}}}, me)
		require.True(t, ok)
		return n
	}
	n := press("f:2")
	require.Equal(t, pressed.Text, n.Text)
	q, ok := searchQueryOf(n.Text, n.Entities)
	require.True(t, ok)
	require.Equal(t, "tide", q)
	n = press("v:" + uuid.NewString())
	require.Empty(t, n.Text, "other presses carry no message text to core")
	require.Empty(t, n.Entities)
}
