package web

import (
	"context"
	"errors"
	"net"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/google/uuid"

	"github.com/monitorhq/monitor/internal/app"
)

// This file is signing in and out: the session cookie, the login link,
// Telegram's Login Widget and Mini App, and the checks every write passes
// (the session's CSRF token and the request's Origin).

// SessionCookie is the name of the web session's cookie.
const SessionCookie = "monitor_session"

// sessions is what signing in needs from the business layer.
type sessions interface {
	RedeemLoginLink(ctx context.Context, token string, c app.WebClient) (string, app.WebSession, error)
	WebSession(ctx context.Context, key string) (app.WebSession, error)
	EndWebSession(ctx context.Context, key string) error
	TelegramWidgetLogin(ctx context.Context, fields url.Values, c app.WebClient) (string, app.WebSession, error)
	TelegramInitDataLogin(ctx context.Context, initData string, c app.WebClient) (string, app.WebSession, error)
	TelegramLogin(ctx context.Context) (botUsername string, ok bool, err error)
	WebPreferences(ctx context.Context, tenantID uuid.UUID) (app.WebPreferences, error)
}

// signinMessages are the sign-in pages' texts.
func signinMessages() catalog {
	return catalog{
		"signin.title":        {"Sign in", "登录"},
		"signin.intro":        {"Monitor signs you in with a one-use link.", "Monitor 通过一次性链接登录。"},
		"signin.bot":          {"Send /web to the Monitor bot in a private chat: it answers with a link.", "在私聊中向 Monitor 机器人发送 /web，它会回复一个登录链接。"},
		"signin.cli":          {"Or ask the operator to run:", "或者请管理员运行："},
		"signin.telegram":     {"Sign in with Telegram", "使用 Telegram 登录"},
		"signin.telegram.via": {"Telegram confirms who you are to @%s; Monitor learns your Telegram id and name.", "Telegram 向 @%s 确认你的身份；Monitor 只获得你的 Telegram ID 和名字。"},
		"signin.expired":      {"This sign-in link has expired", "此登录链接已过期"},
		"signin.used":         {"This sign-in link was already used", "此登录链接已被使用"},
		"signin.unknown":      {"This sign-in link is not valid", "此登录链接无效"},
		"signin.again":        {"Links work once, for a short time. Ask for a new one.", "链接只能使用一次且很快过期，请重新获取。"},
		"signin.refused":      {"Sign-in refused", "登录被拒绝"},
		"signin.miniapp":      {"Signing you in…", "正在登录…"},
		"write.refused":       {"This form has expired", "此表单已失效"},
		"write.refused.text":  {"The page was open too long or came from another site. Reload it and try again.", "页面打开太久或来自其他网站。请刷新后重试。"},
	}
}

// signinRoutes are the routes of signing in and out.
func (s *server) signinRoutes() []route {
	return []route{
		{http.MethodGet, "/login", anyone, s.signinPage},
		{http.MethodGet, "/login/{token}", anyone, s.loginLink},
		{http.MethodGet, "/auth/telegram/callback", anyone, s.telegramWidget},
		{http.MethodPost, "/auth/telegram/webapp", anyone, s.telegramWebApp},
		{http.MethodPost, "/logout", signedIn, s.logout},
	}
}

// signinView is the sign-in page's content.
type signinView struct {
	// Problem is the title of what went wrong ("" : none).
	Problem string
	Detail  string
	// Bot is the bot's username when Telegram sign-in works.
	Bot string
	// MiniApp is set on the page a Mini App opens (it reads the launch
	// data from the address and signs in).
	MiniApp bool
}

func (s *server) signinPage(w http.ResponseWriter, r *http.Request, rq *request) {
	if rq.session != nil {
		http.Redirect(w, r, "/", http.StatusSeeOther)
		return
	}
	s.showSignin(w, r, rq, http.StatusOK, signinView{MiniApp: r.URL.Query().Get("app") == "1"})
}

func (s *server) showSignin(w http.ResponseWriter, r *http.Request, rq *request, status int, v signinView) {
	if bot, ok, err := s.d.App.TelegramLogin(r.Context()); err == nil && ok {
		v.Bot = bot
	}
	s.page(w, r, rq, status, "login.html", &Page{Title: s.t(rq, "signin.title"), Data: v})
}

// loginLink redeems a one-use link: a session cookie and 303 to the
// library, or a page that says why not.
func (s *server) loginLink(w http.ResponseWriter, r *http.Request, rq *request) {
	key, sess, err := s.d.App.RedeemLoginLink(r.Context(), r.PathValue("token"), clientOf(r))
	if err != nil {
		s.signinFailed(w, r, rq, err)
		return
	}
	s.startSession(w, r, key, sess)
}

// telegramWidget checks what the Login Widget hands back (its
// data-auth-url redirect, the fields in the query).
func (s *server) telegramWidget(w http.ResponseWriter, r *http.Request, rq *request) {
	key, sess, err := s.d.App.TelegramWidgetLogin(r.Context(), r.URL.Query(), clientOf(r))
	if err != nil {
		s.signinFailed(w, r, rq, err)
		return
	}
	s.startSession(w, r, key, sess)
}

// telegramWebApp checks a Mini App's initData, sent by the sign-in page's
// script as the form field initData or as "Authorization: tma <initData>".
func (s *server) telegramWebApp(w http.ResponseWriter, r *http.Request, rq *request) {
	initData := strings.TrimPrefix(r.Header.Get("Authorization"), "tma ")
	if initData == r.Header.Get("Authorization") || initData == "" {
		initData = r.PostFormValue("initData")
	}
	key, sess, err := s.d.App.TelegramInitDataLogin(r.Context(), initData, clientOf(r))
	if err != nil {
		s.signinFailed(w, r, rq, err)
		return
	}
	s.startSession(w, r, key, sess)
}

func (s *server) signinFailed(w http.ResponseWriter, r *http.Request, rq *request, err error) {
	v := signinView{Problem: s.t(rq, "signin.refused"), Detail: err.Error()}
	status := http.StatusForbidden
	switch {
	case errors.Is(err, app.ErrLoginLinkExpired):
		v.Problem, v.Detail, status = s.t(rq, "signin.expired"), s.t(rq, "signin.again"), http.StatusGone
	case errors.Is(err, app.ErrLoginLinkUsed):
		v.Problem, v.Detail, status = s.t(rq, "signin.used"), s.t(rq, "signin.again"), http.StatusGone
	case errors.Is(err, app.ErrNotFound):
		v.Problem, v.Detail, status = s.t(rq, "signin.unknown"), s.t(rq, "signin.again"), http.StatusNotFound
	case errors.Is(err, app.ErrInvalid), errors.Is(err, app.ErrUnauthorized), errors.Is(err, app.ErrForbidden):
	default:
		s.fail(w, r, rq, err)
		return
	}
	s.showSignin(w, r, rq, status, v)
}

// startSession sets the session cookie and sends the browser to the
// library.
func (s *server) startSession(w http.ResponseWriter, r *http.Request, key string, sess app.WebSession) {
	http.SetCookie(w, &http.Cookie{Name: SessionCookie, Value: key, Path: "/", Expires: sess.ExpiresAt,
		MaxAge: int(time.Until(sess.ExpiresAt).Seconds()), HttpOnly: true, SameSite: http.SameSiteLaxMode, Secure: isHTTPS(r)})
	http.Redirect(w, r, "/", http.StatusSeeOther)
}

func (s *server) logout(w http.ResponseWriter, r *http.Request, rq *request) {
	if c, err := r.Cookie(SessionCookie); err == nil {
		if err := s.d.App.EndWebSession(r.Context(), c.Value); err != nil {
			s.fail(w, r, rq, err)
			return
		}
	}
	http.SetCookie(w, &http.Cookie{Name: SessionCookie, Value: "", Path: "/", MaxAge: -1, HttpOnly: true,
		SameSite: http.SameSiteLaxMode, Secure: isHTTPS(r)})
	http.Redirect(w, r, "/login", http.StatusSeeOther)
}

// loadSession fills rq from the session cookie: who is signed in, and
// their language and theme. A cookie that names no live session is as
// good as none.
func (s *server) loadSession(r *http.Request, rq *request) error {
	c, err := r.Cookie(SessionCookie)
	if err != nil || c.Value == "" {
		return nil
	}
	sess, err := s.d.App.WebSession(r.Context(), c.Value)
	if errors.Is(err, app.ErrUnauthorized) || errors.Is(err, app.ErrNotFound) {
		return nil
	}
	if err != nil {
		return err
	}
	rq.session = &Session{ID: sess.ID, TenantName: sess.TenantName, Admin: sess.Admin, CSRF: sess.CSRF}
	rq.tenantID = sess.TenantID
	prefs, err := s.d.App.WebPreferences(r.Context(), sess.TenantID)
	if err != nil {
		return err
	}
	rq.lang = pickLang(prefs.Language, r.Header.Get("Accept-Language"))
	rq.theme = prefs.Theme
	if rq.theme == "auto" {
		rq.theme = ""
	}
	return nil
}

// writeAllowed is the check of every write: the form's csrf field must be
// the session's token (when there is a session), and a browser's Origin —
// or, without one, its Referer — must be this site.
func writeAllowed(r *http.Request, rq *request) bool {
	if !sameOrigin(r) {
		return false
	}
	if rq.session == nil {
		return true // sign-in forms: their payload is signed by Telegram
	}
	return r.PostFormValue("csrf") == rq.session.CSRF
}

// sameOrigin reports whether the request comes from a page of this site.
// A request naming neither Origin nor Referer (not a browser's form) is
// judged by the CSRF token alone.
func sameOrigin(r *http.Request) bool {
	from := r.Header.Get("Origin")
	if from == "" || from == "null" {
		from = r.Header.Get("Referer")
	}
	if from == "" {
		return r.Header.Get("Origin") != "null"
	}
	u, err := url.Parse(from)
	if err != nil || u.Host == "" {
		return false
	}
	return strings.EqualFold(u.Host, r.Host)
}

// isHTTPS reports whether the browser reached us over HTTPS, directly or
// through a proxy that says so.
func isHTTPS(r *http.Request) bool {
	return r.TLS != nil || strings.EqualFold(r.Header.Get("X-Forwarded-Proto"), "https")
}

// clientOf describes the browser for the sessions page.
func clientOf(r *http.Request) app.WebClient {
	ip, _, err := net.SplitHostPort(r.RemoteAddr)
	if err != nil {
		ip = r.RemoteAddr
	}
	ua := r.UserAgent()
	if len(ua) > 256 {
		ua = ua[:256]
	}
	return app.WebClient{IP: ip, UserAgent: ua}
}

// t is rq's text of key.
func (s *server) t(rq *request, key string, args ...any) string {
	return s.d.Renderer.cat.T(rq.lang, key, args...)
}
