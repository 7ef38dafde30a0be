package tgchannel

import (
	"context"
	"strings"

	"github.com/monitorhq/monitor/internal/channelapi"
)

// copy sends a copy item's result to its bound chat with the delivery's
// machinery and progress, so that a retry sends nothing twice: the media
// first, then the text with a footer linking the original. A capture that
// failed sends nothing. When Telegram says the chat is gone or the bot may
// no longer post there, core unbinds it (channel_gone) and the person who
// bound it is told.
func (dl *delivery) copy(ctx context.Context) error {
	if dl.p.GoneNotice {
		return dl.tellGone(ctx)
	}
	if dl.d.Copy.State != channelapi.BindingActive {
		return nil // unbound since: nothing goes there any more
	}
	switch dl.d.State {
	case channelapi.DeliveryPending:
		return &deferWork{after: pendingPause, reason: "the capture is still running"}
	case channelapi.DeliveryFailed, channelapi.DeliveryCancelled:
		return nil
	case channelapi.DeliveryReady:
		if dl.d.Item == nil {
			return nil
		}
	default:
		return &failWork{reason: "unknown delivery state " + dl.d.State}
	}
	err := dl.ready(ctx)
	if err != nil && isPermanent(err) {
		return dl.gone(ctx, err)
	}
	return err
}

// gone reports the chat gone to core; the copy that unbound it tells the
// person.
func (dl *delivery) gone(ctx context.Context, cause error) error {
	why := strings.TrimSpace(cause.Error())
	r, err := dl.j.ch.core.CopyGone(ctx, dl.j.w.ID, channelapi.CopyGoneRequest{Owner: dl.j.ch.owner, Error: why})
	if err != nil {
		return err
	}
	dl.j.log.Info("a bound channel is gone; unbound", "chat", dl.d.ChatID, "changed", r.Changed, "error", cause)
	if !r.Changed {
		return nil
	}
	b := r.Binding
	dl.p.GoneNotice, dl.p.GoneName, dl.p.GoneWhy = true, chatName(b.Title, b.Username, b.ChatID), clipRunes(why, 200)
	if err := dl.save(ctx); err != nil {
		return err
	}
	return dl.tellGone(ctx)
}

// tellGone tells the person who bound the chat that it was unbound.
func (dl *delivery) tellGone(ctx context.Context) error {
	if dl.p.GoneTold {
		return nil
	}
	chat := dl.d.Copy.OwnerChatID
	if chat != 0 {
		_, err := dl.j.ch.sendText(ctx, chat, 0, outMessage{text: dl.j.lang.t("copy.gone", dl.p.GoneName, dl.p.GoneWhy)})
		if err != nil && !isPermanent(err) {
			return err
		}
		if err != nil {
			dl.j.log.Info("the person who bound a gone channel cannot be told", "error", err)
		}
	}
	dl.p.GoneTold = true
	return dl.save(ctx)
}

// clipRunes cuts s to at most n characters.
func clipRunes(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n]) + "…"
}
