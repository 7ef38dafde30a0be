package web

import (
	"context"
	"errors"
	"net/http"

	"github.com/google/uuid"

	"github.com/monitorhq/monitor/internal/app"
)

// settingsService is what the settings page needs.
type settingsService interface {
	WebPreferences(ctx context.Context, tenantID uuid.UUID) (app.WebPreferences, error)
	SetWebPreferences(ctx context.Context, tenantID uuid.UUID, p app.WebPreferences) error
}

// settingsView is the settings page's Data.
type settingsView struct {
	Language, Theme string
	Languages       []option
	Themes          []option
	Saved           bool
	Error           string
}

// settings serves GET /settings: language and theme.
func (s *server) settings(w http.ResponseWriter, r *http.Request, rq *request) {
	p, err := s.d.App.WebPreferences(r.Context(), rq.tenantID)
	if err != nil {
		s.fail(w, r, rq, err)
		return
	}
	s.renderSettings(w, r, rq, http.StatusOK, &settingsView{Language: p.Language, Theme: p.Theme, Saved: r.URL.Query().Get("saved") != ""})
}

func (s *server) renderSettings(w http.ResponseWriter, r *http.Request, rq *request, status int, v *settingsView) {
	t := func(key string) string { return s.d.Renderer.cat.T(rq.lang, key) }
	if v.Theme == "auto" {
		v.Theme = ""
	}
	// Each language is named in itself, so a person who cannot read the
	// page's language still finds theirs.
	v.Languages = []option{{"", t("settings.auto.lang")}, {LangEnglish, "English"}, {LangChinese, "中文（简体）"}}
	v.Themes = []option{{"", t("settings.auto.theme")}, {"light", t("settings.light")}, {"dark", t("settings.dark")}}
	s.page(w, r, rq, status, "settings.html", &Page{Script: true, Title: t("settings.title"), Nav: "settings", Data: v})
}

// saveSettings serves POST /settings.
func (s *server) saveSettings(w http.ResponseWriter, r *http.Request, rq *request) {
	p := app.WebPreferences{Language: r.PostFormValue("language"), Theme: r.PostFormValue("theme")}
	if p.Theme == "auto" {
		p.Theme = ""
	}
	err := s.d.App.SetWebPreferences(r.Context(), rq.tenantID, p)
	if errors.Is(err, app.ErrInvalid) {
		s.renderSettings(w, r, rq, http.StatusBadRequest, &settingsView{Language: p.Language, Theme: p.Theme,
			Error: s.d.Renderer.cat.T(rq.lang, "settings.err", err.Error())})
		return
	}
	if err != nil {
		s.fail(w, r, rq, err)
		return
	}
	http.Redirect(w, r, "/settings?saved=1", http.StatusSeeOther)
}

// settingsMessages are the settings page's texts.
func settingsMessages() catalog {
	return catalog{
		"settings.title":      {"Settings", "设置"},
		"settings.heading":    {"Settings", "设置"},
		"settings.language":   {"Language", "语言"},
		"settings.theme":      {"Theme", "主题"},
		"settings.auto.lang":  {"Automatic (the browser's language)", "自动（跟随浏览器语言）"},
		"settings.auto.theme": {"Automatic (follow the system)", "自动（跟随系统）"},
		"settings.light":      {"Light", "浅色"},
		"settings.dark":       {"Dark", "深色"},
		"settings.save":       {"Save", "保存"},
		"settings.saved":      {"Saved.", "已保存。"},
		"settings.err":        {"Not saved: %s", "未保存：%s"},
	}
}
