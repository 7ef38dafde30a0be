// Package tgexport imports a Telegram Desktop JSON export (result.json,
// "Export chat history" or "Export Telegram data" in machine-readable
// JSON) into a tenant's archive: each message, or each album, becomes a
// telegram.message collection. A public channel's posts get the identity a
// live capture of t.me/<username>/<id> gives them (the tme adapter's:
// object scope the lowercase username, external id "<username>/<id>"), so
// they meet later captures; everything else gets an identity of its own,
// "c/<chat id>/<id>". Everything is private to the tenant.
//
// Formats: research/peers.md §4.2. text is a string or an array mixing
// strings and {type, text} runs; text_entities is kept as it is. The
// export has no album ids, so consecutive media messages of one date and
// sender with at most one caption are taken as one album. File paths are
// relative to result.json; a sentence in parentheses instead of a path
// means the file was not exported and is reported unavailable.
package tgexport

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"path"
	"strconv"
	"strings"
	"time"

	"github.com/monitorhq/monitor/internal/app"
	"github.com/monitorhq/monitor/internal/capsule"
	"github.com/monitorhq/monitor/internal/capsule/importer"
)

// Identity of a Telegram message, as the Telegram adapter gives it.
const (
	Platform          = "telegram"
	EntityTypeMessage = "telegram.message"
	// Provider names the stand-in captures of imported messages.
	Provider = "telegram-export"
)

const resultName = "result.json"

// Options control an import.
type Options struct {
	importer.ForeignOptions
	// Username is the public username of the exported channel, which the
	// export does not carry; with it a public channel's posts get their
	// t.me/<username>/<id> identity. "" leaves them an identity of their
	// own.
	Username string
}

// Open opens an export folder or zip, refusing unsafe entries.
func Open(p string) (*capsule.Source, error) {
	return importer.OpenForeign(p, "Telegram export", resultName)
}

// export is result.json: one chat, or a whole account's chats.
type export struct {
	chat
	Chats *struct {
		List []chat `json:"list"`
	} `json:"chats"`
	PersonalInformation json.RawMessage `json:"personal_information"`
}

type chat struct {
	Name     string    `json:"name"`
	Type     string    `json:"type"`
	ID       *int64    `json:"id"`
	Username string    `json:"username"`
	Messages []message `json:"messages"`
}

type message struct {
	ID              int64           `json:"id"`
	Type            string          `json:"type"`
	Date            string          `json:"date"`
	DateUnix        string          `json:"date_unixtime"`
	Edited          string          `json:"edited"`
	From            *string         `json:"from"`
	FromID          string          `json:"from_id"`
	Author          string          `json:"author"`
	ForwardedFrom   *string         `json:"forwarded_from"`
	ReplyTo         int64           `json:"reply_to_message_id"`
	Text            json.RawMessage `json:"text"`
	TextEntities    json.RawMessage `json:"text_entities"`
	Photo           string          `json:"photo"`
	File            string          `json:"file"`
	FileName        string          `json:"file_name"`
	MediaType       string          `json:"media_type"`
	MimeType        string          `json:"mime_type"`
	Width           int             `json:"width"`
	Height          int             `json:"height"`
	DurationSeconds int             `json:"duration_seconds"`
	Action          string          `json:"action"`
}

// media is the file of a message: its path (or the sentence saying why it
// is missing) and what the export says about it.
func (m *message) media() (p, kind string, ok bool) {
	switch {
	case m.Photo != "":
		return m.Photo, "image", true
	case m.File != "":
		switch m.MediaType {
		case "video_file", "video_message":
			return m.File, "video", true
		case "animation":
			return m.File, "gif", true
		case "voice_message", "audio_file":
			return m.File, "audio", true
		case "sticker":
			return m.File, "image", true
		}
		return m.File, "", true
	}
	return "", "", false
}

// text joins a message's text, a string or an array of strings and runs.
func (m *message) text() (string, error) {
	if len(m.Text) == 0 || string(m.Text) == "null" {
		return "", nil
	}
	var s string
	if err := json.Unmarshal(m.Text, &s); err == nil {
		return s, nil
	}
	var parts []json.RawMessage
	if err := json.Unmarshal(m.Text, &parts); err != nil {
		return "", fmt.Errorf("message %d: text is neither a string nor a list", m.ID)
	}
	var b strings.Builder
	for _, p := range parts {
		var s string
		if err := json.Unmarshal(p, &s); err == nil {
			b.WriteString(s)
			continue
		}
		var run struct {
			Text string `json:"text"`
		}
		if err := json.Unmarshal(p, &run); err != nil {
			return "", fmt.Errorf("message %d: a part of its text is not readable", m.ID)
		}
		b.WriteString(run.Text)
	}
	return b.String(), nil
}

func (m *message) at() (time.Time, error) {
	if n, err := strconv.ParseInt(m.DateUnix, 10, 64); err == nil {
		return time.Unix(n, 0).UTC(), nil
	}
	// Old exports: local time without a zone; taken as UTC.
	t, err := time.Parse("2006-01-02T15:04:05", m.Date)
	return t.UTC(), err
}

// Import reads an opened export and writes its messages through the
// archive writer in one go.
func Import(ctx context.Context, a *app.App, src *capsule.Source, opts Options) (importer.ForeignReport, error) {
	rep := importer.ForeignReport{Format: "Telegram export"}
	rep.DryRun = opts.DryRun
	if !src.Has(resultName) {
		switch {
		case src.Has("data/manifest.js"):
			return rep, fmt.Errorf("nothing was imported: %s is an X archive; use monitor import x-archive: %w", src.Path, importer.ErrFormat)
		case src.Has(capsule.ManifestName) || src.Has("ech0.yaml"):
			return rep, fmt.Errorf("nothing was imported: %s is a capsule; use monitor import capsule: %w", src.Path, importer.ErrFormat)
		case src.Has("result.html") || src.Has("export_results.html"):
			return rep, fmt.Errorf("nothing was imported: %s is a Telegram export in HTML; export again choosing \"Machine-readable JSON\" as the format: %w", src.Path, importer.ErrFormat)
		}
		return rep, fmt.Errorf("nothing was imported: %s is not a Telegram Desktop export: it has no %s: %w", src.Path, resultName, importer.ErrFormat)
	}
	rc, err := importer.OpenData(src, resultName)
	if err != nil {
		return rep, err
	}
	var ex export
	dec := json.NewDecoder(rc)
	err = dec.Decode(&ex)
	_ = rc.Close()
	if err != nil {
		if errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF) {
			return rep, fmt.Errorf("nothing was imported: %s ends in the middle of its data (the file or the zip is cut short): %w", resultName, importer.ErrFormat)
		}
		return rep, fmt.Errorf("nothing was imported: %s is not readable: %v: %w", resultName, err, importer.ErrFormat)
	}
	var chats []chat
	switch {
	case ex.Chats != nil:
		chats = ex.Chats.List
	case ex.chat.Messages != nil && ex.chat.ID != nil:
		chats = []chat{ex.chat}
	default:
		return rep, fmt.Errorf("nothing was imported: %s holds neither a chat (name, type, id, messages) nor an account's chats (chats.list): %w", resultName, importer.ErrFormat)
	}
	r := &reader{src: src, opts: opts, media: importer.NewMediaSet(src), captured: time.Now().UTC().Truncate(time.Second)}
	for _, c := range chats {
		if err := ctx.Err(); err != nil {
			return rep, err
		}
		if err := r.readChat(c, len(chats) == 1); err != nil {
			return rep, err
		}
	}
	if r.albums > 0 {
		rep.Notes = append(rep.Notes, fmt.Sprintf("%d album(s) grouped from consecutive media messages", r.albums))
	}
	rep.Skips, rep.Unavailable = r.skips.List(), r.unavailable
	err = importer.Write(ctx, a, importer.Slice(r.items), r.media, Provider, opts.ForeignOptions, &rep)
	return rep, err
}

type reader struct {
	src         *capsule.Source
	opts        Options
	media       *importer.MediaSet
	items       []app.ImportCollection
	skips       importer.Skips
	unavailable []importer.Unavailable
	albums      int
	// captured is when the content was seen: the export does not say when
	// it was made, so the import's time.
	captured time.Time
}

// public reports whether a chat's posts have public t.me links.
func public(c chat) bool { return c.Type == "public_channel" || c.Type == "public_supergroup" }

func (r *reader) readChat(c chat, only bool) error {
	if c.ID == nil {
		return fmt.Errorf("nothing was imported: the chat %q has no id: %w", c.Name, importer.ErrFormat)
	}
	username := c.Username
	if username == "" && only {
		username = r.opts.Username
	}
	username = strings.ToLower(strings.TrimPrefix(username, "@"))
	msgs := c.Messages
	for i := 0; i < len(msgs); {
		m := msgs[i]
		if m.Type != "message" {
			r.skips.Add(fmt.Sprintf("%s message (joins, pins, title changes…)", cmpOr(m.Type, "untyped")))
			i++
			continue
		}
		// An album: the media messages that follow, of the same date and
		// sender with consecutive ids, with at most one caption.
		group := []message{m}
		if _, _, ok := m.media(); ok {
			captions := boolInt(hasText(m))
			for k := i + 1; k < len(msgs) && len(group) < 10; k++ {
				n := msgs[k]
				if _, _, ok := n.media(); !ok || n.Type != "message" || n.DateUnix != m.DateUnix || n.Date != m.Date ||
					n.FromID != m.FromID || n.ID != group[len(group)-1].ID+1 || captions+boolInt(hasText(n)) > 1 {
					break
				}
				captions += boolInt(hasText(n))
				group = append(group, n)
			}
		}
		i += len(group)
		if len(group) > 1 {
			r.albums++
		}
		it, err := r.post(c, username, group)
		if err != nil {
			return err
		}
		r.items = append(r.items, it)
		if p := r.opts.Progress; p != nil {
			p(len(r.items), max(len(r.items), len(msgs)))
		}
	}
	return nil
}

func hasText(m message) bool {
	t, _ := m.text()
	return strings.TrimSpace(t) != ""
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

func cmpOr(v ...string) string {
	for _, s := range v {
		if s != "" {
			return s
		}
	}
	return ""
}

// post builds the collection of one message or album.
func (r *reader) post(c chat, username string, group []message) (app.ImportCollection, error) {
	first := group[0]
	chatID := strconv.FormatInt(*c.ID, 10)
	msgID := strconv.FormatInt(first.ID, 10)
	scope, ext, url, claim := "c/"+chatID, "c/"+chatID+"/"+msgID, "", "private"
	switch {
	case public(c) && username != "":
		scope, ext, url, claim = username, username+"/"+msgID, "https://t.me/"+username+"/"+msgID, "public"
	case strings.HasSuffix(c.Type, "_channel") || strings.HasSuffix(c.Type, "_supergroup"):
		url = "https://t.me/c/" + chatID + "/" + msgID
	}
	label := cmpOr(url, fmt.Sprintf("%s (%s) message %s", c.Name, c.Type, msgID))
	at, err := first.at()
	if err != nil {
		return app.ImportCollection{}, fmt.Errorf("nothing was imported: %s: message %d has no readable date: %w", resultName, first.ID, importer.ErrFormat)
	}
	var text string
	var entities []json.RawMessage
	var media []app.ImportMedia
	var mediaData []map[string]any
	ids := make([]int64, 0, len(group))
	for _, m := range group {
		ids = append(ids, m.ID)
		t, err := m.text()
		if err != nil {
			return app.ImportCollection{}, fmt.Errorf("nothing was imported: %s: %v: %w", resultName, err, importer.ErrFormat)
		}
		if strings.TrimSpace(t) != "" && text == "" {
			text = t
		}
		if len(m.TextEntities) > 0 && string(m.TextEntities) != "[]" && string(m.TextEntities) != "null" {
			entities = append(entities, m.TextEntities)
		}
		p, kind, ok := m.media()
		if !ok {
			continue
		}
		md := map[string]any{"message_id": m.ID, "file": p}
		if m.MediaType != "" {
			md["media_type"] = m.MediaType
		}
		if strings.HasPrefix(p, "(") {
			md["unavailable"] = p
			mediaData = append(mediaData, md)
			r.unavailable = append(r.unavailable, importer.Unavailable{Post: label, Media: cmpOr(m.FileName, m.MediaType, "photo"), Reason: p})
			continue
		}
		name := path.Clean(p)
		if !r.src.Has(name) {
			why := "the export names " + p + ", which is not in it"
			md["unavailable"] = why
			mediaData = append(mediaData, md)
			r.unavailable = append(r.unavailable, importer.Unavailable{Post: label, Media: p, Reason: why})
			continue
		}
		f, err := r.media.Add(name, kind)
		if err != nil {
			return app.ImportCollection{}, fmt.Errorf("nothing was imported: %s: %w", name, err)
		}
		if m.MimeType != "" && f.Mime == "application/octet-stream" {
			f.Mime = m.MimeType
		}
		mediaData = append(mediaData, md)
		media = append(media, app.ImportMedia{SHA256: f.SHA256, Kind: f.Kind, Mime: f.Mime, Size: f.Size, Width: m.Width, Height: m.Height,
			DurationMS: m.DurationSeconds * 1000, Alt: m.FileName})
	}

	author := c.Name
	if first.From != nil && *first.From != "" {
		author = *first.From
	}
	data := map[string]any{"id": first.ID, "channel": cmpOr(username, chatID), "chat_name": c.Name, "chat_type": c.Type,
		"text": text, "published_at": at.Format(time.RFC3339), "author_name": author}
	if url != "" {
		data["url"] = url
	}
	if first.FromID != "" {
		data["from_id"] = first.FromID
	}
	if first.Author != "" {
		data["signature"] = first.Author
	}
	if first.Edited != "" {
		data["edited"] = true
	}
	if first.ForwardedFrom != nil {
		data["forwarded_from"] = *first.ForwardedFrom
	}
	if len(entities) == 1 {
		data["text_entities"] = entities[0]
	} else if len(entities) > 1 {
		data["text_entities"] = entities
	}
	if len(group) > 1 {
		data["album_id"] = first.ID
		data["album_ids"] = ids
	}
	if len(mediaData) > 0 {
		data["media"] = mediaData
	}
	g := app.ImportGraph{Root: "message"}
	if first.ReplyTo != 0 {
		data["reply_to"] = first.ReplyTo
		rid := strconv.FormatInt(first.ReplyTo, 10)
		rext := "c/" + chatID + "/" + rid
		if claim == "public" {
			rext = username + "/" + rid
		}
		d, _ := json.Marshal(map[string]any{"id": first.ReplyTo})
		g.Entities = append(g.Entities, app.ImportEntity{Key: "reply_to", Type: EntityTypeMessage, ExternalID: rext, Data: d})
		g.Relations = append(g.Relations, app.RelationView{From: "message", Relation: "replies_to", To: "reply_to"})
	}
	body, err := json.Marshal(data)
	if err != nil {
		return app.ImportCollection{}, err
	}
	g.Entities = append([]app.ImportEntity{{Key: "message", Type: EntityTypeMessage, ExternalID: ext, Data: body}}, g.Entities...)
	return app.ImportCollection{
		ID:       importer.ItemID(r.opts.TenantID, Platform, EntityTypeMessage, scope, ext),
		Platform: Platform, EntityType: EntityTypeMessage, ObjectScope: scope, ExternalID: ext, SourceURL: url,
		Visibility: claim, SavedAt: at, Label: label,
		Revisions: []app.ImportRevision{{
			CapturedAt: r.captured, Text: text, TextKind: "plain", Summary: summary(author, text, media), AuthorName: author,
			PublishedAt: &at, Media: media, Graph: g,
		}},
	}, nil
}

// summary is the one-line form channels list, as the Telegram adapter
// writes it: "Author：text ⟦image⟧".
func summary(author, text string, media []app.ImportMedia) string {
	line := strings.Join(strings.Fields(text), " ")
	var marks strings.Builder
	for _, m := range media {
		switch m.Kind {
		case "image":
			marks.WriteString("⟦image⟧")
		case "video", "gif":
			marks.WriteString("⟦video⟧")
		case "audio":
			marks.WriteString("⟦audio⟧")
		default:
			marks.WriteString("⟦file⟧")
		}
	}
	s := author + "：" + line
	if marks.Len() > 0 {
		if line != "" {
			s += " "
		}
		s += marks.String()
	}
	return s
}
