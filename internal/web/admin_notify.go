package web

import (
	"errors"
	"net/http"
	"net/url"
	"slices"
	"strings"

	"github.com/monitorhq/monitor/internal/app"
)

// notifyOrder is the order of the notify_* settings on the page: what is
// announced, then the Telegram chat, then the webhook; any other notify_*
// setting follows.
var notifyOrder = []string{"notify_min_severity", "notify_recovery", "notify_language",
	"notify_telegram_chat_id", "notify_telegram_token", "notify_webhook_url", "notify_webhook_secret"}

// notifyChoices are the values of the notify_* settings that are a fixed
// list, offered as a choice instead of a text field.
var notifyChoices = map[string][]string{
	"notify_min_severity": {app.SeverityInfo, app.SeverityWarn, app.SeverityError},
	"notify_recovery":     {"true", "false"},
	"notify_language":     {"en", "zh-CN"},
}

// notifyView is the notifications page's content.
type notifyView struct {
	Settings []notifyRow
	// Results are what "Send test" did, per channel.
	Results []app.NotifyResult
	// TestError says why no test was sent.
	TestError string
}

// notifyRow is one notify_* setting with its form.
type notifyRow struct {
	settingRow
	Choices []string
}

// adminNotifications serves GET /admin/notifications.
func (s *server) adminNotifications(w http.ResponseWriter, r *http.Request, rq *request) {
	s.renderAdminNotifications(w, r, rq, http.StatusOK, "", "", "", nil)
}

func (s *server) renderAdminNotifications(w http.ResponseWriter, r *http.Request, rq *request, status int, key, input, problem string,
	results []app.NotifyResult) {
	v := s.notifyPage(w, r, rq)
	if v == nil {
		return
	}
	v.Results = results
	for i := range v.Settings {
		row := &v.Settings[i]
		if row.Key == key {
			row.Error = problem
			if !row.Secret { // a refused secret is not shown again
				row.Input = input
			}
		}
	}
	s.adminPage(w, r, rq, status, "admin_notifications.html", "notifications", "admin.notifications", adminView{Body: v})
}

// notifyPage reads the notify_* settings (nil: it failed and answered).
func (s *server) notifyPage(w http.ResponseWriter, r *http.Request, rq *request) *notifyView {
	list, err := s.d.App.SettingsList(r.Context())
	if err != nil {
		s.fail(w, r, rq, err)
		return nil
	}
	v := &notifyView{}
	for _, st := range list {
		if !strings.HasPrefix(st.Key, "notify_") {
			continue
		}
		row := notifyRow{settingRow: settingRow{SettingView: st, Input: st.Value}, Choices: notifyChoices[st.Key]}
		if st.Secret {
			row.Input = ""
		}
		v.Settings = append(v.Settings, row)
	}
	rank := func(key string) int {
		if i := slices.Index(notifyOrder, key); i >= 0 {
			return i
		}
		return len(notifyOrder)
	}
	slices.SortStableFunc(v.Settings, func(a, b notifyRow) int { return rank(a.Key) - rank(b.Key) })
	return v
}

// adminSetNotify serves POST /admin/notifications/{key}: a notify_*
// setting changed through the settings registry (its validation, its
// encryption of secrets, its audit).
func (s *server) adminSetNotify(w http.ResponseWriter, r *http.Request, rq *request) {
	key, value := r.PathValue("key"), r.PostFormValue("value")
	if !strings.HasPrefix(key, "notify_") {
		s.notFound(w, r, rq)
		return
	}
	if r.PostFormValue("reset") != "" {
		value = "default"
	}
	_, err := s.d.App.SetSetting(r.Context(), actorOf(rq), key, value)
	if errors.Is(err, app.ErrInvalid) {
		s.renderAdminNotifications(w, r, rq, http.StatusBadRequest, key, value, s.t(rq, "admin.err.setting", err.Error()), nil)
		return
	}
	if err != nil {
		s.fail(w, r, rq, err)
		return
	}
	http.Redirect(w, r, "/admin/notifications?done=setting#"+url.PathEscape(key), http.StatusSeeOther)
}

// adminTestNotify serves POST /admin/notifications/test: a test message
// through every configured channel, each channel's result shown.
func (s *server) adminTestNotify(w http.ResponseWriter, r *http.Request, rq *request) {
	results, err := s.d.App.SendTestNotification(r.Context(), actorOf(rq))
	if errors.Is(err, app.ErrInvalid) {
		v := s.notifyPage(w, r, rq)
		if v != nil {
			v.TestError = s.t(rq, "admin.err.action", err.Error())
			s.adminPage(w, r, rq, http.StatusBadRequest, "admin_notifications.html", "notifications", "admin.notifications", adminView{Body: v})
		}
		return
	}
	if err != nil {
		s.fail(w, r, rq, err)
		return
	}
	s.renderAdminNotifications(w, r, rq, http.StatusOK, "", "", "", results)
}
