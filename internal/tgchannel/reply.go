package tgchannel

import (
	"context"
	"strings"

	"github.com/go-telegram/bot"

	"github.com/monitorhq/monitor/internal/channelapi"
)

// Commands that reply to the bot's messages: /cancel and /pin, sent as a
// reply to a status or result message (core knows which submission each
// is about) or with the link.

// replyRequest names the submission the command is about.
func (j *job) replyRequest(args []string) channelapi.ReplyRequest {
	r := channelapi.ReplyRequest{Owner: j.ch.owner, ReplyToMessageID: j.w.Update.ReplyToMessageID}
	if len(args) == 1 {
		r.ReplyToMessageID = 0 // the link names it
		r.URL = args[0]
		if !strings.Contains(r.URL, "://") {
			r.URL = "https://" + r.URL
		}
	}
	return r
}

// cancelSubmission stops archiving a link for the person: their deliver
// item then marks its status message cancelled.
func (j *job) cancelSubmission(ctx context.Context, args []string) error {
	req := j.replyRequest(args)
	r, err := j.ch.core.Cancel(ctx, j.w.ID, req)
	if req.URL != "" && channelapi.IsCode(err, channelapi.CodeNotFound) {
		// Maybe as sent without the scheme.
		req.URL = args[0]
		r, err = j.ch.core.Cancel(ctx, j.w.ID, req)
	}
	if msg, ok := userError(j.lang, err); ok {
		return j.reply(ctx, outMessage{text: msg})
	}
	if err != nil {
		return err
	}
	if r.Cancelled > 1 {
		return j.reply(ctx, outMessage{text: j.lang.t("cancel.done_many", r.URL, r.Cancelled)})
	}
	return j.reply(ctx, outMessage{text: j.lang.t("cancel.done", r.URL)})
}

// cmdPin pins a result's copy in each bound chat it was copied to.
func (j *job) cmdPin(ctx context.Context, args []string) error {
	if j.up.PartsSent > 0 {
		return nil
	}
	req := j.replyRequest(args)
	if req.ReplyToMessageID == 0 && req.URL == "" {
		return j.reply(ctx, outMessage{text: usageProblem(j.lang, j.ch.reg.find("pin"), "")})
	}
	r, err := j.ch.core.Pin(ctx, j.w.ID, req)
	if msg, ok := userError(j.lang, err); ok {
		return j.reply(ctx, outMessage{text: msg})
	}
	if err != nil {
		return err
	}
	var lines []string
	for _, t := range r.Targets {
		b := t.Binding
		name := chatName(b.Title, b.Username, b.ChatID)
		err := j.ch.tg.call(ctx, b.ChatID, true, callTimeout, func(ctx context.Context) error {
			_, err := j.ch.tg.bot.PinChatMessage(ctx, &bot.PinChatMessageParams{ChatID: b.ChatID, MessageID: int(t.MessageID),
				DisableNotification: true})
			return err
		})
		switch {
		case err == nil:
			lines = append(lines, j.lang.t("pin.done", name))
		case isBadRequest(err) || isPermanent(err):
			right := j.lang.t("pin.right.group")
			if b.ChatType == "channel" {
				right = j.lang.t("pin.right.channel")
			}
			lines = append(lines, j.lang.t("pin.refused", name, clipRunes(err.Error(), 200), right))
		default:
			return err
		}
	}
	return j.reply(ctx, outMessage{text: strings.Join(lines, "\n")})
}
