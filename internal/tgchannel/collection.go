package tgchannel

import (
	"context"
	"encoding/json"
	"strconv"
	"strings"
	"time"

	"github.com/google/uuid"

	"github.com/monitorhq/monitor/internal/channelapi"
)

// Profiles and channels. A profile or channel link makes a chain of pages
// in core, each page many posts; the person sees one progress message for
// the whole chain (the link's status message), never one per post. The
// link's deliver item keeps it up to date: while the chain runs it reads
// the chain's progress every collectionPause, edits the message when what
// it shows changed, and is deferred again; when the chain has ended it
// shows the final counts with the buttons and ends. "Fetch more" makes the
// next page and a progress item that follows it the same way, starting
// from the pressed message; "stop" ends the chain. A crash loses nothing:
// the item is claimed again and shows the chain as it is then.

// collectionPause is how long a progress message waits between looks at
// a running chain: at most one edit per pause, however many posts end.
const collectionPause = 3 * time.Second

// collectionProgress is what a deliver or progress item of a chain has
// shown; core keeps it with the item.
type collectionProgress struct {
	// MessageID is the progress message (0: the link's status message).
	MessageID int64 `json:"message_id,omitempty"`
	// Shown is what the message shows, text and buttons, as last edited.
	Shown string `json:"shown,omitempty"`
	// Recorded is the message core knows carries this chain's buttons.
	Recorded int64 `json:"recorded,omitempty"`
}

// followCollection shows a chain's progress in its message once, and asks
// to look again shortly while the chain runs.
func (j *job) followCollection(ctx context.Context, d channelapi.Delivery) error {
	var p collectionProgress
	decodeProgress(j.w.Progress, &p)
	m := renderCollection(j.lang, *d.Collection)
	if shown := m.signature(); shown != p.Shown {
		id := p.MessageID
		if id == 0 {
			id = d.StatusMessageID
		}
		var err error
		if id != 0 {
			err = j.ch.editText(ctx, d.ChatID, id, m.withoutOldButtons())
		}
		if id == 0 || isMessageGone(err) {
			id, err = j.ch.sendText(ctx, d.ChatID, d.ReplyToMessageID, m)
		}
		if err != nil {
			return err
		}
		p.MessageID, p.Shown = id, shown
		if err := j.saveProgress(ctx, p); err != nil {
			return err
		}
	}
	if hasCallbacks(m.kb) && p.Recorded != p.MessageID {
		if err := j.recordButtons(ctx, d.ChatID, p.MessageID); err != nil {
			return err
		}
		p.Recorded = p.MessageID
		if err := j.saveProgress(ctx, p); err != nil {
			return err
		}
	}
	if d.Collection.Running {
		return &deferWork{after: collectionPause, reason: "the collection is still being archived"}
	}
	return nil
}

// btnMore asks for one more page of the pressed message's chain.
func (j *job) btnMore(ctx context.Context, arg string) error { return j.fetchMore(ctx, arg, false) }

// btnBatch asks for as many more posts as the adapter's largest batch.
func (j *job) btnBatch(ctx context.Context, arg string) error { return j.fetchMore(ctx, arg, true) }

func (j *job) fetchMore(ctx context.Context, arg string, batch bool) error {
	u := j.w.Update
	// The progress item that follows the new page starts from this
	// message, so it edits what the person is looking at.
	start, err := json.Marshal(collectionProgress{MessageID: u.MessageID, Recorded: u.MessageID})
	if err != nil {
		return err
	}
	c, err := j.ch.core.More(ctx, j.w.ID, channelapi.MoreRequest{Owner: j.ch.owner, SubmissionID: uuid.MustParse(arg),
		Batch: batch, Progress: start})
	if msg, ok := userError(j.lang, err); ok {
		return j.answerOnce(ctx, msg, true)
	}
	if err != nil {
		return err
	}
	toast := j.lang.t("coll.fetching")
	if batch {
		toast = j.lang.t("coll.fetching_batch", formatCount(c.BatchSize))
	}
	return j.showPressed(ctx, c, toast)
}

// btnStop stops the pressed message's chain.
func (j *job) btnStop(ctx context.Context, arg string) error {
	c, err := j.ch.core.Stop(ctx, j.w.ID, channelapi.StopRequest{Owner: j.ch.owner, SubmissionID: uuid.MustParse(arg)})
	if msg, ok := userError(j.lang, err); ok {
		return j.answerOnce(ctx, msg, true)
	}
	if err != nil {
		return err
	}
	return j.showPressed(ctx, c, j.lang.t("coll.stopped_toast"))
}

// showPressed edits the pressed message to the chain's progress at once
// (the item that follows the chain keeps it up to date) and answers the
// press with toast.
func (j *job) showPressed(ctx context.Context, c channelapi.Collection, toast string) error {
	u := j.w.Update
	if !j.up.Edited {
		err := j.ch.editText(ctx, u.ChatID, u.MessageID, renderCollection(j.lang, c).withoutOldButtons())
		if err != nil && !isMessageGone(err) {
			return err
		}
		j.up.Edited = true
		if err := j.saveProgress(ctx, j.up); err != nil {
			return err
		}
	}
	return j.answerOnce(ctx, toast, false)
}

// renderCollection is a chain's progress message: its name and counts
// ("📚 Name — 120 of 200 posts archived · 2 failed"), how it stands, the
// link, and the buttons: stop while it runs; fetch more, and a batch when
// the adapter takes one, once it ended with more to read.
func renderCollection(l locale, c channelapi.Collection) outMessage {
	if c.State == "failed" && c.Total == 0 {
		text := l.t("status.failed", c.InputURL)
		if c.Error != "" {
			text += "\n" + clipText(c.Error, maxErrorShown)
		}
		return outMessage{text: text}
	}
	name := c.Title
	if name == "" {
		name = c.InputURL
	}
	var b strings.Builder
	b.WriteString(l.t("coll.head", collectionIcon(c.Kind), name, formatCount(c.Archived), formatCount(c.Total)))
	if c.Failed > 0 {
		b.WriteString(l.t("coll.failed", formatCount(c.Failed)))
	}
	b.WriteString("\n")
	problems := c.Failed > 0 || c.State == "partial" || c.Error != ""
	switch {
	case c.Stopped:
		b.WriteString(l.t("coll.stopped"))
	case c.Running && c.Total == 0:
		b.WriteString(l.t("coll.reading"))
	case c.Running && c.Queued > 0:
		b.WriteString(l.t("coll.running", formatCount(c.Queued)))
	case c.Running:
		b.WriteString(l.t("coll.next_page"))
	case problems && c.HasMore:
		b.WriteString(l.t("coll.problems_more"))
	case problems:
		b.WriteString(l.t("coll.problems"))
	case c.HasMore:
		b.WriteString(l.t("coll.more"))
	default:
		b.WriteString(l.t("coll.end"))
	}
	if c.Error != "" {
		b.WriteString("\n" + clipText(c.Error, maxErrorShown))
	}
	if c.Title != "" {
		b.WriteString("\n" + c.InputURL)
	}
	m := outMessage{text: b.String()}
	switch {
	case c.Stopped:
	case c.Running:
		m.kb = &keyboard{InlineKeyboard: [][]kbButton{{{Text: l.t("coll.stop"), CallbackData: callbackData(btnStop, c.Root)}}}}
	case c.HasMore:
		row := []kbButton{{Text: l.t("coll.more_button"), CallbackData: callbackData(btnMore, c.MoreFrom)}}
		if c.BatchSize > pageOfPosts {
			row = append(row, kbButton{Text: l.t("coll.batch_button", formatCount(c.BatchSize)), CallbackData: callbackData(btnBatch, c.MoreFrom)})
		}
		m.kb = &keyboard{InlineKeyboard: [][]kbButton{row}}
	}
	return m
}

// pageOfPosts is about how many posts one "fetch more" reads (core's page
// size): a batch button no larger than that would be the same button.
const pageOfPosts = 100

// maxErrorShown bounds core's explanation of a problem in a progress
// message.
const maxErrorShown = 400

// collectionIcon marks a chain by its kind.
func collectionIcon(kind string) string {
	switch kind {
	case "channel":
		return "📣"
	case "thread":
		return "🧵"
	}
	return "📚"
}

// formatCount writes a count with thousands separators: 1,000.
func formatCount(n int) string {
	if n < 0 {
		return "-" + formatCount(-n)
	}
	s := strconv.Itoa(n)
	var b strings.Builder
	for i, r := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(r)
	}
	return b.String()
}

// clipText shortens s to at most n characters, marking the cut.
func clipText(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n-1]) + "…"
}

// signature is what a message shows, text and buttons, to tell whether an
// edit would change anything.
func (m outMessage) signature() string {
	var b strings.Builder
	b.WriteString(m.text)
	if m.kb != nil {
		for _, row := range m.kb.InlineKeyboard {
			for _, k := range row {
				b.WriteString("\x00" + k.Text + "\x01" + k.CallbackData + k.URL)
			}
		}
	}
	return b.String()
}

// withoutOldButtons is m for an edit: without buttons of its own it takes
// the old message's away (an edit without a keyboard keeps the old one).
func (m outMessage) withoutOldButtons() outMessage {
	if m.kb == nil {
		m.kb = &keyboard{InlineKeyboard: [][]kbButton{}}
	}
	return m
}
