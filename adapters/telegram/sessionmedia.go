package telegram

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"unicode/utf16"

	"github.com/gotd/td/telegram/downloader"
	"github.com/gotd/td/tg"
	"github.com/gotd/td/tgerr"

	"github.com/monitorhq/monitor/adapters/kit"
	adapterv1 "github.com/monitorhq/monitor/api/adapter/v1"
)

// mediaRef is the stream_ref of a medium read through a session: the
// file's location as the message gave it, and the message, so an expired
// file reference can be asked again. Core keeps it private and hands it
// back to ReadMedia.
type mediaRef struct {
	V           int    `json:"v"`
	Channel     int64  `json:"c"`
	ChannelHash int64  `json:"ch"`
	Msg         int    `json:"m"`
	Photo       bool   `json:"p,omitempty"`
	ID          int64  `json:"id"`
	Hash        int64  `json:"h"`
	FileRef     []byte `json:"fr"`
	Thumb       string `json:"t,omitempty"`
	Size        int64  `json:"s,omitempty"`
	Mime        string `json:"mt,omitempty"`
}

// String is the reference as Media.stream_ref carries it.
func (r mediaRef) String() string {
	b, _ := json.Marshal(r)
	return string(b)
}

// parseMediaRef reads a stream_ref.
func parseMediaRef(s string) (mediaRef, bool) {
	var r mediaRef
	if json.Unmarshal([]byte(s), &r) != nil || r.V != 1 || r.ID == 0 || r.Channel == 0 || r.Msg <= 0 {
		return r, false
	}
	return r, true
}

// location is the file location upload.getFile reads.
func (r mediaRef) location() tg.InputFileLocationClass {
	if r.Photo {
		return &tg.InputPhotoFileLocation{ID: r.ID, AccessHash: r.Hash, FileReference: r.FileRef, ThumbSize: r.Thumb}
	}
	return &tg.InputDocumentFileLocation{ID: r.ID, AccessHash: r.Hash, FileReference: r.FileRef}
}

// refresh reads the message again for a new file reference of the same
// file.
func (r mediaRef) refresh(ctx context.Context, api *tg.Client) (mediaRef, error) {
	ch := &tg.Channel{ID: r.Channel, AccessHash: r.ChannelHash}
	msgs, err := channelMessages(ctx, api, ch, r.Msg)
	if err != nil {
		return r, err
	}
	for _, m := range msgs {
		if sm, ok := mediaOfMessage(ch, m); ok {
			if fresh, ok := parseMediaRef(sm.media.GetStreamRef()); ok && fresh.ID == r.ID {
				fresh.Thumb = r.Thumb
				return fresh, nil
			}
		}
	}
	return r, answer(kit.Err(adapterv1.ErrorCode_ERROR_CODE_NOT_FOUND, "the medium is gone: its message was deleted or edited"))
}

// chunkWriter sends what the downloader writes as MediaChunks, the first
// with the medium's type and size.
type chunkWriter struct {
	stream adapterv1.Adapter_ReadMediaServer
	mime   string
	size   int64
	sent   int64
}

func (w *chunkWriter) Write(p []byte) (int, error) {
	c := &adapterv1.MediaChunk{Data: p}
	if w.sent == 0 {
		c.Mime, c.Size = w.mime, w.size
	}
	// Send marshals p before it returns, so the downloader may reuse it.
	if err := w.stream.Send(c); err != nil {
		return 0, err
	}
	w.sent += int64(len(p))
	return len(p), nil
}

// ReadMedia streams a medium of a message read through a session with
// upload.getFile, part by part (gotd's downloader: FILE_MIGRATE and
// FLOOD_WAIT handled), so no file is ever whole in memory. An expired file
// reference is asked again once, before any byte went out.
func (a *Adapter) ReadMedia(req *adapterv1.ReadMediaRequest, stream adapterv1.Adapter_ReadMediaServer) error {
	fail := func(e *adapterv1.Error) error { return stream.Send(&adapterv1.MediaChunk{Error: e}) }
	if req.GetProviderId() != ProviderMTProto {
		return fail(kit.Err(adapterv1.ErrorCode_ERROR_CODE_INVALID_REQUEST,
			fmt.Sprintf("provider %s reads no media by reference; the Telegram adapter's provider that does is %s", kit.Quote(req.GetProviderId()), ProviderMTProto)))
	}
	ref, ok := parseMediaRef(req.GetStreamRef())
	if !ok {
		return fail(kit.Err(adapterv1.ErrorCode_ERROR_CODE_INVALID_REQUEST, "not a media reference of the mtproto provider"))
	}
	w := &chunkWriter{stream: stream, mime: ref.Mime, size: ref.Size}
	e := a.withSession(stream.Context(), req.GetCredential(), func(ctx context.Context, api *tg.Client) error {
		d := downloader.NewDownloader().WithPartSize(a.mt.PartSize)
		_, err := d.Download(api, ref.location()).Stream(ctx, w)
		if err != nil && w.sent == 0 && tgerr.Is(err, "FILE_REFERENCE_EXPIRED", "FILE_REFERENCE_INVALID") {
			fresh, rerr := ref.refresh(ctx, api)
			if rerr != nil {
				return rerr
			}
			_, err = d.Download(api, fresh.location()).Stream(ctx, w)
		}
		return err
	})
	if e != nil {
		if w.sent > 0 {
			// What went out is incomplete; core throws it away.
			e.Retryable = e.GetRetryable() || e.GetCode() == adapterv1.ErrorCode_ERROR_CODE_UNAVAILABLE
		}
		return fail(e)
	}
	if w.sent == 0 {
		return stream.Send(&adapterv1.MediaChunk{Mime: ref.Mime})
	}
	return nil
}

// entitiesMarkdown writes a message's text with its formatting entities
// as markdown, in the same marks the public provider's text conversion
// uses: **bold**, _italic_, ~~strike~~, `code`, [links](url). Offsets
// count UTF-16 code units, as Telegram's do.
func entitiesMarkdown(text string, entities []tg.MessageEntityClass) string {
	units := utf16.Encode([]rune(text))
	type mark struct {
		open, close string
		start, end  int
		code        bool
	}
	var marks []mark
	for _, e := range entities {
		start, end := e.GetOffset(), e.GetOffset()+e.GetLength()
		if start < 0 || end > len(units) || start >= end {
			continue
		}
		m := mark{start: start, end: end}
		switch e := e.(type) {
		case *tg.MessageEntityBold:
			m.open, m.close = "**", "**"
		case *tg.MessageEntityItalic:
			m.open, m.close = "_", "_"
		case *tg.MessageEntityStrike:
			m.open, m.close = "~~", "~~"
		case *tg.MessageEntityCode:
			m.code = true
		case *tg.MessageEntityPre:
			m.open, m.close, m.code = "```"+e.Language+"\n", "\n```", true
		case *tg.MessageEntityTextURL:
			m.open, m.close = "[", "]("+markdownURL(e.URL)+")"
		default:
			continue
		}
		marks = append(marks, m)
	}
	// Outer marks first: by start, the longer first.
	slices.SortStableFunc(marks, func(a, b mark) int {
		if a.start != b.start {
			return a.start - b.start
		}
		return b.end - a.end
	})
	decode := func(from, to int) string { return string(utf16.Decode(units[from:to])) }
	var b strings.Builder
	var open []mark
	pos := 0
	flush := func(to int) {
		if to <= pos {
			return
		}
		seg := decode(pos, to)
		if len(open) > 0 && open[len(open)-1].code {
			b.WriteString(seg)
		} else {
			b.WriteString(escapeMarkdown(seg))
		}
		pos = to
	}
	closeTo := func(at int) {
		for len(open) > 0 && open[len(open)-1].end <= at {
			m := open[len(open)-1]
			flush(m.end)
			open = open[:len(open)-1]
			b.WriteString(m.close)
		}
	}
	for _, m := range marks {
		if m.start < pos {
			continue // inside an inline code span already written
		}
		closeTo(m.start)
		if len(open) > 0 && (m.end > open[len(open)-1].end || open[len(open)-1].code) {
			continue // overlapping, or inside code: left as text
		}
		flush(m.start)
		if m.code && m.open == "" {
			b.WriteString(codeSpan(decode(m.start, m.end)))
			pos = m.end
			continue
		}
		b.WriteString(m.open)
		open = append(open, m)
	}
	closeTo(len(units))
	flush(len(units))
	return b.String()
}
