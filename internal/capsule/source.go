package capsule

import (
	"archive/zip"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strings"
)

// Source is an opened capsule: a folder or a zip file. Its file list holds
// only regular files that stay inside the capsule; entries that would
// leave it (symlinks pointing out, zip names with .. or a leading /) are
// reported as problems and never read.
type Source struct {
	// Path is what was opened.
	Path string
	// Dir is the capsule folder ("" for a zip).
	Dir string
	// Problems are the structural problems found while opening.
	Problems []Problem

	fsys  fs.FS
	files map[string]int64 // slash path → size
	names []string         // sorted
	zip   *zip.ReadCloser
	// what names the format in errors; markers find a zip's root.
	what    string
	markers []string
}

// Open opens a capsule folder or zip file and lists its files.
func Open(p string) (*Source, error) {
	// An Ech0 capsule (internal/capsule/ech0) opens the same way.
	return OpenTree(p, "capsule", ManifestName, "ech0.yaml")
}

// OpenTree opens a folder or zip file of another format (an X archive, a
// Telegram export) with the same guards as a capsule: what names the
// format in errors, and the first of markers found in a zip, directly or
// under its one top folder, sets the zip's root, so a zip of the folder
// reads like the folder.
func OpenTree(p, what string, markers ...string) (*Source, error) {
	st, err := os.Stat(p)
	if err != nil {
		return nil, fmt.Errorf("%s: %s: %w", what, p, unwrapPathErr(err))
	}
	s := &Source{Path: p, files: map[string]int64{}, what: what, markers: markers}
	if st.IsDir() {
		err = s.openDir(p)
	} else {
		err = s.openZip(p)
	}
	if err != nil {
		_ = s.Close()
		return nil, err
	}
	for name := range s.files {
		s.names = append(s.names, name)
	}
	sort.Strings(s.names)
	return s, nil
}

// IsZip reports whether the capsule is a zip file.
func (s *Source) IsZip() bool { return s.zip != nil }

// Close releases the zip file, if any.
func (s *Source) Close() error {
	if s.zip != nil {
		err := s.zip.Close()
		s.zip = nil
		return err
	}
	return nil
}

// Files lists the capsule's readable files, sorted.
func (s *Source) Files() []string { return s.names }

// Has reports whether a readable file exists at a slash path.
func (s *Source) Has(name string) bool {
	_, ok := s.files[name]
	return ok
}

// Size is a file's size.
func (s *Source) Size(name string) int64 { return s.files[name] }

// OpenFile opens a listed file for reading.
func (s *Source) OpenFile(name string) (io.ReadCloser, error) {
	if !s.Has(name) {
		return nil, fmt.Errorf("capsule: %s: %w", name, fs.ErrNotExist)
	}
	return s.fsys.Open(name)
}

// ReadFile reads a listed file whole, refusing one over limit bytes.
func (s *Source) ReadFile(name string, limit int64) ([]byte, error) {
	if s.Size(name) > limit {
		return nil, fmt.Errorf("is %d bytes, over the %d-byte limit", s.Size(name), limit)
	}
	f, err := s.OpenFile(name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, limit+1))
	if err != nil {
		return nil, err
	}
	if int64(len(b)) > limit {
		return nil, fmt.Errorf("is over the %d-byte limit", limit)
	}
	return b, nil
}

func (s *Source) problem(name, field, format string, args ...any) {
	s.Problems = append(s.Problems, Problem{Path: name, Field: field, Message: fmt.Sprintf(format, args...)})
}

func (s *Source) openDir(dir string) error {
	root, err := filepath.Abs(dir)
	if err != nil {
		return fmt.Errorf("%s: %s: %w", s.what, dir, err)
	}
	real, err := filepath.EvalSymlinks(root)
	if err != nil {
		return fmt.Errorf("%s: %s: %w", s.what, dir, unwrapPathErr(err))
	}
	s.Dir = root
	s.fsys = os.DirFS(real)
	return filepath.WalkDir(real, func(p string, de fs.DirEntry, err error) error {
		if err != nil {
			return fmt.Errorf("%s: read %s: %w", s.what, p, unwrapPathErr(err))
		}
		rel, _ := filepath.Rel(real, p)
		name := filepath.ToSlash(rel)
		if name == "." {
			return nil
		}
		if de.Type()&fs.ModeSymlink != 0 {
			target, err := filepath.EvalSymlinks(p)
			if err != nil {
				s.problem(name, "file", "is a broken symlink")
				return nil
			}
			if !within(real, target) {
				link, _ := os.Readlink(p)
				s.problem(name, "file", "is a symlink to %s, which leaves the capsule; copy the file in instead", link)
				return nil
			}
			st, err := os.Stat(target)
			if err == nil && st.Mode().IsRegular() {
				s.files[name] = st.Size()
			}
			return nil
		}
		if de.IsDir() {
			if strings.HasPrefix(de.Name(), ".") && name != "." && name != HugoDir {
				return fs.SkipDir // .git, editor state
			}
			return nil
		}
		if !de.Type().IsRegular() || strings.HasPrefix(de.Name(), ".") {
			return nil
		}
		info, err := de.Info()
		if err != nil {
			return fmt.Errorf("capsule: read %s: %w", p, unwrapPathErr(err))
		}
		s.files[name] = info.Size()
		return nil
	})
}

func within(root, p string) bool {
	rel, err := filepath.Rel(root, p)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) && !filepath.IsAbs(rel)
}

func (s *Source) openZip(p string) error {
	zr, err := zip.OpenReader(p)
	if err != nil && !errors.Is(err, zip.ErrInsecurePath) {
		return fmt.Errorf("%s: %s is neither a folder nor a readable zip file (a zip cut short, or another kind of file): %v", s.what, p, err)
	}
	s.zip = zr
	// A zip made by zipping the folder itself has one top folder.
	prefix := ""
	found := false
	for _, m := range s.markers {
		if hasEntry(zr, m) {
			found = true
			break
		}
	}
	if top := singleTop(zr); !found && top != "" {
		for _, m := range s.markers {
			if hasEntry(zr, top+"/"+m) {
				prefix = top + "/"
				break
			}
		}
	}
	for _, f := range zr.File {
		name := f.Name
		if why := zipNameProblem(name); why != "" {
			s.problem(name, "zip entry", "%s; the zip may be trying to write outside the folder it is unpacked into", why)
			continue
		}
		if f.Mode()&fs.ModeSymlink != 0 {
			s.problem(name, "zip entry", "is a symlink; a capsule holds regular files only")
			continue
		}
		if f.FileInfo().IsDir() || !strings.HasPrefix(name, prefix) {
			continue
		}
		rel := strings.TrimPrefix(name, prefix)
		if strings.HasPrefix(path.Base(rel), ".") || strings.HasPrefix(rel, "__MACOSX/") {
			continue
		}
		if f.UncompressedSize64 > MaxMediaBytes {
			s.problem(rel, "zip entry", "is %d bytes unpacked, over the %d-byte limit", f.UncompressedSize64, int64(MaxMediaBytes))
			continue
		}
		s.files[rel] = int64(f.UncompressedSize64)
	}
	s.fsys = &zipFS{r: &zr.Reader, prefix: prefix}
	return nil
}

func hasEntry(zr *zip.ReadCloser, name string) bool {
	for _, f := range zr.File {
		if f.Name == name {
			return true
		}
	}
	return false
}

func singleTop(zr *zip.ReadCloser) string {
	top := ""
	for _, f := range zr.File {
		first, _, _ := strings.Cut(f.Name, "/")
		if top != "" && first != top {
			return ""
		}
		top = first
	}
	return top
}

// zipNameProblem says why a zip entry name is unsafe to unpack.
func zipNameProblem(name string) string {
	n := strings.TrimSuffix(name, "/")
	switch {
	case n == "":
		return "has an empty name"
	case strings.HasPrefix(n, "/") || strings.HasPrefix(n, `\`) || hasDrive(n):
		return "has an absolute path"
	case strings.Contains(n, `\`):
		return "has a backslash in its name"
	}
	for _, seg := range strings.Split(n, "/") {
		if seg == ".." {
			return "escapes the target folder (..)"
		}
	}
	if !fs.ValidPath(n) {
		return "is not a clean relative path"
	}
	return ""
}

// zipFS reads zip entries by name, bypassing archive/zip's own fs.FS so
// that entries under a top folder and any name the checks allowed open.
type zipFS struct {
	r      *zip.Reader
	prefix string
}

// Open opens an entry by its name under the capsule root.
func (z *zipFS) Open(name string) (fs.File, error) {
	f, err := z.r.Open(z.prefix + name)
	if err != nil {
		return nil, err
	}
	return f, nil
}

func unwrapPathErr(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}
