package tgchannel

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/go-telegram/bot/models"

	"github.com/monitorhq/monitor/internal/channelapi"
)

// pageSize is how many items a /list page shows.
const pageSize = 10

// updateProgress is what an update item has done so far, so that a retry
// neither answers twice nor sends a second status message.
type updateProgress struct {
	PartsSent  int              `json:"parts_sent,omitempty"`
	MessageIDs []int64          `json:"message_ids,omitempty"`
	Answered   bool             `json:"answered,omitempty"`
	Edited     bool             `json:"edited,omitempty"`
	Statuses   map[string]int64 `json:"statuses,omitempty"` // link → its status message
	Captured   map[string]bool  `json:"captured,omitempty"`
}

// handleUpdate answers one stored update.
func (j *job) handleUpdate(ctx context.Context) error {
	u := j.w.Update
	if u == nil {
		return &failWork{reason: "update work without an update"}
	}
	decodeProgress(j.w.Progress, &j.up)
	switch u.Kind {
	case channelapi.UpdateMessage:
		if u.Staged {
			return j.secretReceived(ctx)
		}
		req := j.ch.reg.parseMessage(*u, j.ch.me.Username, j.lang)
		switch {
		case req.cmd != nil:
			return req.cmd.run(j, ctx, req.args)
		case len(req.links) > 0:
			return j.capture(ctx, req.links)
		default:
			return j.reply(ctx, outMessage{text: req.problem})
		}
	case channelapi.UpdateCallback:
		b, arg, err := j.ch.reg.parseCallback(u.CallbackData)
		if err != nil {
			return j.answerOnce(ctx, j.lang.t("button.gone"), true)
		}
		return b.run(j, ctx, arg)
	}
	return &failWork{reason: fmt.Sprintf("unknown update kind %q", u.Kind)}
}

// replyTo is the message answers quote: in groups the message that asked
// (or the bot message whose button was pressed); none in private chats.
func (j *job) replyTo() int64 {
	u := j.w.Update
	if u.ChatType == string(models.ChatTypePrivate) {
		return 0
	}
	return u.MessageID
}

// reply sends the answer's messages that were not sent yet, recording
// those with buttons and the progress after each.
func (j *job) reply(ctx context.Context, msgs ...outMessage) error {
	u := j.w.Update
	for i := j.up.PartsSent; i < len(msgs); i++ {
		id, err := j.ch.sendText(ctx, u.ChatID, j.replyTo(), msgs[i])
		if err != nil {
			return err
		}
		if hasCallbacks(msgs[i].kb) {
			if err := j.recordButtons(ctx, u.ChatID, id); err != nil {
				return err
			}
		}
		j.up.PartsSent = i + 1
		j.up.MessageIDs = append(j.up.MessageIDs, id)
		if err := j.saveProgress(ctx, j.up); err != nil {
			return err
		}
	}
	return nil
}

// answerOnce answers the button press of this item (once).
func (j *job) answerOnce(ctx context.Context, text string, alert bool) error {
	if j.up.Answered {
		return nil
	}
	if err := j.ch.answer(ctx, j.w.Update.CallbackID, text, alert); err != nil {
		return err
	}
	j.up.Answered = true
	return nil
}

// apologize tells the person an update could not be handled (best effort).
func (j *job) apologize(ctx context.Context) {
	u := j.w.Update
	if u == nil || j.w.Kind != channelapi.WorkUpdate {
		return
	}
	sorry := j.lang.t("sorry")
	var err error
	if u.Kind == channelapi.UpdateCallback {
		err = j.ch.answer(ctx, u.CallbackID, sorry, true)
	} else {
		_, err = j.ch.sendText(ctx, u.ChatID, j.replyTo(), outMessage{text: sorry})
	}
	if err != nil {
		j.log.Debug("apologizing failed", "error", err)
	}
}

// userError turns an answer of core meant for the person into the text to
// show in l: the catalog's line for its code around core's explanation;
// ok is false for other errors (which are retried).
func userError(l locale, err error) (string, bool) {
	var e *channelapi.Error
	if !errors.As(err, &e) {
		return "", false
	}
	msg := strings.TrimSpace(e.Message)
	switch e.Code {
	case channelapi.CodeQuota:
		return l.t("err.quota", msg), true
	case channelapi.CodeLimit:
		s := l.t("err.limit", msg)
		if e.RetryAfterSeconds > 0 && !strings.Contains(strings.ToLower(msg), "try again") {
			s += l.t("err.retry", formatWait(l, e.RetryAfterSeconds))
		}
		return s, true
	case channelapi.CodeTenantNotActive:
		return l.t("err.not_active", msg), true
	case channelapi.CodeUnsupported:
		return l.t("err.unsupported", msg), true
	case channelapi.CodeNotFound:
		return l.t("err.not_found", msg), true
	case channelapi.CodeInvalid:
		return l.t("err.invalid", msg), true
	case channelapi.CodeForbidden:
		return l.t("err.forbidden", msg), true
	case channelapi.CodeConflict:
		return l.t("err.conflict", msg), true
	}
	return "", false
}

// Commands.

func (j *job) cmdStart(ctx context.Context, args []string) error {
	u := j.w.Update
	if len(args) == 1 && args[0] == startWeb && u.ChatType == string(models.ChatTypePrivate) {
		// The web library's sign-in page links t.me/<bot>?start=web:
		// the person lands here and gets their sign-in link at once.
		return j.cmdWeb(ctx, nil)
	}
	var b strings.Builder
	name := u.From.DisplayName
	if name == "" {
		name = j.lang.t("start.there")
	}
	b.WriteString(j.lang.t("start.hi", name))
	switch j.w.Tenant.Status {
	case "pending":
		b.WriteString(j.lang.t("start.pending"))
	case "disabled":
		b.WriteString(j.lang.t("start.disabled"))
	case "archived":
		b.WriteString(j.lang.t("start.archived"))
	}
	b.WriteString(j.ch.reg.help(j.lang, j.ch.me.Username))
	return j.reply(ctx, outMessage{text: b.String()})
}

// startWeb is the /start payload of the sign-in page's Telegram link.
const startWeb = "web"

func (j *job) cmdHelp(ctx context.Context, _ []string) error {
	return j.reply(ctx, outMessage{text: j.ch.reg.help(j.lang, j.ch.me.Username)})
}

func (j *job) cmdList(ctx context.Context, _ []string) error {
	page, err := j.ch.core.List(ctx, j.w.ID, channelapi.ListRequest{Owner: j.ch.owner, Limit: pageSize})
	if msg, ok := userError(j.lang, err); ok {
		return j.reply(ctx, outMessage{text: msg})
	}
	if err != nil {
		return err
	}
	return j.reply(ctx, renderList(j.lang, page.Items, 1, page.More))
}

func (j *job) cmdGet(ctx context.Context, args []string) error {
	it, err := j.ch.core.Get(ctx, j.w.ID, channelapi.ItemRequest{Owner: j.ch.owner, ID: args[0]})
	if msg, ok := userError(j.lang, err); ok {
		return j.reply(ctx, outMessage{text: msg})
	}
	if err != nil {
		return err
	}
	return j.reply(ctx, renderDetail(j.lang, it)...)
}

func (j *job) cmdDelete(ctx context.Context, args []string) error {
	if j.up.PartsSent > 0 {
		return nil
	}
	r, err := j.ch.core.Delete(ctx, j.w.ID, channelapi.ItemRequest{Owner: j.ch.owner, ID: args[0]})
	if msg, ok := userError(j.lang, err); ok {
		return j.reply(ctx, outMessage{text: msg})
	}
	if err != nil {
		return err
	}
	return j.reply(ctx, outMessage{text: j.lang.t("delete.done", r.ID)})
}

func (j *job) cmdUsage(ctx context.Context, _ []string) error {
	if j.up.PartsSent > 0 {
		return nil
	}
	u, err := j.ch.core.Usage(ctx, j.w.ID, j.ch.owner)
	if msg, ok := userError(j.lang, err); ok {
		return j.reply(ctx, outMessage{text: msg})
	}
	if err != nil {
		return err
	}
	return j.reply(ctx, outMessage{text: renderUsage(j.lang, u)})
}

func (j *job) cmdToken(ctx context.Context, _ []string) error {
	if j.up.PartsSent > 0 {
		return nil // a token is shown once; a retry never makes another
	}
	t, err := j.ch.core.Token(ctx, j.w.ID, j.ch.owner)
	if msg, ok := userError(j.lang, err); ok {
		return j.reply(ctx, outMessage{text: msg})
	}
	if err != nil {
		return err
	}
	head := j.lang.t("token.head", t.Name)
	tail := j.lang.t("token.tail")
	ents := []models.MessageEntity{{Type: models.MessageEntityTypeCode, Offset: utf16Len(head), Length: utf16Len(t.Token)}}
	return j.reply(ctx, outMessage{text: head + t.Token + tail, entities: ents})
}

// cmdWeb answers with a one-use sign-in link to the web library (private
// chats only: the registry refuses it elsewhere, and so does core).
func (j *job) cmdWeb(ctx context.Context, _ []string) error {
	return j.loginLink(ctx, false)
}

// cmdAdmin is /admin: an operator's sign-in link to the console; anyone
// else is told it is for operators (core refuses them too).
func (j *job) cmdAdmin(ctx context.Context, _ []string) error {
	if j.up.PartsSent > 0 {
		return nil
	}
	if !j.w.Tenant.Admin {
		return j.reply(ctx, outMessage{text: j.lang.t("admin.refused")})
	}
	return j.loginLink(ctx, true)
}

// loginLink sends a one-use sign-in link: to the console when asked
// (console) or when the tenant is an operator, whose session has admin
// rights either way; else to the web library.
func (j *job) loginLink(ctx context.Context, console bool) error {
	if j.up.PartsSent > 0 {
		return nil // a link is sent once; a retry never makes another
	}
	link, err := j.ch.core.LoginLink(ctx, j.w.ID, channelapi.LoginLinkRequest{Owner: j.ch.owner, Console: console})
	if msg, ok := userError(j.lang, err); ok {
		return j.reply(ctx, outMessage{text: msg})
	}
	if err != nil {
		return err
	}
	head, tail := j.lang.t("web.head"), j.lang.t("web.tail", formatWait(j.lang, link.ValidSeconds))
	if link.Admin {
		head, tail = j.lang.t("admin.head"), j.lang.t("admin.tail", formatWait(j.lang, link.ValidSeconds))
	}
	text := head + link.URL + tail
	m := outMessage{text: text}
	if isWebURL(link.URL) {
		// Marked as a link, since Telegram does not recognise every address
		// (a bare IP or a host without a dot) as one; never as a button,
		// which Telegram refuses for such addresses.
		m.entities = []models.MessageEntity{{Type: models.MessageEntityTypeURL, Offset: utf16Len(head), Length: utf16Len(link.URL)}}
	}
	return j.reply(ctx, m)
}

// capture archives each link: a status message first (kept in the
// progress, so a retry reuses it), then the capture in core, whose
// delivery later edits or replaces that status message.
func (j *job) capture(ctx context.Context, links []string) error {
	u := j.w.Update
	if j.up.Statuses == nil {
		j.up.Statuses = map[string]int64{}
	}
	if j.up.Captured == nil {
		j.up.Captured = map[string]bool{}
	}
	for _, link := range links {
		if j.up.Captured[link] {
			continue
		}
		status := j.up.Statuses[link]
		if status == 0 {
			id, err := j.ch.sendText(ctx, u.ChatID, j.replyTo(), outMessage{text: statusText(j.lang, link, "")})
			if err != nil {
				return err
			}
			status = id
			j.up.Statuses[link] = id
			if err := j.saveProgress(ctx, j.up); err != nil {
				return err
			}
		}
		_, err := j.ch.core.Capture(ctx, j.w.ID, channelapi.CaptureRequest{
			Owner: j.ch.owner, URL: link, StatusMessageID: status, ReplyToMessageID: j.replyTo(),
		})
		if wait, ok := shortLimit(err); ok {
			// One link every N seconds: the rest of the message waits its
			// turn instead of being refused.
			note := outMessage{text: statusText(j.lang, link, j.lang.t("status.queued", formatWait(j.lang, wait)))}
			if err := j.ch.editText(ctx, u.ChatID, status, note); err != nil && !isMessageGone(err) {
				return err
			}
			return &deferWork{after: time.Duration(wait) * time.Second, reason: "the account's submit interval"}
		}
		if msg, ok := userError(j.lang, err); ok {
			refusal := outMessage{text: j.lang.t("status.failed", link) + "\n" + msg}
			err := j.ch.editText(ctx, u.ChatID, status, refusal)
			if isMessageGone(err) {
				_, err = j.ch.sendText(ctx, u.ChatID, j.replyTo(), refusal)
			}
			if err != nil {
				return err
			}
		} else if err != nil {
			return err
		}
		j.up.Captured[link] = true
		if err := j.saveProgress(ctx, j.up); err != nil {
			return err
		}
	}
	return nil
}

// maxLimitWait is the longest a link waits for a tenant limit to lift
// before the bot refuses it instead.
const maxLimitWait = 2 * 60

// shortLimit reports a tenant limit that lifts within maxLimitWait seconds
// (the interval between submits), and when.
func shortLimit(err error) (seconds int, ok bool) {
	var e *channelapi.Error
	if !errors.As(err, &e) || e.Code != channelapi.CodeLimit {
		return 0, false
	}
	return e.RetryAfterSeconds, e.RetryAfterSeconds > 0 && e.RetryAfterSeconds <= maxLimitWait
}

// statusText is the status message while a link is archived.
func statusText(l locale, link, progress string) string {
	s := l.t("status.archiving", link)
	if progress != "" {
		s += "\n" + progress
	}
	return s
}

// Buttons.

// btnView shows a saved item in a new message.
func (j *job) btnView(ctx context.Context, arg string) error {
	it, err := j.ch.core.Get(ctx, j.w.ID, channelapi.ItemRequest{Owner: j.ch.owner, ID: arg})
	if msg, ok := userError(j.lang, err); ok {
		return j.answerOnce(ctx, msg, true)
	}
	if err != nil {
		return err
	}
	if err := j.answerOnce(ctx, "", false); err != nil {
		return err
	}
	return j.reply(ctx, renderDetail(j.lang, it)...)
}

// btnPage turns the pressed /list message to another page, in place.
func (j *job) btnPage(ctx context.Context, arg string) error {
	if j.up.Edited || j.up.PartsSent > 0 {
		return nil
	}
	page, after, _ := parsePageArg(arg)
	r, err := j.ch.core.List(ctx, j.w.ID, channelapi.ListRequest{Owner: j.ch.owner, After: &after, Limit: pageSize})
	if msg, ok := userError(j.lang, err); ok {
		return j.answerOnce(ctx, msg, true)
	}
	if err != nil {
		return err
	}
	return j.turnPage(ctx, renderList(j.lang, r.Items, page, r.More))
}

// turnPage edits the pressed message into m (another page of it), or
// sends m anew when that message is gone, and answers the press.
func (j *job) turnPage(ctx context.Context, m outMessage) error {
	u := j.w.Update
	edit := m
	if edit.kb == nil {
		// An edit without a keyboard keeps the old one: a page without
		// buttons (nothing left to show) takes the old page's away.
		edit.kb = &keyboard{InlineKeyboard: [][]kbButton{}}
	}
	err := j.ch.editText(ctx, u.ChatID, u.MessageID, edit)
	if isMessageGone(err) {
		if err := j.answerOnce(ctx, "", false); err != nil {
			return err
		}
		return j.reply(ctx, m)
	}
	if err != nil {
		return err
	}
	if hasCallbacks(m.kb) {
		if err := j.recordButtons(ctx, u.ChatID, u.MessageID); err != nil {
			return err
		}
	}
	j.up.Edited = true
	if err := j.saveProgress(ctx, j.up); err != nil {
		return err
	}
	return j.answerOnce(ctx, "", false)
}

// btnSave adds a public result to the presser's archive ("save too") and
// answers only with a toast.
func (j *job) btnSave(ctx context.Context, arg string) error {
	r, err := j.ch.core.Save(ctx, j.w.ID, channelapi.ItemRequest{Owner: j.ch.owner, ID: arg})
	if msg, ok := userError(j.lang, err); ok {
		return j.answerOnce(ctx, msg, true)
	}
	if err != nil {
		return err
	}
	switch r.Result {
	case channelapi.SaveSaved:
		return j.answerOnce(ctx, j.lang.t("save.saved"), false)
	case channelapi.SaveAlready:
		return j.answerOnce(ctx, j.lang.t("save.already"), false)
	default:
		reason := r.Reason
		if reason == "" {
			reason = j.lang.t("save.refused_default")
		}
		return j.answerOnce(ctx, j.lang.t("save.refused", reason), true)
	}
}

func hasCallbacks(kb *keyboard) bool {
	if kb == nil {
		return false
	}
	for _, row := range kb.InlineKeyboard {
		for _, b := range row {
			if b.CallbackData != "" {
				return true
			}
		}
	}
	return false
}
