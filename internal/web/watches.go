package web

import (
	"context"
	"errors"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/google/uuid"

	"github.com/monitorhq/monitor/internal/app"
)

// The Watches page: a tenant's watched profiles and channels, a form to
// watch another, and a page per watch with its runs. The pull itself
// lives in the business layer (app/watchpull.go); these pages only show
// and change watches. The operator's side is admin_watches.go.

// watchService is what the Watches pages need, the tenant's and the
// operator's.
type watchService interface {
	Watches(ctx context.Context, tenantID uuid.UUID) ([]app.WatchView, error)
	Watch(ctx context.Context, tenantID, id uuid.UUID) (app.WatchView, error)
	CreateWatch(ctx context.Context, req app.WatchRequest) (app.WatchView, error)
	DeleteWatch(ctx context.Context, tenantID, id uuid.UUID) error
	PauseWatch(ctx context.Context, tenantID, id uuid.UUID) (app.WatchView, error)
	ResumeWatch(ctx context.Context, tenantID, id uuid.UUID) (app.WatchView, error)
	WatchRuns(ctx context.Context, tenantID, id uuid.UUID, limit int) ([]app.WatchRunView, error)
	PatchWatch(ctx context.Context, tenantID, id uuid.UUID, p app.WatchPatch) (app.WatchView, error)
	Settings(ctx context.Context) (app.Settings, error)
	adminWatchService
}

// watchRoutes are the Watches pages' part of the route table, the
// operator's included.
func (s *server) watchRoutes() []route {
	return []route{
		{http.MethodGet, "/watches", signedIn, s.watches},
		{http.MethodPost, "/watches", signedIn, s.createWatch},
		{http.MethodGet, "/watches/{id}", signedIn, s.watchPage},
		{http.MethodPost, "/watches/{id}/{action}", signedIn, s.watchAction},
		{http.MethodGet, "/admin/watches", adminOnly, s.adminWatches},
		{http.MethodPost, "/admin/watches/{id}/{action}", adminOnly, s.adminWatchAction},
	}
}

// watchRunRows is how many runs a watch's page shows, newest first.
const watchRunRows = 50

// watchIntervals are the intervals the form offers, in minutes; those
// under the instance's floor are left out.
var watchIntervals = []int{5, 15, 30, 60, 180, 360, 720, 1440}

// watchRow is one watch as a row of the page.
type watchRow struct {
	app.WatchView
	// Tenant names the watcher (the operator's page only).
	Tenant   string
	Every    string
	LastRun  string
	NextRun  string
	Since    string
	StateTxt string
	// Actions are the buttons the watch's state allows.
	Actions []option
}

// watchesView is the Watches page's Data.
type watchesView struct {
	Watches []watchRow
	// Intervals and Notifies are the form's choices.
	Intervals []option
	Notifies  []option
	// URL, Interval, Notify and Since are the form's values; Error its
	// problem, Notice a finished action.
	URL, Interval, Notify, Since string
	Error, Notice                string
	// Limit explains how many watches the tenant may have; Approval says
	// new ones wait for an admin.
	Limit    string
	Approval bool
	Off      bool
}

// watchView is a watch's own page's Data.
type watchView struct {
	Watch watchRow
	// Intervals and Notifies are the change form's choices; Interval the
	// current one in minutes.
	Intervals, Notifies []option
	Interval            string
	Runs                []watchRunRow
	Notice              string
	Error               string
}

// watchRunRow is one run as a row.
type watchRunRow struct {
	app.WatchRunView
	Started  string
	Delivery string
}

// watches serves GET /watches.
func (s *server) watches(w http.ResponseWriter, r *http.Request, rq *request) {
	v := &watchesView{Notify: app.NotifyDeliver, Notice: s.watchNotice(rq, r.URL.Query().Get("done"))}
	s.renderWatches(w, r, rq, http.StatusOK, v)
}

func (s *server) renderWatches(w http.ResponseWriter, r *http.Request, rq *request, status int, v *watchesView) {
	ctx := r.Context()
	list, err := s.d.App.Watches(ctx, rq.tenantID)
	if err != nil {
		s.fail(w, r, rq, err)
		return
	}
	settings, err := s.d.App.Settings(ctx)
	if err != nil {
		s.fail(w, r, rq, err)
		return
	}
	ws := settings.Watches
	for _, wv := range list {
		v.Watches = append(v.Watches, s.watchRow(rq, wv, false))
	}
	if v.Interval == "" {
		v.Interval = strconv.Itoa(max(int(app.DefaultWatchInterval/time.Minute), floorMinutes(ws.MinInterval)))
	}
	v.Intervals, v.Notifies = s.watchChoices(rq, ws.MinInterval, 0)
	v.Limit = s.t(rq, "watches.limit", len(list), ws.PerTenant)
	v.Approval, v.Off = ws.RequireApproval, !ws.ApplyEnabled
	s.page(w, r, rq, status, "watches.html", &Page{Title: s.t(rq, "watches.title"), Nav: "watches", Data: v})
}

// floorMinutes is the shortest interval in whole minutes, rounded up.
func floorMinutes(floor time.Duration) int { return int((floor + time.Minute - 1) / time.Minute) }

// watchChoices are the intervals (minutes) and notify modes the forms
// offer: the usual intervals from the instance's floor up, the floor
// itself when it is not one of them, and current (seconds, 0: none) when
// a watch already runs at another.
func (s *server) watchChoices(rq *request, floor time.Duration, current int) (intervals, notifies []option) {
	mins := []int{}
	if f := floorMinutes(floor); f > 0 && !slices.Contains(watchIntervals, f) {
		mins = append(mins, f)
	}
	for _, m := range watchIntervals {
		if m >= floorMinutes(floor) {
			mins = append(mins, m)
		}
	}
	if c := current / 60; current > 0 && current%60 == 0 && !slices.Contains(mins, c) {
		mins = append(mins, c)
		slices.Sort(mins)
	}
	for _, m := range mins {
		intervals = append(intervals, option{strconv.Itoa(m), s.every(rq, m*60)})
	}
	for _, n := range []string{app.NotifyDeliver, app.NotifyDigest, app.NotifyNone} {
		notifies = append(notifies, option{n, s.t(rq, "watches.notify."+n)})
	}
	return intervals, notifies
}

// createWatch serves POST /watches: watch the form's profile or channel.
// A refused link shows the page again with the reason and the values.
func (s *server) createWatch(w http.ResponseWriter, r *http.Request, rq *request) {
	v := &watchesView{URL: strings.TrimSpace(r.PostFormValue("url")), Interval: strings.TrimSpace(r.PostFormValue("interval")),
		Notify: r.PostFormValue("notify"), Since: strings.TrimSpace(r.PostFormValue("since"))}
	minutes, err := strconv.Atoi(v.Interval)
	switch {
	case v.Interval == "":
		minutes = 0
	case err != nil || minutes < 1:
		v.Error = s.t(rq, "watches.err.interval.number")
		s.renderWatches(w, r, rq, http.StatusBadRequest, v)
		return
	}
	if len(v.URL) > maxURLLen {
		v.Error = s.t(rq, "action.err.toolong", maxURLLen)
		s.renderWatches(w, r, rq, http.StatusBadRequest, v)
		return
	}
	if v.Since != "" {
		if _, err := time.Parse("2006-01-02", v.Since); err != nil {
			v.Error = s.t(rq, "watches.err.since")
			s.renderWatches(w, r, rq, http.StatusBadRequest, v)
			return
		}
	}
	wv, err := s.d.App.CreateWatch(r.Context(), app.WatchRequest{TenantID: rq.tenantID, URL: v.URL, IntervalSeconds: minutes * 60,
		Notify: v.Notify, Since: v.Since})
	if err != nil {
		status, msg, ok := s.watchError(r.Context(), rq, err)
		if !ok {
			s.fail(w, r, rq, err)
			return
		}
		v.Error = msg
		s.renderWatches(w, r, rq, status, v)
		return
	}
	backTo(w, r, "/watches", "created-"+wv.State)
}

// watchError says why a watch was refused, in the page's language; ok is
// false for the server's own errors. The business layer's reasons are
// written in English, so the limits are explained again from the
// settings they come from.
func (s *server) watchError(ctx context.Context, rq *request, err error) (status int, msg string, ok bool) {
	switch {
	case errors.Is(err, app.ErrForbidden):
		settings, serr := s.d.App.Settings(ctx)
		if serr != nil {
			return 0, "", false
		}
		ws := settings.Watches
		if !ws.ApplyEnabled {
			return http.StatusForbidden, s.t(rq, "watches.err.off"), true
		}
		list, lerr := s.d.App.Watches(ctx, rq.tenantID)
		if lerr != nil {
			return 0, "", false
		}
		if len(list) >= ws.PerTenant {
			return http.StatusForbidden, s.t(rq, "watches.err.pertenant", len(list), ws.PerTenant), true
		}
		return http.StatusForbidden, s.t(rq, "watches.err.sources", ws.MaxSources), true
	case errors.Is(err, app.ErrConflict):
		return http.StatusConflict, s.t(rq, "watches.err.exists"), true
	case errors.Is(err, app.ErrInvalid):
		text := err.Error()
		switch {
		case strings.Contains(text, "is a single post"):
			return http.StatusBadRequest, s.t(rq, "watches.err.post"), true
		case strings.Contains(text, "interval_seconds"):
			settings, serr := s.d.App.Settings(ctx)
			if serr != nil {
				return 0, "", false
			}
			return http.StatusBadRequest, s.t(rq, "watches.err.interval", s.every(rq, int(settings.Watches.MinInterval/time.Second))), true
		case strings.Contains(text, "notify must"):
			return http.StatusBadRequest, s.t(rq, "watches.err.notify"), true
		case strings.Contains(text, "url is required"):
			return http.StatusBadRequest, s.t(rq, "watches.err.empty"), true
		}
		return http.StatusBadRequest, s.t(rq, "watches.err.link", text), true
	}
	return s.actionError(rq, err)
}

// watchPage serves GET /watches/{id}: one watch and its runs.
func (s *server) watchPage(w http.ResponseWriter, r *http.Request, rq *request) {
	id, err := uuid.Parse(r.PathValue("id"))
	if err != nil {
		s.notFound(w, r, rq)
		return
	}
	s.renderWatch(w, r, rq, http.StatusOK, id, s.watchNotice(rq, r.URL.Query().Get("done")), "")
}

func (s *server) renderWatch(w http.ResponseWriter, r *http.Request, rq *request, status int, id uuid.UUID, notice, problem string) {
	wv, err := s.d.App.Watch(r.Context(), rq.tenantID, id)
	if err != nil {
		s.fail(w, r, rq, err)
		return
	}
	runs, err := s.d.App.WatchRuns(r.Context(), rq.tenantID, id, watchRunRows)
	if err != nil {
		s.fail(w, r, rq, err)
		return
	}
	settings, err := s.d.App.Settings(r.Context())
	if err != nil {
		s.fail(w, r, rq, err)
		return
	}
	v := &watchView{Watch: s.watchRow(rq, wv, false), Notice: notice, Error: problem, Interval: strconv.Itoa(wv.IntervalSeconds / 60)}
	v.Intervals, v.Notifies = s.watchChoices(rq, settings.Watches.MinInterval, wv.IntervalSeconds)
	for _, run := range runs {
		v.Runs = append(v.Runs, watchRunRow{WatchRunView: run, Started: watchTime(run.StartedAt),
			Delivery: s.t(rq, "watches.delivery."+run.DeliveryState)})
	}
	s.page(w, r, rq, status, "watch.html", &Page{Title: s.t(rq, "watches.one"), Nav: "watches", Data: v})
}

// watchAction serves POST /watches/{id}/pause|resume|delete|change. The form's
// back field ("list" or "watch") says which page to return to.
func (s *server) watchAction(w http.ResponseWriter, r *http.Request, rq *request) {
	id, err := uuid.Parse(r.PathValue("id"))
	if err != nil {
		s.notFound(w, r, rq)
		return
	}
	ctx, action := r.Context(), r.PathValue("action")
	switch action {
	case "pause":
		_, err = s.d.App.PauseWatch(ctx, rq.tenantID, id)
	case "resume":
		_, err = s.d.App.ResumeWatch(ctx, rq.tenantID, id)
	case "delete":
		err = s.d.App.DeleteWatch(ctx, rq.tenantID, id)
	case "change":
		s.changeWatch(w, r, rq, id)
		return
	default:
		s.notFound(w, r, rq)
		return
	}
	toWatch := r.PostFormValue("back") == "watch" && action != "delete"
	if errors.Is(err, app.ErrConflict) {
		// The watch changed meanwhile (paused itself, was rejected).
		if toWatch {
			s.renderWatch(w, r, rq, http.StatusConflict, id, "", s.t(rq, "watches.err.state"))
			return
		}
		s.renderWatches(w, r, rq, http.StatusConflict, &watchesView{Error: s.t(rq, "watches.err.state")})
		return
	}
	if err != nil {
		s.fail(w, r, rq, err)
		return
	}
	if toWatch {
		backTo(w, r, "/watches/"+id.String(), action)
		return
	}
	backTo(w, r, "/watches", action)
}

// changeWatch serves POST /watches/{id}/change: a new interval (minutes)
// or notify mode, from the watch's page.
func (s *server) changeWatch(w http.ResponseWriter, r *http.Request, rq *request, id uuid.UUID) {
	var p app.WatchPatch
	if v := strings.TrimSpace(r.PostFormValue("interval")); v != "" {
		m, err := strconv.Atoi(v)
		if err != nil || m < 1 {
			s.renderWatch(w, r, rq, http.StatusBadRequest, id, "", s.t(rq, "watches.err.interval.number"))
			return
		}
		secs := m * 60
		p.IntervalSeconds = &secs
	}
	if v := r.PostFormValue("notify"); v != "" {
		p.Notify = &v
	}
	if p.IntervalSeconds == nil && p.Notify == nil {
		// Nothing to change: back to the watch, if it is the tenant's.
		if _, err := s.d.App.Watch(r.Context(), rq.tenantID, id); err != nil {
			s.fail(w, r, rq, err)
			return
		}
		http.Redirect(w, r, "/watches/"+id.String(), http.StatusSeeOther)
		return
	}
	_, err := s.d.App.PatchWatch(r.Context(), rq.tenantID, id, p)
	if errors.Is(err, app.ErrInvalid) {
		_, msg, _ := s.watchError(r.Context(), rq, err)
		s.renderWatch(w, r, rq, http.StatusBadRequest, id, "", msg)
		return
	}
	if err != nil {
		s.fail(w, r, rq, err)
		return
	}
	backTo(w, r, "/watches/"+id.String(), "change")
}

// watchNotice is the message of a finished action named by ?done=.
func (s *server) watchNotice(rq *request, done string) string {
	key := "watches.done." + done
	if _, ok := s.d.Renderer.cat[key]; done == "" || !ok {
		return ""
	}
	return s.t(rq, key)
}

// watchRow puts a watch's times and state into words. admin chooses the
// operator's buttons.
func (s *server) watchRow(rq *request, wv app.WatchView, admin bool) watchRow {
	row := watchRow{WatchView: wv, Every: s.every(rq, wv.IntervalSeconds), StateTxt: s.t(rq, "watches.state."+wv.State)}
	// The business layer's own reasons, in the page's language; a failed
	// source's reason is shown as the business layer wrote it.
	switch wv.PausedReason {
	case "paused by you":
		row.PausedReason = s.t(rq, "watches.reason.you")
	case "paused by an admin":
		row.PausedReason = s.t(rq, "watches.reason.adminpause")
	case "rejected by an admin":
		row.PausedReason = s.t(rq, "watches.reason.adminreject")
	}
	if wv.LastRunAt != nil {
		row.LastRun = watchTime(*wv.LastRunAt)
	}
	if wv.NextRunAt != nil {
		row.NextRun = watchTime(*wv.NextRunAt)
	}
	if wv.Since != nil {
		row.Since = wv.Since.UTC().Format("2006-01-02")
	}
	var acts []string
	switch wv.State {
	case "active":
		acts = []string{"pause"}
	case "paused":
		acts = []string{"resume"}
	case "pending":
		if admin {
			acts = []string{"approve", "reject"}
		}
	}
	if !admin {
		acts = append(acts, "delete")
	}
	for _, a := range acts {
		row.Actions = append(row.Actions, option{a, s.t(rq, "watches.do."+a)})
	}
	return row
}

// every says an interval in words: "every 15 minutes".
func (s *server) every(rq *request, seconds int) string {
	switch d := time.Duration(seconds) * time.Second; {
	case d == 24*time.Hour:
		return s.t(rq, "watches.every.day")
	case d == time.Hour:
		return s.t(rq, "watches.every.hour")
	case d == time.Minute:
		return s.t(rq, "watches.every.minute")
	case d >= 24*time.Hour && d%(24*time.Hour) == 0:
		return s.t(rq, "watches.every.days", int(d/(24*time.Hour)))
	case d >= time.Hour && d%time.Hour == 0:
		return s.t(rq, "watches.every.hours", int(d/time.Hour))
	case d >= time.Minute && d%time.Minute == 0:
		return s.t(rq, "watches.every.minutes", int(d/time.Minute))
	}
	return s.t(rq, "watches.every.seconds", seconds)
}

// watchTime is a run's time as the pages show it.
func watchTime(t time.Time) string { return t.UTC().Format("2006-01-02 15:04") + " UTC" }

// watchMessages are the Watches pages' texts.
func watchMessages() catalog {
	return catalog{
		"nav.watches":                  {"Watches", "关注"},
		"watches.title":                {"Watches", "关注"},
		"watches.heading":              {"Watched profiles and channels", "关注的主页和频道"},
		"watches.explain":              {"Monitor reads each watched X profile or Telegram channel on its schedule and archives its new posts by itself.", "Monitor 会按计划读取每个关注的 X 主页或 Telegram 频道，并自动存档其中的新帖子。"},
		"watches.add":                  {"Watch a profile or channel", "关注主页或频道"},
		"watches.url":                  {"Link to an X profile or a Telegram channel", "X 主页或 Telegram 频道的链接"},
		"watches.url.placeholder":      {"https://x.com/name or https://t.me/channel", "https://x.com/名称 或 https://t.me/频道"},
		"watches.interval":             {"How often", "频率"},
		"watches.notify":               {"Tell me", "通知方式"},
		"watches.notify.deliver":       {"each new post, in the bot", "每条新帖子都发到机器人"},
		"watches.notify.digest":        {"one message per run, in the bot", "每次运行发一条汇总消息"},
		"watches.notify.none":          {"nothing (archive quietly)", "不通知（静默存档）"},
		"watches.since":                {"Start from (optional)", "起始日期（可选）"},
		"watches.since.hint":           {"Empty: only posts that appear from now on. A past date also archives what the newest page lists since then; a future date starts the watch that day.", "留空：只存档从现在起出现的帖子。过去的日期还会存档最新一页中该日期之后的帖子；将来的日期则从那天开始关注。"},
		"watches.submit":               {"Watch", "关注"},
		"watches.limit":                {"You have %d of %d watches.", "你已有 %d 个关注，最多 %d 个。"},
		"watches.approval":             {"New watches wait for an administrator's approval before they run.", "新的关注需经管理员批准后才会运行。"},
		"watches.off":                  {"Watching is turned off on this instance; ask the operator.", "此实例已关闭关注功能，请联系管理员。"},
		"watches.none":                 {"You watch nothing yet. Add a profile or channel above.", "你还没有关注任何内容。请在上方添加主页或频道。"},
		"watches.source":               {"Source", "来源"},
		"watches.state":                {"State", "状态"},
		"watches.schedule":             {"Schedule", "计划"},
		"watches.lastrun":              {"Last run", "上次运行"},
		"watches.nextrun":              {"Next run", "下次运行"},
		"watches.found":                {"New posts", "新帖子"},
		"watches.lasterror":            {"Last error", "最近错误"},
		"watches.never":                {"not yet", "尚未运行"},
		"watches.sincefrom":            {"posts since %s", "收录 %s 之后的帖子"},
		"watches.actions":              {"Actions", "操作"},
		"watches.runs":                 {"Runs", "运行记录"},
		"watches.one":                  {"Watch", "关注"},
		"watches.back":                 {"All watches", "全部关注"},
		"watches.created":              {"Added", "添加于"},
		"watches.run.started":          {"Started", "开始时间"},
		"watches.run.posts":            {"Posts archived", "存档的帖子"},
		"watches.run.delivery":         {"Bot", "机器人"},
		"watches.run.error":            {"Error", "错误"},
		"watches.run.none":             {"No runs yet: the source is read for the first time soon.", "尚无运行记录：很快会首次读取来源。"},
		"watches.run.nothing":          {"nothing new", "没有新帖子"},
		"watches.delivery.none":        {"not asked to tell you", "不通知"},
		"watches.delivery.pending":     {"waiting to send", "等待发送"},
		"watches.delivery.done":        {"sent", "已发送"},
		"watches.paused.why":           {"Why: %s", "原因：%s"},
		"watches.reason.you":           {"paused by you", "你暂停了它"},
		"watches.reason.adminpause":    {"paused by an admin", "管理员暂停了它"},
		"watches.reason.adminreject":   {"rejected by an admin", "管理员拒绝了它"},
		"watches.state.active":         {"active", "运行中"},
		"watches.state.pending":        {"waiting for approval", "等待批准"},
		"watches.state.paused":         {"paused", "已暂停"},
		"watches.state.rejected":       {"rejected", "已拒绝"},
		"watches.do.pause":             {"Pause", "暂停"},
		"watches.do.resume":            {"Resume", "恢复"},
		"watches.do.delete":            {"Delete", "删除"},
		"watches.do.approve":           {"Approve", "批准"},
		"watches.do.reject":            {"Reject", "拒绝"},
		"watches.every.minute":         {"every minute", "每分钟"},
		"watches.every.hour":           {"every hour", "每小时"},
		"watches.every.day":            {"every day", "每天"},
		"watches.every.seconds":        {"every %d seconds", "每 %d 秒"},
		"watches.every.minutes":        {"every %d minutes", "每 %d 分钟"},
		"watches.every.hours":          {"every %d hours", "每 %d 小时"},
		"watches.every.days":           {"every %d days", "每 %d 天"},
		"watches.done.created-active":  {"Watching. The source is read for the first time now.", "已关注。现在开始首次读取来源。"},
		"watches.done.created-pending": {"Asked. The watch starts once an administrator approves it.", "已申请。管理员批准后开始关注。"},
		"watches.done.change":          {"Watch changed.", "已修改关注。"},
		"watches.change":               {"Change", "修改"},
		"watches.save":                 {"Save", "保存"},
		"watches.done.pause":           {"Watch paused.", "已暂停关注。"},
		"watches.done.resume":          {"Watch resumed; the source is read again now.", "已恢复关注，现在重新读取来源。"},
		"watches.done.delete":          {"Watch deleted. What it archived stays in your library.", "已删除关注。已存档的内容仍保留在收藏库中。"},
		"watches.err.interval.number":  {"How often must be a number of minutes, 1 or more.", "频率必须是不小于 1 的分钟数。"},
		"watches.err.interval":         {"This interval is not allowed: a watch may run at most %s and at least once a week.", "不允许此频率：最快%s，最慢每周一次。"},
		"watches.err.since":            {"Start from must be a date such as 2026-12-01, or empty for now.", "起始日期必须是 2026-12-01 这样的日期，留空表示从现在开始。"},
		"watches.err.notify":           {"Choose how to be told: each post, one message per run, or nothing.", "请选择通知方式：每条帖子、每次运行一条消息，或不通知。"},
		"watches.err.empty":            {"Enter the link to an X profile or a Telegram channel.", "请输入 X 主页或 Telegram 频道的链接。"},
		"watches.err.post":             {"This link is a single post. Watch the profile or channel it belongs to instead, e.g. https://x.com/name.", "这个链接是单条帖子。请改为关注它所属的主页或频道，例如 https://x.com/名称。"},
		"watches.err.link":             {"This link cannot be watched: %s", "无法关注这个链接：%s"},
		"watches.err.off":              {"Not watched: watching profiles and channels is turned off on this instance. Ask the operator.", "未关注：此实例已关闭主页和频道关注功能，请联系管理员。"},
		"watches.err.pertenant":        {"Not watched: you have %d watches, the most one account may have (%d). Delete one to watch another.", "未关注：你已有 %d 个关注，已达到每个账户的上限（%d 个）。请删除一个后再关注新的。"},
		"watches.err.sources":          {"Not watched: this instance already watches %d profiles and channels, the most it allows. Ask the operator.", "未关注：此实例已关注 %d 个主页和频道，已达上限。请联系管理员。"},
		"watches.err.exists":           {"You watch this source already; resume or change that watch instead.", "你已经关注了这个来源，请恢复或修改现有的关注。"},
		"watches.err.state":            {"This watch changed in the meantime, so that cannot be done now; see its state below.", "这个关注的状态已经改变，现在无法执行此操作；请查看下方的状态。"},
	}
}
