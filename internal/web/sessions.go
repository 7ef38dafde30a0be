package web

import (
	"context"
	"net/http"

	"github.com/google/uuid"

	"github.com/monitorhq/monitor/internal/app"
)

// sessionService is what the sessions page needs.
type sessionService interface {
	WebSessions(ctx context.Context, tenantID uuid.UUID) ([]app.WebSession, error)
	RevokeWebSession(ctx context.Context, tenantID uuid.UUID, id string) error
}

// sessionsView is the sessions page's Data.
type sessionsView struct {
	Sessions []sessionRow
}

// sessionRow is one signed-in browser.
type sessionRow struct {
	app.WebSession
	// This marks the browser looking at the page.
	This bool
}

// sessions serves GET /sessions: the tenant's signed-in browsers.
func (s *server) sessions(w http.ResponseWriter, r *http.Request, rq *request) {
	list, err := s.d.App.WebSessions(r.Context(), rq.tenantID)
	if err != nil {
		s.fail(w, r, rq, err)
		return
	}
	v := &sessionsView{}
	for _, ws := range list {
		row := sessionRow{WebSession: ws}
		if rq.session != nil {
			row.This = ws.ID == rq.session.ID
		}
		v.Sessions = append(v.Sessions, row)
	}
	s.page(w, r, rq, http.StatusOK, "sessions.html", &Page{Script: true, Title: s.d.Renderer.cat.T(rq.lang, "sessions.title"), Nav: "sessions", Data: v})
}

// revokeSession serves POST /sessions/{id}/revoke: that browser is signed
// out at once (this one too, when it is this one).
func (s *server) revokeSession(w http.ResponseWriter, r *http.Request, rq *request) {
	if err := s.d.App.RevokeWebSession(r.Context(), rq.tenantID, r.PathValue("id")); err != nil {
		s.fail(w, r, rq, err)
		return
	}
	http.Redirect(w, r, "/sessions", http.StatusSeeOther)
}

// sessionMessages are the sessions page's texts.
func sessionMessages() catalog {
	return catalog{
		"sessions.title":    {"Sessions", "会话"},
		"sessions.heading":  {"Signed-in browsers", "已登录的浏览器"},
		"sessions.explain":  {"Each session lasts 30 days from sign-in. Revoke any you do not recognise.", "每个会话自登录起有效 30 天。请撤销你不认识的会话。"},
		"sessions.how":      {"Signed in with", "登录方式"},
		"sessions.browser":  {"Browser", "浏览器"},
		"sessions.created":  {"Signed in", "登录时间"},
		"sessions.lastseen": {"Last seen", "最近活动"},
		"sessions.expires":  {"Expires", "过期时间"},
		"sessions.this":     {"This browser", "当前浏览器"},
		"sessions.revoke":   {"Revoke", "撤销"},
		"sessions.signout":  {"Sign out here", "在此退出"},
		"sessions.none":     {"No sessions.", "没有会话。"},
		"sessions.unknown":  {"Unknown browser", "未知浏览器"},
	}
}
