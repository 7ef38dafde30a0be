// Package export writes a tenant's archive as a capsule: a dump of the
// store and the blob store into the capsule v1 layout, staged beside the
// output and moved into place only when everything was written.
package export

import (
	"archive/zip"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"runtime"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/google/uuid"

	"github.com/monitorhq/monitor/internal/app"
	"github.com/monitorhq/monitor/internal/blob"
	"github.com/monitorhq/monitor/internal/capsule"
	"github.com/monitorhq/monitor/internal/capsule/ech0"
	"github.com/monitorhq/monitor/internal/chain"
)

// Options say what to export and where.
type Options struct {
	TenantID   uuid.UUID
	TenantName string
	// Out is the capsule folder to create, or the zip file with Zip. It
	// must not exist, or be an empty folder.
	Out            string
	Zip            bool
	IncludePrivate bool
	History        bool
	// Query, when not empty, exports only the collections it matches (the
	// search language of app.ParseQuery). A bad query, or one that matches
	// nothing to export, writes nothing and fails the export.
	Query string
	// Generator names this program in the manifest.
	Generator string
	// Now is the export time (nil: time.Now).
	Now func() time.Time
	// Progress, when set, is called after each collection.
	Progress func(done, total int)
	// Flavor is the capsule's format: "" (or "monitor") for Monitor's own,
	// "ech0" for a capsule Ech0 imports (internal/capsule/ech0).
	Flavor string
}

// Flavors are the values of Options.Flavor.
const (
	FlavorMonitor = "monitor"
	FlavorEch0    = "ech0"
)

// Result says what an export wrote.
type Result struct {
	Path        string
	Collections int
	// Skipped counts collections left out: private ones (without
	// IncludePrivate) and ones with no completed capture yet.
	Skipped int
	Files   int
	// Bytes is the capsule's size: every file written.
	Bytes int64
}

// MissingMedia is a media file the export could not read.
type MissingMedia struct {
	SHA256 string
	// Path is the collection file that references it.
	Path string
	Err  error
}

// MediaError fails an export whose media could not all be read; Missing
// lists every one. Nothing is written then.
type MediaError struct {
	Missing []MissingMedia
}

// Error says how many media could not be read, naming the first.
func (e *MediaError) Error() string {
	m := e.Missing[0]
	return fmt.Sprintf("could not read %d media file(s), so no capsule was written; the first: %s (in %s): %v",
		len(e.Missing), m.SHA256, m.Path, m.Err)
}

// Export writes the tenant's archive as a capsule.
func Export(ctx context.Context, a *app.App, opts Options) (Result, error) {
	res := Result{Path: opts.Out}
	now := time.Now
	if opts.Now != nil {
		now = opts.Now
	}
	if opts.Query != "" {
		if _, err := app.ParseQuery(opts.Query, now()); err != nil {
			return res, fmt.Errorf("export: --query: %w", err)
		}
	}
	switch opts.Flavor {
	case "", FlavorMonitor, FlavorEch0:
	default:
		return res, fmt.Errorf("export: --flavor %q: choose %s or %s", opts.Flavor, FlavorMonitor, FlavorEch0)
	}
	if err := checkOut(opts.Out, opts.Zip); err != nil {
		return res, err
	}
	parent := filepath.Dir(filepath.Clean(opts.Out))
	staging, err := os.MkdirTemp(parent, "."+filepath.Base(opts.Out)+".staging-")
	if err != nil {
		return res, fmt.Errorf("export: cannot stage beside %s: %w", opts.Out, err)
	}
	defer os.RemoveAll(staging)

	total, err := a.CountCollections(ctx, opts.TenantID)
	if err != nil {
		return res, err
	}
	w := &writer{root: staging, written: map[string]bool{}, dirs: map[string]bool{}}
	paths := map[string]string{} // path → collection id, to keep names unique
	pool := newFilePool(ctx, w, a, opts.TenantID, func(done int) {
		if opts.Progress != nil {
			opts.Progress(done, total)
		}
	})
	res.Skipped, err = a.ExportCollections(ctx, opts.TenantID, app.ExportOptions{IncludePrivate: opts.IncludePrivate, History: opts.History, Query: opts.Query},
		func(ec app.ExportedCollection) error {
			c := FromExported(ec)
			p := capsule.CollectionPath(&c)
			var encode func() ([]byte, error)
			cRefs := refs(&c)
			if opts.Flavor == FlavorEch0 {
				var e *ech0.Echo
				p, e, cRefs = echoOf(&c)
				encode = func() ([]byte, error) { return ech0.Encode(e) }
			}
			if other, taken := paths[p]; taken && other != c.ID {
				p = strings.TrimSuffix(p, ".md") + "-" + c.ID + ".md"
			}
			paths[p] = c.ID
			// Each media file is copied once, by the first collection
			// that names it.
			var media []mediaRef
			for _, ref := range cRefs {
				if !w.written[ref.file] {
					w.written[ref.file] = true
					media = append(media, ref)
				}
			}
			res.Collections++
			return pool.add(fileJob{path: p, coll: c, media: media, encode: encode, keys: ec.MediaKeys})
		})
	missing, werr := pool.wait()
	if err == nil {
		err = werr
	}
	if err != nil {
		return res, err
	}
	if len(missing) > 0 {
		return res, &MediaError{Missing: missing}
	}
	if opts.Query != "" && res.Collections == 0 {
		return res, noMatch(opts)
	}
	man := capsule.Manifest{
		SchemaVersion: capsule.SchemaVersion,
		Generator:     opts.Generator,
		ExportedAt:    now().UTC().Truncate(time.Second),
		Site:          capsule.Site{Title: opts.TenantName + " — archive", Description: "Posts archived with Monitor"},
		Owner:         capsule.Owner{Name: opts.TenantName},
	}
	manName := capsule.ManifestName
	var data []byte
	if opts.Flavor == FlavorEch0 {
		manName = ech0.ManifestName
		data, err = ech0.EncodeManifest(&ech0.Manifest{SchemaVersion: ech0.SchemaVersion, Generator: opts.Generator,
			ExportedAt: man.ExportedAt.Format(time.RFC3339), Site: ech0.Site{SiteTitle: man.Site.Title},
			Owner: ech0.Owner{Username: opts.TenantName}})
	} else {
		data, err = capsule.MarshalManifest(&man)
	}
	if err != nil {
		return res, err
	}
	if err := w.write(manName, data); err != nil {
		return res, err
	}
	if opts.Flavor != FlavorEch0 {
		if err := writeHugo(w, man.Site.Title); err != nil {
			return res, fmt.Errorf("export: %w", err)
		}
	}
	// Last: monitor.sum covers every file written before it.
	if err := w.sign(a); err != nil {
		return res, err
	}
	res.Files, res.Bytes = w.files, w.bytes
	if opts.Zip {
		tmp, err := zipDir(staging, parent, filepath.Base(opts.Out), man.ExportedAt)
		if err != nil {
			return res, err
		}
		if err := os.Rename(tmp, opts.Out); err != nil {
			_ = os.Remove(tmp)
			return res, fmt.Errorf("export: %w", err)
		}
		if err := blob.SyncDir(parent); err != nil {
			return res, fmt.Errorf("export: %w", err)
		}
		if st, err := os.Stat(opts.Out); err == nil {
			res.Bytes = st.Size()
		}
		return res, nil
	}
	if err := os.Chmod(staging, dirPerm); err != nil {
		return res, fmt.Errorf("export: %w", err)
	}
	// The files were written without a sync each; they are made durable
	// together before the capsule takes its name, and the rename after
	// it, so a capsule found under its name after a crash is whole.
	if err := blob.SyncTree(staging); err != nil {
		return res, fmt.Errorf("export: %w", err)
	}
	if err := os.Rename(staging, opts.Out); err != nil {
		return res, fmt.Errorf("export: move the capsule into place: %w", err)
	}
	if err := blob.SyncDir(parent); err != nil {
		return res, fmt.Errorf("export: %w", err)
	}
	return res, nil
}

// noMatch is the error of a --query that leaves nothing to export: an
// empty capsule is more likely a mistyped query than a wish, so nothing is
// written.
func noMatch(opts Options) error {
	hint := "check the query with monitor's search, or leave out --query to export everything"
	if !opts.IncludePrivate {
		hint = "private collections are left out without --include-private; " + hint
	}
	return fmt.Errorf("export: no collection to export matches --query %q, so no capsule was written (%s)", opts.Query, hint)
}

// checkOut refuses an output that exists, unless it is an empty folder.
func checkOut(out string, zip bool) error {
	if out == "" {
		return errors.New("export: name the output with -o")
	}
	st, err := os.Stat(out)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("export: %w", err)
	}
	if !st.IsDir() {
		return fmt.Errorf("export: %s exists already; choose another -o or remove it", out)
	}
	entries, err := os.ReadDir(out)
	if err != nil {
		return fmt.Errorf("export: %w", err)
	}
	if len(entries) > 0 {
		return fmt.Errorf("export: %s is not empty; choose another -o or empty it first", out)
	}
	if zip {
		return fmt.Errorf("export: %s is a folder; name a .zip file with -o", out)
	}
	return nil // renaming the staged folder replaces the empty one
}

type mediaRef struct {
	sha, file string
}

func refs(c *capsule.Collection) []mediaRef {
	var out []mediaRef
	for _, f := range c.Files() {
		out = append(out, mediaRef{sha: f.SHA256, file: f.File})
	}
	return out
}

// A capsule is for its owner and the people they choose: readable by the
// group, not by everyone on the machine (it may hold private posts).
const (
	filePerm = 0o640
	dirPerm  = 0o750
)

type writer struct {
	root string
	// written holds the media files claimed for copying (the exporting
	// goroutine's own); dirs the folders made (under mu).
	written map[string]bool
	mu      sync.Mutex
	dirs    map[string]bool
	files   int
	bytes   int64
	// sums are the SHA-256s of the files written, for monitor.sum.
	sums []chain.SumEntry
}

// sign writes monitor.sum, listing every file written with its SHA-256,
// and monitor.sum.sig, the instance's signature over it (left out when the
// instance has no signing key).
func (w *writer) sign(a *app.App) error {
	w.mu.Lock()
	sum := chain.FormatSum(w.sums)
	w.mu.Unlock()
	sig, err := a.SignSum(sum)
	if err := w.write(chain.SumName, sum); err != nil {
		return err
	}
	if errors.Is(err, app.ErrNoSigningKey) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("export: sign: %w", err)
	}
	return w.write(chain.SigName, sig)
}

// mkdir makes the folder of a file once.
func (w *writer) mkdir(p string) error {
	dir := filepath.Dir(p)
	w.mu.Lock()
	made := w.dirs[dir]
	w.mu.Unlock()
	if made {
		return nil
	}
	if err := os.MkdirAll(dir, dirPerm); err != nil {
		return err
	}
	w.mu.Lock()
	w.dirs[dir] = true
	w.mu.Unlock()
	return nil
}

func (w *writer) count(name string, n int64, sum []byte) {
	w.mu.Lock()
	w.files++
	w.bytes += n
	if name != chain.SumName && name != chain.SigName {
		w.sums = append(w.sums, chain.SumEntry{SHA256: hex.EncodeToString(sum), Path: name})
	}
	w.mu.Unlock()
}

func (w *writer) write(name string, data []byte) error {
	p := filepath.Join(w.root, filepath.FromSlash(name))
	if err := w.mkdir(p); err != nil {
		return fmt.Errorf("export: %w", err)
	}
	if err := os.WriteFile(p, data, filePerm); err != nil {
		return fmt.Errorf("export: %w", err)
	}
	sum := sha256.Sum256(data)
	w.count(name, int64(len(data)), sum[:])
	return nil
}

func (w *writer) copyMedia(ctx context.Context, a *app.App, tenantID uuid.UUID, keys map[string]string, ref mediaRef, buf []byte) error {
	rc, err := a.OpenExportedMedia(ctx, tenantID, keys, ref.sha)
	if err != nil {
		return err
	}
	defer rc.Close()
	p := filepath.Join(w.root, filepath.FromSlash(ref.file))
	if err := w.mkdir(p); err != nil {
		return err
	}
	f, err := os.OpenFile(p, os.O_CREATE|os.O_WRONLY|os.O_TRUNC, filePerm)
	if err != nil {
		return err
	}
	h := sha256.New()
	n, err := io.CopyBuffer(io.MultiWriter(f, h), rc, buf)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		_ = os.Remove(p)
		return err
	}
	w.count(ref.file, n, h.Sum(nil))
	return nil
}

// fileJob is one collection to write: its file and the media it is the
// first to name.
type fileJob struct {
	path  string
	coll  capsule.Collection
	media []mediaRef
	// encode, when set, writes the file in another flavor than Monitor's.
	encode func() ([]byte, error)
	// keys are the blob store keys of the collection's media
	// (app.ExportedCollection.MediaKeys).
	keys map[string]string
}

// filePool writes collections and copies their media on a few workers,
// while the exporting goroutine reads the next ones from the archive.
type filePool struct {
	ctx      context.Context
	cancel   context.CancelFunc
	jobs     chan fileJob
	wg       sync.WaitGroup
	mu       sync.Mutex
	err      error // the first write error: it ends the export
	missing  []MissingMedia
	done     int
	progress func(done int)
}

func newFilePool(ctx context.Context, w *writer, a *app.App, tenantID uuid.UUID, progress func(int)) *filePool {
	ctx, cancel := context.WithCancel(ctx)
	p := &filePool{ctx: ctx, cancel: cancel, jobs: make(chan fileJob, 64), progress: progress}
	for range max(2, runtime.GOMAXPROCS(0)) {
		p.wg.Go(func() {
			buf := make([]byte, 256<<10)
			for j := range p.jobs {
				p.run(w, a, tenantID, j, buf)
			}
		})
	}
	return p
}

func (p *filePool) run(w *writer, a *app.App, tenantID uuid.UUID, j fileJob, buf []byte) {
	if p.ctx.Err() != nil {
		return
	}
	var missing []MissingMedia
	for _, ref := range j.media {
		if err := w.copyMedia(p.ctx, a, tenantID, j.keys, ref, buf); err != nil {
			if p.ctx.Err() != nil {
				return
			}
			missing = append(missing, MissingMedia{SHA256: ref.sha, Path: j.path, Err: err})
		}
	}
	var data []byte
	var err error
	if j.encode != nil {
		data, err = j.encode()
	} else {
		data, err = capsule.MarshalCollection(&j.coll)
	}
	if err != nil {
		err = fmt.Errorf("export: %s: %w", j.path, err)
	} else {
		err = w.write(j.path, data)
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	p.missing = append(p.missing, missing...)
	if err != nil {
		if p.err == nil {
			p.err = err
		}
		p.cancel()
		return
	}
	p.done++
	p.progress(p.done)
}

// add hands a collection to the workers; it fails once one of them has.
func (p *filePool) add(j fileJob) error {
	select {
	case p.jobs <- j:
		return nil
	case <-p.ctx.Done():
		p.mu.Lock()
		defer p.mu.Unlock()
		if p.err != nil {
			return p.err
		}
		return p.ctx.Err()
	}
}

// wait lets the workers finish, and returns the media that could not be
// read, in the order of their collections' files, and the first error.
func (p *filePool) wait() ([]MissingMedia, error) {
	close(p.jobs)
	p.wg.Wait()
	p.cancel()
	sort.SliceStable(p.missing, func(i, k int) bool { return p.missing[i].Path < p.missing[k].Path })
	return p.missing, p.err
}

// zipDir packs a staged capsule into a zip file beside its destination,
// entries sorted and dated at the export time, and returns its path.
func zipDir(dir, parent, base string, at time.Time) (string, error) {
	var names []string
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		names = append(names, filepath.ToSlash(rel))
		return nil
	})
	if err != nil {
		return "", fmt.Errorf("export: %w", err)
	}
	sort.Strings(names)
	tmp, err := os.CreateTemp(parent, "."+base+".staging-*.zip")
	if err != nil {
		return "", fmt.Errorf("export: %w", err)
	}
	fail := func(err error) (string, error) {
		_ = tmp.Close()
		_ = os.Remove(tmp.Name())
		return "", fmt.Errorf("export: write zip: %w", err)
	}
	zw := zip.NewWriter(tmp)
	for _, name := range names {
		method := zip.Deflate
		if strings.HasPrefix(name, capsule.FilesDir+"/") {
			method = zip.Store // media are compressed already
		}
		hw, err := zw.CreateHeader(&zip.FileHeader{Name: name, Method: method, Modified: at})
		if err != nil {
			return fail(err)
		}
		f, err := os.Open(filepath.Join(dir, filepath.FromSlash(name)))
		if err != nil {
			return fail(err)
		}
		_, err = io.Copy(hw, f)
		_ = f.Close()
		if err != nil {
			return fail(err)
		}
	}
	if err := zw.Close(); err != nil {
		return fail(err)
	}
	if err := tmp.Sync(); err != nil { // durable before it takes its name
		return fail(err)
	}
	if err := tmp.Close(); err != nil {
		return fail(err)
	}
	if err := os.Chmod(tmp.Name(), filePerm); err != nil {
		return fail(err)
	}
	return tmp.Name(), nil
}

// FromExported turns an exported collection into its capsule form.
func FromExported(ec app.ExportedCollection) capsule.Collection {
	cur := ec.Current
	c := capsule.Collection{
		ID: ec.ID.String(), Platform: ec.Platform, Kind: ec.EntityType, ObjectScope: ec.ObjectScope,
		ExternalID: ec.ExternalID, URL: ec.SourceURL, Visibility: ec.Visibility, SavedAt: ec.SavedAt.UTC(),
		PublishedAt: utcPtr(cur.PublishedAt), CapturedAt: cur.CreatedAt.UTC(),
		Summary: cur.Summary, TextKind: cur.TextKind, Text: cur.Text,
		Media: media(cur), Graph: graph(cur.Graph),
	}
	if ec.ClaimedVisibility != ec.Visibility {
		c.ClaimedVisibility = ec.ClaimedVisibility
	}
	c.Author = author(cur)
	c.Tags = Hashtags(cur.Text)
	for _, m := range c.Media {
		c.Sensitive = c.Sensitive || m.Sensitive
	}
	if root := rootData(cur.Graph); root != nil {
		if s, ok := root["sensitive"].(bool); ok && s {
			c.Sensitive = true
		}
	}
	if len(ec.Chain) > 0 {
		ch := &capsule.Chain{Version: chain.Version, Head: ec.Chain[len(ec.Chain)-1].ChainHash}
		for _, l := range ec.Chain {
			at, _ := chain.ParseTime(l.CapturedAt)
			ch.Revisions = append(ch.Revisions, capsule.ChainLink{Time: at, PrevHash: l.PrevHash, ChainHash: l.ChainHash,
				ContentHash: l.ContentHash, Media: l.Media, Raw: l.Raw, AdapterID: l.AdapterID, AdapterVersion: l.AdapterVersion})
		}
		c.Chain = ch
	}
	for _, h := range ec.History {
		c.History = append(c.History, capsule.Revision{
			CapturedAt: h.CreatedAt.UTC(), PublishedAt: utcPtr(h.PublishedAt), AuthorName: h.AuthorName,
			Summary: h.Summary, TextKind: h.TextKind, Media: media(h), Graph: graph(h.Graph), Text: h.Text,
		})
	}
	return c
}

func utcPtr(t *time.Time) *time.Time {
	if t == nil {
		return nil
	}
	u := t.UTC()
	return &u
}

func media(r app.ExportedRevision) []capsule.Media {
	var out []capsule.Media
	for i, m := range r.Media {
		cm := capsule.Media{File: capsule.FilePath(m.SHA256, m.Mime), SHA256: m.SHA256, Kind: m.Kind, Mime: m.Mime, Size: m.Size,
			Width: m.Width, Height: m.Height, DurationMS: m.DurationMS, Alt: m.Alt, Sensitive: m.Sensitive}
		if i < len(r.MediaSources) {
			cm.SourceURL = r.MediaSources[i]
		}
		out = append(out, cm)
	}
	return out
}

func graph(g app.GraphView) capsule.Graph {
	out := capsule.Graph{Root: g.Root}
	for _, e := range g.Entities {
		ce := capsule.Entity{Key: e.Key, Type: e.Type, ExternalID: e.ExternalID, Data: e.Data}
		for _, r := range e.Resources {
			ce.Resources = append(ce.Resources, capsule.Resource{Purpose: r.Purpose, File: capsule.FilePath(r.SHA256, r.Mime),
				SHA256: r.SHA256, Kind: r.Kind, Mime: r.Mime, Size: r.Size})
		}
		out.Entities = append(out.Entities, ce)
	}
	for _, r := range g.Relations {
		out.Relations = append(out.Relations, capsule.Relation{From: r.From, Relation: r.Relation, To: r.To})
	}
	return out
}

func entityData(g app.GraphView, key string) map[string]any {
	for _, e := range g.Entities {
		if e.Key == key {
			var m map[string]any
			if json.Unmarshal(e.Data, &m) == nil {
				return m
			}
		}
	}
	return nil
}

func rootData(g app.GraphView) map[string]any { return entityData(g, g.Root) }

// author names the post's author, with the handle and profile address
// found in the graph (the root's authored_by entity, or the root itself
// when it is a profile).
func author(r app.ExportedRevision) capsule.Author {
	a := capsule.Author{Name: r.AuthorName}
	var data map[string]any
	for _, rel := range r.Graph.Relations {
		if rel.From == r.Graph.Root && rel.Relation == "authored_by" {
			data = entityData(r.Graph, rel.To)
			break
		}
	}
	if data == nil && strings.HasSuffix(rootType(r.Graph), ".profile") {
		data = rootData(r.Graph)
	}
	if data != nil {
		a.Handle, _ = data["handle"].(string)
		a.URL, _ = data["url"].(string)
		if a.Name == "" {
			a.Name, _ = data["name"].(string)
		}
	}
	return a
}

func rootType(g app.GraphView) string {
	for _, e := range g.Entities {
		if e.Key == g.Root {
			return e.Type
		}
	}
	return ""
}

var hashtag = regexp.MustCompile(`(?:^|[^\p{L}\p{N}_&/])#([\p{L}\p{N}_]*\p{L}[\p{L}\p{N}_]*)`)

// Hashtags are the tags an export gives a post: the distinct #hashtags of
// its text, lowercased and sorted.
func Hashtags(text string) []string {
	seen := map[string]bool{}
	var out []string
	for _, m := range hashtag.FindAllStringSubmatch(text, -1) {
		t := strings.ToLower(m[1])
		if !seen[t] {
			seen[t] = true
			out = append(out, t)
		}
	}
	sort.Strings(out)
	return out
}

// CollectionFile renders one collection as its capsule collection file:
// the file's name (<YYYY-MM-DD>-<id>.md) and bytes. Core's pushes to
// cloud destinations write it next to the media (app.CollectionFile).
func CollectionFile(ec app.ExportedCollection) (string, []byte, error) {
	c := FromExported(ec)
	data, err := capsule.MarshalCollection(&c)
	return path.Base(capsule.CollectionPath(&c)), data, err
}
