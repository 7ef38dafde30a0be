package web

import (
	"context"
	"errors"
	"net/http"
	"net/url"

	"github.com/google/uuid"

	"github.com/monitorhq/monitor/internal/app"
)

// The console's Watches page: every tenant's watches, with approve and
// reject for those waiting and pause and resume for the rest. The
// business layer audits each change with the session as actor.

// adminWatchService is what the console's Watches page needs.
type adminWatchService interface {
	AdminWatches(ctx context.Context, state string, limit int) ([]app.WatchView, error)
	AdminWatchAction(ctx context.Context, actor string, id uuid.UUID, action string) (app.WatchView, error)
}

// adminWatchesView is the console's Watches page content.
type adminWatchesView struct {
	State    string
	States   []option
	Watches  []watchRow
	Approval bool
}

// adminWatches serves GET /admin/watches?state=pending|active|paused|rejected.
func (s *server) adminWatches(w http.ResponseWriter, r *http.Request, rq *request) {
	s.renderAdminWatches(w, r, rq, http.StatusOK, "")
}

func (s *server) renderAdminWatches(w http.ResponseWriter, r *http.Request, rq *request, status int, problem string) {
	ctx := r.Context()
	v := &adminWatchesView{State: r.URL.Query().Get("state")}
	v.States = []option{{"", s.t(rq, "admin.status.all")}}
	for _, st := range []string{"pending", "active", "paused", "rejected"} {
		v.States = append(v.States, option{st, s.t(rq, "watches.state."+st)})
	}
	list, err := s.d.App.AdminWatches(ctx, v.State, adminListRows)
	if errors.Is(err, app.ErrInvalid) {
		status, problem = http.StatusBadRequest, s.t(rq, "admin.err.filter", err.Error())
		v.State = ""
		list, err = s.d.App.AdminWatches(ctx, "", adminListRows)
	}
	if err != nil {
		s.fail(w, r, rq, err)
		return
	}
	tenants, err := s.d.App.TenantSearch(ctx, app.TenantFilter{})
	if err != nil {
		s.fail(w, r, rq, err)
		return
	}
	names := make(map[uuid.UUID]string, len(tenants))
	for _, tn := range tenants {
		names[tn.ID] = tn.Name
	}
	for _, wv := range list {
		row := s.watchRow(rq, wv, true)
		if wv.TenantID != nil {
			row.Tenant = names[*wv.TenantID]
		}
		v.Watches = append(v.Watches, row)
	}
	settings, err := s.d.App.Settings(ctx)
	if err != nil {
		s.fail(w, r, rq, err)
		return
	}
	v.Approval = settings.Watches.RequireApproval
	s.adminPage(w, r, rq, status, "admin_watches.html", "watches", "admin.watches", adminView{Body: v, Error: problem,
		Notice: s.watchNotice(rq, r.URL.Query().Get("done"))})
}

// adminWatchAction serves POST /admin/watches/{id}/approve|reject|pause|resume.
func (s *server) adminWatchAction(w http.ResponseWriter, r *http.Request, rq *request) {
	id, err := uuid.Parse(r.PathValue("id"))
	if err != nil {
		s.notFound(w, r, rq)
		return
	}
	action := r.PathValue("action")
	switch action {
	case "approve", "reject", "pause", "resume":
	default:
		s.notFound(w, r, rq)
		return
	}
	_, err = s.d.App.AdminWatchAction(r.Context(), actorOf(rq), id, action)
	if errors.Is(err, app.ErrConflict) {
		s.renderAdminWatches(w, r, rq, http.StatusConflict, s.t(rq, "watches.err.state"))
		return
	}
	if err != nil {
		s.fail(w, r, rq, err)
		return
	}
	back := "/admin/watches"
	if st := r.PostFormValue("state"); st != "" {
		back += "?state=" + url.QueryEscape(st)
	}
	backTo(w, r, back, action)
}

// adminWatchMessages are the console's Watches page texts.
func adminWatchMessages() catalog {
	return catalog{
		"admin.watches":           {"Watches", "关注"},
		"admin.w.tenant":          {"Tenant", "租户"},
		"admin.w.approval":        {"New watches of tenants wait here for approval (the watch_require_approval setting).", "租户的新关注会在这里等待批准（watch_require_approval 设置）。"},
		"admin.w.noapproval":      {"New watches start at once; turn on watch_require_approval in Settings to approve them first.", "新的关注会立即开始；在设置中打开 watch_require_approval 可先审批。"},
		"watches.done.approve":    {"Watch approved; its source is read now.", "已批准关注，现在读取来源。"},
		"watches.done.reject":     {"Watch rejected.", "已拒绝关注。"},
		"admin.w.filter.apply":    {"Show", "显示"},
		"admin.w.filter.state":    {"State", "状态"},
		"admin.w.watcher.unknown": {"(unknown)", "（未知）"},
	}
}
