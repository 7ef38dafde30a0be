package tgchannel

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"github.com/go-telegram/bot"
	"github.com/go-telegram/bot/models"
	"github.com/google/uuid"

	"github.com/monitorhq/monitor/internal/channelapi"
)

// How the work loop waits when there is nothing to do.
const (
	idleMin = 200 * time.Millisecond
	idleMax = time.Second
)

// maxUpdateAttempts bounds the claims of an update that keeps failing for
// passing reasons (core or Telegram down); then the person is told.
const maxUpdateAttempts = 12

// deferWork asks for the item to be claimed again after a pause; it is not
// a failure (a capture still running, a long Telegram flood wait).
type deferWork struct {
	after  time.Duration
	reason string
}

func (d *deferWork) Error() string { return d.reason }

// failWork ends the item for good.
type failWork struct{ reason string }

func (f *failWork) Error() string { return f.reason }

var errLeaseLost = errors.New("the lease on the work item was lost")

// workLoop claims work as workers free up and runs each item.
func (ch *channel) workLoop(ctx context.Context) {
	slots := make(chan struct{}, ch.workers)
	var wg sync.WaitGroup
	defer wg.Wait()
	idle := newBackoff(idleMin, idleMax)
	failures := newBackoff(time.Second, 30*time.Second)
	for ctx.Err() == nil {
		select {
		case slots <- struct{}{}:
		case <-ctx.Done():
			return
		}
		n := 1
	more:
		for n < ch.workers {
			select {
			case slots <- struct{}{}:
				n++
			default:
				break more
			}
		}
		cctx, cancel := context.WithTimeout(ctx, 30*time.Second)
		works, err := ch.core.Claim(cctx, channelapi.ClaimRequest{ChannelID: ch.channelID, Owner: ch.owner, Max: n})
		cancel()
		if len(works) > n {
			works = works[:n] // never more than asked for
		}
		for range n - len(works) {
			<-slots
		}
		if err != nil {
			if ctx.Err() != nil {
				return
			}
			ch.log.Warn("claiming work failed", "error", err)
			sleep(ctx, failures.next())
			continue
		}
		failures.reset()
		for _, w := range works {
			turn := ch.order.next(w)
			wg.Go(func() {
				defer func() { <-slots }()
				defer turn.done()
				ch.runWork(ctx, w, turn)
			})
		}
		if len(works) > 0 {
			idle.reset()
			continue
		}
		timer := time.NewTimer(idle.next())
		select {
		case <-ctx.Done():
		case <-ch.wake:
			idle.reset()
		case <-timer.C:
		}
		timer.Stop()
	}
}

// runWork handles one claimed item under a renewed lease, once its turn
// in the chat has come, and ends it.
func (ch *channel) runWork(ctx context.Context, w channelapi.Work, turn *turn) {
	j := &job{ch: ch, w: w, log: ch.log.With("work", w.ID, "kind", w.Kind, "attempt", w.Attempts), lang: workLocale(w)}
	wctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	stop := make(chan struct{})
	var renewing sync.WaitGroup
	renewing.Go(func() { ch.renew(wctx, w.ID, cancel, stop) })

	err := turn.wait(wctx)
	switch {
	case err != nil:
	case w.Kind == channelapi.WorkUpdate:
		err = j.handleUpdate(wctx)
	case w.Kind == channelapi.WorkDeliver || w.Kind == channelapi.WorkProgress || w.Kind == channelapi.WorkCopy:
		err = j.deliver(wctx)
	case w.Kind == channelapi.WorkWatch:
		err = j.watchNotice(wctx)
	case w.Kind == channelapi.WorkApproval:
		err = j.approvalNotice(wctx)
	case w.Kind == channelapi.WorkAccount:
		err = j.accountDone(wctx)
	case w.Kind == channelapi.WorkPush:
		err = j.pushNotice(wctx)
	default:
		err = &failWork{reason: fmt.Sprintf("this channel does not know work of kind %q", w.Kind)}
	}
	close(stop)
	renewing.Wait()
	ch.finish(ctx, wctx, j, err)
}

// chatOrder makes the updates (and account dialogs) of one chat run one
// after another in the order they were claimed, so that answers come in
// the order people asked.
// Deliveries are not ordered: a long upload must not hold up commands.
type chatOrder struct {
	mu   sync.Mutex
	last map[int64]chan struct{}
}

// turn is a work item's place in its chat's line.
type turn struct {
	order *chatOrder
	chat  int64
	prev  <-chan struct{} // closed when the previous item of the chat ends
	mine  chan struct{}
}

// next queues an item; only the dispatcher calls it, in claim order.
func (o *chatOrder) next(w channelapi.Work) *turn {
	var chat int64
	switch {
	case w.Kind == channelapi.WorkUpdate && w.Update != nil:
		chat = w.Update.ChatID
	case w.Kind == channelapi.WorkAccount:
		// An account dialog answers after the update that carried its
		// secret (core makes it claimable just after that update).
		var p accountProgress
		decodeProgress(w.Progress, &p)
		chat = p.ChatID
	}
	if chat == 0 {
		return &turn{}
	}
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.last == nil {
		o.last = map[int64]chan struct{}{}
	}
	t := &turn{order: o, chat: chat, prev: o.last[chat], mine: make(chan struct{})}
	o.last[t.chat] = t.mine
	return t
}

// wait blocks until the previous item of the chat has ended.
func (t *turn) wait(ctx context.Context) error {
	if t.prev == nil {
		return nil
	}
	select {
	case <-t.prev:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// done lets the next item of the chat go.
func (t *turn) done() {
	if t.mine == nil {
		return
	}
	t.order.mu.Lock()
	defer t.order.mu.Unlock()
	close(t.mine)
	if t.order.last[t.chat] == t.mine {
		delete(t.order.last, t.chat)
	}
}

// renew extends the lease every LeaseRenew until stop; a lost lease
// cancels the work.
func (ch *channel) renew(ctx context.Context, id uuid.UUID, cancel context.CancelCauseFunc, stop <-chan struct{}) {
	t := time.NewTicker(channelapi.LeaseRenew)
	defer t.Stop()
	for {
		select {
		case <-stop:
			return
		case <-ctx.Done():
			return
		case <-t.C:
			rctx, c := context.WithTimeout(ctx, 20*time.Second)
			_, err := ch.core.Renew(rctx, id, ch.owner)
			c()
			if channelapi.IsCode(err, channelapi.CodeLeaseLost) {
				cancel(errLeaseLost)
				return
			}
			if err != nil && ctx.Err() == nil {
				ch.log.Warn("renewing a lease failed", "work", id, "error", err)
			}
		}
	}
}

// finish ends the item the way the handler's result asks.
func (ch *channel) finish(ctx, wctx context.Context, j *job, err error) {
	w, log := j.w, j.log
	if errors.Is(context.Cause(wctx), errLeaseLost) || channelapi.IsCode(err, channelapi.CodeLeaseLost) {
		log.Warn("lease lost; another process owns the item now")
		return
	}
	var (
		dw *deferWork
		fw *failWork
		rl *retryLater
	)
	if ctx.Err() != nil && err != nil && !errors.As(err, &dw) && !errors.As(err, &fw) && !errors.As(err, &rl) {
		// Stopping mid-work: hand the item back at once, so that the next
		// process resumes it from its progress without waiting for the
		// lease to expire.
		rctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
		defer cancel()
		if err := ch.core.Defer(rctx, w.ID, channelapi.DeferRequest{Owner: ch.owner, Error: "the Telegram channel stopped"}); err != nil {
			log.Debug("handing back work on stop failed", "error", err)
		}
		return
	}
	// Ending the item must not be cut short by a stop.
	fctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 30*time.Second)
	defer cancel()
	var ferr error
	switch {
	case err == nil:
		ferr = ch.core.Done(fctx, w.ID, ch.owner)
	case errors.As(err, &dw):
		ferr = ch.core.Defer(fctx, w.ID, channelapi.DeferRequest{Owner: ch.owner, AfterSeconds: seconds(dw.after), Error: dw.reason})
	case errors.As(err, &rl):
		log.Info("Telegram asked for a long pause; deferring", "after", rl.after)
		ferr = ch.core.Defer(fctx, w.ID, channelapi.DeferRequest{Owner: ch.owner, AfterSeconds: seconds(rl.after), Error: err.Error()})
	case errors.As(err, &fw):
		log.Warn("work failed", "error", err)
		ferr = ch.core.Fail(fctx, w.ID, ch.owner, fw.reason)
	case isPermanent(err):
		log.Warn("work failed: Telegram refuses the chat", "error", err)
		ferr = ch.core.Fail(fctx, w.ID, ch.owner, err.Error())
	case w.Kind == channelapi.WorkUpdate && w.Attempts >= maxUpdateAttempts:
		log.Warn("work failed too often; giving up", "error", err)
		j.apologize(fctx)
		ferr = ch.core.Fail(fctx, w.ID, ch.owner, err.Error())
	default:
		after := 10 * time.Second
		if w.Kind == channelapi.WorkUpdate {
			after = time.Duration(1<<min(w.Attempts, 8)) * time.Second
		}
		log.Warn("work failed; retrying later", "error", err, "after", after)
		ferr = ch.core.Defer(fctx, w.ID, channelapi.DeferRequest{Owner: ch.owner, AfterSeconds: seconds(after), Error: err.Error()})
	}
	if ferr != nil && !channelapi.IsCode(ferr, channelapi.CodeLeaseLost) {
		log.Warn("ending work failed; its lease will expire", "error", ferr)
	}
}

// maxDefer is the longest pause core accepts for a deferred item.
const maxDefer = 24 * time.Hour

func seconds(d time.Duration) int {
	return int((min(d, maxDefer) + time.Second - 1) / time.Second)
}

// job is one claimed item being handled.
type job struct {
	ch   *channel
	w    channelapi.Work
	log  *slog.Logger
	lang locale         // what to speak to the item's person
	up   updateProgress // update items
}

// workLocale is the language of a work item's person.
func workLocale(w channelapi.Work) locale {
	code := ""
	if w.Update != nil {
		code = w.Update.From.Language
	}
	return localeOf(w.Language, code)
}

// saveProgress replaces the item's progress document.
func (j *job) saveProgress(ctx context.Context, progress any) error {
	return j.ch.core.Progress(ctx, j.w.ID, j.ch.owner, progress)
}

// recordButtons tells core about sent messages that carry buttons, so that
// their presses are checked against the person this item acts for.
func (j *job) recordButtons(ctx context.Context, chatID int64, ids ...int64) error {
	return j.ch.core.Messages(ctx, j.w.ID, channelapi.MessagesRequest{Owner: j.ch.owner, ChatID: chatID, MessageIDs: ids})
}

// Sending messages.

// keyboard is an inline keyboard. Our own type: the SDK's button always
// carries an empty copy_text, which Telegram may refuse.
type keyboard struct {
	InlineKeyboard [][]kbButton `json:"inline_keyboard"`
}

type kbButton struct {
	Text         string `json:"text"`
	URL          string `json:"url,omitempty"`
	CallbackData string `json:"callback_data,omitempty"`
}

// outMessage is a text message to send or to edit into.
type outMessage struct {
	text     string
	entities []models.MessageEntity
	kb       *keyboard
}

func replyParams(replyTo int64) *models.ReplyParameters {
	if replyTo == 0 {
		return nil
	}
	return &models.ReplyParameters{MessageID: int(replyTo), AllowSendingWithoutReply: true}
}

func noPreview() *models.LinkPreviewOptions {
	return &models.LinkPreviewOptions{IsDisabled: bot.True()}
}

// sendText sends a text message, replying to replyTo (0: none).
func (ch *channel) sendText(ctx context.Context, chatID, replyTo int64, m outMessage) (int64, error) {
	var id int64
	err := ch.tg.call(ctx, chatID, true, callTimeout, func(ctx context.Context) error {
		p := &bot.SendMessageParams{ChatID: chatID, Text: m.text, Entities: m.entities,
			LinkPreviewOptions: noPreview(), ReplyParameters: replyParams(replyTo)}
		if m.kb != nil {
			p.ReplyMarkup = m.kb
		}
		msg, err := ch.tg.bot.SendMessage(ctx, p)
		if err == nil {
			id = int64(msg.ID)
		}
		return err
	})
	return id, err
}

// editText replaces a message's text (and buttons). An edit to the same
// content counts as done.
func (ch *channel) editText(ctx context.Context, chatID, msgID int64, m outMessage) error {
	err := ch.tg.call(ctx, chatID, true, callTimeout, func(ctx context.Context) error {
		p := &bot.EditMessageTextParams{ChatID: chatID, MessageID: int(msgID), Text: m.text, Entities: m.entities,
			LinkPreviewOptions: noPreview()}
		if m.kb != nil {
			p.ReplyMarkup = m.kb
		}
		_, err := ch.tg.bot.EditMessageText(ctx, p)
		return err
	})
	if isBadRequest(err, "message is not modified") {
		return nil
	}
	return err
}

// errMessageGone is a message Telegram no longer has (deleted by a person,
// or too old to touch).
func isMessageGone(err error) bool {
	return isBadRequest(err, "message to edit not found", "message to delete not found", "message can't be edited",
		"message can't be deleted", "there is no text in the message")
}

// deleteMessage deletes a bot message; one already gone counts as deleted.
func (ch *channel) deleteMessage(ctx context.Context, chatID, msgID int64) error {
	err := ch.tg.call(ctx, chatID, false, callTimeout, func(ctx context.Context) error {
		_, err := ch.tg.bot.DeleteMessage(ctx, &bot.DeleteMessageParams{ChatID: chatID, MessageID: int(msgID)})
		return err
	})
	if isMessageGone(err) {
		return nil
	}
	return err
}

// answer answers a button press; text (≤ 200 characters) shows as a toast,
// or as an alert.
func (ch *channel) answer(ctx context.Context, callbackID, text string, alert bool) error {
	if r := []rune(text); len(r) > 200 {
		text = string(r[:199]) + "…"
	}
	err := ch.tg.call(ctx, 0, false, callTimeout, func(ctx context.Context) error {
		_, err := ch.tg.bot.AnswerCallbackQuery(ctx, &bot.AnswerCallbackQueryParams{CallbackQueryID: callbackID, Text: text, ShowAlert: alert})
		return err
	})
	if isBadRequest(err, "query is too old", "query id is invalid") {
		return nil // answered before, or too late: nothing more to do
	}
	return err
}

// decodeProgress reads the item's progress into v ({} or null: zero).
func decodeProgress(raw json.RawMessage, v any) {
	if len(raw) == 0 {
		return
	}
	_ = json.Unmarshal(raw, v)
}
