// Package xarchive imports a person's X (Twitter) account archive, the
// zip X lets everyone download, into a tenant's archive: each post becomes
// an x.post collection with the identity a live capture of the same post
// has (platform x, the post id as external id), private to the tenant.
//
// The archive's parts are found through data/manifest.js, which names the
// data files of both layouts (2019–2022: tweet.js, YTD.tweet.part0,
// tweet_media/; 2023 on: tweets.js, YTD.tweets.part0, tweets_media/). Each
// data file is a JavaScript assignment read from after its first "=",
// never by the global's name; ids stay strings (they pass 2^53). Data
// files are streamed one post at a time; media are hashed from the zip
// only when a post names them. Formats: research/peers.md §4.1.
package xarchive

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/monitorhq/monitor/internal/app"
	"github.com/monitorhq/monitor/internal/capsule"
	"github.com/monitorhq/monitor/internal/capsule/importer"
)

// Identity of an X post, as the X adapter gives it (adapters/x).
const (
	Platform          = "x"
	EntityTypePost    = "x.post"
	EntityTypeProfile = "x.profile"
	// Provider names the stand-in captures of imported posts.
	Provider = "x-archive"
)

// manifestPath is where the archive's table of contents lives.
const manifestPath = "data/manifest.js"

// Options control an import.
type Options struct {
	importer.ForeignOptions
	// IncludeRetweets imports the person's retweets ("RT @…", truncated)
	// as posts; by default they are skipped.
	IncludeRetweets bool
	// IncludeDeleted imports deleted-tweets.js, which holds recent
	// deletions; by default it is left out.
	IncludeDeleted bool
	// Now is the import time (nil: time.Now).
	Now func() time.Time
}

// Open opens an X archive folder or zip, refusing unsafe entries.
func Open(p string) (*capsule.Source, error) {
	return importer.OpenForeign(p, "X archive", manifestPath, "data/js/tweet_index.js")
}

// manifest is the part of data/manifest.js the import needs.
type manifest struct {
	UserInfo struct {
		AccountID   string `json:"accountId"`
		UserName    string `json:"userName"`
		DisplayName string `json:"displayName"`
	} `json:"userInfo"`
	ArchiveInfo struct {
		GenerationDate string `json:"generationDate"`
	} `json:"archiveInfo"`
	DataTypes map[string]dataType `json:"dataTypes"`
}

type dataType struct {
	MediaDirectory string `json:"mediaDirectory"`
	Files          []struct {
		FileName string `json:"fileName"`
		Count    str    `json:"count"`
	} `json:"files"`
}

// Import reads an opened archive and writes its posts through the archive
// writer in one go: nothing is written when any part is unreadable.
func Import(ctx context.Context, a *app.App, src *capsule.Source, opts Options) (importer.ForeignReport, error) {
	rep := importer.ForeignReport{Format: "X archive"}
	rep.DryRun = opts.DryRun
	man, err := readManifest(src)
	if err != nil {
		return rep, err
	}
	now := time.Now
	if opts.Now != nil {
		now = opts.Now
	}
	r := &reader{src: src, man: man, opts: opts, media: importer.NewMediaSet(src), captured: now().UTC().Truncate(time.Second)}
	if t, err := time.Parse(time.RFC3339, man.ArchiveInfo.GenerationDate); err == nil {
		r.captured = t.UTC().Truncate(time.Second)
	}
	if err := r.readNotes(); err != nil {
		return rep, err
	}
	tweets, ok := firstType(man, "tweets", "tweet")
	if !ok || len(tweets.Files) == 0 {
		return rep, fmt.Errorf("nothing was imported: %s names no tweets data file (tweets.js or tweet.js); is this a whole X archive?", manifestPath)
	}
	for _, f := range tweets.Files {
		r.total += f.Count.int()
	}
	// The archive is read once to check it whole and hash its media, then
	// twice more by the archive writer; one post at a time each time.
	each := func(fn func(app.ImportCollection) error) error {
		r.reset(fn)
		for _, f := range tweets.Files {
			if err := r.readTweets(ctx, f.FileName, tweets.MediaDirectory, false); err != nil {
				return err
			}
		}
		if del, ok := firstType(man, "deletedTweets", "deletedTweet"); ok {
			for _, f := range del.Files {
				if !src.Has(f.FileName) {
					continue // listed, not included
				}
				if err := r.readTweets(ctx, f.FileName, del.MediaDirectory, true); err != nil {
					return err
				}
			}
		}
		r.progress = nil // the first reading shows it
		return nil
	}
	r.progress = opts.Progress
	err = importer.Write(ctx, a, each, r.media, Provider, opts.ForeignOptions, &rep)
	if r.joined > 0 {
		rep.Notes = append(rep.Notes, fmt.Sprintf("%d long post(s) joined from note-tweet.js", r.joined))
	}
	if n := len(r.notes) - r.joined; n > 0 {
		rep.Notes = append(rep.Notes, fmt.Sprintf("%d note tweet(s) matched no post (their post is not in this archive)", n))
	}
	rep.Skips = r.skips.List()
	rep.Unavailable = r.unavailable
	return rep, err
}

// readManifest reads data/manifest.js, after telling the formats it is not
// apart.
func readManifest(src *capsule.Source) (manifest, error) {
	var man manifest
	if !src.Has(manifestPath) {
		if src.Has("data/js/tweet_index.js") || src.Has("data/js/tweets") || hasPrefix(src, "data/js/tweets/") {
			return man, fmt.Errorf("nothing was imported: %s is an X archive of the old \"Grailbird\" layout (data/js/tweets/YYYY_MM.js, from before 2019), which Monitor does not read; download a new archive from X (Settings → Your account → Download an archive of your data): %w", src.Path, importer.ErrFormat)
		}
		if src.Has("result.json") {
			return man, fmt.Errorf("nothing was imported: %s looks like a Telegram Desktop export; use monitor import telegram-export: %w", src.Path, importer.ErrFormat)
		}
		if src.Has(capsule.ManifestName) || src.Has("ech0.yaml") {
			return man, fmt.Errorf("nothing was imported: %s is a capsule; use monitor import capsule: %w", src.Path, importer.ErrFormat)
		}
		return man, fmt.Errorf("nothing was imported: %s is not an X archive: it has no %s (give the archive's zip, or the folder it unpacks to): %w", src.Path, manifestPath, importer.ErrFormat)
	}
	f, err := importer.OpenData(src, manifestPath)
	if err != nil {
		return man, err
	}
	defer f.Close()
	dec, err := afterEquals(f)
	if err != nil {
		return man, fmt.Errorf("nothing was imported: %s: %w", manifestPath, err)
	}
	if err := dec.Decode(&man); err != nil {
		return man, fmt.Errorf("nothing was imported: %s is not readable: %v: %w", manifestPath, err, importer.ErrFormat)
	}
	return man, nil
}

func hasPrefix(src *capsule.Source, prefix string) bool {
	for _, f := range src.Files() {
		if strings.HasPrefix(f, prefix) {
			return true
		}
	}
	return false
}

func firstType(man manifest, names ...string) (dataType, bool) {
	for _, n := range names {
		if t, ok := man.DataTypes[n]; ok {
			return t, true
		}
	}
	return dataType{}, false
}

// afterEquals positions a JSON decoder after the first "=" of a data file:
// "window.YTD.tweets.part0 = [ … ]", and the old files that start "= [".
func afterEquals(r io.Reader) (*json.Decoder, error) {
	br := bufio.NewReaderSize(r, 64<<10)
	for n := 0; ; n++ {
		b, err := br.ReadByte()
		if err != nil {
			return nil, fmt.Errorf("has no \"=\" before its data; it is not an X archive data file: %w", importer.ErrFormat)
		}
		if b == '=' {
			break
		}
		if n > 4096 || b == '[' || b == '{' {
			return nil, fmt.Errorf("does not start like an X archive data file (window.YTD.… = [ … ]): %w", importer.ErrFormat)
		}
	}
	return json.NewDecoder(br), nil
}

// eachElement decodes a data file's array one element at a time.
func eachElement(name string, r io.Reader, fn func(json.RawMessage) error) error {
	dec, err := afterEquals(r)
	if err != nil {
		return fmt.Errorf("nothing was imported: %s %w", name, err)
	}
	bad := func(err error) error {
		if errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF) {
			return fmt.Errorf("nothing was imported: %s ends in the middle of its data (the file or the zip is cut short): %w", name, importer.ErrFormat)
		}
		return fmt.Errorf("nothing was imported: %s is not readable: %v: %w", name, err, importer.ErrFormat)
	}
	tok, err := dec.Token()
	if err != nil {
		return bad(err)
	}
	if d, ok := tok.(json.Delim); !ok || d != '[' {
		return fmt.Errorf("nothing was imported: %s holds no list after its \"=\": %w", name, importer.ErrFormat)
	}
	for dec.More() {
		var raw json.RawMessage
		if err := dec.Decode(&raw); err != nil {
			return bad(err)
		}
		if err := fn(raw); err != nil {
			return err
		}
	}
	if _, err := dec.Token(); err != nil {
		return bad(err)
	}
	return nil
}
