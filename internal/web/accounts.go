package web

import (
	"context"
	"errors"
	"net/http"
	"strings"

	"github.com/google/uuid"

	"github.com/monitorhq/monitor/internal/adapterapi"
	"github.com/monitorhq/monitor/internal/app"
)

// The Accounts page: the tenant's own accounts on the platforms (an X
// session), through which posts only they may see are archived privately.
// The secret is pasted into a form, posted with the CSRF token, handed to
// the business layer and never shown, logged or put back into the form.

// accountService is what the Accounts page needs.
type accountService interface {
	AccountAdapters() []app.AccountAdapterView
	Connections(ctx context.Context, tenantID uuid.UUID) ([]app.ConnectionView, error)
	AddConnection(ctx context.Context, req app.AddConnectionRequest) (app.AddConnectionResult, error)
	CheckConnection(ctx context.Context, tenantID, id uuid.UUID) (app.CheckResult, error)
	RevokeConnection(ctx context.Context, tenantID, id uuid.UUID, actor string) (app.ConnectionView, error)
}

// maxSecretForm bounds the secret field (core refuses more than 64 KiB).
const maxSecretForm = 128 << 10

// accountsView is the Accounts page's Data.
type accountsView struct {
	Adapters    []app.AccountAdapterView
	Connections []app.ConnectionView
	// Adapter is the form's platform; Help what to paste for it; Error
	// the form's problem; Done what the last action did.
	Adapter, Help, Error, Done string
}

func (s *server) accountRoutes() []route {
	return []route{
		{http.MethodGet, "/accounts", signedIn, s.accounts},
		{http.MethodPost, "/accounts", signedIn, s.addAccount},
		{http.MethodPost, "/accounts/{id}/{action}", signedIn, s.accountAction},
	}
}

// accounts serves GET /accounts.
func (s *server) accounts(w http.ResponseWriter, r *http.Request, rq *request) {
	s.renderAccounts(w, r, rq, http.StatusOK, &accountsView{Done: s.accountDone(rq, r.URL.Query().Get("done"))})
}

// accountDone words the ?done= of a redirect after an action.
func (s *server) accountDone(rq *request, done string) string {
	switch done {
	case "added", "replaced", "checked", "refused", "revoked":
		return s.t(rq, "accounts.done."+done)
	}
	return ""
}

func (s *server) renderAccounts(w http.ResponseWriter, r *http.Request, rq *request, status int, v *accountsView) {
	list, err := s.d.App.Connections(r.Context(), rq.tenantID)
	if err != nil {
		s.fail(w, r, rq, err)
		return
	}
	v.Connections = list
	v.Adapters = s.d.App.AccountAdapters()
	if v.Adapter == "" && len(v.Adapters) > 0 {
		v.Adapter = v.Adapters[0].ID
	}
	// What to paste: the adapter's own words, or ours where we have them
	// in both languages; for each platform when there are several, since
	// the form shows one help for all.
	help := func(a app.AccountAdapterView) string {
		switch a.ID {
		case "x", "telegram":
			return s.t(rq, "accounts.help."+a.ID)
		}
		return a.Help
	}
	var helps []string
	for _, a := range v.Adapters {
		if len(v.Adapters) == 1 {
			v.Help = help(a)
			break
		}
		helps = append(helps, s.t(rq, "accounts.help.for", a.Name, help(a)))
	}
	if len(helps) > 0 {
		v.Help = strings.Join(helps, s.t(rq, "accounts.help.sep"))
	}
	s.page(w, r, rq, status, "accounts.html", &Page{Title: s.t(rq, "accounts.title"), Nav: "accounts", Data: v})
}

// addAccount serves POST /accounts: adapter and secret. A refusal is
// shown on the page with the platform's words; the secret is not put
// back into the form.
func (s *server) addAccount(w http.ResponseWriter, r *http.Request, rq *request) {
	r.Body = http.MaxBytesReader(w, r.Body, maxSecretForm)
	adapter := strings.TrimSpace(r.PostFormValue("adapter"))
	secret := r.PostFormValue("secret")
	res, err := s.d.App.AddConnection(r.Context(), app.AddConnectionRequest{TenantID: rq.tenantID, Adapter: adapter,
		Secret: []byte(strings.TrimSpace(secret)), Actor: "web"})
	var ae *adapterapi.Error
	if errors.Is(err, app.ErrInvalid) || errors.Is(err, app.ErrConflict) || errors.As(err, &ae) {
		s.renderAccounts(w, r, rq, http.StatusBadRequest, &accountsView{Adapter: adapter, Error: err.Error()})
		return
	}
	if err != nil {
		s.fail(w, r, rq, err)
		return
	}
	done := "added"
	if res.Replaced {
		done = "replaced"
	}
	http.Redirect(w, r, "/accounts?done="+done, http.StatusSeeOther)
}

// accountAction serves POST /accounts/{id}/check and /accounts/{id}/revoke.
func (s *server) accountAction(w http.ResponseWriter, r *http.Request, rq *request) {
	id, err := uuid.Parse(r.PathValue("id"))
	if err != nil {
		s.notFound(w, r, rq)
		return
	}
	done := ""
	switch r.PathValue("action") {
	case "check":
		var res app.CheckResult
		res, err = s.d.App.CheckConnection(r.Context(), rq.tenantID, id)
		done = "checked"
		if err == nil && !res.OK {
			done = "refused"
		}
	case "revoke":
		_, err = s.d.App.RevokeConnection(r.Context(), rq.tenantID, id, "web")
		done = "revoked"
	default:
		s.notFound(w, r, rq)
		return
	}
	var ae *adapterapi.Error
	if errors.Is(err, app.ErrConflict) || errors.Is(err, app.ErrInvalid) || errors.As(err, &ae) {
		s.renderAccounts(w, r, rq, http.StatusConflict, &accountsView{Error: err.Error()})
		return
	}
	if err != nil {
		s.fail(w, r, rq, err)
		return
	}
	http.Redirect(w, r, "/accounts?done="+done, http.StatusSeeOther)
}

// accountMessages are the Accounts page's texts.
func accountMessages() catalog {
	return catalog{
		"nav.accounts":     {"Accounts", "账号"},
		"accounts.title":   {"Accounts", "账号"},
		"accounts.heading": {"Your accounts", "你的账号"},
		"accounts.explain": {"Connect your own account of a platform to archive posts only you may see, such as those of protected X accounts you follow. What is archived through it stays private to you; the credential is kept encrypted and used only for your captures.",
			"连接你自己的平台账号，即可存档只有你能看到的帖子，例如你关注的受保护 X 账号的帖子。通过它存档的内容只对你可见；凭据加密保存，只用于你自己的存档。"},
		"accounts.add":         {"Add an account", "添加账号"},
		"accounts.platform":    {"Platform", "平台"},
		"accounts.secret":      {"Credential", "凭据"},
		"accounts.secret.help": {"Paste %s. It is sent once, checked with the platform, and never shown again.", "请粘贴%s。它只发送一次，会向平台核验，之后不再显示。"},
		"accounts.help.x": {"the auth_token and ct0 cookies of a signed-in x.com: a Cookie header (auth_token=…; ct0=…), the x.com lines of a cookies.txt file, or a cookie extension's JSON export",
			"已登录 x.com 的 auth_token 和 ct0 两个 cookie：Cookie 请求头（auth_token=…; ct0=…）、cookies.txt 文件中 x.com 的几行，或浏览器 cookie 扩展导出的 JSON"},
		"accounts.help.telegram": {"a Telegram user session: gotd's session.json or a Telethon string session (or sign in with monitor account add --adapter telegram in a terminal)",
			"Telegram 用户会话：gotd 的 session.json 或 Telethon 字符串会话（也可以在终端运行 monitor account add --adapter telegram 登录）"},
		"accounts.help.for":      {"for %s, %s", "%s：%s"},
		"accounts.help.sep":      {"; ", "；"},
		"accounts.addbtn":        {"Add account", "添加账号"},
		"accounts.none":          {"You have no connected accounts yet.", "你还没有连接任何账号。"},
		"accounts.noadapters":    {"No platform on this instance takes accounts yet.", "这个实例上还没有可以连接账号的平台。"},
		"accounts.account":       {"Account", "账号"},
		"accounts.state":         {"State", "状态"},
		"accounts.revision":      {"Revision", "版本"},
		"accounts.checked":       {"Last check", "上次核验"},
		"accounts.never":         {"never", "从未"},
		"accounts.default":       {"default", "默认"},
		"accounts.actions":       {"Actions", "操作"},
		"accounts.check":         {"Check", "核验"},
		"accounts.revoke":        {"Remove", "移除"},
		"accounts.s.active":      {"Active", "可用"},
		"accounts.s.reauth":      {"Add it again: the platform no longer accepts it", "请重新添加：平台已不再接受"},
		"accounts.s.revoked":     {"Removed %s", "已于 %s 移除"},
		"accounts.done.added":    {"Account added.", "已添加账号。"},
		"accounts.done.replaced": {"The account was connected already: its credential is replaced.", "这个账号已经连接过：凭据已更新。"},
		"accounts.done.checked":  {"The platform still accepts the account.", "平台仍然接受这个账号。"},
		"accounts.done.refused":  {"The platform no longer accepts the account: add it again.", "平台已不再接受这个账号：请重新添加。"},
		"accounts.done.revoked":  {"Account removed: its credential is deleted.", "已移除账号：其凭据已删除。"},
	}
}
