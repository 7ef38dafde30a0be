package web

import (
	"context"
	"errors"
	"html/template"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/google/uuid"

	"github.com/monitorhq/monitor/internal/app"
)

// libraryService is what the library page needs.
type libraryService interface {
	Library(ctx context.Context, tenantID uuid.UUID, q app.LibraryQuery) (app.LibraryPage, error)
	Adapters() []app.AdapterView
}

// viewCookie remembers the library's layout (grid or list) in the browser.
const viewCookie = "monitor_view"

// cardTextRunes is how much of a post's text a card shows.
const cardTextRunes = 280

// libraryView is the library page's Data.
type libraryView struct {
	Cards []card
	// View is "grid" or "list"; GridURL and ListURL switch to the other
	// with the same filters.
	View             string
	GridURL, ListURL string
	Filter           libraryFilter
	Platforms        []option
	// Filtered says a filter is set (the empty library then says so).
	Filtered bool
	// Next leads to older saves, First back to the newest ("" : none).
	Next, First string
	// Error is the filter's problem, in the page's language.
	Error string
	// Notice is a message from the last action ("" : none); Undo, when
	// set, offers to put a removed item back.
	Notice string
	Undo   *undoForm
	// CaptureURL and CaptureError are the capture form's value and its
	// problem after a refused submit.
	CaptureURL   string
	CaptureLimit string
	CaptureError string
	// Idem makes a form sent twice one submission.
	Idem string
}

// libraryFilter is the filter form as the person filled it in.
type libraryFilter struct {
	// Q is the words searched for (the header's search box, /search?q=).
	Q                                            string
	Platform, Author, Kind, Visibility, From, To string
}

// option is one choice of a select.
type option struct{ Value, Label string }

// undoForm puts a just-removed item back in its place.
type undoForm struct {
	ID      string
	SavedAt string
}

// card is one saved item in the library.
type card struct {
	ID       string
	Href     string
	Source   string
	Platform string
	Private  bool
	Author   string
	Handle   string
	// Avatar is the archived avatar's URL ("" : the initial is shown).
	Avatar  string
	Initial string
	Time    time.Time
	Saved   time.Time
	Text    string
	// Snippet is a search result's text around its match, escaped, the
	// match in <mark> ("" : show Text).
	Snippet template.HTML
	Thumbs  []thumb
	More    int
	Counts  []count
	// State is "" (archived), "running", "failed" or "partial"; Error is
	// the capture's error, CaptureHref its live page.
	State       string
	StateLabel  string
	Error       string
	CaptureHref string
	// Empty says there is no content yet (first capture running or failed).
	Empty bool
}

// cardArgs carries the page into the library card template.
type cardArgs struct {
	Page *Page
	Card card
}

// thumb is one media thumbnail of a card.
type thumb struct {
	URL, Kind, Alt string
	Sensitive      bool
	Video          bool
}

// count is one engagement number of a card.
type count struct {
	Label string
	Value string
}

// library serves GET /: the tenant's saved posts, newest save first.
func (s *server) library(w http.ResponseWriter, r *http.Request, rq *request) {
	s.renderLibrary(w, r, rq, http.StatusOK, nil)
}

// renderLibrary renders the library for the request's query; extra fills
// in what an action wants to show (an error, the capture form's value).
func (s *server) renderLibrary(w http.ResponseWriter, r *http.Request, rq *request, status int, extra func(v *libraryView)) {
	t := func(key string, args ...any) string { return s.d.Renderer.cat.T(rq.lang, key, args...) }
	q := r.URL.Query()
	if r.Method != http.MethodGet {
		// An action's answer shows the library as it was being viewed.
		if ref, err := url.Parse(r.Referer()); err == nil && ref.Path == "/" {
			q = ref.Query()
		} else {
			q = url.Values{}
		}
	}
	v := &libraryView{View: layoutOf(w, r, q), Idem: uuid.NewString()}
	v.Filter = libraryFilter{Q: strings.TrimSpace(q.Get("q")), Platform: q.Get("platform"), Author: strings.TrimSpace(q.Get("author")), Kind: q.Get("kind"),
		Visibility: q.Get("visibility"), From: q.Get("from"), To: q.Get("to")}
	v.Filtered = v.Filter != libraryFilter{}
	v.GridURL, v.ListURL = libraryURL(q, "view", "grid", "cursor"), libraryURL(q, "view", "list", "cursor")
	for _, a := range s.d.App.Adapters() {
		v.Platforms = append(v.Platforms, option{Value: a.ID, Label: a.DisplayName})
	}

	lq := app.LibraryQuery{Cursor: q.Get("cursor"), Words: v.Filter.Q, Platform: v.Filter.Platform, Author: v.Filter.Author,
		MediaKind: v.Filter.Kind, Visibility: v.Filter.Visibility}
	var bad error
	if lq.SavedFrom, bad = parseDay(v.Filter.From); bad != nil {
		v.Error = t("library.err.date", v.Filter.From)
	} else if day, err := parseDay(v.Filter.To); err != nil {
		v.Error = t("library.err.date", v.Filter.To)
	} else if !day.IsZero() {
		lq.SavedBefore = day.AddDate(0, 0, 1) // "to" includes its day
	}
	if v.Error == "" {
		page, err := s.d.App.Library(r.Context(), rq.tenantID, lq)
		switch {
		case errors.Is(err, app.ErrInvalid):
			v.Error = t("library.err.filter", err.Error())
		case err != nil:
			s.fail(w, r, rq, err)
			return
		}
		for _, c := range page.Items {
			v.Cards = append(v.Cards, s.card(rq, c))
		}
		if page.NextCursor != "" {
			v.Next = libraryURL(q, "cursor", page.NextCursor)
		}
		if lq.Cursor != "" {
			v.First = libraryURL(q, "cursor", "")
		}
	}
	if v.Error != "" && status == http.StatusOK {
		status = http.StatusBadRequest
	}
	if id := q.Get("deleted"); r.Method == http.MethodGet && id != "" {
		if _, err := uuid.Parse(id); err == nil {
			v.Notice = t("library.deleted")
			v.Undo = &undoForm{ID: id, SavedAt: q.Get("saved")}
		}
	}
	if r.Method == http.MethodGet && q.Get("restored") != "" {
		v.Notice = t("library.restored")
	}
	if extra != nil {
		extra(v)
	}
	title, nav := t("library.title"), "library"
	if v.Filter.Q != "" {
		title, nav = t("library.search.title", v.Filter.Q), "search"
	}
	s.page(w, r, rq, status, "library.html", &Page{Script: true, Title: title, Nav: nav, Query: v.Filter.Q, Data: v})
}

// layoutOf is the layout a list of cards is shown in: the query's view
// (grid or list), remembered in a cookie, else the remembered one, else
// grid.
func layoutOf(w http.ResponseWriter, r *http.Request, q url.Values) string {
	switch view := q.Get("view"); view {
	case "grid", "list":
		http.SetCookie(w, &http.Cookie{Name: viewCookie, Value: view, Path: "/", MaxAge: 365 * 24 * 3600,
			HttpOnly: true, SameSite: http.SameSiteLaxMode, Secure: r.TLS != nil})
		return view
	}
	if c, err := r.Cookie(viewCookie); err == nil && c.Value == "list" {
		return "list"
	}
	return "grid"
}

// card turns a library card into what the template shows.
func (s *server) card(rq *request, c app.LibraryCard) card {
	t := func(key string, args ...any) string { return s.d.Renderer.cat.T(rq.lang, key, args...) }
	out := card{ID: c.ID.String(), Href: "/c/" + c.ID.String(), Source: c.SourceURL, Platform: c.Platform,
		Private: c.Visibility == "private", Author: c.AuthorName, Handle: c.AuthorHandle, Saved: c.SavedAt,
		Text: clip(c.Text, cardTextRunes), Empty: c.RevisionID == nil}
	if out.Text == "" {
		out.Text = clip(app.RenderSummary(c.Summary, rq.lang), cardTextRunes)
	}
	if out.Author == "" {
		out.Author = c.AuthorHandle
	}
	if out.Author == "" {
		// Nothing archived yet: the link says what the card is.
		out.Author = shortLink(c.SourceURL)
	}
	if out.Author == "" {
		out.Author = c.Platform
	}
	if r, _ := utf8.DecodeRuneInString(out.Author); r != utf8.RuneError {
		out.Initial = strings.ToUpper(string(r))
	}
	if c.AuthorAvatar != "" {
		out.Avatar = "/v1/media/" + c.AuthorAvatar
	}
	if c.PublishedAt != nil {
		out.Time = *c.PublishedAt
	}
	for _, m := range c.Media {
		out.Thumbs = append(out.Thumbs, thumb{URL: "/v1/media/" + m.SHA256, Kind: m.Kind, Alt: m.Alt, Sensitive: m.Sensitive,
			Video: m.Kind == "video" || (m.Kind == "gif" && strings.HasPrefix(m.Mime, "video/"))})
	}
	if c.MediaCount > len(c.Media) {
		out.More = c.MediaCount - len(c.Media)
	}
	for _, n := range []struct {
		key string
		v   *int64
	}{{"card.replies", c.Counts.Replies}, {"card.reposts", c.Counts.Reposts}, {"card.likes", c.Counts.Likes}, {"card.views", c.Counts.Views}} {
		if n.v != nil {
			out.Counts = append(out.Counts, count{Label: t(n.key), Value: compact(*n.v)})
		}
	}
	if cp := c.Capture; cp != nil {
		out.CaptureHref = "/captures/" + cp.ID.String()
		switch {
		case cp.InFlight():
			out.State, out.StateLabel = "running", t("capture.state."+cp.State)
		case cp.State == app.StateFailed:
			out.State, out.Error = "failed", cp.Error
			out.StateLabel = t("card.failed")
			if !out.Empty {
				out.StateLabel = t("card.refreshfailed")
			}
		case cp.State == app.StatePartial:
			out.State, out.Error, out.StateLabel = "partial", cp.Error, t("card.partial")
		}
	}
	return out
}

// libraryURL is the library's address with the query q and the given
// key/value pairs changed ("" removes a key; a lone key is removed).
func libraryURL(q url.Values, kv ...string) string {
	u := url.Values{}
	for k, vs := range q {
		switch k {
		case "deleted", "saved", "restored":
			continue
		}
		u[k] = vs
	}
	for i := 0; i < len(kv); i += 2 {
		if i+1 == len(kv) || kv[i+1] == "" {
			u.Del(kv[i])
			continue
		}
		u.Set(kv[i], kv[i+1])
	}
	if len(u) == 0 {
		return "/"
	}
	return "/?" + u.Encode()
}

// shortLink is a link without its scheme and "www.", clipped: a name for
// an item whose content is not archived yet.
func shortLink(s string) string {
	u, err := url.Parse(s)
	if err != nil || u.Host == "" {
		return ""
	}
	return clip(strings.TrimPrefix(u.Host, "www.")+u.EscapedPath(), 60)
}

// parseDay reads a date field (YYYY-MM-DD, UTC); "" is the zero time.
func parseDay(s string) (time.Time, error) {
	if s == "" {
		return time.Time{}, nil
	}
	return time.Parse(time.DateOnly, s)
}

// clip shortens s to n runes at a word boundary when it can, with an
// ellipsis.
func clip(s string, n int) string {
	s = strings.TrimSpace(s)
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	runes := []rune(s)[:n]
	cut := string(runes)
	if i := strings.LastIndexAny(cut, " \n\t"); i > len(cut)*2/3 {
		cut = cut[:i]
	}
	return strings.TrimRight(cut, " \n\t,.;:") + "…"
}

// compact writes a count the way people read them: 999, 1.2K, 3.4M.
func compact(n int64) string {
	switch {
	case n < 1000:
		return strconv.FormatInt(n, 10)
	case n < 1_000_000:
		return trimZero(strconv.FormatFloat(float64(n)/1000, 'f', 1, 64)) + "K"
	}
	return trimZero(strconv.FormatFloat(float64(n)/1_000_000, 'f', 1, 64)) + "M"
}

func trimZero(s string) string { return strings.TrimSuffix(s, ".0") }

// libraryMessages are the library page's texts.
func libraryMessages() catalog {
	return catalog{
		"library.title":             {"Library", "收藏库"},
		"library.heading":           {"Your library", "我的收藏"},
		"library.empty":             {"Nothing saved yet. Paste a link above to archive your first post.", "还没有收藏。在上面粘贴链接，存档你的第一条帖子。"},
		"library.empty.filter":      {"Nothing matches these filters.", "没有符合这些筛选条件的收藏。"},
		"library.filters":           {"Filters", "筛选"},
		"library.platform":          {"Platform", "平台"},
		"library.author":            {"Author", "作者"},
		"library.words":             {"Words", "关键词"},
		"library.search.title":      {"Search: %s", "搜索：%s"},
		"library.kind":              {"Media", "媒体"},
		"library.visibility":        {"Visibility", "可见性"},
		"library.from":              {"Saved from", "收藏起始日期"},
		"library.to":                {"Saved until", "收藏截止日期"},
		"library.any":               {"Any", "全部"},
		"library.apply":             {"Apply", "应用"},
		"library.clear":             {"Clear filters", "清除筛选"},
		"library.view":              {"Layout", "布局"},
		"library.grid":              {"Grid", "网格"},
		"library.list":              {"List", "列表"},
		"library.older":             {"Older →", "更早 →"},
		"library.newest":            {"← Newest", "← 最新"},
		"library.pages":             {"More saved posts", "更多收藏"},
		"library.deleted":           {"Removed from your library.", "已从收藏库移除。"},
		"library.undo":              {"Undo", "撤销"},
		"library.restored":          {"Put back in your library.", "已放回收藏库。"},
		"library.err.date":          {"“%s” is not a date; use the form YYYY-MM-DD.", "“%s”不是日期，请使用 YYYY-MM-DD 格式。"},
		"library.err.filter":        {"These filters cannot be used: %s", "无法使用这些筛选条件：%s"},
		"kind.image":                {"Images", "图片"},
		"kind.video":                {"Videos", "视频"},
		"kind.gif":                  {"GIFs", "动图"},
		"kind.audio":                {"Audio", "音频"},
		"kind.document":             {"Documents", "文件"},
		"visibility.public":         {"Public", "公开"},
		"visibility.private":        {"Private", "私密"},
		"card.open":                 {"Open", "打开"},
		"card.original":             {"Original", "原帖"},
		"card.original.label":       {"Open the original on %s", "在 %s 打开原帖"},
		"card.refresh":              {"Refresh", "刷新"},
		"card.delete":               {"Delete", "删除"},
		"card.more":                 {"+%d more", "还有 %d 个"},
		"card.replies":              {"replies", "回复"},
		"card.reposts":              {"reposts", "转发"},
		"card.likes":                {"likes", "喜欢"},
		"card.views":                {"views", "浏览"},
		"card.failed":               {"Capture failed", "采集失败"},
		"card.refreshfailed":        {"Last refresh failed", "上次刷新失败"},
		"card.partial":              {"Partly captured", "部分采集"},
		"card.nocontent":            {"No content archived yet.", "尚未存档任何内容。"},
		"card.details":              {"Details", "详情"},
		"card.private":              {"Private", "私密"},
		"card.sensitive":            {"Sensitive", "敏感内容"},
		"card.video":                {"Video", "视频"},
		"card.avatar":               {"Avatar of %s", "%s 的头像"},
		"card.saved":                {"saved %s", "收藏于 %s"},
		"capture.label":             {"Archive a link", "存档链接"},
		"capture.placeholder":       {"https://x.com/… or https://t.me/…", "https://x.com/… 或 https://t.me/…"},
		"capture.submit":            {"Archive", "存档"},
		"capture.limit":             {"How many posts", "帖子数量"},
		"capture.limit.hint":        {"For profiles and channels. Empty: one page, about 100.", "用于个人主页和频道。留空：一页，约 100 条。"},
		"keys.title":                {"Keyboard shortcuts", "键盘快捷键"},
		"keys.next":                 {"Next item", "下一项"},
		"keys.prev":                 {"Previous item", "上一项"},
		"keys.open":                 {"Open the item", "打开当前项"},
		"keys.search":               {"Search", "搜索"},
		"keys.help":                 {"Show this help", "显示此帮助"},
		"keys.close":                {"Close", "关闭"},
		"keys.hint":                 {"Press ? for keyboard shortcuts", "按 ? 查看键盘快捷键"},
		"capture.state.queued":      {"Waiting to be captured", "等待采集"},
		"capture.state.downloading": {"Capturing", "采集中"},
		"capture.state.complete":    {"Archived", "已存档"},
		"capture.state.partial":     {"Partly archived", "部分存档"},
		"capture.state.failed":      {"Capture failed", "采集失败"},
	}
}
