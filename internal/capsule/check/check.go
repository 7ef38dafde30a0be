// Package check validates a whole capsule: the manifest, every collection
// file, the media each one names (present, inside the capsule, with the
// SHA-256 and size it claims) and ids across files. It reports every
// problem in one run; import and build refuse a capsule with errors.
package check

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"path"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/google/uuid"

	"github.com/monitorhq/monitor/internal/capsule"
)

// Entry is one collection file of a checked capsule.
type Entry struct {
	// Path is the file, relative to the capsule root.
	Path       string
	Collection capsule.Collection
	// OK is false when the file itself has errors.
	OK bool
}

// Result is what a check found.
type Result struct {
	Manifest capsule.Manifest
	// Entries are the collection files, sorted by path.
	Entries  []Entry
	Problems []capsule.Problem
	// Files maps each media path that was verified to its SHA-256.
	Files map[string]string
	// Read maps every other file the check read (the manifest and the
	// collection files) to the SHA-256 of the bytes it read, so that
	// `check --verify` need not read them again.
	Read map[string]string
}

// Errors counts the problems that are errors.
func (r *Result) Errors() int {
	n := 0
	for _, p := range r.Problems {
		if !p.Warning {
			n++
		}
	}
	return n
}

// Warnings counts the problems that are warnings.
func (r *Result) Warnings() int { return len(r.Problems) - r.Errors() }

// Err is nil when the capsule has no errors, and otherwise an error that
// says how many and where to look.
func (r *Result) Err() error {
	n := r.Errors()
	if n == 0 {
		return nil
	}
	first := ""
	for _, p := range r.Problems {
		if !p.Warning {
			first = p.String()
			break
		}
	}
	return fmt.Errorf("the capsule has %d error(s), the first: %s; run `monitor check` on it for the full list", n, first)
}

// Options tune a check.
type Options struct {
	// Progress, when set, is called after each collection file.
	Progress func(done, total int)
}

// Run checks the capsule. It fails only when the capsule cannot be read at
// all; everything wrong inside it is a problem in the result.
func Run(ctx context.Context, src *capsule.Source, opts Options) (*Result, error) {
	r := &Result{Problems: append([]capsule.Problem(nil), src.Problems...), Files: map[string]string{}, Read: map[string]string{}}
	if !src.Has(capsule.ManifestName) {
		r.add(capsule.ManifestName, "file", "missing; a capsule has monitor.yaml at its root with schema_version: 1")
	} else if data, err := src.ReadFile(capsule.ManifestName, capsule.MaxManifestBytes); err != nil {
		r.add(capsule.ManifestName, "file", "%v", err)
	} else {
		r.Read[capsule.ManifestName] = sha256Hex(data)
		var probs []capsule.Problem
		r.Manifest, probs = capsule.ParseManifest(data)
		r.Problems = append(r.Problems, probs...)
	}

	var mdFiles []string
	for _, name := range src.Files() {
		if strings.HasPrefix(name, capsule.CollectionsDir+"/") && strings.HasSuffix(name, ".md") {
			mdFiles = append(mdFiles, name)
		}
	}
	files, hashes, err := readAll(ctx, src, mdFiles, opts.Progress)
	if err != nil {
		return nil, err
	}
	ids := map[string]string{}
	for i, name := range mdFiles {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		if files[i].err != nil {
			r.add(name, "file", "%v", files[i].err)
			continue
		}
		c, probs := files[i].c, files[i].probs
		r.Read[name] = files[i].sum
		files[i] = parsed{} // the entry below keeps what is needed
		e := Entry{Path: name, Collection: c, OK: !hasError(probs)}
		r.Problems = append(r.Problems, probs...)
		if c.ID != "" {
			if other, dup := ids[c.ID]; dup {
				r.add(name, "id", "%s is also the id of %s; every collection needs its own id", c.ID, other)
				e.OK = false
			} else {
				ids[c.ID] = name
			}
		}
		for _, ref := range c.Files() {
			if !r.checkFile(src, name, ref, hashes) {
				e.OK = false
			}
		}
		r.Entries = append(r.Entries, e)
	}
	for name, h := range hashes {
		if h.err == nil {
			r.Files[name] = h.sum
		}
	}
	sort.SliceStable(r.Problems, func(i, j int) bool {
		if r.Problems[i].Warning != r.Problems[j].Warning {
			return !r.Problems[i].Warning
		}
		return r.Problems[i].Path < r.Problems[j].Path
	})
	return r, nil
}

// parsed is one collection file read and parsed.
type parsed struct {
	c     capsule.Collection
	probs []capsule.Problem
	err   error
	sum   string // the SHA-256 of the file's bytes
}

func sha256Hex(b []byte) string {
	s := sha256.Sum256(b)
	return hex.EncodeToString(s[:])
}

// readAll reads and parses the collection files and hashes the media they
// name on GOMAXPROCS workers, each media file once. Run then judges them
// in file order, so the result is the same as one file after another.
func readAll(ctx context.Context, src *capsule.Source, names []string, progress func(done, total int)) ([]parsed, map[string]hashResult, error) {
	out := make([]parsed, len(names))
	var (
		mu     sync.Mutex
		done   int // files read, for progress
		hashes = map[string]hashResult{}
		next   atomic.Int64
		wg     sync.WaitGroup
	)
	hash := func(file string, buf []byte) {
		mu.Lock()
		_, done := hashes[file]
		if !done {
			hashes[file] = hashResult{} // claimed; filled below
		}
		mu.Unlock()
		if done {
			return
		}
		h := hashFile(src, file, buf)
		mu.Lock()
		hashes[file] = h
		mu.Unlock()
	}
	for range runtime.GOMAXPROCS(0) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			buf := make([]byte, 32<<10)
			for {
				i := int(next.Add(1)) - 1
				if i >= len(names) || ctx.Err() != nil {
					return
				}
				if data, err := src.ReadFile(names[i], capsule.MaxCollectionFileBytes); err != nil {
					out[i].err = err
				} else {
					out[i].c, out[i].probs = capsule.ParseCollection(names[i], data)
					out[i].sum = sha256Hex(data)
					for _, ref := range out[i].c.Files() {
						if src.Has(ref.File) {
							hash(ref.File, buf)
						}
					}
				}
				if progress != nil {
					mu.Lock()
					done++
					progress(done, len(names))
					mu.Unlock()
				}
			}
		}()
	}
	wg.Wait()
	if err := ctx.Err(); err != nil {
		return nil, nil, err
	}
	return out, hashes, nil
}

type hashResult struct {
	sum  string
	size int64
	err  error
}

// checkFile verifies one media reference: the file exists inside the
// capsule and has the SHA-256 and size the collection file gives.
func (r *Result) checkFile(src *capsule.Source, name string, ref capsule.FileRef, hashes map[string]hashResult) bool {
	field := ref.Field + ".file"
	if !src.Has(ref.File) {
		r.add(name, field, "%s does not exist in the capsule", ref.File)
		return false
	}
	h, ok := hashes[ref.File]
	if !ok {
		h = hashFile(src, ref.File, nil)
		hashes[ref.File] = h
	}
	if h.err != nil {
		r.add(name, field, "%s cannot be read: %v", ref.File, h.err)
		return false
	}
	good := true
	if ref.SHA256 != "" && h.sum != ref.SHA256 {
		r.add(name, ref.Field+".sha256", "%s has SHA-256 %s, not %s; the file or the frontmatter was changed", ref.File, h.sum, ref.SHA256)
		good = false
	}
	if ref.Size != 0 && h.size != ref.Size {
		r.add(name, ref.Field+".size", "%s is %d bytes, not %d", ref.File, h.size, ref.Size)
		good = false
	}
	return good
}

// hashFile hashes a media file, reading through buf (nil: a new one).
func hashFile(src *capsule.Source, name string, buf []byte) hashResult {
	f, err := src.OpenFile(name)
	if err != nil {
		return hashResult{err: err}
	}
	defer f.Close()
	h := sha256.New()
	n, err := io.CopyBuffer(h, io.LimitReader(f, capsule.MaxMediaBytes+1), buf)
	if err != nil {
		return hashResult{err: err}
	}
	if n > capsule.MaxMediaBytes {
		return hashResult{err: fmt.Errorf("over the %d-byte limit", int64(capsule.MaxMediaBytes))}
	}
	return hashResult{sum: hex.EncodeToString(h.Sum(nil)), size: n}
}

func (r *Result) add(name, field, format string, args ...any) {
	r.Problems = append(r.Problems, capsule.Problem{Path: name, Field: field, Message: fmt.Sprintf(format, args...)})
}

func hasError(probs []capsule.Problem) bool {
	for _, p := range probs {
		if !p.Warning {
			return true
		}
	}
	return false
}

// ErrFixZip is returned when --fix is asked of a zip file.
var ErrFixZip = errors.New("check --fix changes files in place and cannot change a zip; unzip it, fix the folder, and zip it again")

// Fix writes a new UUIDv7 id into every collection file of a capsule
// folder that has no id, the only repair check makes. It returns the files
// it changed.
func Fix(src *capsule.Source, r *Result) ([]string, error) {
	if src.IsZip() {
		return nil, ErrFixZip
	}
	var fixed []string
	for _, p := range r.Problems {
		if p.Field != "id" || p.Warning || !(strings.HasPrefix(p.Message, "missing") || strings.HasPrefix(p.Message, "is empty")) {
			continue
		}
		file := filepath.Join(src.Dir, filepath.FromSlash(p.Path))
		data, err := os.ReadFile(file)
		if err != nil {
			return fixed, fmt.Errorf("check --fix: %w", err)
		}
		out, err := capsule.InsertID(data, uuid.Must(uuid.NewV7()).String())
		if err != nil {
			return fixed, fmt.Errorf("check --fix: %s: %w", p.Path, err)
		}
		if err := writeFileAtomic(file, out); err != nil {
			return fixed, fmt.Errorf("check --fix: %w", err)
		}
		fixed = append(fixed, p.Path)
	}
	return fixed, nil
}

// writeFileAtomic replaces a file by writing a temporary one beside it and
// renaming it, keeping the file's mode.
func writeFileAtomic(name string, data []byte) error {
	mode := os.FileMode(0o644)
	if st, err := os.Stat(name); err == nil {
		mode = st.Mode().Perm()
	}
	tmp, err := os.CreateTemp(filepath.Dir(name), "."+path.Base(filepath.ToSlash(name))+".fix-*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	if _, err := tmp.Write(data); err != nil {
		_ = tmp.Close()
		return err
	}
	if err := tmp.Chmod(mode); err != nil {
		_ = tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), name)
}
