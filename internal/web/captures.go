package web

import (
	"context"
	"errors"
	"net/http"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/google/uuid"

	"github.com/monitorhq/monitor/internal/adapterapi"
	"github.com/monitorhq/monitor/internal/app"
)

// captureService is what submitting a link and watching its capture need.
type captureService interface {
	Submit(ctx context.Context, req app.SubmitRequest) (app.SubmitResult, error)
	Capture(ctx context.Context, tenantID, captureID uuid.UUID) (app.CaptureView, error)
}

// maxURLLen bounds the capture form's link.
const maxURLLen = 2048

// captureView is the capture page's Data.
type captureView struct {
	ID    string
	State string
	Label string
	Error string
	// Ended says the capture will not change any more; Item is then the
	// archived item's page ("" : nothing to show).
	Ended bool
	Item  string
}

// submitCapture serves POST /captures: archive the link of the form's
// url field, then show the capture's page, or for a profile or channel
// the progress page of its posts (the limit field asks for that many in
// one batch). A refused link shows the library again with the reason and
// the form's values kept.
func (s *server) submitCapture(w http.ResponseWriter, r *http.Request, rq *request) {
	link, limitText := r.PostFormValue("url"), strings.TrimSpace(r.PostFormValue("limit"))
	var res app.SubmitResult
	limit, err := parseLimit(limitText)
	if err == nil && len(link) > maxURLLen {
		err = errTooLong
	}
	if err == nil {
		res, err = s.d.App.Submit(r.Context(), app.SubmitRequest{TenantID: rq.tenantID, URL: link, Limit: limit, IdemKey: idemKey(r)})
	}
	if err != nil {
		status, msg, ok := s.actionError(rq, err)
		switch {
		case errors.Is(err, errBadLimit):
			status, msg, ok = http.StatusBadRequest, s.d.Renderer.cat.T(rq.lang, "capture.err.limitnum"), true
		case limit > 0 && errors.Is(err, app.ErrInvalid):
			// The limit does not fit the link or the adapter's batches.
			msg = s.d.Renderer.cat.T(rq.lang, "capture.err.limit", err.Error())
		}
		if !ok {
			s.fail(w, r, rq, err)
			return
		}
		s.renderLibrary(w, r, rq, status, func(v *libraryView) {
			v.CaptureURL, v.CaptureLimit, v.CaptureError = link, limitText, msg
		})
		return
	}
	to := "/captures/" + res.CaptureID.String()
	// A profile or channel goes on to its posts: their progress page. (A
	// failed read leaves the capture page, which shows the page's own
	// capture.)
	if sv, err := s.d.App.Submission(r.Context(), rq.tenantID, res.SubmissionID); err == nil && sv.Kind != "post" {
		to = "/submissions/" + res.SubmissionID.String()
	}
	http.Redirect(w, r, to, http.StatusSeeOther)
}

// maxLimit bounds the limit field before the adapter's own largest batch
// (which the business layer checks) is asked.
const maxLimit = 1_000_000

// errBadLimit refuses a limit field that is not a count of posts.
var errBadLimit = errors.New("limit is not a whole number from 1")

// parseLimit reads the capture form's limit field: "" is 0 (one page).
func parseLimit(s string) (int, error) {
	if s == "" {
		return 0, nil
	}
	n, err := strconv.Atoi(s)
	if err != nil || n < 1 || n > maxLimit {
		return 0, errBadLimit
	}
	return n, nil
}

// idemPattern is what the forms' one-time keys look like.
var idemPattern = regexp.MustCompile(`^[0-9a-f-]{36,80}$`)

// errTooLong refuses a link longer than anyone's.
var errTooLong = errors.New("link too long")

// idemKey is the form's one-time key: a form sent twice (a double click,
// a reload) is one submission.
func idemKey(r *http.Request) string {
	k := r.PostFormValue("idem")
	if !idemPattern.MatchString(k) {
		return ""
	}
	return "web:" + k
}

// capturePage serves GET /captures/{id}: the capture's state, live. While
// it runs the page reloads itself (meta refresh without JS; app.js polls
// /v1/captures/{id} instead).
func (s *server) capturePage(w http.ResponseWriter, r *http.Request, rq *request) {
	id, err := uuid.Parse(r.PathValue("id"))
	if err != nil {
		s.notFound(w, r, rq)
		return
	}
	c, err := s.d.App.Capture(r.Context(), rq.tenantID, id)
	if err != nil {
		s.fail(w, r, rq, err)
		return
	}
	t := func(key string, args ...any) string { return s.d.Renderer.cat.T(rq.lang, key, args...) }
	v := &captureView{ID: c.ID.String(), State: c.State, Label: t("capture.state." + c.State), Error: c.Error}
	if ended(c.State) {
		v.Ended = true
		if c.RevisionID != nil || c.State != app.StateFailed {
			v.Item = "/c/" + c.CollectionID.String()
		}
	}
	pg := &Page{Script: true, Title: t("capturepage.title"), Nav: "library", Data: v}
	if !v.Ended {
		pg.Refresh = 2
	}
	s.page(w, r, rq, http.StatusOK, "capture.html", pg)
}

// actionError says why an action was refused, in the page's language,
// with the status to answer; ok is false for errors that are the server's
// own (they are logged and answered 500).
func (s *server) actionError(rq *request, err error) (status int, msg string, ok bool) {
	t := func(key string, args ...any) string { return s.d.Renderer.cat.T(rq.lang, key, args...) }
	var (
		quota *app.QuotaError
		limit *app.LimitError
		aerr  *adapterapi.Error
	)
	switch {
	case errors.Is(err, errTooLong):
		return http.StatusBadRequest, t("action.err.toolong", maxURLLen), true
	case errors.As(err, &quota):
		if quota.QuotaBytes == 0 {
			return http.StatusForbidden, t("action.err.quotazero"), true
		}
		return http.StatusForbidden, t("action.err.quota", formatBytes(quota.UsedBytes), formatBytes(quota.QuotaBytes),
			formatBytes(quota.ReservedBytes), formatBytes(quota.AddBytes)), true
	case errors.Is(err, app.ErrQuota):
		return http.StatusForbidden, t("action.err.quotazero"), true
	case errors.As(err, &limit):
		if limit.Status() {
			return http.StatusForbidden, t("action.err.status." + limit.Limit), true
		}
		msg := t("action.err.limit."+limit.Limit, limit.Max)
		if limit.ResetAt != nil {
			msg += " " + t("action.err.resetat", limit.ResetAt.UTC().Format(time.DateTime)+" UTC")
		}
		return http.StatusTooManyRequests, msg, true
	case errors.Is(err, app.ErrTenantNotActive):
		return http.StatusForbidden, t("action.err.notactive"), true
	case errors.As(err, &aerr):
		switch app.AdapterFaultOf(aerr) {
		case app.FaultLink:
			return http.StatusUnprocessableEntity, t("action.err.link", aerr.Error()), true
		case app.FaultPassing:
			return http.StatusServiceUnavailable, t("action.err.passing", aerr.Error()), true
		}
		return http.StatusBadGateway, t("action.err.adapter", aerr.Error()), true
	case errors.Is(err, app.ErrInvalid):
		return http.StatusBadRequest, t("action.err.invalid", err.Error()), true
	case errors.Is(err, app.ErrNotFound):
		return http.StatusNotFound, t("action.err.notfound"), true
	}
	return 0, "", false
}

// captureMessages are the texts of submitting links and the capture page.
func captureMessages() catalog {
	return catalog{
		"capturepage.title":           {"Capture", "采集"},
		"capturepage.heading":         {"Archiving your link", "正在存档你的链接"},
		"capturepage.ended":           {"Capture finished", "采集结束"},
		"capturepage.live":            {"This page updates by itself until the capture ends.", "采集结束前，此页面会自动更新。"},
		"capturepage.open":            {"Open the archived post", "打开已存档的帖子"},
		"capturepage.back":            {"Back to the library", "返回收藏库"},
		"capturepage.error":           {"What went wrong: %s", "出错原因：%s"},
		"capture.err.limitnum":        {"How many posts must be a whole number, 1 or more; leave it empty for one page of about 100.", "帖子数量必须是不小于 1 的整数；留空则存档一页（约 100 条）。"},
		"capture.err.limit":           {"Not archived: %s", "未存档：%s"},
		"action.err.toolong":          {"This link is longer than %d characters; send the post's own address.", "链接超过 %d 个字符，请发送帖子本身的地址。"},
		"action.err.quotazero":        {"Your storage quota is 0 bytes, so nothing can be saved. Ask the operator to raise it.", "你的存储配额为 0 字节，无法保存任何内容。请联系管理员提高配额。"},
		"action.err.quota":            {"Not saved: your storage quota is full (%s of %s used, %s reserved by captures in progress; this needs %s more). Delete something or ask the operator to raise the quota.", "未保存：存储配额已满（已用 %s / 共 %s，进行中的采集预留 %s，本次还需 %s）。请删除一些内容，或联系管理员提高配额。"},
		"action.err.limit.interval":   {"Too soon: wait %d seconds between links.", "太快了：两次提交之间请等待 %d 秒。"},
		"action.err.limit.daily":      {"Daily limit reached: %d captures a day.", "已达到每日上限：每天 %d 次采集。"},
		"action.err.limit.concurrent": {"Too many captures at once (at most %d); wait for one to finish.", "同时进行的采集太多（最多 %d 个），请等待其中一个完成。"},
		"action.err.resetat":          {"Try again after %s.", "请在 %s 之后再试。"},
		"action.err.status.pending":   {"Your account is waiting for an administrator's approval.", "你的账户正在等待管理员批准。"},
		"action.err.status.disabled":  {"Your account has been disabled by an administrator.", "你的账户已被管理员停用。"},
		"action.err.status.archived":  {"Your account has been archived; ask an administrator to restore it.", "你的账户已归档，请联系管理员恢复。"},
		"action.err.notactive":        {"Your account is not active, so it cannot save.", "你的账户未启用，无法保存。"},
		"action.err.link":             {"This link cannot be archived: %s", "无法存档这个链接：%s"},
		"action.err.passing":          {"The source cannot be reached right now; try again in a few minutes. (%s)", "暂时无法访问来源，请几分钟后再试。（%s）"},
		"action.err.adapter":          {"The adapter failed on this link: %s", "适配器处理此链接时出错：%s"},
		"action.err.invalid":          {"This is not a link Monitor can archive: %s", "这不是 Monitor 可以存档的链接：%s"},
		"action.err.notfound":         {"This post is not in your library.", "你的收藏库中没有这条帖子。"},
	}
}
