package web

import (
	"context"
	"errors"
	"html"
	"html/template"
	"net/http"
	"net/url"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/google/uuid"

	"github.com/monitorhq/monitor/internal/app"
)

// searchService is what the search page and saved searches need.
type searchService interface {
	SearchCards(ctx context.Context, tenantID uuid.UUID, q string, limit int, cursor, sort string) (app.SearchCardPage, error)
	SaveSearch(ctx context.Context, tenantID uuid.UUID, name, q string) (app.SavedSearchView, error)
	SavedSearches(ctx context.Context, tenantID uuid.UUID) ([]app.SavedSearchView, error)
	RenameSavedSearch(ctx context.Context, tenantID, id uuid.UUID, name string) (app.SavedSearchView, error)
	DeleteSavedSearch(ctx context.Context, tenantID, id uuid.UUID) (app.SavedSearchView, error)
}

// resultsView is the search page's Data.
type resultsView struct {
	// Q is the query as typed; Sort is "newest" or "relevance".
	Q, Sort string
	Sorts   []option
	// View is "grid" or "list", as on the library.
	View  string
	Cards []card
	// Count says how many results this page shows ("" : no search ran).
	Count string
	// Chips are the query's top-level parts, each with a link to the
	// query without it.
	Chips []chip
	// Next leads to the next page, First back to the first ("" : none).
	Next, First string
	// Problem is a query the parser refused; Error any other refusal.
	Problem *queryProblem
	Error   string
	// Notice reports the last saved-search action.
	Notice string
	// SaveName and SaveError are the save form's value and problem;
	// Current is the saved search the query is ("" : none).
	SaveName, SaveError string
	Current             string
	// Saved are the tenant's saved searches, to rename or delete;
	// RenameID and RenameError are a refused rename's.
	Saved       []savedItem
	RenameID    string
	RenameError string
	// Idem makes a card's refresh sent twice one submission.
	Idem string
}

// chip is one part of the query shown on its own.
type chip struct {
	// Label is the part in canonical form (from:alice, -word).
	Label string
	// Kind is "word", "filter" or "not", for the style.
	Kind string
	// Remove is the search without this part.
	Remove string
}

// queryProblem is a refused query: the parser's message in the page's
// language, and the query with a caret under the place it names.
type queryProblem struct {
	Message string
	// Query is what was typed, its whitespace made spaces; Pad moves the
	// caret under the column (a wide space under each wide character).
	Query, Pad string
}

// savedItem is one saved search in the navigation and on the search page.
type savedItem struct {
	ID, Name, Query, Href string
	// Current says the page shows this search.
	Current bool
}

// resultsLimit is a page of results: as many as a library page.
const resultsLimit = app.DefaultLibraryLimit

// search serves GET /search?q=&sort=&cursor=: the tenant's saved posts
// that match a query of the search language.
func (s *server) search(w http.ResponseWriter, r *http.Request, rq *request) {
	s.renderResults(w, r, rq, r.URL.Query(), http.StatusOK, nil)
}

// renderResults renders the search page for the query q; extra fills in
// what an action wants to show.
func (s *server) renderResults(w http.ResponseWriter, r *http.Request, rq *request, q url.Values, status int, extra func(v *resultsView)) {
	t := func(key string, args ...any) string { return s.d.Renderer.cat.T(rq.lang, key, args...) }
	v := &resultsView{Q: strings.TrimSpace(q.Get("q")), Sort: q.Get("sort"), View: layoutOf(w, r, q), Idem: uuid.NewString()}
	if v.Sort == "" {
		v.Sort = app.SearchSortNewest
	}
	for _, k := range []string{app.SearchSortNewest, app.SearchSortRelevance} {
		v.Sorts = append(v.Sorts, option{Value: k, Label: t("results.sort." + k)})
	}
	saved, err := s.d.App.SavedSearches(r.Context(), rq.tenantID)
	if err != nil {
		s.fail(w, r, rq, err)
		return
	}
	for _, ss := range saved {
		v.Saved = append(v.Saved, savedLink(ss))
	}

	if v.Q != "" {
		cursor := q.Get("cursor")
		page, err := s.d.App.SearchCards(r.Context(), rq.tenantID, v.Q, resultsLimit, cursor, v.Sort)
		var qe *app.QueryError
		switch {
		case errors.As(err, &qe):
			v.Problem = problemOf(rq, v.Q, qe)
		case errors.Is(err, app.ErrInvalid):
			v.Error = t("results.err.search", err.Error())
		case err != nil:
			s.fail(w, r, rq, err)
			return
		}
		if err == nil {
			for _, c := range page.Items {
				cd := s.card(rq, c.LibraryCard)
				cd.Snippet = markSnippet(c.Snippet)
				v.Cards = append(v.Cards, cd)
			}
			v.Chips = s.chips(v)
			switch n := len(v.Cards); {
			case page.NextCursor != "" || cursor != "":
				v.Count = t("results.count.page", n)
			case n == 1:
				v.Count = t("results.count.one")
			default:
				v.Count = t("results.count", n)
			}
			if page.NextCursor != "" {
				v.Next = resultsURL(v, v.Q, page.NextCursor)
			}
			if cursor != "" {
				v.First = resultsURL(v, v.Q, "")
			}
		}
		if parsed, err := app.ParseQuery(v.Q, time.Now()); err == nil {
			for _, ss := range saved {
				if ss.Query == parsed.String() {
					v.Current = ss.Name
				}
			}
		}
	}
	if (v.Problem != nil || v.Error != "") && status == http.StatusOK {
		status = http.StatusBadRequest
	}
	if r.Method == http.MethodGet {
		switch {
		case q.Get("saved") != "":
			v.Notice = t("saved.notice.saved", q.Get("saved"))
		case q.Get("removed") != "":
			v.Notice = t("saved.notice.deleted", q.Get("removed"))
		case q.Get("renamed") != "":
			v.Notice = t("saved.notice.renamed", q.Get("renamed"))
		}
	}
	if extra != nil {
		extra(v)
	}
	title := t("results.title")
	if v.Q != "" {
		title = t("library.search.title", v.Q)
	}
	nav := make([]savedItem, len(v.Saved))
	copy(nav, v.Saved)
	for i := range nav {
		nav[i].Current = v.Current != "" && nav[i].Name == v.Current
	}
	s.page(w, r, rq, status, "results.html", &Page{Script: true, Title: title, Nav: "search", Query: v.Q, Data: v, SavedSearches: nav})
}

// chips are the query's top-level parts, each with the search without it.
// They come from the parser's tree and its canonical form, so removing a
// part never changes what the others mean.
func (s *server) chips(v *resultsView) []chip {
	parsed, err := app.ParseQuery(v.Q, time.Now())
	if err != nil || parsed.Root == nil {
		return nil
	}
	parts := []app.Node{parsed.Root}
	if and, ok := parsed.Root.(app.And); ok {
		parts = and.Nodes
	}
	out := make([]chip, 0, len(parts))
	for i, n := range parts {
		rest := make([]app.Node, 0, len(parts)-1)
		rest = append(rest, parts[:i]...)
		rest = append(rest, parts[i+1:]...)
		var without app.Query
		switch len(rest) {
		case 0:
		case 1:
			without.Root = rest[0]
		default:
			without.Root = app.And{Nodes: rest}
		}
		c := chip{Label: (&app.Query{Root: n}).String(), Kind: "word", Remove: resultsURL(v, without.String(), "")}
		switch n.(type) {
		case app.Field, app.Time:
			c.Kind = "filter"
		case app.Not:
			c.Kind = "not"
		}
		out = append(out, c)
	}
	return out
}

// resultsURL is the search page for query q with the view's sort and
// layout, at cursor.
func resultsURL(v *resultsView, q, cursor string) string {
	u := url.Values{}
	if q != "" {
		u.Set("q", q)
	}
	if v.Sort != app.SearchSortNewest {
		u.Set("sort", v.Sort)
	}
	if cursor != "" {
		u.Set("cursor", cursor)
	}
	if len(u) == 0 {
		return "/search"
	}
	return "/search?" + u.Encode()
}

// problemOf says what is wrong with a query in the page's language, with
// the caret under the character the parser names.
func problemOf(rq *request, q string, qe *app.QueryError) *queryProblem {
	p := &queryProblem{Message: qe.Error()}
	if rq.lang == LangChinese {
		p.Message = qe.ErrorZH()
	}
	rs := []rune(q)
	if !utf8.ValidString(q) {
		rs = []rune(strings.ToValidUTF8(q, "\uFFFD"))
	}
	var shown, pad strings.Builder
	for i, r := range rs {
		if unicode.IsSpace(r) || unicode.IsControl(r) {
			r = ' '
		}
		shown.WriteRune(r)
		if i < qe.Pos {
			if isWide(r) {
				pad.WriteRune('\u3000')
			} else {
				pad.WriteRune(' ')
			}
		}
	}
	p.Query, p.Pad = shown.String(), pad.String()
	return p
}

// isWide reports a character a monospace font draws two columns wide
// (CJK, kana, Hangul, full-width forms), so the caret's padding uses an
// ideographic space under it.
func isWide(r rune) bool {
	return unicode.In(r, unicode.Han, unicode.Hiragana, unicode.Katakana, unicode.Hangul) ||
		(r >= 0x3000 && r <= 0x303f) || (r >= 0xff01 && r <= 0xff60) || (r >= 0xffe0 && r <= 0xffe6)
}

// markSnippet turns a search snippet into HTML: the text escaped, each
// match (between app.SnippetOpen and app.SnippetClose) in <mark>. A
// marker the post's own text contains can only open or close a mark, so
// the HTML stays balanced.
func markSnippet(s string) template.HTML {
	var b strings.Builder
	open := false
	for s != "" {
		i := strings.IndexAny(s, app.SnippetOpen+app.SnippetClose)
		if i < 0 {
			b.WriteString(html.EscapeString(s))
			break
		}
		b.WriteString(html.EscapeString(s[:i]))
		r, n := utf8.DecodeRuneInString(s[i:])
		switch {
		case string(r) == app.SnippetOpen && !open:
			b.WriteString("<mark>")
			open = true
		case string(r) == app.SnippetClose && open:
			b.WriteString("</mark>")
			open = false
		default:
			b.WriteString(html.EscapeString(string(r)))
		}
		s = s[i+n:]
	}
	if open {
		b.WriteString("</mark>")
	}
	return template.HTML(b.String()) //nolint:gosec // escaped above, only <mark> added
}

// savedLink is a saved search as the navigation links it.
func savedLink(ss app.SavedSearchView) savedItem {
	return savedItem{ID: ss.ID.String(), Name: ss.Name, Query: ss.Query, Href: "/search?" + url.Values{"q": {ss.Query}}.Encode()}
}

// saveSearch serves POST /searches: keep the form's query under the
// form's name, then show it.
func (s *server) saveSearch(w http.ResponseWriter, r *http.Request, rq *request) {
	q, name := strings.TrimSpace(r.PostFormValue("q")), strings.TrimSpace(r.PostFormValue("name"))
	back := url.Values{"q": {q}, "sort": {r.PostFormValue("sort")}}
	ss, err := s.d.App.SaveSearch(r.Context(), rq.tenantID, name, q)
	if err != nil {
		s.savedRefused(w, r, rq, back, err, func(v *resultsView, msg string) { v.SaveName, v.SaveError = name, msg })
		return
	}
	to := url.Values{"q": {ss.Query}, "saved": {ss.Name}}
	if sort := r.PostFormValue("sort"); sort == app.SearchSortRelevance {
		to.Set("sort", sort)
	}
	http.Redirect(w, r, "/search?"+to.Encode(), http.StatusSeeOther)
}

// renameSavedSearch serves POST /searches/{id}/rename.
func (s *server) renameSavedSearch(w http.ResponseWriter, r *http.Request, rq *request) {
	id, err := uuid.Parse(r.PathValue("id"))
	if err != nil {
		s.notFound(w, r, rq)
		return
	}
	name := strings.TrimSpace(r.PostFormValue("name"))
	back := url.Values{"q": {r.PostFormValue("q")}}
	ss, err := s.d.App.RenameSavedSearch(r.Context(), rq.tenantID, id, name)
	if err != nil {
		s.savedRefused(w, r, rq, back, err, func(v *resultsView, msg string) { v.RenameID, v.RenameError = id.String(), msg })
		return
	}
	http.Redirect(w, r, "/search?"+url.Values{"q": {r.PostFormValue("q")}, "renamed": {ss.Name}}.Encode(), http.StatusSeeOther)
}

// deleteSavedSearch serves POST /searches/{id}/delete.
func (s *server) deleteSavedSearch(w http.ResponseWriter, r *http.Request, rq *request) {
	id, err := uuid.Parse(r.PathValue("id"))
	if err != nil {
		s.notFound(w, r, rq)
		return
	}
	ss, err := s.d.App.DeleteSavedSearch(r.Context(), rq.tenantID, id)
	if err != nil {
		s.savedRefused(w, r, rq, url.Values{"q": {r.PostFormValue("q")}}, err, nil)
		return
	}
	http.Redirect(w, r, "/search?"+url.Values{"q": {r.PostFormValue("q")}, "removed": {ss.Name}}.Encode(), http.StatusSeeOther)
}

// savedRefused answers a refused saved-search action: the search page
// with the reason where the form was (show), 404 for a saved search that
// is not the tenant's.
func (s *server) savedRefused(w http.ResponseWriter, r *http.Request, rq *request, back url.Values, err error, show func(v *resultsView, msg string)) {
	t := func(key string, args ...any) string { return s.d.Renderer.cat.T(rq.lang, key, args...) }
	var qe *app.QueryError
	var msg string
	status := http.StatusBadRequest
	switch {
	case errors.Is(err, app.ErrNotFound):
		s.notFound(w, r, rq)
		return
	case errors.As(err, &qe):
		msg = problemOf(rq, back.Get("q"), qe).Message
	case errors.Is(err, app.ErrConflict):
		status, msg = http.StatusConflict, t("saved.err.taken")
	case errors.Is(err, app.ErrInvalid):
		msg = t("saved.err.invalid", err.Error())
	default:
		s.fail(w, r, rq, err)
		return
	}
	s.renderResults(w, r, rq, back, status, func(v *resultsView) {
		if show != nil {
			show(v, msg)
		} else {
			v.Error = msg
		}
	})
}

// savedSearchNav fills in the navigation's saved searches of a signed-in
// page; a failure to read them leaves the list out, never the page.
func (s *server) savedSearchNav(r *http.Request, rq *request, pg *Page) {
	list, err := s.d.App.SavedSearches(r.Context(), rq.tenantID)
	if err != nil {
		s.d.Log.WarnContext(r.Context(), "web: saved searches for the navigation", "err", err)
		return
	}
	pg.SavedSearches = make([]savedItem, 0, len(list))
	for _, ss := range list {
		pg.SavedSearches = append(pg.SavedSearches, savedLink(ss))
	}
}

// searchMessages are the search page's and the saved searches' texts.
func searchMessages() catalog {
	return catalog{
		"results.title":          {"Search", "搜索"},
		"results.heading":        {"Search your library", "搜索收藏"},
		"results.query":          {"Query", "查询"},
		"results.submit":         {"Search", "搜索"},
		"results.sort":           {"Order", "排序"},
		"results.sort.newest":    {"Newest saved first", "最新收藏在前"},
		"results.sort.relevance": {"Best match first", "最相关在前"},
		"results.count":          {"%d results", "%d 条结果"},
		"results.count.one":      {"1 result", "1 条结果"},
		"results.count.page":     {"%d results on this page", "本页 %d 条结果"},
		"results.chips":          {"Parts of this search", "搜索条件"},
		"results.chip.remove":    {"Search without %s", "去掉 %s 再搜索"},
		"results.empty":          {"Nothing you saved matches this search.", "你的收藏中没有符合这个搜索的内容。"},
		"results.empty.hint":     {"Remove a part of the search above, or try fewer words.", "去掉上面的某个条件，或者少用几个词。"},
		"results.help":           {"Type words to find posts you saved. Also:", "输入词语来查找你收藏的帖子。还可以用："},
		"results.help.phrase":    {"an exact phrase", "完整短语"},
		"results.help.not":       {"without this word", "不含这个词"},
		"results.help.or":        {"either word", "任一个词"},
		"results.help.from":      {"posts by this handle", "此用户名的帖子"},
		"results.help.has":       {"with a video (photo, gif, media, quote, poll)", "带视频（photo、gif、media、quote、poll）"},
		"results.help.after":     {"posted on or after a day (before: too)", "在这一天或之后发布（也可用 before:）"},
		"results.help.saved":     {"saved more than a week ago", "一周多以前收藏的"},
		"results.err.search":     {"This search cannot be run: %s", "无法执行这个搜索：%s"},
		"results.next":           {"More results →", "更多结果 →"},
		"results.first":          {"← First results", "← 第一页结果"},
		"results.pages":          {"More results", "更多结果"},
		"saved.title":            {"Saved searches", "已保存的搜索"},
		"saved.save":             {"Save this search", "保存这个搜索"},
		"saved.name":             {"Name", "名称"},
		"saved.savebtn":          {"Save", "保存"},
		"saved.current":          {"Saved as “%s”.", "已保存为“%s”。"},
		"saved.none":             {"No saved searches yet. Search, then save the search under a name to find it here and in the menu.", "还没有保存的搜索。搜索之后，给这个搜索起个名字保存，就能在这里和菜单中找到它。"},
		"saved.rename":           {"Rename", "重命名"},
		"saved.newname":          {"New name for %s", "%s 的新名称"},
		"saved.delete":           {"Delete", "删除"},
		"saved.notice.saved":     {"Saved the search as “%s”.", "已将搜索保存为“%s”。"},
		"saved.notice.deleted":   {"Deleted the saved search “%s”.", "已删除保存的搜索“%s”。"},
		"saved.notice.renamed":   {"Renamed the saved search to “%s”.", "已将保存的搜索重命名为“%s”。"},
		"saved.err.taken":        {"You have a saved search of this name already. Choose another name, or delete that one first.", "你已经有一个同名的保存搜索。请换个名称，或先删除那一个。"},
		"saved.err.invalid":      {"This search cannot be saved: %s", "无法保存这个搜索：%s"},
	}
}
