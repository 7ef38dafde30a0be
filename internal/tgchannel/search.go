package tgchannel

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/go-telegram/bot/models"
	"github.com/google/uuid"
	"golang.org/x/text/width"

	"github.com/monitorhq/monitor/internal/channelapi"
)

// /search QUERY: one message with a page of results, turned in place by
// its ‹ › buttons.
//
// Where a page button finds its query: in the message it is on. The
// message's first line shows the query as code ("🔎 Search: `tide moon` —
// page 2"), and Telegram sends the pressed message's text and entities
// with every press, so the button's data is only the page (a query may be
// 1,000 characters; callback data holds 64 bytes): "f:<page>" for ‹, and
// "f:<page>:<last id of this page>" for ›, with which core starts the next
// page right there instead of reading past the earlier ones (41 bytes at
// most). Nothing is stored for a search, so a button works after any
// restart and for as long as core keeps the record of whose message it
// is; when Telegram no longer sends the message (it was deleted), the
// press is answered with a request to search again.

// cmdSearch answers /search QUERY with the first page of results, and
// /search alone with how to write a query.
func (j *job) cmdSearch(ctx context.Context, args []string) error {
	q := strings.Join(args, " ")
	if q == "" {
		return j.reply(ctx, outMessage{text: j.lang.t("search.usage")})
	}
	r, err := j.ch.core.Search(ctx, j.w.ID, channelapi.SearchRequest{Owner: j.ch.owner, Query: q, Page: 1, Limit: pageSize})
	if p, ok := queryProblemOf(err); ok {
		return j.reply(ctx, renderQueryProblem(j.lang, q, p))
	}
	if msg, ok := userError(j.lang, err); ok {
		return j.reply(ctx, outMessage{text: msg})
	}
	if err != nil {
		return err
	}
	return j.reply(ctx, renderSearch(j.lang, q, r.Items, 1, r.More))
}

// btnSearch turns the pressed /search message to another page, in place.
func (j *job) btnSearch(ctx context.Context, arg string) error {
	if j.up.Edited || j.up.PartsSent > 0 {
		return nil
	}
	u := j.w.Update
	page, after, _ := parseSearchPage(arg)
	q, ok := searchQueryOf(u.Text, u.Entities)
	if !ok {
		return j.answerOnce(ctx, j.lang.t("search.gone"), true)
	}
	r, err := j.ch.core.Search(ctx, j.w.ID, channelapi.SearchRequest{Owner: j.ch.owner, Query: q, Page: page, After: after, Limit: pageSize})
	if _, ok := queryProblemOf(err); ok {
		// The query was read when the message was made; a core whose
		// language changed since no longer reads it.
		return j.answerOnce(ctx, j.lang.t("search.gone"), true)
	}
	if msg, ok := userError(j.lang, err); ok {
		return j.answerOnce(ctx, msg, true)
	}
	if err != nil {
		return err
	}
	return j.turnPage(ctx, renderSearch(j.lang, q, r.Items, page, r.More))
}

// keepsStateInText reports the buttons whose press needs the text of the
// message they are on (a /search page's query); only their presses carry
// it to core.
func keepsStateInText(data string) bool {
	return strings.HasPrefix(data, btnSearch+":")
}

// checkSearchPage validates "<page>" and "<page>:<id>" of a page button.
func checkSearchPage(s string) error {
	_, _, err := parseSearchPage(s)
	return err
}

func parseSearchPage(s string) (page int, after *uuid.UUID, err error) {
	p, id, hasID := strings.Cut(s, ":")
	page, err = strconv.Atoi(p)
	if err != nil || page < 1 || page > channelapi.MaxSearchPage || strconv.Itoa(page) != p {
		return 0, nil, fmt.Errorf("%q is not a search page", s)
	}
	if hasID {
		last, err := uuid.Parse(id)
		if err != nil || len(id) != 36 {
			return 0, nil, fmt.Errorf("%q is not a search page", s)
		}
		after = &last
	}
	return page, after, nil
}

// searchPageData is the data of a button to page; after, when not nil, is
// the last result of the page before it.
func searchPageData(page int, after *uuid.UUID) string {
	s := btnSearch + ":" + strconv.Itoa(page)
	if after != nil {
		s += ":" + after.String()
	}
	return s
}

// searchQueryOf reads the query back from a /search message: its first
// code entity, as renderSearch writes it.
func searchQueryOf(text string, entities []channelapi.Entity) (string, bool) {
	for _, e := range entities {
		if e.Type == string(models.MessageEntityTypeCode) {
			q := strings.TrimSpace(utf16Slice(text, e.Offset, e.Length))
			return q, q != ""
		}
	}
	return "", false
}

// queryProblemOf finds core's explanation of a query it cannot read.
func queryProblemOf(err error) (*channelapi.QueryProblem, bool) {
	var e *channelapi.Error
	if errors.As(err, &e) && e.Code == channelapi.CodeInvalid && e.Query != nil {
		return e.Query, true
	}
	return nil, false
}

// snippetFits are the lengths, in characters, a result's snippet is cut to
// until a page fits in one message (-1: as core wrote it; 0: left out).
var snippetFits = []int{-1, 60, 0}

// renderSearch is one page of results: the query (as code, which page
// buttons read back), then per result its number and one-line summary
// linked to its source, and below it the snippet with the matches in
// bold; per result a "view" and an "original" button as /list has, and ‹ ›
// to the pages around it.
func renderSearch(l locale, q string, items []channelapi.SearchItem, page int, more bool) outMessage {
	var m outMessage
	for _, fit := range snippetFits {
		if m = buildSearch(l, q, items, page, more, fit); utf16Len(m.text) <= maxText {
			break
		}
	}
	return m
}

func buildSearch(l locale, q string, items []channelapi.SearchItem, page int, more bool, snippetRunes int) outMessage {
	var b strings.Builder
	var ents []models.MessageEntity
	units := 0
	write := func(s string) {
		b.WriteString(s)
		units += utf16Len(s)
	}
	write(l.t("search.head"))
	ents = append(ents, models.MessageEntity{Type: models.MessageEntityTypeCode, Offset: units, Length: utf16Len(q)})
	write(q)
	write(l.t("search.page", page) + "\n")
	kb := &keyboard{}
	if len(items) == 0 {
		if page <= 1 {
			write("\n" + l.t("search.none"))
		} else {
			write("\n" + l.t("search.no_more"))
		}
	}
	for i, it := range items {
		n := (page-1)*pageSize + i + 1
		write(fmt.Sprintf("\n%d. ", n))
		s := foldSummary(itemSummary(it.Item))
		if s == "" {
			s = l.t("list.no_text")
		}
		if isWebURL(it.SourceURL) {
			ents = append(ents, models.MessageEntity{Type: models.MessageEntityTypeTextLink, Offset: units, Length: utf16Len(s), URL: it.SourceURL})
		}
		plain, bold := highlight(it.Snippet, snippetRunes)
		if at, ok := within(s, plain); ok {
			// A short post's snippet is its summary again: the matches are
			// marked in the summary instead of a second line.
			bold = shiftRanges(bold, at)
			plain = ""
			ents = append(ents, boldEntities(s, bold, units)...)
		}
		write(s + "\n")
		if plain != "" {
			ents = append(ents, boldEntities(plain, bold, units)...)
			write(plain + "\n")
		}
		row := []kbButton{{Text: l.t("list.view", n), CallbackData: callbackData(btnView, it.ID)}}
		if isWebURL(it.SourceURL) {
			row = append(row, kbButton{Text: l.t("list.original", n), URL: it.SourceURL})
		}
		kb.InlineKeyboard = append(kb.InlineKeyboard, row)
	}
	var nav []kbButton
	if page > 1 {
		nav = append(nav, kbButton{Text: l.t("search.prev"), CallbackData: searchPageData(min(page-1, channelapi.MaxSearchPage), nil)})
	}
	switch {
	case more && page < channelapi.MaxSearchPage && len(items) > 0:
		last := items[len(items)-1].ID
		nav = append(nav, kbButton{Text: l.t("search.next"), CallbackData: searchPageData(page+1, &last)})
	case more:
		write("\n" + l.t("search.deepest", page*pageSize))
	}
	if len(nav) > 0 {
		kb.InlineKeyboard = append(kb.InlineKeyboard, nav)
	}
	m := outMessage{text: strings.TrimRight(b.String(), "\n"), entities: ents}
	if len(kb.InlineKeyboard) > 0 {
		m.kb = kb
	}
	return m
}

// boldEntities mark the byte ranges of text, which starts at units.
func boldEntities(text string, ranges [][2]int, units int) []models.MessageEntity {
	var out []models.MessageEntity
	for _, r := range ranges {
		out = append(out, models.MessageEntity{Type: models.MessageEntityTypeBold,
			Offset: units + utf16Len(text[:r[0]]), Length: utf16Len(text[r[0]:r[1]])})
	}
	return out
}

// within finds the snippet plain (its ellipses aside) in the summary s,
// and says how far to shift plain's ranges to land on it there.
func within(s, plain string) (shift int, ok bool) {
	core := strings.TrimPrefix(plain, "…")
	lead := len(plain) - len(core)
	core = strings.TrimSuffix(core, "…")
	if core == "" {
		return 0, false
	}
	i := strings.Index(s, core)
	return i - lead, i >= 0
}

func shiftRanges(rs [][2]int, by int) [][2]int {
	out := make([][2]int, 0, len(rs))
	for _, r := range rs {
		out = append(out, [2]int{r[0] + by, r[1] + by})
	}
	return out
}

// highlight takes the «»-marked snippet core sends apart into its plain
// text and the byte ranges of the matches in it, cut to at most limit
// characters and an ellipsis (-1: uncut; 0: nothing). A marker without
// its partner stays as text.
func highlight(snippet string, limit int) (plain string, bold [][2]int) {
	if limit == 0 {
		return "", nil
	}
	const open, closing = channelapi.SnippetOpen, channelapi.SnippetClose
	var b strings.Builder
	rest := strings.TrimSpace(snippet)
	for {
		i := strings.Index(rest, open)
		if i < 0 {
			break
		}
		n := strings.Index(rest[i+len(open):], closing)
		if n < 0 {
			break
		}
		b.WriteString(rest[:i])
		start := b.Len()
		b.WriteString(rest[i+len(open) : i+len(open)+n])
		if b.Len() > start {
			bold = append(bold, [2]int{start, b.Len()})
		}
		rest = rest[i+len(open)+n+len(closing):]
	}
	b.WriteString(rest)
	plain = b.String()
	if limit < 0 || utf8.RuneCountInString(plain) <= limit {
		return plain, bold
	}
	cut, seen := len(plain), 0
	for i := range plain {
		if seen == limit {
			cut = i
			break
		}
		seen++
	}
	plain = strings.TrimRightFunc(plain[:cut], unicode.IsSpace)
	var kept [][2]int
	for _, r := range bold {
		if r[1] = min(r[1], len(plain)); r[0] < r[1] {
			kept = append(kept, r)
		}
	}
	return plain + "…", kept
}

// caretContext is how many characters of a long query the problem message
// shows on each side of the problem.
const caretContext = 30

// renderQueryProblem shows why a query cannot be read, in l: core's
// explanation, then the query (around the problem, when long) in a
// monospace block with a caret under the problem, then a hint.
func renderQueryProblem(l locale, q string, p *channelapi.QueryProblem) outMessage {
	msg, expected := p.Message, p.Expected
	if l == langZH && p.MessageZH != "" {
		msg, expected = p.MessageZH, p.ExpectedZH
	}
	head := l.t("search.bad", p.Position+1, msg, expected) + "\n\n"
	block := caretLines(q, p.Position)
	return outMessage{
		text:     head + block + "\n\n" + l.t("search.bad_hint"),
		entities: []models.MessageEntity{{Type: models.MessageEntityTypePre, Offset: utf16Len(head), Length: utf16Len(block)}},
	}
}

// caretLines is the query, cut to caretContext characters around pos
// when longer, over a line with a caret under the character at pos (a
// wide CJK character counts two columns, as monospace fonts draw it).
func caretLines(q string, pos int) string {
	rs := []rune(q)
	pos = min(max(pos, 0), len(rs))
	start, end := max(0, pos-caretContext), min(len(rs), pos+caretContext)
	shown := string(rs[start:end])
	before := string(rs[start:pos])
	if start > 0 {
		shown, before = "…"+shown, "…"+before
	}
	if end < len(rs) {
		shown += "…"
	}
	return shown + "\n" + strings.Repeat(" ", columns(before)) + "^"
}

// columns is how many monospace columns s takes.
func columns(s string) int {
	n := 0
	for _, r := range s {
		switch width.LookupRune(r).Kind() {
		case width.EastAsianWide, width.EastAsianFullwidth:
			n += 2
		default:
			n++
		}
	}
	return n
}
