package web

import (
	"context"
	"errors"
	"net/http"
	"strings"

	"github.com/google/uuid"

	"github.com/monitorhq/monitor/internal/app"
)

// tokenService is what the tokens page needs.
type tokenService interface {
	TenantTokens(ctx context.Context, tenantID uuid.UUID) ([]app.TokenView, error)
	CreateTenantToken(ctx context.Context, tenantID uuid.UUID, name string) (string, app.TokenView, error)
	RevokeTenantToken(ctx context.Context, tenantID, id uuid.UUID) error
}

// tokensView is the tokens page's Data.
type tokensView struct {
	Tokens []app.TokenView
	// New is a token just created, shown this once; NewName its name.
	New, NewName string
	// Name and Error are the create form's value and problem.
	Name, Error string
}

// tokens serves GET /tokens: the tenant's REST tokens.
func (s *server) tokens(w http.ResponseWriter, r *http.Request, rq *request) {
	s.renderTokens(w, r, rq, http.StatusOK, &tokensView{})
}

func (s *server) renderTokens(w http.ResponseWriter, r *http.Request, rq *request, status int, v *tokensView) {
	toks, err := s.d.App.TenantTokens(r.Context(), rq.tenantID)
	if err != nil {
		s.fail(w, r, rq, err)
		return
	}
	v.Tokens = toks
	s.page(w, r, rq, status, "tokens.html", &Page{Script: true, Title: s.d.Renderer.cat.T(rq.lang, "tokens.title"), Nav: "tokens", Data: v})
}

// createToken serves POST /tokens: a new token, shown on the answer page
// once (never in an address, never again).
func (s *server) createToken(w http.ResponseWriter, r *http.Request, rq *request) {
	name := strings.TrimSpace(r.PostFormValue("name"))
	secret, tv, err := s.d.App.CreateTenantToken(r.Context(), rq.tenantID, name)
	if errors.Is(err, app.ErrInvalid) {
		s.renderTokens(w, r, rq, http.StatusBadRequest, &tokensView{Name: name,
			Error: s.d.Renderer.cat.T(rq.lang, "tokens.err.name", err.Error())})
		return
	}
	if err != nil {
		s.fail(w, r, rq, err)
		return
	}
	s.renderTokens(w, r, rq, http.StatusOK, &tokensView{New: secret, NewName: tv.Name})
}

// revokeToken serves POST /tokens/{id}/revoke.
func (s *server) revokeToken(w http.ResponseWriter, r *http.Request, rq *request) {
	id, err := uuid.Parse(r.PathValue("id"))
	if err != nil {
		s.notFound(w, r, rq)
		return
	}
	if err := s.d.App.RevokeTenantToken(r.Context(), rq.tenantID, id); err != nil {
		s.fail(w, r, rq, err)
		return
	}
	http.Redirect(w, r, "/tokens", http.StatusSeeOther)
}

// tokenMessages are the tokens page's texts.
func tokenMessages() catalog {
	return catalog{
		"tokens.title":     {"Tokens", "令牌"},
		"tokens.heading":   {"REST API tokens", "REST API 令牌"},
		"tokens.explain":   {"A token lets a script use the REST API as you: send it as Authorization: Bearer TOKEN.", "令牌让脚本以你的身份使用 REST API：以 Authorization: Bearer TOKEN 发送。"},
		"tokens.name":      {"Name", "名称"},
		"tokens.created":   {"Created", "创建时间"},
		"tokens.status":    {"Status", "状态"},
		"tokens.active":    {"Active", "有效"},
		"tokens.revoked":   {"Revoked %s", "已于 %s 撤销"},
		"tokens.revoke":    {"Revoke", "撤销"},
		"tokens.create":    {"Create a token", "创建令牌"},
		"tokens.createbtn": {"Create", "创建"},
		"tokens.none":      {"You have no tokens yet.", "你还没有令牌。"},
		"tokens.unnamed":   {"(no name)", "（无名称）"},
		"tokens.new":       {"Your new token. Copy it now: it is shown only this once.", "这是你的新令牌。请立即复制：它只显示这一次。"},
		"tokens.err.name":  {"This name cannot be used: %s", "无法使用这个名称：%s"},
	}
}
