package tgchannel

import (
	"context"
	"errors"
	"fmt"
	"io"
	"mime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/go-telegram/bot"
	"github.com/go-telegram/bot/models"

	"github.com/monitorhq/monitor/internal/channelapi"
)

// Bot API upload limits.
const (
	maxPhotoBytes  = 10 << 20 // larger photos go as documents
	maxUploadBytes = 50 << 20 // larger files cannot be sent by a bot through api.telegram.org
	// localUploadBytes is what a local telegram-bot-api server takes.
	localUploadBytes = 2000 << 20
	maxAlbum         = 10
)

// officialAPI is Telegram's own Bot API.
const officialAPI = "https://api.telegram.org"

// uploadLimit is the largest file the Bot API at apiURL takes: configured
// (limit > 0), else 50 MB on Telegram's own and 2000 MB on any other, which
// is a local telegram-bot-api server.
func uploadLimit(apiURL string, limit int64) int64 {
	switch {
	case limit > 0:
		return limit
	case apiURL == "" || strings.TrimRight(apiURL, "/") == officialAPI:
		return maxUploadBytes
	}
	return localUploadBytes
}

// pendingPause is how long a delivery waits before looking at a running
// capture again.
const pendingPause = 2 * time.Second

// Representations: how a media file is sent, and the key of its file_id.
const (
	repPhoto     = "photo"
	repVideo     = "video"
	repAnimation = "animation"
	repDocument  = "document"
)

// deliverProgress is what a delivery has confirmed so far; core keeps it,
// and a retry resumes from it, so confirmed media is never sent again.
type deliverProgress struct {
	// Mode is how the result is sent (modeText, modeSingle, modeAlbums).
	Mode string `json:"mode,omitempty"`
	// StatusText is the status message's text as last edited.
	StatusText    string `json:"status_text,omitempty"`
	StatusDeleted bool   `json:"status_deleted,omitempty"`
	// FailureShown: the failure reason was shown.
	FailureShown bool `json:"failure_shown,omitempty"`
	// MediaSent counts the media, in order, that are done: sent, or given
	// up (Skipped).
	MediaSent   int     `json:"media_sent"`
	BatchesSent int     `json:"batches_sent"`
	MessageIDs  []int64 `json:"message_ids,omitempty"`
	// Skipped lists media Telegram would not take in any form.
	Skipped []int `json:"skipped,omitempty"`
	// TextPartsSent counts the result's text parts sent (a caption counts).
	TextPartsSent int  `json:"text_parts_sent,omitempty"`
	TextSent      bool `json:"text_sent,omitempty"`
	// ButtonsSent: the message with the buttons is out (ButtonsMessageID);
	// ButtonsRecorded: core knows it.
	ButtonsSent      bool  `json:"buttons_sent,omitempty"`
	ButtonsMessageID int64 `json:"buttons_message_id,omitempty"`
	ButtonsRecorded  bool  `json:"buttons_recorded,omitempty"`
	// A copy item whose chat went away: core unbound it (GoneNotice, with
	// the chat's name and why), and the person was told (GoneTold).
	GoneNotice bool   `json:"gone_notice,omitempty"`
	GoneName   string `json:"gone_name,omitempty"`
	GoneWhy    string `json:"gone_why,omitempty"`
	GoneTold   bool   `json:"gone_told,omitempty"`
	// SentRecorded: core knows the result's messages (for replies to
	// them); CancelShown: the status message says cancelled.
	SentRecorded bool `json:"sent_recorded,omitempty"`
	CancelShown  bool `json:"cancel_shown,omitempty"`
}

// delivery sends one submission's result.
type delivery struct {
	j    *job
	d    channelapi.Delivery
	p    *deliverProgress
	reps []string // per media: its representation, "" when it cannot be sent
}

// deliver handles a deliver item (and a progress item, which follows a
// profile's or channel's chain like the link's deliver item).
func (j *job) deliver(ctx context.Context) error {
	if j.w.SubmissionID == nil {
		return &failWork{reason: "deliver work without a submission"}
	}
	var p deliverProgress
	decodeProgress(j.w.Progress, &p)
	d, err := j.ch.core.Delivery(ctx, j.w.ID, j.ch.owner)
	if channelapi.IsCode(err, channelapi.CodeNotFound) {
		return &failWork{reason: "the submission is gone: " + err.Error()}
	}
	if err != nil {
		return err
	}
	if d.Collection != nil {
		return j.followCollection(ctx, d) // a profile or channel: one progress message
	}
	if j.w.Kind == channelapi.WorkProgress {
		return &failWork{reason: "a progress item whose submission is not a profile or channel"}
	}
	dl := &delivery{j: j, d: d, p: &p}
	if j.w.Kind == channelapi.WorkCopy {
		return dl.copy(ctx)
	}
	switch d.State {
	case channelapi.DeliveryPending:
		return dl.pending(ctx)
	case channelapi.DeliveryCancelled:
		return dl.cancelled(ctx)
	case channelapi.DeliveryFailed:
		return dl.failed(ctx, d.Error)
	case channelapi.DeliveryReady:
		if d.Item == nil {
			return dl.failed(ctx, j.lang.t("result.missing"))
		}
		return dl.ready(ctx)
	}
	return &failWork{reason: fmt.Sprintf("unknown delivery state %q", d.State)}
}

func (dl *delivery) save(ctx context.Context) error { return dl.j.saveProgress(ctx, dl.p) }

// pending shows the capture's progress in the status message when it
// changed, and looks again shortly.
func (dl *delivery) pending(ctx context.Context) error {
	d := dl.d
	text := statusText(dl.j.lang, d.InputURL, progressText(dl.j.lang, d))
	if d.StatusMessageID != 0 && text != dl.p.StatusText && (dl.p.StatusText != "" || d.Progress != "") {
		err := dl.j.ch.editText(ctx, d.ChatID, d.StatusMessageID, outMessage{text: text})
		if err != nil && !isMessageGone(err) {
			return err
		}
		dl.p.StatusText = text
		if err := dl.save(ctx); err != nil {
			return err
		}
	}
	return &deferWork{after: pendingPause, reason: "the capture is still running"}
}

// failed turns the status message into the reason, with the link as sent.
func (dl *delivery) failed(ctx context.Context, reason string) error {
	if dl.p.FailureShown {
		return nil
	}
	d := dl.d
	text := dl.j.lang.t("status.failed", d.InputURL)
	if reason != "" {
		text += "\n" + reason
	}
	m := outMessage{text: text}
	var err error
	if d.StatusMessageID != 0 {
		err = dl.j.ch.editText(ctx, d.ChatID, d.StatusMessageID, m)
	}
	if d.StatusMessageID == 0 || isMessageGone(err) {
		_, err = dl.j.ch.sendText(ctx, d.ChatID, d.ReplyToMessageID, m)
	}
	if err != nil {
		return err
	}
	dl.p.FailureShown = true
	return dl.save(ctx)
}

// Delivery modes, fixed at the first attempt so that retries agree.
const (
	modeText   = "text"   // no media to send: the status message becomes the result
	modeSingle = "single" // one media with the text as its caption
	modeAlbums = "albums" // media batches first, then the text
)

// ready sends the result and then tells core which messages it is.
func (dl *delivery) ready(ctx context.Context) error {
	if err := dl.send(ctx); err != nil {
		return err
	}
	return dl.recordSent(ctx)
}

// send sends the result: the text alone by editing the status message,
// or the media (one with the text as its caption; several as albums
// followed by the text), the buttons, and then removes the status message.
func (dl *delivery) send(ctx context.Context) error {
	p := dl.p
	media := dl.d.Item.Media
	dl.reps = make([]string, len(media))
	for i, m := range media {
		dl.reps[i] = representation(m, dl.j.ch.maxUpload)
	}
	if p.Mode == "" {
		switch n := dl.sendable(); {
		case n == 0:
			p.Mode = modeText
		case n == 1 && dl.d.Copy == nil:
			// A copy sends its media first, then the text.
			p.Mode = modeSingle
		default:
			p.Mode = modeAlbums
		}
	}
	switch p.Mode {
	case modeText:
		return dl.textOnly(ctx)
	case modeSingle:
		if p.MediaSent < len(dl.reps) {
			sent, err := dl.single(ctx)
			if err != nil {
				return err
			}
			if !sent {
				// Telegram refused it in every form: the text alone.
				p.Mode = modeText
				if err := dl.save(ctx); err != nil {
					return err
				}
				return dl.textOnly(ctx)
			}
		}
		caption, rest := splitCaption(dl.resultText())
		if err := dl.sendRest(ctx, append([]string{caption}, rest...)); err != nil {
			return err
		}
	default:
		if err := dl.albums(ctx); err != nil {
			return err
		}
		if err := dl.text(ctx); err != nil {
			return err
		}
	}
	return dl.removeStatus(ctx)
}

// recordSent tells core, once, which messages the result is: a copy's
// first message in its chat, or the result's messages in the person's.
func (dl *delivery) recordSent(ctx context.Context) error {
	p := dl.p
	if p.SentRecorded {
		return nil
	}
	ids := slices.Clone(p.MessageIDs)
	if p.ButtonsMessageID != 0 && !slices.Contains(ids, p.ButtonsMessageID) {
		ids = append(ids, p.ButtonsMessageID)
	}
	kind := channelapi.SentResult
	if dl.d.Copy != nil {
		kind = channelapi.SentChannelCopy
		ids = ids[:min(len(ids), 1)]
	}
	ids = ids[:min(len(ids), maxRecorded)]
	if len(ids) > 0 {
		err := dl.j.ch.core.Sent(ctx, dl.j.w.ID, channelapi.SentRequest{Owner: dl.j.ch.owner, ChatID: dl.d.ChatID,
			MessageIDs: ids, Kind: kind})
		if err != nil {
			return err
		}
	}
	p.SentRecorded = true
	return dl.save(ctx)
}

// maxRecorded is the most messages one SentRequest carries.
const maxRecorded = 100

// cancelled turns the status message into "cancelled", with the link
// struck through; nothing else is sent.
func (dl *delivery) cancelled(ctx context.Context) error {
	d := dl.d
	if dl.p.CancelShown || d.StatusMessageID == 0 {
		return nil
	}
	prefix := dl.j.lang.t("status.cancelled")
	m := outMessage{text: prefix + d.InputURL, entities: []models.MessageEntity{{Type: models.MessageEntityTypeStrikethrough,
		Offset: utf16Len(prefix), Length: utf16Len(d.InputURL)}}}
	if err := dl.j.ch.editText(ctx, d.ChatID, d.StatusMessageID, m); err != nil && !isMessageGone(err) {
		return err
	}
	dl.p.CancelShown = true
	return dl.save(ctx)
}

// sendable counts media that may still be or were sent.
func (dl *delivery) sendable() int {
	n := 0
	for i, r := range dl.reps {
		if r != "" && !dl.skipped(i) {
			n++
		}
	}
	return n
}

func (dl *delivery) skipped(i int) bool {
	for _, s := range dl.p.Skipped {
		if s == i {
			return true
		}
	}
	return false
}

// notes are the lines a result adds about media it could not send: those
// too large for the Bot API, with a link to the item's page in the web
// library (not in a copy, whose readers cannot open it), and those
// Telegram refused.
func (dl *delivery) notes() []string {
	n := len(dl.reps) - dl.sendable()
	if n == 0 {
		return nil
	}
	large := 0
	for _, m := range dl.d.Item.Media {
		if m.Size > dl.j.ch.maxUpload {
			large++
		}
	}
	var out []string
	limit := strconv.FormatInt(dl.j.ch.maxUpload>>20, 10) + " MB" // as Telegram words its limit
	switch {
	case large > 0 && dl.d.WebURL != "" && dl.d.Copy == nil:
		out = append(out, dl.j.lang.t("result.too_large_link", large, limit, dl.d.WebURL))
	case large > 0:
		out = append(out, dl.j.lang.t("result.too_large", large, limit))
	}
	if n > large {
		out = append(out, dl.j.lang.t("result.unsent", n-large))
	}
	return out
}

// resultText is the result's text: a copy's with a footer linking the
// original, else the person's with its id.
func (dl *delivery) resultText() string {
	if dl.d.Copy != nil {
		return copyText(dl.j.lang, dl.d, dl.notes())
	}
	return resultText(dl.j.lang, dl.d, dl.notes())
}

// keyboard is the result's buttons; a copy has none.
func (dl *delivery) keyboard() *keyboard {
	if dl.d.Copy != nil {
		return nil
	}
	return resultKeyboard(dl.j.lang, dl.d)
}

// textOnly puts the result into the status message (or a new message when
// there is none), with the buttons, then any overflow as more messages.
func (dl *delivery) textOnly(ctx context.Context) error {
	d, p := dl.d, dl.p
	parts := splitMessages(dl.resultText())
	kb := dl.keyboard()
	if p.TextPartsSent == 0 {
		m := outMessage{text: parts[0], kb: kb}
		id := d.StatusMessageID
		var err error
		if id != 0 {
			err = dl.j.ch.editText(ctx, d.ChatID, id, m)
		}
		if id == 0 || isMessageGone(err) {
			id, err = dl.j.ch.sendText(ctx, d.ChatID, d.ReplyToMessageID, m)
		}
		if err != nil {
			return err
		}
		p.TextPartsSent, p.TextSent = 1, len(parts) == 1
		p.ButtonsSent, p.ButtonsMessageID = kb != nil, id
		p.StatusDeleted = true // it became the result
		if err := dl.save(ctx); err != nil {
			return err
		}
	}
	if err := dl.recordButtons(ctx); err != nil {
		return err
	}
	return dl.sendRest(ctx, parts)
}

// single sends the one media with as much of the text as a caption takes
// and the buttons; sent is false when Telegram refused it in every form.
func (dl *delivery) single(ctx context.Context) (sent bool, err error) {
	p := dl.p
	i := dl.nextSendable(p.MediaSent)
	caption, _ := splitCaption(dl.resultText())
	kb := dl.keyboard()
	id, ok, err := dl.sendOne(ctx, i, caption, kb)
	if err != nil {
		return false, err
	}
	if !ok {
		p.Skipped = append(p.Skipped, i)
		return false, dl.save(ctx)
	}
	p.MediaSent, p.BatchesSent = len(dl.reps), p.BatchesSent+1
	p.MessageIDs = append(p.MessageIDs, id)
	p.TextPartsSent = 1 // the caption
	p.ButtonsSent, p.ButtonsMessageID = kb != nil, id
	if err := dl.save(ctx); err != nil {
		return false, err
	}
	return true, dl.recordButtons(ctx)
}

// nextSendable is the first media at or after i that can be sent.
func (dl *delivery) nextSendable(i int) int {
	for i < len(dl.reps) && (dl.reps[i] == "" || dl.skipped(i)) {
		i++
	}
	return i
}

// albums sends every media batch not yet confirmed, recording each.
func (dl *delivery) albums(ctx context.Context) error {
	p := dl.p
	for p.MediaSent < len(dl.reps) {
		start := dl.nextSendable(p.MediaSent)
		if start >= len(dl.reps) {
			p.MediaSent = len(dl.reps)
			return dl.save(ctx)
		}
		batch := planBatch(dl.reps, start, dl.skipped)
		if len(batch) > 1 {
			ids, err := dl.sendAlbum(ctx, batch)
			if err == nil {
				p.MediaSent = batch[len(batch)-1] + 1
				p.BatchesSent++
				p.MessageIDs = append(p.MessageIDs, ids...)
				if err := dl.save(ctx); err != nil {
					return err
				}
				continue
			}
			if !errors.Is(err, errAlbumRefused) {
				return err
			}
			// Telegram refused the album: send its media one by one, each
			// with its own fallback to a document.
			dl.j.log.Info("album refused; sending its media one by one", "error", err)
		}
		for _, i := range batch {
			id, ok, err := dl.sendOne(ctx, i, "", nil)
			if err != nil {
				return err
			}
			p.MediaSent = i + 1
			if ok {
				p.BatchesSent++
				p.MessageIDs = append(p.MessageIDs, id)
			} else {
				p.Skipped = append(p.Skipped, i)
			}
			if err := dl.save(ctx); err != nil {
				return err
			}
		}
	}
	return nil
}

// text sends the result's text after the media: the first part with the
// buttons, then the rest.
func (dl *delivery) text(ctx context.Context) error {
	p := dl.p
	parts := splitMessages(dl.resultText())
	if p.TextPartsSent == 0 {
		kb := dl.keyboard()
		id, err := dl.j.ch.sendText(ctx, dl.d.ChatID, dl.d.ReplyToMessageID, outMessage{text: parts[0], kb: kb})
		if err != nil {
			return err
		}
		p.TextPartsSent = 1
		p.MessageIDs = append(p.MessageIDs, id)
		p.ButtonsSent, p.ButtonsMessageID = kb != nil, id
		if err := dl.save(ctx); err != nil {
			return err
		}
	}
	if err := dl.recordButtons(ctx); err != nil {
		return err
	}
	return dl.sendRest(ctx, parts)
}

// sendRest sends parts[p.TextPartsSent:] as plain messages.
func (dl *delivery) sendRest(ctx context.Context, parts []string) error {
	p := dl.p
	for p.TextPartsSent < len(parts) {
		id, err := dl.j.ch.sendText(ctx, dl.d.ChatID, dl.d.ReplyToMessageID, outMessage{text: parts[p.TextPartsSent]})
		if err != nil {
			return err
		}
		p.TextPartsSent++
		p.MessageIDs = append(p.MessageIDs, id)
		if err := dl.save(ctx); err != nil {
			return err
		}
	}
	if !p.TextSent {
		p.TextSent = true
		return dl.save(ctx)
	}
	return nil
}

// recordButtons tells core, once, which message carries the result's
// buttons.
func (dl *delivery) recordButtons(ctx context.Context) error {
	p := dl.p
	if !p.ButtonsSent || p.ButtonsRecorded || p.ButtonsMessageID == 0 {
		return nil
	}
	if err := dl.j.recordButtons(ctx, dl.d.ChatID, p.ButtonsMessageID); err != nil {
		return err
	}
	p.ButtonsRecorded = true
	return dl.save(ctx)
}

// removeStatus deletes the status message once the media result is out.
func (dl *delivery) removeStatus(ctx context.Context) error {
	if dl.p.StatusDeleted || dl.d.StatusMessageID == 0 {
		return nil
	}
	if err := dl.j.ch.deleteMessage(ctx, dl.d.ChatID, dl.d.StatusMessageID); err != nil {
		if isPermanent(err) || errors.Is(err, bot.ErrorBadRequest) {
			dl.j.log.Info("the status message could not be deleted", "error", err)
		} else {
			return err
		}
	}
	dl.p.StatusDeleted = true
	return dl.save(ctx)
}

// representation says how a media file goes to Telegram, "" when it
// cannot (larger than limit, what the Bot API takes from a bot).
func representation(m channelapi.Media, limit int64) string {
	if m.Size > limit {
		return ""
	}
	switch m.Kind {
	case "image":
		if m.Size > maxPhotoBytes || !photoShapeOK(m.Width, m.Height) {
			return repDocument
		}
		return repPhoto
	case "video":
		return repVideo
	case "gif":
		return repAnimation
	}
	return repDocument
}

// photoShapeOK applies Telegram's photo rules: width and height at most
// 10000 together, a ratio of at most 20. Unknown sizes pass.
func photoShapeOK(w, h int) bool {
	if w <= 0 || h <= 0 {
		return true
	}
	return w+h <= 10000 && max(w, h) <= 20*min(w, h)
}

// planBatch is the batch that starts at start: photos and videos together
// in an album of up to 10, documents likewise, an animation alone.
func planBatch(reps []string, start int, skipped func(int) bool) []int {
	class := func(r string) string {
		if r == repPhoto || r == repVideo {
			return "visual"
		}
		return r
	}
	batch := []int{start}
	if reps[start] == repAnimation {
		return batch
	}
	for i := start + 1; i < len(reps) && len(batch) < maxAlbum; i++ {
		if reps[i] == "" || skipped(i) || class(reps[i]) != class(reps[start]) {
			break
		}
		batch = append(batch, i)
	}
	return batch
}

// errAlbumRefused: Telegram refused an album as such (400).
var errAlbumRefused = errors.New("telegram refused the album")

// cacheKey names a media file as sent by this bot in a representation.
func (dl *delivery) cacheKey(i int, rep string) channelapi.CacheKey {
	return channelapi.CacheKey{ChannelKind: "telegram", AccountID: strconv.FormatInt(dl.j.ch.me.ID, 10),
		SHA256: dl.d.Item.Media[i].SHA256, Representation: rep}
}

// cached looks up a file_id ("" on a miss or when the cache is down).
func (dl *delivery) cached(ctx context.Context, i int, rep string) string {
	e, err := dl.j.ch.core.CacheGet(ctx, dl.cacheKey(i, rep))
	if err != nil {
		if !channelapi.IsCode(err, channelapi.CodeNotFound) {
			dl.j.log.Debug("file_id cache lookup failed", "error", err)
		}
		return ""
	}
	return e.RemoteID
}

// remember stores the file_id Telegram gave a sent media.
func (dl *delivery) remember(ctx context.Context, i int, rep, fileID, used string) {
	if fileID == "" || fileID == used {
		return
	}
	err := dl.j.ch.core.CachePut(ctx, channelapi.CacheEntry{CacheKey: dl.cacheKey(i, rep), RemoteID: fileID})
	if err != nil {
		// The media is out; a lost cache entry only costs an upload later.
		dl.j.log.Debug("storing a file_id failed", "error", err)
	}
}

// forget drops a file_id Telegram said is invalid.
func (dl *delivery) forget(ctx context.Context, i int, rep, fileID string) {
	err := dl.j.ch.core.CacheDrop(ctx, channelapi.CacheEntry{CacheKey: dl.cacheKey(i, rep), RemoteID: fileID})
	if err != nil {
		dl.j.log.Debug("dropping a file_id failed", "error", err)
	}
}

// sendOne sends media i alone with a caption and buttons: from the
// file_id cache if it can, else uploaded; a photo, video or animation
// Telegram refuses goes again as a document. ok is false when Telegram
// refused it in every form.
func (dl *delivery) sendOne(ctx context.Context, i int, caption string, kb *keyboard) (id int64, ok bool, err error) {
	rep := dl.reps[i]
	for range 4 {
		used := dl.cached(ctx, i, rep)
		msg, err := dl.sendMedia(ctx, i, rep, used, caption, kb)
		switch {
		case err == nil:
			dl.remember(ctx, i, rep, fileIDOf(msg, rep), used)
			return int64(msg.ID), true, nil
		case isPermanent(err):
			return 0, false, err
		case used != "" && isInvalidFile(err):
			dl.forget(ctx, i, rep, used)
		case isBadRequest(err) || isTooLarge(err):
			if rep == repDocument {
				dl.j.log.Info("Telegram refused a media file", "sha256", dl.d.Item.Media[i].SHA256, "error", err)
				return 0, false, nil
			}
			dl.j.log.Info("Telegram refused a media file; sending it as a document", "representation", rep, "error", err)
			rep = repDocument
			dl.reps[i] = rep
		default:
			return 0, false, err
		}
	}
	return 0, false, nil
}

// sendMedia makes the one call that sends media i as rep.
func (dl *delivery) sendMedia(ctx context.Context, i int, rep, fileID, caption string, kb *keyboard) (*models.Message, error) {
	d := dl.d
	m := d.Item.Media[i]
	spoiler := m.Sensitive && rep != repDocument
	timeout := callTimeout
	if fileID == "" {
		timeout = uploadTimeout
	}
	var msg *models.Message
	err := dl.j.ch.tg.call(ctx, d.ChatID, true, timeout, func(ctx context.Context) error {
		var file models.InputFile = &models.InputFileString{Data: fileID}
		if fileID == "" {
			s := dl.stream(ctx, i)
			defer s.Close()
			file = &models.InputFileUpload{Filename: fileName(m), Data: s}
		}
		var markup models.ReplyMarkup
		if kb != nil {
			markup = kb
		}
		reply := replyParams(d.ReplyToMessageID)
		var err error
		switch rep {
		case repPhoto:
			msg, err = dl.j.ch.tg.bot.SendPhoto(ctx, &bot.SendPhotoParams{ChatID: d.ChatID, Photo: file, Caption: caption,
				HasSpoiler: spoiler, ReplyParameters: reply, ReplyMarkup: markup})
		case repVideo:
			msg, err = dl.j.ch.tg.bot.SendVideo(ctx, &bot.SendVideoParams{ChatID: d.ChatID, Video: file, Caption: caption,
				Width: m.Width, Height: m.Height, Duration: m.Duration, SupportsStreaming: true,
				HasSpoiler: spoiler, ReplyParameters: reply, ReplyMarkup: markup})
		case repAnimation:
			msg, err = dl.j.ch.tg.bot.SendAnimation(ctx, &bot.SendAnimationParams{ChatID: d.ChatID, Animation: file, Caption: caption,
				Width: m.Width, Height: m.Height, Duration: m.Duration,
				HasSpoiler: spoiler, ReplyParameters: reply, ReplyMarkup: markup})
		default:
			msg, err = dl.j.ch.tg.bot.SendDocument(ctx, &bot.SendDocumentParams{ChatID: d.ChatID, Document: file, Caption: caption,
				ReplyParameters: reply, ReplyMarkup: markup})
		}
		return err
	})
	return msg, err
}

// sendAlbum sends media as one album; errAlbumRefused when Telegram
// refuses it as such.
func (dl *delivery) sendAlbum(ctx context.Context, batch []int) ([]int64, error) {
	d := dl.d
	for range 3 {
		used := make(map[int]string, len(batch))
		uploads := false
		for _, i := range batch {
			if id := dl.cached(ctx, i, dl.reps[i]); id != "" {
				used[i] = id
			} else {
				uploads = true
			}
		}
		timeout := callTimeout
		if uploads {
			timeout = uploadTimeout
		}
		var msgs []*models.Message
		err := dl.j.ch.tg.call(ctx, d.ChatID, true, timeout, func(ctx context.Context) error {
			var streams []*mediaStream
			defer func() {
				for _, s := range streams {
					s.Close()
				}
			}()
			media := make([]models.InputMedia, 0, len(batch))
			for k, i := range batch {
				m := d.Item.Media[i]
				ref, att := used[i], io.Reader(nil)
				if ref == "" {
					s := dl.stream(ctx, i)
					streams = append(streams, s)
					ref, att = "attach://media"+strconv.Itoa(k), s
				}
				spoiler := m.Sensitive
				switch dl.reps[i] {
				case repPhoto:
					media = append(media, &models.InputMediaPhoto{Media: ref, MediaAttachment: att, HasSpoiler: spoiler})
				case repVideo:
					media = append(media, &models.InputMediaVideo{Media: ref, MediaAttachment: att, HasSpoiler: spoiler,
						Width: m.Width, Height: m.Height, Duration: m.Duration, SupportsStreaming: true})
				default:
					media = append(media, &models.InputMediaDocument{Media: ref, MediaAttachment: att})
				}
			}
			var err error
			msgs, err = dl.j.ch.tg.bot.SendMediaGroup(ctx, &bot.SendMediaGroupParams{ChatID: d.ChatID, Media: media,
				ReplyParameters: replyParams(d.ReplyToMessageID)})
			return err
		})
		switch {
		case err == nil:
			ids := make([]int64, 0, len(msgs))
			for k, msg := range msgs {
				if k < len(batch) {
					i := batch[k]
					dl.remember(ctx, i, dl.reps[i], fileIDOf(msg, dl.reps[i]), used[i])
				}
				ids = append(ids, int64(msg.ID))
			}
			return ids, nil
		case isPermanent(err):
			return nil, err
		case len(used) > 0 && isInvalidFile(err):
			// Telegram does not say which id it refused: drop those used.
			for i, id := range used {
				dl.forget(ctx, i, dl.reps[i], id)
			}
		case isBadRequest(err) || isTooLarge(err):
			return nil, fmt.Errorf("%w: %v", errAlbumRefused, err)
		default:
			return nil, err
		}
	}
	return nil, errAlbumRefused
}

// fileIDOf is the file_id Telegram gave the media of a sent message.
func fileIDOf(m *models.Message, rep string) string {
	if m == nil {
		return ""
	}
	switch {
	case rep == repPhoto && len(m.Photo) > 0:
		return m.Photo[len(m.Photo)-1].FileID
	case rep == repVideo && m.Video != nil:
		return m.Video.FileID
	case rep == repAnimation && m.Animation != nil:
		return m.Animation.FileID
	case rep == repDocument && m.Document != nil:
		return m.Document.FileID
	}
	return ""
}

// fileName names an upload by its digest and type.
func fileName(m channelapi.Media) string {
	ext := map[string]string{
		"image/jpeg": ".jpg", "image/png": ".png", "image/webp": ".webp", "image/gif": ".gif",
		"video/mp4": ".mp4", "video/webm": ".webm", "video/quicktime": ".mov",
		"audio/mpeg": ".mp3", "audio/ogg": ".ogg", "audio/mp4": ".m4a", "application/pdf": ".pdf",
	}[m.Mime]
	if ext == "" {
		if exts, _ := mime.ExtensionsByType(m.Mime); len(exts) > 0 {
			ext = exts[0]
		} else {
			ext = ".bin"
		}
	}
	name := m.SHA256
	if len(name) > 16 {
		name = name[:16]
	}
	return name + ext
}

// stream opens media i from core on first read, so that an upload streams
// from core to Telegram without holding the file.
func (dl *delivery) stream(ctx context.Context, i int) *mediaStream {
	sha := dl.d.Item.Media[i].SHA256
	return &mediaStream{open: func() (io.ReadCloser, error) {
		rc, _, err := dl.j.ch.core.Media(ctx, dl.j.w.ID, dl.j.ch.owner, sha)
		return rc, err
	}}
}

// mediaStream is a media file read from core when first needed.
type mediaStream struct {
	open func() (io.ReadCloser, error)

	mu     sync.Mutex
	rc     io.ReadCloser
	closed bool
}

func (s *mediaStream) Read(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return 0, errors.New("media stream closed")
	}
	if s.rc == nil {
		rc, err := s.open()
		if err != nil {
			return 0, fmt.Errorf("reading media from core: %w", err)
		}
		s.rc = rc
	}
	return s.rc.Read(p)
}

// Close ends the stream; safe to call more than once.
func (s *mediaStream) Close() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.closed = true
	if s.rc != nil {
		err := s.rc.Close()
		s.rc = nil
		return err
	}
	return nil
}

// progressText words a running capture's stage in l; a core that sends
// no stage has its English description shown.
func progressText(l locale, d channelapi.Delivery) string {
	switch d.Stage {
	case channelapi.StageQueued:
		return l.t("progress.queued")
	case channelapi.StageDownloading:
		return l.t("progress.downloading", d.MediaIndex, d.MediaTotal)
	case channelapi.StageSaving:
		return l.t("progress.saving")
	}
	return d.Progress
}
