package web

import (
	"context"
	"errors"
	"net/http"

	"github.com/google/uuid"

	"github.com/monitorhq/monitor/internal/app"
)

// The progress page of a profile's or channel's submission, GET
// /submissions/{id}: how many of its posts are archived, live while it
// runs, with Stop (POST /submissions/{id}/stop) and Fetch more (POST
// /submissions/{id}/more). A single post's submission has the capture
// page instead (captures.go).

// submissionService is what the progress page and its actions need.
type submissionService interface {
	Submission(ctx context.Context, tenantID, id uuid.UUID) (app.SubmissionView, error)
	More(ctx context.Context, tenantID, submissionID uuid.UUID) (app.SubmitResult, error)
	Stop(ctx context.Context, tenantID, submissionID uuid.UUID) (app.SubmissionView, error)
}

// maxChainWalk bounds how many pages the progress page follows to find
// the last one (a 1,000-post batch is ten pages).
const maxChainWalk = 200

// submissionView is the progress page's Data.
type submissionView struct {
	ID string
	// Kind is profile, channel or thread.
	Kind  string
	State string
	Label string
	// Name and Source say what is archived ("" : not known yet);
	// SourceLabel is Source shortened for reading.
	Name, Source, SourceLabel string
	// Running: the page or its posts are still being archived.
	Running  bool
	Stopped  bool
	Progress app.SubmissionProgress
	// Done is how many posts have ended (archived, partly or failed).
	Done  int
	Error string
	// Notice is why the last action was refused ("" : none).
	Notice string
	// More is the page whose next page "Fetch more" asks for: the last
	// page of the chain ("" : nothing more to fetch).
	More string
	// Item is the profile's or channel's page in the library.
	Item string
}

// submissionPage serves GET /submissions/{id}.
func (s *server) submissionPage(w http.ResponseWriter, r *http.Request, rq *request) {
	id, err := uuid.Parse(r.PathValue("id"))
	if err != nil {
		s.notFound(w, r, rq)
		return
	}
	s.renderSubmission(w, r, rq, id, http.StatusOK, "")
}

// renderSubmission renders the progress page of a submission with
// notice, the problem of an action, if any.
func (s *server) renderSubmission(w http.ResponseWriter, r *http.Request, rq *request, id uuid.UUID, status int, notice string) {
	sv, err := s.d.App.Submission(r.Context(), rq.tenantID, id)
	if err != nil {
		s.fail(w, r, rq, err)
		return
	}
	if sv.Kind == "post" {
		// One post (or one post of a collection): its capture's page.
		http.Redirect(w, r, "/captures/"+sv.CaptureID.String(), http.StatusSeeOther)
		return
	}
	t := func(key string, args ...any) string { return s.d.Renderer.cat.T(rq.lang, key, args...) }
	v := &submissionView{ID: sv.ID.String(), Kind: sv.Kind, State: sv.State, Label: t("capture.state." + sv.State),
		Running: !ended(sv.State), Stopped: sv.Stopped, Progress: sv.Progress, Error: sv.Error, Notice: notice,
		Done: sv.Progress.Complete + sv.Progress.Partial + sv.Progress.Failed,
		Item: "/c/" + sv.CollectionID.String() + "?submission=" + sv.ID.String()}
	if c, err := s.d.App.Collection(r.Context(), rq.tenantID, sv.CollectionID); err == nil {
		v.Name, v.Source, v.SourceLabel = c.AuthorName, c.SourceURL, shortLink(c.SourceURL)
	} else if !errors.Is(err, app.ErrNotFound) {
		s.fail(w, r, rq, err)
		return
	}
	if sv.HasMore {
		last, err := s.lastPage(r.Context(), rq.tenantID, sv)
		if err != nil {
			s.fail(w, r, rq, err)
			return
		}
		v.More = last.String()
	}
	pg := &Page{Script: true, Title: t("submission.title." + v.Kind), Nav: "library", Data: v}
	if v.Running {
		pg.Refresh = 3
	}
	s.page(w, r, rq, status, "submission.html", pg)
}

// Counts are the progress's numbers by name, for the template.
func (v *submissionView) Counts() map[string]int {
	p := v.Progress
	return map[string]int{"total": p.Total, "complete": p.Complete, "partial": p.Partial, "failed": p.Failed, "queued": p.Queued}
}

// lastPage follows a chain from sv to its last page, the one "more"
// continues after: asking twice for the page after it is one page.
func (s *server) lastPage(ctx context.Context, tenantID uuid.UUID, sv app.SubmissionView) (uuid.UUID, error) {
	for i := 0; sv.NextSubmission != nil && i < maxChainWalk; i++ {
		next, err := s.d.App.Submission(ctx, tenantID, *sv.NextSubmission)
		if err != nil {
			return uuid.Nil, err
		}
		sv = next
	}
	return sv.ID, nil
}

// moreSubmission serves POST /submissions/{id}/more: archive the page
// after the path's page, then show the progress of the page the person
// was looking at (the form's back field; else the new page).
func (s *server) moreSubmission(w http.ResponseWriter, r *http.Request, rq *request) {
	id, err := uuid.Parse(r.PathValue("id"))
	if err != nil {
		s.notFound(w, r, rq)
		return
	}
	back, backErr := uuid.Parse(r.PostFormValue("back"))
	res, err := s.d.App.More(r.Context(), rq.tenantID, id)
	if err != nil {
		if backErr != nil {
			back = id
		}
		s.submissionRefused(w, r, rq, back, err, "submission.err.more")
		return
	}
	if backErr != nil {
		back = res.SubmissionID
	}
	http.Redirect(w, r, "/submissions/"+back.String(), http.StatusSeeOther)
}

// stopSubmission serves POST /submissions/{id}/stop: no post or page of
// the chain starts after it.
func (s *server) stopSubmission(w http.ResponseWriter, r *http.Request, rq *request) {
	id, err := uuid.Parse(r.PathValue("id"))
	if err != nil {
		s.notFound(w, r, rq)
		return
	}
	if _, err := s.d.App.Stop(r.Context(), rq.tenantID, id); err != nil {
		s.submissionRefused(w, r, rq, id, err, "submission.err.stop")
		return
	}
	http.Redirect(w, r, "/submissions/"+id.String(), http.StatusSeeOther)
}

// submissionRefused answers an action the business layer refused: the
// progress page of id again with the reason (prefixed by key's text), 404
// for a submission that is not the tenant's, 500 for the server's own
// errors.
func (s *server) submissionRefused(w http.ResponseWriter, r *http.Request, rq *request, id uuid.UUID, err error, key string) {
	t := func(key string, args ...any) string { return s.d.Renderer.cat.T(rq.lang, key, args...) }
	switch {
	case errors.Is(err, app.ErrNotFound):
		s.notFound(w, r, rq)
	case errors.Is(err, app.ErrConflict):
		s.renderSubmission(w, r, rq, id, http.StatusConflict, t(key, err.Error()))
	case errors.Is(err, app.ErrInvalid):
		s.renderSubmission(w, r, rq, id, http.StatusBadRequest, t(key, err.Error()))
	default:
		if status, msg, ok := s.actionError(rq, err); ok {
			s.renderSubmission(w, r, rq, id, status, msg)
			return
		}
		s.fail(w, r, rq, err)
	}
}

// ended reports whether a capture or submission state is final.
func ended(state string) bool {
	switch state {
	case app.StateComplete, app.StatePartial, app.StateFailed:
		return true
	}
	return false
}

// submissionMessages are the texts of the progress page.
func submissionMessages() catalog {
	return catalog{
		"submission.title.profile":   {"Archiving a profile", "存档个人主页"},
		"submission.title.channel":   {"Archiving a channel", "存档频道"},
		"submission.title.thread":    {"Archiving a thread", "存档推文串"},
		"submission.heading.profile": {"Archiving the profile's posts", "正在存档该主页的帖子"},
		"submission.heading.channel": {"Archiving the channel's posts", "正在存档该频道的帖子"},
		"submission.heading.thread":  {"Archiving the thread", "正在存档推文串"},
		"submission.ended.profile":   {"The profile's posts are archived", "该主页的帖子已存档"},
		"submission.ended.channel":   {"The channel's posts are archived", "该频道的帖子已存档"},
		"submission.ended.thread":    {"The thread is archived", "推文串已存档"},
		"submission.failed":          {"Archiving ended with a problem", "存档因问题而结束"},
		"submission.progress":        {"Posts archived", "帖子存档进度"},
		"submission.done":            {"%d of %d posts done", "已处理 %d / %d 条帖子"},
		"submission.reading":         {"Reading the list of posts…", "正在读取帖子列表…"},
		"submission.none":            {"No posts were found on this page.", "此页没有找到帖子。"},
		"submission.count.total":     {"Found", "已发现"},
		"submission.count.complete":  {"Archived", "已存档"},
		"submission.count.partial":   {"Partly archived", "部分存档"},
		"submission.count.failed":    {"Failed", "失败"},
		"submission.count.queued":    {"Waiting", "等待中"},
		"submission.live":            {"This page updates by itself while the posts are archived.", "存档进行期间，此页面会自动更新。"},
		"submission.reload":          {"Refresh now", "立即刷新"},
		"submission.stop":            {"Stop", "停止"},
		"submission.stop.hint":       {"Stop starts nothing new; posts already being archived finish.", "停止后不再开始新的存档；正在存档的帖子会完成。"},
		"submission.stopped":         {"Stopped: nothing new starts; posts that were already being archived finish.", "已停止：不再开始新的存档；已在进行的帖子会完成。"},
		"submission.more":            {"Fetch more posts", "获取更多帖子"},
		"submission.more.hint":       {"The next page of about 100 older posts.", "下一页，约 100 条更早的帖子。"},
		"submission.end":             {"Everything is archived, to the first post.", "已全部存档，直到第一条帖子。"},
		"submission.open.profile":    {"Open the profile", "打开个人主页"},
		"submission.open.channel":    {"Open the channel", "打开频道"},
		"submission.open.thread":     {"Open the post", "打开帖子"},
		"submission.err.more":        {"Could not fetch more: %s", "无法获取更多：%s"},
		"submission.err.stop":        {"Could not stop: %s", "无法停止：%s"},
	}
}
