package xarchive

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"html"
	"path"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/monitorhq/monitor/internal/app"
	"github.com/monitorhq/monitor/internal/capsule"
	"github.com/monitorhq/monitor/internal/capsule/importer"
)

// str is an id or count the archive writes as a string (or, in some old
// files, as a number): kept as its digits either way.
type str string

func (s *str) UnmarshalJSON(b []byte) error {
	if bytes.Equal(b, []byte("null")) {
		return nil
	}
	if len(b) > 0 && b[0] == '"' {
		var v string
		if err := json.Unmarshal(b, &v); err != nil {
			return err
		}
		*s = str(v)
		return nil
	}
	*s = str(b)
	return nil
}

func (s str) int() int {
	n, _ := strconv.Atoi(string(s))
	return n
}

type urlEntity struct {
	URL         string `json:"url"`
	ExpandedURL string `json:"expanded_url"`
}

type mediaEntity struct {
	ID            str    `json:"id_str"`
	Type          string `json:"type"`
	MediaURLHTTPS string `json:"media_url_https"`
	MediaURL      string `json:"media_url"`
	URL           string `json:"url"`
	AltText       string `json:"ext_alt_text"`
	Sizes         struct {
		Large struct {
			W str `json:"w"`
			H str `json:"h"`
		} `json:"large"`
	} `json:"sizes"`
	VideoInfo struct {
		DurationMillis str `json:"duration_millis"`
		Variants       []struct {
			Bitrate     str    `json:"bitrate"`
			ContentType string `json:"content_type"`
			URL         string `json:"url"`
		} `json:"variants"`
	} `json:"video_info"`
}

type tweet struct {
	ID                  str      `json:"id_str"`
	IDNum               str      `json:"id"`
	CreatedAt           string   `json:"created_at"`
	FullText            string   `json:"full_text"`
	Text                string   `json:"text"`
	Lang                string   `json:"lang"`
	Source              string   `json:"source"`
	ReplyTo             str      `json:"in_reply_to_status_id_str"`
	ReplyToScreenName   string   `json:"in_reply_to_screen_name"`
	FavoriteCount       str      `json:"favorite_count"`
	RetweetCount        str      `json:"retweet_count"`
	PossiblySensitive   bool     `json:"possibly_sensitive"`
	WithheldInCountries []string `json:"withheld_in_countries"`
	Entities            struct {
		URLs  []urlEntity   `json:"urls"`
		Media []mediaEntity `json:"media"`
	} `json:"entities"`
	ExtendedEntities struct {
		Media []mediaEntity `json:"media"`
	} `json:"extended_entities"`
	EditInfo struct {
		Initial *struct {
			EditTweetIDs []str `json:"editTweetIds"`
		} `json:"initial"`
		Edit *struct {
			InitialTweetID     str `json:"initialTweetId"`
			EditControlInitial struct {
				EditTweetIDs []str `json:"editTweetIds"`
			} `json:"editControlInitial"`
		} `json:"edit"`
	} `json:"edit_info"`
	DeletedAt string `json:"deleted_at"`
}

func (t *tweet) id() string {
	if t.ID != "" {
		return string(t.ID)
	}
	return string(t.IDNum)
}

type note struct {
	ID        str    `json:"noteTweetId"`
	CreatedAt string `json:"createdAt"`
	Core      struct {
		Text string `json:"text"`
		URLs []struct {
			ShortURL    string `json:"shortUrl"`
			ExpandedURL string `json:"expandedUrl"`
		} `json:"urls"`
	} `json:"core"`
	at   time.Time
	used bool
}

// reader turns an archive's data files into posts to import.
type reader struct {
	src      *capsule.Source
	man      manifest
	opts     Options
	media    *importer.MediaSet
	captured time.Time
	notes    []*note
	bySecond map[int64][]*note
	joined   int
	// read and total count posts for the progress bar (total is what the
	// manifest states).
	read, total int
	// dirs indexes each media folder's files by the post id their name
	// starts with.
	dirs        map[string]map[string][]string
	skips       importer.Skips
	unavailable []importer.Unavailable
	// emit receives each post of the current reading; progress, when set,
	// is told as posts are read.
	emit     func(app.ImportCollection) error
	progress func(done, total int)
}

// reset starts a new reading of the archive, whose posts go to emit: what
// the last reading counted is forgotten, the media hashed are kept.
func (r *reader) reset(emit func(app.ImportCollection) error) {
	r.emit, r.read, r.joined = emit, 0, 0
	r.skips, r.unavailable = importer.Skips{}, nil
	for _, n := range r.notes {
		n.used = false
	}
}

// readNotes reads note-tweet.js, the full text of long posts.
func (r *reader) readNotes() error {
	nt, ok := firstType(r.man, "noteTweet")
	r.bySecond = map[int64][]*note{}
	if !ok {
		return nil
	}
	for _, f := range nt.Files {
		if !r.src.Has(f.FileName) {
			continue
		}
		rc, err := importer.OpenData(r.src, f.FileName)
		if err != nil {
			return err
		}
		err = eachElement(f.FileName, rc, func(raw json.RawMessage) error {
			var w struct {
				NoteTweet *note `json:"noteTweet"`
			}
			if err := json.Unmarshal(raw, &w); err != nil || w.NoteTweet == nil {
				return fmt.Errorf("nothing was imported: %s holds an entry that is not a note tweet: %w", f.FileName, importer.ErrFormat)
			}
			n := w.NoteTweet
			at, err := time.Parse(time.RFC3339, n.CreatedAt)
			if err != nil {
				return nil // a note without a time cannot be matched
			}
			n.at = at
			r.notes = append(r.notes, n)
			r.bySecond[at.Unix()] = append(r.bySecond[at.Unix()], n)
			return nil
		})
		_ = rc.Close()
		if err != nil {
			return err
		}
	}
	return nil
}

// readTweets streams one tweets data file.
func (r *reader) readTweets(ctx context.Context, name, mediaDir string, deleted bool) error {
	if !r.src.Has(name) {
		return fmt.Errorf("nothing was imported: %s names %s, which is not in the archive; the archive is incomplete", manifestPath, name)
	}
	if deleted && !r.opts.IncludeDeleted {
		rc, err := importer.OpenData(r.src, name)
		if err != nil {
			return err
		}
		defer rc.Close()
		return eachElement(name, rc, func(json.RawMessage) error {
			r.skips.Add("deleted post (add --include-deleted to import deleted-tweets.js)")
			return nil
		})
	}
	rc, err := importer.OpenData(r.src, name)
	if err != nil {
		return err
	}
	defer rc.Close()
	return eachElement(name, rc, func(raw json.RawMessage) error {
		if err := ctx.Err(); err != nil {
			return err
		}
		var w struct {
			Tweet json.RawMessage `json:"tweet"`
		}
		if err := json.Unmarshal(raw, &w); err != nil {
			return fmt.Errorf("nothing was imported: %s holds an entry that is not a post: %w", name, importer.ErrFormat)
		}
		body := raw
		if len(w.Tweet) > 0 {
			body = w.Tweet // early archives lack the wrapper
		}
		var t tweet
		if err := json.Unmarshal(body, &t); err != nil {
			return fmt.Errorf("nothing was imported: %s holds a post that is not readable: %v: %w", name, err, importer.ErrFormat)
		}
		if !validID(t.id()) {
			return fmt.Errorf("nothing was imported: %s holds a post whose id %q is not an X post id: %w", name, t.id(), importer.ErrFormat)
		}
		text := html.UnescapeString(firstNonEmpty(t.FullText, t.Text))
		if strings.HasPrefix(text, "RT @") && !r.opts.IncludeRetweets {
			r.skips.Add("retweet (add --include-retweets to import them)")
			return nil
		}
		it, err := r.post(&t, text, mediaDir, deleted)
		if err != nil {
			return err
		}
		r.read++
		if p := r.progress; p != nil {
			p(r.read, max(r.read, r.total))
		}
		return r.emit(it)
	})
}

func validID(s string) bool {
	if s == "" || len(s) > 20 || s[0] == '0' {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

func firstNonEmpty(v ...string) string {
	for _, s := range v {
		if s != "" {
			return s
		}
	}
	return ""
}

// statusLink finds the post a link points at (a quote).
var statusLink = regexp.MustCompile(`^https?://(?:www\.|mobile\.)?(?:twitter|x)\.com/[A-Za-z0-9_]+/status(?:es)?/([0-9]{1,20})`)

// post builds one post's collection.
func (r *reader) post(t *tweet, raw, mediaDir string, deleted bool) (app.ImportCollection, error) {
	id := t.id()
	created, err := time.Parse(time.RubyDate, t.CreatedAt)
	if err != nil {
		if created, err = time.Parse("2006-01-02 15:04:05 -0700", t.CreatedAt); err != nil {
			return app.ImportCollection{}, fmt.Errorf("nothing was imported: post %s has no readable created_at (%q): %w", id, t.CreatedAt, importer.ErrFormat)
		}
	}
	created = created.UTC()
	handle := strings.ToLower(r.man.UserInfo.UserName)
	url := "https://x.com/i/status/" + id
	if handle != "" {
		url = "https://x.com/" + handle + "/status/" + id
	}

	mediaList := t.ExtendedEntities.Media
	if len(mediaList) == 0 {
		mediaList = t.Entities.Media
	}
	// The text people read: t.co links expanded, the links of attached
	// media dropped (X shows the media instead).
	text := raw
	for _, m := range mediaList {
		if m.URL != "" {
			text = strings.ReplaceAll(text, m.URL, "")
		}
	}
	var quoteID string
	for _, u := range t.Entities.URLs {
		if u.URL != "" && u.ExpandedURL != "" {
			text = strings.ReplaceAll(text, u.URL, u.ExpandedURL)
		}
		if m := statusLink.FindStringSubmatch(u.ExpandedURL); m != nil && quoteID == "" && m[1] != id {
			quoteID = m[1]
		}
	}
	text = strings.TrimSpace(text)
	noteTweet := false
	if n := r.noteFor(created, raw, mediaList); n != nil {
		text = n.Core.Text
		for _, u := range n.Core.URLs {
			if u.ShortURL != "" && u.ExpandedURL != "" {
				text = strings.ReplaceAll(text, u.ShortURL, u.ExpandedURL)
			}
		}
		noteTweet = true
	}

	data := map[string]any{"id": id, "url": url, "text": text, "raw_text": raw, "created_at": created.Format(time.RFC3339)}
	if t.Lang != "" {
		data["lang"] = t.Lang
	}
	if src := clientName(t.Source); src != "" {
		data["source"] = src
	}
	if t.FavoriteCount != "" {
		data["likes"] = t.FavoriteCount.int()
	}
	if t.RetweetCount != "" {
		data["reposts"] = t.RetweetCount.int()
	}
	if t.PossiblySensitive {
		data["sensitive"] = true
	}
	if noteTweet {
		data["note_tweet"] = true
	}
	if deleted {
		data["deleted"] = true
	}
	if len(t.WithheldInCountries) > 0 {
		data["withheld_in_countries"] = t.WithheldInCountries
	}

	g := app.ImportGraph{Root: "post"}
	rels := []app.RelationView{}
	var extra []app.ImportEntity
	if acct := r.man.UserInfo.AccountID; acct != "" {
		prof, _ := json.Marshal(map[string]any{"id": acct, "handle": r.man.UserInfo.UserName, "name": r.man.UserInfo.DisplayName,
			"url": "https://x.com/" + handle})
		extra = append(extra, app.ImportEntity{Key: "author", Type: EntityTypeProfile, ExternalID: acct, Data: prof})
		rels = append(rels, app.RelationView{From: "post", Relation: "authored_by", To: "author"})
	}
	ref := func(key, rel, other, otherURL string) {
		d, _ := json.Marshal(map[string]any{"id": other, "url": otherURL})
		extra = append(extra, app.ImportEntity{Key: key, Type: EntityTypePost, ExternalID: other, Data: d})
		rels = append(rels, app.RelationView{From: "post", Relation: rel, To: key})
	}
	if rid := string(t.ReplyTo); validID(rid) {
		data["reply_to_id"] = rid
		who := t.ReplyToScreenName
		if who != "" {
			data["reply_to_handle"] = who
		}
		ref("reply_to", "replies_to", rid, "https://x.com/"+cmpOr(strings.ToLower(who), "i")+"/status/"+rid)
	}
	if quoteID != "" {
		data["quote_id"] = quoteID
		ref("quoted", "quotes", quoteID, "https://x.com/i/status/"+quoteID)
	}
	var editIDs []str
	initial := ""
	if e := t.EditInfo.Edit; e != nil {
		editIDs, initial = e.EditControlInitial.EditTweetIDs, string(e.InitialTweetID)
	} else if in := t.EditInfo.Initial; in != nil {
		editIDs = in.EditTweetIDs
	}
	if len(editIDs) > 1 || (initial != "" && initial != id) {
		ids := make([]string, 0, len(editIDs))
		for _, e := range editIDs {
			ids = append(ids, string(e))
		}
		data["edit_ids"] = ids
		if initial == "" && len(ids) > 0 {
			initial = ids[0]
		}
		if validID(initial) && initial != id {
			ref("edit_of", "edit_of", initial, "https://x.com/"+cmpOr(handle, "i")+"/status/"+initial)
		}
	}

	var media []app.ImportMedia
	var mediaData []map[string]any
	used := map[string]bool{}
	for _, m := range mediaList {
		kind, src := mediaKind(m.Type), firstNonEmpty(m.MediaURLHTTPS, m.MediaURL)
		if kind != "image" {
			if v := bestVariant(m); v != "" {
				src = v
			}
		}
		md := map[string]any{"kind": liveKind(m.Type), "url": src}
		file, why := r.findMedia(mediaDir, id, src, used)
		if file == "" {
			md["unavailable"] = why
			mediaData = append(mediaData, md)
			r.unavailable = append(r.unavailable, importer.Unavailable{Post: url, Media: src, Reason: why})
			continue
		}
		used[file] = true
		f, err := r.media.Add(file, kind)
		if err != nil {
			return app.ImportCollection{}, fmt.Errorf("nothing was imported: %s: %w", file, err)
		}
		mediaData = append(mediaData, md)
		media = append(media, app.ImportMedia{SHA256: f.SHA256, Kind: f.Kind, Mime: f.Mime, Size: f.Size,
			Width: m.Sizes.Large.W.int(), Height: m.Sizes.Large.H.int(), DurationMS: m.VideoInfo.DurationMillis.int(),
			Alt: m.AltText, Sensitive: t.PossiblySensitive, SourceURL: src})
	}
	if len(mediaData) > 0 {
		data["media"] = mediaData
	}
	body, err := json.Marshal(data)
	if err != nil {
		return app.ImportCollection{}, err
	}
	g.Entities = append([]app.ImportEntity{{Key: "post", Type: EntityTypePost, ExternalID: id, Data: body}}, extra...)
	g.Relations = rels

	author := cmpOr(r.man.UserInfo.DisplayName, r.man.UserInfo.UserName)
	pub := created
	return app.ImportCollection{
		ID:       importer.ItemID(r.opts.TenantID, Platform, EntityTypePost, "", id),
		Platform: Platform, EntityType: EntityTypePost, ExternalID: id, SourceURL: url,
		// An archive is no proof that a post is public: the import is
		// private to the tenant whatever it claims; the claim lets a
		// later public capture of the post take the copy's place.
		Visibility: "public",
		SavedAt:    created,
		Label:      url,
		Revisions: []app.ImportRevision{{
			CapturedAt: r.captured, Text: text, TextKind: "plain", Summary: summary(author, text, media),
			AuthorName: author, PublishedAt: &pub, Media: media, Graph: g,
		}},
	}, nil
}

func cmpOr(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

// liveKind is the media kind the X adapter records in an x.post's data.
func liveKind(t string) string {
	switch t {
	case "video":
		return "video"
	case "animated_gif":
		return "gif"
	}
	return "photo"
}

func mediaKind(t string) string {
	switch t {
	case "video":
		return "video"
	case "animated_gif":
		return "gif"
	}
	return "image"
}

// bestVariant is the MP4 of the highest bitrate, the file the archive
// keeps for a video or GIF.
func bestVariant(m mediaEntity) string {
	best, rate := "", -1
	for _, v := range m.VideoInfo.Variants {
		if v.ContentType != "video/mp4" && !strings.HasSuffix(strings.SplitN(v.URL, "?", 2)[0], ".mp4") {
			continue
		}
		if b := v.Bitrate.int(); b > rate {
			best, rate = v.URL, b
		}
	}
	return best
}

// findMedia finds the file of a post's media: <post id>-<basename of the
// media URL>, else the first unused file of the folder whose name starts
// with the post id. why says what is missing when nothing is found.
func (r *reader) findMedia(dir, id, src string, used map[string]bool) (file, why string) {
	if dir == "" {
		return "", "the archive names no media folder for these posts"
	}
	base := path.Base(strings.SplitN(src, "?", 2)[0])
	want := dir + "/" + id + "-" + base
	if src != "" && r.src.Has(want) && !used[want] {
		return want, ""
	}
	for _, f := range r.dirIndex(dir)[id] {
		if !used[f] {
			return f, ""
		}
	}
	return "", fmt.Sprintf("not in the archive (no %s, nor any file of %s/ named after post %s)", want, dir, id)
}

func (r *reader) dirIndex(dir string) map[string][]string {
	if r.dirs == nil {
		r.dirs = map[string]map[string][]string{}
	}
	if idx, ok := r.dirs[dir]; ok {
		return idx
	}
	idx := map[string][]string{}
	prefix := dir + "/"
	for _, f := range r.src.Files() {
		if !strings.HasPrefix(f, prefix) || strings.Contains(f[len(prefix):], "/") {
			continue
		}
		name := f[len(prefix):]
		end := 0
		for end < len(name) && name[end] >= '0' && name[end] <= '9' {
			end++
		}
		if end > 0 {
			idx[name[:end]] = append(idx[name[:end]], f)
		}
	}
	for _, v := range idx {
		sort.Strings(v)
	}
	r.dirs[dir] = idx
	return idx
}

// noteFor finds the long post a truncated tweet was cut from: a note
// tweet created within a second of it whose text starts with what the
// tweet shows (its t.co links and ellipsis dropped).
func (r *reader) noteFor(created time.Time, raw string, media []mediaEntity) *note {
	if len(r.notes) == 0 {
		return nil
	}
	prefix := notePrefix(raw)
	var cands []*note
	for d := int64(-1); d <= 1; d++ {
		for _, n := range r.bySecond[created.Unix()+d] {
			if !n.used {
				cands = append(cands, n)
			}
		}
	}
	for _, n := range cands {
		if prefix != "" && strings.HasPrefix(squash(n.Core.Text), prefix) || prefix == "" && len(cands) == 1 {
			n.used = true
			r.joined++
			return n
		}
	}
	return nil
}

var tcoLink = regexp.MustCompile(`https://t\.co/[A-Za-z0-9]+`)

// notePrefix is the part of a truncated tweet's text its note starts with.
func notePrefix(raw string) string {
	s := tcoLink.ReplaceAllString(raw, "")
	s = strings.TrimSpace(s)
	s = strings.TrimSuffix(s, "…")
	s = strings.TrimSuffix(s, "...")
	s = squash(s)
	// The last word may be cut mid-way; compare up to the word before it.
	if i := strings.LastIndexByte(s, ' '); i > 0 && utf8.RuneCountInString(s) > 40 {
		s = s[:i]
	}
	return s
}

// squash collapses runs of white space into one space.
func squash(s string) string { return strings.Join(strings.Fields(s), " ") }

// clientName is the text of the source's <a>, "Twitter Web App".
func clientName(src string) string {
	if i := strings.IndexByte(src, '>'); i >= 0 {
		src = src[i+1:]
	}
	if i := strings.IndexByte(src, '<'); i >= 0 {
		src = src[:i]
	}
	return strings.TrimSpace(html.UnescapeString(src))
}

// summary is the one-line form channels list, as the X adapter writes
// it: "Author：text ⟦image⟧⟦video⟧".
func summary(author, text string, media []app.ImportMedia) string {
	var b strings.Builder
	b.WriteString(author)
	b.WriteString("：")
	line := squash(text)
	b.WriteString(line)
	marks := ""
	for _, m := range media {
		switch m.Kind {
		case "image":
			marks += "⟦image⟧"
		case "video", "gif":
			marks += "⟦video⟧"
		}
	}
	if marks != "" {
		if line != "" {
			b.WriteByte(' ')
		}
		b.WriteString(marks)
	}
	return b.String()
}
