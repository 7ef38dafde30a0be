package tgchannel

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/go-telegram/bot"
	"github.com/go-telegram/bot/models"
	"github.com/google/uuid"

	"github.com/monitorhq/monitor/internal/channelapi"
)

// /account_add, /accounts, /account_remove and /cancel: the tenant's own
// accounts on the platforms (an X session), whose protected posts only
// they may archive. /account_add asks for the platform with buttons; the
// person's next message is the secret. Core seals it as the update
// arrives and hands the update over with no text (Update.Staged): the bot
// only deletes that message from the chat. The dialog's own work item
// (WorkAccount) then adds the account and says how it went. Everything
// lives in core, so a restart loses nothing; the dialog waits 10 minutes.

// Button prefixes: a:<adapter> picks the platform of /account_add;
// r:<connection id> removes an account.
const (
	btnAccountAdd    = "a"
	btnAccountRemove = "r"
	// btnAccountQR (q:<adapter>) signs in by QR code instead.
	btnAccountQR = "q"
)

// checkAdapterID accepts an adapter id as core names them.
func checkAdapterID(s string) error {
	if s == "" || len(s) > 32 {
		return fmt.Errorf("%q is not an adapter id", s)
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '_' || c == '-') {
			return fmt.Errorf("%q is not an adapter id", s)
		}
	}
	return nil
}

// cmdAccountAdd offers the platforms that take accounts.
func (j *job) cmdAccountAdd(ctx context.Context, _ []string) error {
	if j.up.PartsSent > 0 {
		return nil
	}
	r, err := j.ch.core.Accounts(ctx, j.w.ID, j.ch.owner)
	if msg, ok := userError(j.lang, err); ok {
		return j.reply(ctx, outMessage{text: msg})
	}
	if err != nil {
		return err
	}
	if len(r.Adapters) == 0 {
		return j.reply(ctx, outMessage{text: j.lang.t("account.none_here")})
	}
	kb := &keyboard{}
	for _, a := range r.Adapters {
		kb.InlineKeyboard = append(kb.InlineKeyboard, []kbButton{{Text: a.Name, CallbackData: btnAccountAdd + ":" + a.ID}})
	}
	return j.reply(ctx, outMessage{text: j.lang.t("account.choose"), kb: kb})
}

// btnAccountAdd starts the dialog for the pressed platform.
func (j *job) btnAccountAdd(ctx context.Context, adapter string) error {
	if j.up.PartsSent > 0 {
		return nil
	}
	d, err := j.ch.core.AccountStart(ctx, j.w.ID, channelapi.AccountStartRequest{Owner: j.ch.owner, Adapter: adapter})
	if msg, ok := userError(j.lang, err); ok {
		return j.answerOnce(ctx, clipText(msg, 190), true)
	}
	if err != nil {
		return err
	}
	if err := j.answerOnce(ctx, "", false); err != nil {
		return err
	}
	mins := int(time.Until(d.ExpiresAt).Round(time.Minute) / time.Minute)
	help := d.Adapter.Help
	switch d.Adapter.ID {
	case "x", "telegram":
		help = j.lang.t("account.help." + d.Adapter.ID) // ours, in both languages
	}
	m := outMessage{text: j.lang.t("account.paste", d.Adapter.Name, help, max(mins, 1))}
	if d.Adapter.QR {
		m.kb = &keyboard{InlineKeyboard: [][]kbButton{{{Text: j.lang.t("account.qr_button"), CallbackData: btnAccountQR + ":" + d.Adapter.ID}}}}
	}
	return j.reply(ctx, m)
}

// btnAccountQR starts a QR sign-in for the pressed platform and sends
// its codes as photos until the person scans one, the password is
// needed (the next message is it, staged as a pasted secret is), or the
// sign-in ends (the dialog's own item says how).
func (j *job) btnAccountQR(ctx context.Context, adapter string) error {
	if j.up.PartsSent > 0 {
		return nil
	}
	_, err := j.ch.core.AccountQR(ctx, j.w.ID, channelapi.AccountStartRequest{Owner: j.ch.owner, Adapter: adapter})
	if msg, ok := userError(j.lang, err); ok {
		return j.answerOnce(ctx, clipText(msg, 190), true)
	}
	if err != nil {
		return err
	}
	if err := j.answerOnce(ctx, "", false); err != nil {
		return err
	}
	chatID := j.w.Update.ChatID
	for {
		st, err := j.ch.core.AccountQRNext(ctx, j.w.ID, j.ch.owner)
		if err != nil {
			return err
		}
		switch st.Kind {
		case channelapi.QRStepCode:
			secs := int(time.Until(st.ExpiresAt).Round(time.Second) / time.Second)
			if err := j.ch.sendPhotoBytes(ctx, chatID, "qr.png", st.PNG, j.lang.t("account.qr", max(secs, 1))); err != nil {
				return err
			}
		case channelapi.QRStepPassword:
			hint := ""
			if st.Hint != "" {
				hint = j.lang.t("account.qr_hint", clipText(st.Hint, 100))
			}
			_, err := j.ch.sendText(ctx, chatID, 0, outMessage{text: j.lang.t("account.qr_password", hint)})
			return err
		case channelapi.QRStepWait:
		default: // the end: the dialog's item tells the person
			return nil
		}
	}
}

// sendPhotoBytes sends an image made here (a QR code) with a caption.
func (ch *channel) sendPhotoBytes(ctx context.Context, chatID int64, name string, data []byte, caption string) error {
	return ch.tg.call(ctx, chatID, true, callTimeout, func(ctx context.Context) error {
		_, err := ch.tg.bot.SendPhoto(ctx, &bot.SendPhotoParams{ChatID: chatID, Caption: caption,
			Photo: &models.InputFileUpload{Filename: name, Data: bytes.NewReader(data)}})
		return err
	})
}

// cmdCancel ends a waiting /account_add.
func (j *job) cmdCancel(ctx context.Context, args []string) error {
	if j.up.PartsSent > 0 {
		return nil
	}
	if j.w.Update.ReplyToMessageID != 0 || len(args) == 1 {
		return j.cancelSubmission(ctx, args) // a link being archived
	}
	err := j.ch.core.AccountCancel(ctx, j.w.ID, j.ch.owner)
	var e *channelapi.Error
	if errors.As(err, &e) && e.Code == channelapi.CodeNotFound {
		return j.reply(ctx, outMessage{text: j.lang.t("account.nothing_to_cancel")})
	}
	if msg, ok := userError(j.lang, err); ok {
		return j.reply(ctx, outMessage{text: msg})
	}
	if err != nil {
		return err
	}
	return j.reply(ctx, outMessage{text: j.lang.t("account.cancelled")})
}

// cmdAccounts lists the tenant's accounts.
func (j *job) cmdAccounts(ctx context.Context, _ []string) error {
	return j.accounts(ctx, false)
}

// cmdAccountRemove lists the accounts with a button to remove each.
func (j *job) cmdAccountRemove(ctx context.Context, _ []string) error {
	return j.accounts(ctx, true)
}

func (j *job) accounts(ctx context.Context, removing bool) error {
	if j.up.PartsSent > 0 {
		return nil
	}
	r, err := j.ch.core.Accounts(ctx, j.w.ID, j.ch.owner)
	if msg, ok := userError(j.lang, err); ok {
		return j.reply(ctx, outMessage{text: msg})
	}
	if err != nil {
		return err
	}
	return j.reply(ctx, renderAccounts(j.lang, r, removing))
}

// renderAccounts is the /accounts list: platform, handle, state, revision
// and last check; with removing, a ✖ button for each account not revoked.
func renderAccounts(l locale, r channelapi.AccountsReply, removing bool) outMessage {
	names := map[string]string{}
	for _, a := range r.Adapters {
		names[a.ID] = a.Name
	}
	var live []channelapi.Connection
	for _, c := range r.Connections {
		if c.Status != "revoked" {
			live = append(live, c)
		}
	}
	if len(live) == 0 {
		return outMessage{text: l.t("accounts.empty")}
	}
	var b strings.Builder
	b.WriteString(l.t("accounts.head", len(live)))
	kb := &keyboard{}
	for i, c := range live {
		name := names[c.Adapter]
		if name == "" {
			name = c.Adapter
		}
		fmt.Fprintf(&b, "\n\n%d. %s @%s\n", i+1, name, c.Handle)
		b.WriteString(l.t("accounts.state." + c.Status))
		b.WriteString(l.t("accounts.revision", c.CredentialRevision))
		if c.CheckedAt != nil {
			b.WriteString(l.t("accounts.checked", c.CheckedAt.UTC().Format("2006-01-02 15:04 UTC")))
		}
		if removing {
			kb.InlineKeyboard = append(kb.InlineKeyboard, []kbButton{{Text: l.t("accounts.remove", name, c.Handle),
				CallbackData: callbackData(btnAccountRemove, c.ID)}})
		}
	}
	b.WriteString("\n\n" + l.t("accounts.hint"))
	m := outMessage{text: b.String()}
	if removing {
		m.kb = kb
	}
	return m
}

// btnAccountRemove revokes the pressed account.
func (j *job) btnAccountRemove(ctx context.Context, arg string) error {
	if j.up.PartsSent > 0 {
		return nil
	}
	id, err := uuid.Parse(arg)
	if err != nil {
		return j.answerOnce(ctx, j.lang.t("button.gone"), true)
	}
	c, err := j.ch.core.AccountRemove(ctx, j.w.ID, channelapi.AccountRemoveRequest{Owner: j.ch.owner, ConnectionID: id})
	if msg, ok := userError(j.lang, err); ok {
		return j.answerOnce(ctx, clipText(msg, 190), true)
	}
	if err != nil {
		return err
	}
	if err := j.answerOnce(ctx, "", false); err != nil {
		return err
	}
	return j.reply(ctx, outMessage{text: j.lang.t("account.removed", c.Handle)})
}

// secretReceived handles the update that carried a staged secret: the
// message goes from the chat at once.
func (j *job) secretReceived(ctx context.Context) error {
	u := j.w.Update
	if err := j.ch.deleteMessage(ctx, u.ChatID, u.MessageID); err != nil {
		return err
	}
	return j.reply(ctx, outMessage{text: j.lang.t("account.received")})
}

// accountProgress is a dialog item's progress: core's chat_id, then the
// answer once core finished the dialog (a retry sends it, as core's
// secret is gone by then).
type accountProgress struct {
	ChatID int64  `json:"chat_id"`
	Answer string `json:"answer,omitempty"`
	Sent   bool   `json:"sent,omitempty"`
}

// accountDone ends a dialog item: core adds the account (or says why
// not), and the person is told in the dialog's chat.
func (j *job) accountDone(ctx context.Context) error {
	var p accountProgress
	decodeProgress(j.w.Progress, &p)
	if p.ChatID == 0 {
		return &failWork{reason: "an account dialog without a chat"}
	}
	if p.Sent {
		return nil
	}
	if p.Answer == "" {
		text, err := j.finishAccount(ctx)
		if err != nil {
			return err
		}
		p.Answer = text
		if err := j.saveProgress(ctx, p); err != nil {
			return err
		}
	}
	if _, err := j.ch.sendText(ctx, p.ChatID, 0, outMessage{text: p.Answer}); err != nil {
		return err
	}
	p.Sent = true
	return j.saveProgress(ctx, p)
}

// finishAccount asks core to end the dialog and words the outcome.
func (j *job) finishAccount(ctx context.Context) (string, error) {
	r, err := j.ch.core.AccountFinish(ctx, j.w.ID, j.ch.owner)
	if err != nil {
		return "", err
	}
	var text string
	switch {
	case r.NotScanned:
		text = j.lang.t("account.qr_timeout")
	case r.Expired:
		text = j.lang.t("account.expired", r.Dialog.Adapter.Name)
	case r.Problem != "":
		text = j.lang.t("account.problem", clipText(r.Problem, 600))
	case r.Connection != nil && r.Replaced:
		text = j.lang.t("account.replaced", r.Dialog.Adapter.Name, r.Connection.Handle, r.Connection.CredentialRevision)
	case r.Connection != nil:
		text = j.lang.t("account.added", r.Dialog.Adapter.Name, r.Connection.Handle)
	default:
		return "", &failWork{reason: "an account result without an outcome"}
	}
	return text, nil
}

// cmdJoin asks that the tenant's Telegram account join a channel by its
// invite link; an operator decides (monitor admin join).
func (j *job) cmdJoin(ctx context.Context, args []string) error {
	if j.up.PartsSent > 0 {
		return nil
	}
	link := args[0]
	if !strings.Contains(link, "://") {
		link = "https://" + link
	}
	r, err := j.ch.core.Join(ctx, j.w.ID, channelapi.JoinRequest{Owner: j.ch.owner, Invite: link})
	if msg, ok := userError(j.lang, err); ok {
		return j.reply(ctx, outMessage{text: msg})
	}
	if err != nil {
		return err
	}
	title := r.Title
	if title == "" {
		title = "—"
	}
	if r.State == "joined" {
		return j.reply(ctx, outMessage{text: j.lang.t("join.joined", title, r.ChannelURL)})
	}
	return j.reply(ctx, outMessage{text: j.lang.t("join.pending", title, r.ID.String())})
}
