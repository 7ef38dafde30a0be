// Package demo is the sample archive `monitor serve --demo` imports: a
// capsule (capsule v1, docs/capsule.md) written by the Monitor team, not
// captured from anyone, embedded in the binary so that the demo needs no
// network. It holds X posts (photos, an album of four in order, a video
// with its poster, a quote, a reply, a poll, Chinese and Japanese text, a
// sensitive image), the X profile they belong to, a Telegram channel and
// its posts (an album, a forward, a link preview, a long formatted text,
// views). generate.go draws its media with ffmpeg and writes it.
package demo

import (
	"embed"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
)

//go:generate go run generate.go

//go:embed all:capsule
var content embed.FS

// FS is the sample capsule, rooted at its folder (monitor.yaml at the top).
func FS() fs.FS {
	sub, err := fs.Sub(content, "capsule")
	if err != nil {
		panic(err) // the embedded folder is always there
	}
	return sub
}

// WriteTo writes the sample capsule into dir, which must not exist or be
// empty, so that the capsule reader, checker and importer can open it
// like any other capsule folder.
func WriteTo(dir string) error {
	if entries, err := os.ReadDir(dir); err == nil && len(entries) > 0 {
		return fmt.Errorf("demo: %s is not empty", dir)
	} else if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("demo: %w", err)
	}
	src := FS()
	return fs.WalkDir(src, ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		target := filepath.Join(dir, filepath.FromSlash(p))
		if d.IsDir() {
			return os.MkdirAll(target, 0o755)
		}
		data, err := fs.ReadFile(src, p)
		if err != nil {
			return fmt.Errorf("demo: %w", err)
		}
		if err := os.WriteFile(target, data, 0o644); err != nil {
			return fmt.Errorf("demo: %w", err)
		}
		return nil
	})
}
