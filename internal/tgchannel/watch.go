package tgchannel

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/monitorhq/monitor/internal/channelapi"
)

// /watch URL [interval], /watches and /unwatch [N]: the tenant's watched
// profiles and channels, whose new posts core archives by itself. The
// list numbers watches oldest first, as core does, so "/unwatch 2" and
// the list's ✖ 2 button name the same watch; a button carries the watch's
// id, so it stays right when the list changes meanwhile.

// btnUnwatch is the prefix of a list's ✖ button: u:<watch id>.
const btnUnwatch = "u"

// maxWatchInterval bounds /watch's interval (core's own bound, a week).
const maxWatchInterval = 7 * 24 * time.Hour

// parseInterval reads /watch's interval: 30m, 2h, 1d, 90s or 1h30m; a
// bare number is minutes.
func parseInterval(s string) (time.Duration, error) {
	s = strings.ToLower(strings.TrimSpace(s))
	if n, err := strconv.Atoi(s); err == nil {
		s = strconv.Itoa(n) + "m"
	}
	var d time.Duration
	var err error
	if days, ok := strings.CutSuffix(s, "d"); ok {
		var n int
		n, err = strconv.Atoi(days)
		d = time.Duration(n) * 24 * time.Hour
	} else {
		d, err = time.ParseDuration(s)
	}
	if err != nil || d < time.Minute || d > maxWatchInterval || d%time.Second != 0 {
		return 0, fmt.Errorf("%q is not an interval", s)
	}
	return d, nil
}

func (j *job) cmdWatch(ctx context.Context, args []string) error {
	if j.up.PartsSent > 0 {
		return nil
	}
	link := args[0]
	if !strings.Contains(link, "://") {
		link = "https://" + link
	}
	req := channelapi.WatchRequest{Owner: j.ch.owner, URL: link}
	if len(args) == 2 {
		d, err := parseInterval(args[1])
		if err != nil {
			return j.reply(ctx, outMessage{text: j.lang.t("watch.bad_interval", args[1])})
		}
		req.IntervalSeconds = int(d / time.Second)
	}
	w, err := j.ch.core.Watch(ctx, j.w.ID, req)
	if msg, ok := userError(j.lang, err); ok {
		return j.reply(ctx, outMessage{text: msg})
	}
	if err != nil {
		return err
	}
	key := "watch.active"
	if w.State == "pending" {
		key = "watch.pending"
	}
	return j.reply(ctx, outMessage{text: j.lang.t(key, w.SourceURL, formatWait(j.lang, w.IntervalSeconds))})
}

func (j *job) cmdWatches(ctx context.Context, _ []string) error {
	if j.up.PartsSent > 0 {
		return nil
	}
	r, err := j.ch.core.Watches(ctx, j.w.ID, j.ch.owner)
	if msg, ok := userError(j.lang, err); ok {
		return j.reply(ctx, outMessage{text: msg})
	}
	if err != nil {
		return err
	}
	return j.reply(ctx, renderWatches(j.lang, r.Watches, time.Now()))
}

func (j *job) cmdUnwatch(ctx context.Context, args []string) error {
	if len(args) == 0 {
		return j.cmdWatches(ctx, nil)
	}
	if j.up.PartsSent > 0 {
		return nil
	}
	if checkUnwatchArg(args[0]) != nil {
		return j.reply(ctx, outMessage{text: j.lang.t("unwatch.bad", args[0])})
	}
	return j.unwatch(ctx, args[0], false)
}

// btnUnwatch removes the watch whose ✖ was pressed.
func (j *job) btnUnwatch(ctx context.Context, arg string) error {
	if j.up.PartsSent > 0 {
		return nil
	}
	return j.unwatch(ctx, arg, true)
}

func (j *job) unwatch(ctx context.Context, ref string, press bool) error {
	w, err := j.ch.core.Unwatch(ctx, j.w.ID, channelapi.UnwatchRequest{Owner: j.ch.owner, Ref: ref})
	if msg, ok := userError(j.lang, err); ok {
		if press {
			return j.answerOnce(ctx, msg, true)
		}
		return j.reply(ctx, outMessage{text: msg})
	}
	if err != nil {
		return err
	}
	if press {
		if err := j.answerOnce(ctx, "", false); err != nil {
			return err
		}
	}
	return j.reply(ctx, outMessage{text: j.lang.t("unwatch.done", w.SourceURL)})
}

// checkUnwatchArg accepts a watch's number in the list.
func checkUnwatchArg(s string) error {
	if n, err := strconv.Atoi(s); err != nil || n < 1 || strconv.Itoa(n) != s {
		return fmt.Errorf("%q is not a watch number", s)
	}
	return nil
}

// renderWatches is the /watches list: each watch's source, state, next
// run, new posts so far and last error, with a ✖ button to stop it.
func renderWatches(l locale, ws []channelapi.Watch, now time.Time) outMessage {
	if len(ws) == 0 {
		return outMessage{text: l.t("watches.empty")}
	}
	var b strings.Builder
	kb := &keyboard{}
	b.WriteString(l.t("watches.head", len(ws)))
	var row []kbButton
	for i, w := range ws {
		n := i + 1
		fmt.Fprintf(&b, "\n\n%d. %s\n", n, w.SourceURL)
		b.WriteString(watchStateText(l, w))
		b.WriteString(l.t("watches.every", formatWait(l, w.IntervalSeconds), l.t("notify."+w.Notify)))
		if w.NextRunAt != nil {
			wait := int(w.NextRunAt.Sub(now) / time.Second)
			if wait <= 0 {
				b.WriteString(l.t("watches.next_now"))
			} else {
				b.WriteString(l.t("watches.next", formatWait(l, wait)))
			}
		}
		b.WriteString(l.t("watches.found", w.NewPosts))
		if w.LastError != "" {
			b.WriteString(l.t("watches.error", clipText(w.LastError, 200)))
		}
		row = append(row, kbButton{Text: l.t("watches.stop", n), CallbackData: btnUnwatch + ":" + w.ID.String()})
		if len(row) == 4 {
			kb.InlineKeyboard = append(kb.InlineKeyboard, row)
			row = nil
		}
	}
	if len(row) > 0 {
		kb.InlineKeyboard = append(kb.InlineKeyboard, row)
	}
	b.WriteString("\n\n" + l.t("watches.hint"))
	return outMessage{text: b.String(), kb: kb}
}

func watchStateText(l locale, w channelapi.Watch) string {
	switch w.State {
	case "active", "pending", "rejected":
		return l.t("watches.state." + w.State)
	case "paused":
		if w.PausedReason != "" {
			return l.t("watches.state.paused_why", clipText(w.PausedReason, 200))
		}
		return l.t("watches.state.paused")
	}
	return w.State
}

// maxDigestPosts is how many links one digest message lists; the rest are
// counted.
const maxDigestPosts = 30

// watchProgress is a watch item's progress: core's notice, kept, and how
// far the sending got.
type watchProgress struct {
	Notice    channelapi.WatchNotice `json:"notice"`
	PartsSent int                    `json:"parts_sent,omitempty"`
}

// watchNotice sends a watch item's message: a run's new posts as one
// digest, and what went wrong (a watch that paused itself says why).
func (j *job) watchNotice(ctx context.Context) error {
	var p watchProgress
	decodeProgress(j.w.Progress, &p)
	n := p.Notice
	if n.ChatID == 0 {
		return &failWork{reason: "a watch notice without a chat"}
	}
	msgs := renderWatchNotice(j.lang, n)
	for i := p.PartsSent; i < len(msgs); i++ {
		if _, err := j.ch.sendText(ctx, n.ChatID, 0, msgs[i]); err != nil {
			return err
		}
		p.PartsSent = i + 1
		if err := j.saveProgress(ctx, p); err != nil {
			return err
		}
	}
	return nil
}

// renderWatchNotice is the digest of a run and, when it went wrong, why.
func renderWatchNotice(l locale, n channelapi.WatchNotice) []outMessage {
	var out []outMessage
	if len(n.Posts) > 0 {
		var b strings.Builder
		b.WriteString(l.t("digest.head", len(n.Posts), n.SourceURL))
		for i, u := range n.Posts[:min(len(n.Posts), maxDigestPosts)] {
			fmt.Fprintf(&b, "\n%d. %s", i+1, u)
		}
		if len(n.Posts) > maxDigestPosts {
			b.WriteString(l.t("digest.more", len(n.Posts)-maxDigestPosts))
		}
		out = append(out, outMessage{text: b.String()})
	}
	if n.Error != "" {
		key := "watch.failed"
		if strings.HasPrefix(n.Error, "paused by itself") {
			key = "watch.paused"
		}
		out = append(out, outMessage{text: l.t(key, n.SourceURL, clipText(n.Error, 500))})
	}
	return out
}
