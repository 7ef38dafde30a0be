package tgchannel

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"time"

	"github.com/go-telegram/bot/models"

	"github.com/monitorhq/monitor/internal/channelapi"
)

// botIdentity is who the bot is, from getMe.
type botIdentity struct {
	ID       int64
	Username string // without @
}

// pollRetry is how often a process that does not poll asks core for the
// poll lease again.
const pollRetry = 3 * time.Second

// errPollLeaseLost ends polling when core says another process holds the
// poll lease now.
var errPollLeaseLost = errors.New("telegram: the poll lease went to another process")

// poll runs until ctx ends, polling Telegram only while this process holds
// the channel's poll lease in core: of the processes running one bot, only
// one may call getUpdates (Telegram answers the others 409 Conflict, and
// their offsets would race). While another process holds the lease this
// one asks again every pollRetry and only works. On a normal stop the
// lease is released, so that another process takes over at once.
func (ch *channel) poll(ctx context.Context) error {
	waitingFor := "" // the holder last logged
	for {
		r, err := ch.pollLease(ctx, false)
		if ctx.Err() != nil {
			return nil
		}
		switch {
		case err != nil:
			ch.log.Warn("core did not answer the poll lease request; retrying", "error", err)
		case !r.Granted:
			if r.Holder != waitingFor {
				ch.log.Info("another process polls this bot; this one only works until it stops", "holder", r.Holder)
				waitingFor = r.Holder
			}
		default:
			waitingFor = ""
			ch.log.Info("polling this bot", "owner", ch.owner, "next_offset", r.NextOffset)
			err := ch.pollHeld(ctx, r.NextOffset, r.ExpiresAt)
			if !errors.Is(err, errPollLeaseLost) {
				ch.releasePollLease()
				return err
			}
			ch.log.Warn("this process lost the poll lease; it stops polling and asks for the lease again", "owner", ch.owner)
		}
		if !sleep(ctx, pollRetry) {
			return nil
		}
	}
}

// pollLease asks core for the poll lease (or to renew it), or with release
// gives it up.
func (ch *channel) pollLease(ctx context.Context, release bool) (channelapi.PollLeaseReply, error) {
	cctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	return ch.core.PollLease(cctx, channelapi.PollLeaseRequest{ChannelID: ch.channelID, Owner: ch.owner, Release: release})
}

// releasePollLease gives up the poll lease as the channel stops; its own
// context, since the channel's has ended.
func (ch *channel) releasePollLease() {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if _, err := ch.pollLease(ctx, true); err != nil {
		ch.log.Warn("could not release the poll lease; another process polls once it expires", "error", err,
			"expires_in", channelapi.LeaseTTL)
	}
}

// pollHeld polls while the lease granted until expires is held, renewing
// it every channelapi.LeaseRenew. It ends with errPollLeaseLost when core
// refuses a renewal or the updates (another process polls now), or when no
// renewal succeeded before the lease ran out; with nil when ctx ends; and
// with a fatal error (a refused token).
func (ch *channel) pollHeld(ctx context.Context, offset int64, expires time.Time) error {
	pctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	renewed := make(chan struct{})
	go func() {
		defer close(renewed)
		ch.renewPollLease(pctx, cancel, expires)
	}()
	err := ch.pollFrom(pctx, offset)
	cancel(nil)
	<-renewed
	if errors.Is(context.Cause(pctx), errPollLeaseLost) {
		return errPollLeaseLost
	}
	return err
}

// renewPollLease renews the poll lease every channelapi.LeaseRenew until
// ctx ends; it cancels ctx with errPollLeaseLost once the lease is lost.
// A failed renewal is retried every pollRetry until the lease would have
// expired.
func (ch *channel) renewPollLease(ctx context.Context, cancel context.CancelCauseFunc, expires time.Time) {
	wait := channelapi.LeaseRenew
	for sleep(ctx, wait) {
		r, err := ch.pollLease(ctx, false)
		switch {
		case ctx.Err() != nil:
			return
		case err != nil:
			if !time.Now().Before(expires) {
				ch.log.Warn("could not renew the poll lease before it ran out; stopping polling", "error", err)
				cancel(errPollLeaseLost)
				return
			}
			ch.log.Warn("could not renew the poll lease; retrying", "error", err)
			wait = pollRetry
		case !r.Granted:
			ch.log.Info("the poll lease went to another process", "holder", r.Holder)
			cancel(errPollLeaseLost)
			return
		default:
			expires, wait = r.ExpiresAt, channelapi.LeaseRenew
		}
	}
}

// pollFrom long-polls Telegram from offset, posts what is addressed to the
// bot to core together with the next offset, and polls from that offset
// only once core has answered: an update is confirmed to Telegram only
// after core stored it. It ends with errPollLeaseLost when core refuses the
// updates because this process no longer holds the poll lease: the updates
// it held were never confirmed, so the next poller fetches them again.
func (ch *channel) pollFrom(ctx context.Context, offset int64) error {
	backoff := newBackoff(time.Second, 30*time.Second)
	for ctx.Err() == nil {
		updates, err := ch.tg.getUpdates(ctx, offset, pollTimeout)
		if err != nil {
			if ctx.Err() != nil {
				return nil
			}
			var ae *apiError
			switch {
			case errors.As(err, &ae) && ae.Code == http.StatusUnauthorized:
				return errors.New("telegram: the bot token was refused (401 Unauthorized); check MONITOR_TELEGRAM_TOKEN")
			case errors.As(err, &ae) && ae.RetryAfter > 0:
				ch.log.Info("telegram asked to slow down polling", "retry_after", ae.RetryAfter)
				sleep(ctx, time.Duration(ae.RetryAfter)*time.Second)
			case errors.As(err, &ae) && ae.Code == http.StatusConflict:
				// Processes sharing core take turns through the poll
				// lease, so this one is elsewhere: another core, or a
				// webhook.
				ch.log.Warn("a process outside this core polls this bot; only one may run", "error", err)
				sleep(ctx, backoff.next())
			default:
				ch.log.Warn("polling Telegram failed", "error", err)
				sleep(ctx, backoff.next())
			}
			continue
		}
		backoff.reset()
		if len(updates) == 0 {
			continue
		}
		next := offset
		var handled []channelapi.Update
		for i := range updates {
			u := &updates[i]
			if u.ID >= next {
				next = u.ID + 1
			}
			if n, ok := normalize(u, ch.me); ok {
				handled = append(handled, n)
			} else if u.ChannelPost != nil && u.ChannelPost.Chat.Username == "" {
				ch.log.Info("a post of a private channel is ignored: only public channels (with a username) can be watched",
					"chat", u.ChannelPost.Chat.ID, "message", u.ChannelPost.ID)
			}
		}
		if err := ch.postUpdates(ctx, handled, next); err != nil {
			if channelapi.IsCode(err, channelapi.CodeLeaseLost) {
				return errPollLeaseLost
			}
			return nil // ctx ended
		}
		ch.log.Debug("updates stored", "received", len(updates), "handled", len(handled), "next_offset", next)
		offset = next
		if len(handled) > 0 {
			ch.nudge()
		}
	}
	return nil
}

// postUpdates hands updates and the next offset to core, retrying until
// core answers: nil when stored, a lease-lost error when this process no
// longer holds the poll lease, or ctx's error. Should core refuse the
// batch as invalid, which retrying cannot fix, the updates go one by one
// and those core refuses are dropped (and logged), so that one bad update
// cannot stop the bot.
func (ch *channel) postUpdates(ctx context.Context, updates []channelapi.Update, next int64) error {
	err := ch.postBatch(ctx, updates, next)
	if !channelapi.IsCode(err, channelapi.CodeInvalid) {
		return err
	}
	ch.log.Error("core refused a batch of updates as invalid; posting them one at a time", "error", err)
	for _, u := range updates {
		err := ch.postBatch(ctx, []channelapi.Update{u}, min(u.UpdateID+1, next))
		if channelapi.IsCode(err, channelapi.CodeInvalid) {
			ch.log.Error("core refused an update; it is dropped", "update_id", u.UpdateID, "kind", u.Kind, "error", err)
			err = ch.postBatch(ctx, nil, min(u.UpdateID+1, next))
		}
		if err != nil {
			return err
		}
	}
	return ch.postBatch(ctx, nil, next)
}

// postBatch posts once core answers: nil, an invalid-request or lease-lost
// error, or ctx's error.
func (ch *channel) postBatch(ctx context.Context, updates []channelapi.Update, next int64) error {
	backoff := newBackoff(500*time.Millisecond, 30*time.Second)
	for {
		cctx, cancel := context.WithTimeout(ctx, 30*time.Second)
		_, err := ch.core.PostUpdates(cctx, channelapi.UpdatesRequest{ChannelID: ch.channelID, Owner: ch.owner, Updates: updates, NextOffset: next})
		cancel()
		if err == nil || channelapi.IsCode(err, channelapi.CodeInvalid) || channelapi.IsCode(err, channelapi.CodeLeaseLost) {
			return err
		}
		if ctx.Err() != nil {
			return ctx.Err()
		}
		ch.log.Warn("core did not store updates; retrying", "error", err, "updates", len(updates))
		if !sleep(ctx, backoff.next()) {
			return ctx.Err()
		}
	}
}

// normalize turns a Telegram update into what core stores, or reports
// that the channel does not handle it: other kinds of updates, messages
// from bots, messages without text or caption, and group messages not
// addressed to this bot. A post of a public channel, and a message of a
// public supergroup not addressed to the bot (which it reads when its
// privacy mode is off), go to core as posts for the chat's watchers; a
// post of a private channel is not handled.
func normalize(u *models.Update, me botIdentity) (channelapi.Update, bool) {
	switch {
	case u.ChannelPost != nil:
		return postOf(u.ID, u.ChannelPost)
	case u.Message != nil:
		m := u.Message
		if m.Chat.Type == models.ChatTypeSupergroup && m.Chat.Username != "" && !commandFor(m, me) {
			return postOf(u.ID, m)
		}
		if m.From == nil || m.From.IsBot {
			return channelapi.Update{}, false
		}
		text, entities := m.Text, m.Entities
		if text == "" {
			text, entities = m.Caption, m.CaptionEntities
		}
		if strings.TrimSpace(text) == "" {
			return channelapi.Update{}, false
		}
		chatType := string(m.Chat.Type)
		switch m.Chat.Type {
		case models.ChatTypePrivate:
		case models.ChatTypeGroup, models.ChatTypeSupergroup:
			if !addressed(text, entities, me) {
				return channelapi.Update{}, false
			}
		default:
			return channelapi.Update{}, false
		}
		n := channelapi.Update{
			UpdateID:  u.ID,
			Kind:      channelapi.UpdateMessage,
			From:      userOf(m.From),
			ChatID:    m.Chat.ID,
			ChatType:  chatType,
			MessageID: int64(m.ID),
			Text:      text,
			Entities:  entitiesOf(entities),
		}
		if m.ReplyToMessage != nil {
			n.ReplyToMessageID = int64(m.ReplyToMessage.ID)
		}
		return n, true
	case u.CallbackQuery != nil:
		cq := u.CallbackQuery
		var chat models.Chat
		var msgID int
		var text string
		var entities []models.MessageEntity
		switch {
		case cq.Message.Message != nil:
			m := cq.Message.Message
			chat, msgID = m.Chat, m.ID
			if keepsStateInText(cq.Data) {
				text, entities = m.Text, m.Entities
			}
		case cq.Message.InaccessibleMessage != nil:
			chat, msgID = cq.Message.InaccessibleMessage.Chat, cq.Message.InaccessibleMessage.MessageID
		default:
			return channelapi.Update{}, false // a button of an inline message: not ours
		}
		if cq.From.IsBot || cq.Data == "" {
			return channelapi.Update{}, false
		}
		return channelapi.Update{
			UpdateID:     u.ID,
			Kind:         channelapi.UpdateCallback,
			From:         userOf(&cq.From),
			ChatID:       chat.ID,
			ChatType:     string(chat.Type),
			MessageID:    int64(msgID),
			Text:         text,
			Entities:     entitiesOf(entities),
			CallbackID:   cq.ID,
			CallbackData: cq.Data,
		}, true
	}
	return channelapi.Update{}, false
}

// postOf is a post of a public channel or supergroup, for its watchers.
func postOf(updateID int64, m *models.Message) (channelapi.Update, bool) {
	if m.Chat.Username == "" {
		return channelapi.Update{}, false
	}
	return channelapi.Update{
		UpdateID:     updateID,
		Kind:         channelapi.UpdatePost,
		ChatID:       m.Chat.ID,
		ChatType:     string(m.Chat.Type),
		ChatUsername: m.Chat.Username,
		MessageID:    int64(m.ID),
		MediaGroupID: m.MediaGroupID,
	}, true
}

// commandFor reports whether a group message is a person's message to
// this bot.
func commandFor(m *models.Message, me botIdentity) bool {
	if m.From == nil || m.From.IsBot {
		return false
	}
	text, entities := m.Text, m.Entities
	if text == "" {
		text, entities = m.Caption, m.CaptionEntities
	}
	return addressed(text, entities, me)
}

// addressed reports whether a group message is for this bot: it mentions
// the bot's username, names the bot as a user, or carries a command
// addressed to it (/cmd@username). A bare /cmd is for every bot in the
// group and so not explicitly for this one.
func addressed(text string, entities []models.MessageEntity, me botIdentity) bool {
	for _, e := range entities {
		switch e.Type {
		case models.MessageEntityTypeMention:
			if strings.EqualFold(utf16Slice(text, e.Offset, e.Length), "@"+me.Username) {
				return true
			}
		case models.MessageEntityTypeTextMention:
			if e.User != nil && e.User.ID == me.ID {
				return true
			}
		case models.MessageEntityTypeBotCommand:
			_, at, ok := strings.Cut(utf16Slice(text, e.Offset, e.Length), "@")
			if ok && strings.EqualFold(at, me.Username) {
				return true
			}
		}
	}
	return false
}

func userOf(u *models.User) channelapi.User {
	name := strings.TrimSpace(u.FirstName + " " + u.LastName)
	return channelapi.User{ID: u.ID, Username: u.Username, DisplayName: name, Language: u.LanguageCode}
}

func entitiesOf(es []models.MessageEntity) []channelapi.Entity {
	if len(es) == 0 {
		return nil
	}
	out := make([]channelapi.Entity, 0, len(es))
	for _, e := range es {
		out = append(out, channelapi.Entity{Type: string(e.Type), Offset: e.Offset, Length: e.Length, URL: e.URL})
	}
	return out
}

// backoff grows a pause from min to max, doubling.
type backoff struct {
	min, max, cur time.Duration
}

func newBackoff(lo, hi time.Duration) *backoff { return &backoff{min: lo, max: hi} }

func (b *backoff) next() time.Duration {
	if b.cur == 0 {
		b.cur = b.min
	} else {
		b.cur = min(b.cur*2, b.max)
	}
	return b.cur
}

func (b *backoff) reset() { b.cur = 0 }

// sleep pauses for d or until ctx ends (then false).
func sleep(ctx context.Context, d time.Duration) bool {
	timer := time.NewTimer(d)
	defer timer.Stop()
	select {
	case <-ctx.Done():
		return false
	case <-timer.C:
		return true
	}
}
