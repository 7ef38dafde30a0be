// Command copytree is the plain anchor of scripts/bench-capsule: it walks
// a folder and copies every file into another, hashing each with SHA-256
// as it copies (what an import or export does to each file at the least),
// then syncs the destination's file system once.
package main

import (
	"crypto/sha256"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"
)

func main() {
	src := flag.String("from", "", "folder to copy")
	dst := flag.String("to", "", "folder to create")
	flag.Parse()
	if *src == "" || *dst == "" {
		fmt.Fprintln(os.Stderr, "usage: copytree -from DIR -to DIR")
		os.Exit(2)
	}
	files, err := copyTree(*src, *dst)
	if err != nil {
		fmt.Fprintln(os.Stderr, "copytree:", err)
		os.Exit(1)
	}
	syscall.Sync()
	fmt.Println(files, "files")
}

func copyTree(src, dst string) (int, error) {
	buf := make([]byte, 64<<10)
	files := 0
	err := filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(src, p)
		if err != nil {
			return err
		}
		out := filepath.Join(dst, rel)
		if d.IsDir() {
			return os.MkdirAll(out, 0o750)
		}
		in, err := os.Open(p)
		if err != nil {
			return err
		}
		defer in.Close()
		f, err := os.OpenFile(out, os.O_CREATE|os.O_WRONLY|os.O_TRUNC, 0o640)
		if err != nil {
			return err
		}
		h := sha256.New()
		if _, err := io.CopyBuffer(io.MultiWriter(f, h), in, buf); err != nil {
			_ = f.Close()
			return err
		}
		files++
		return f.Close()
	})
	return files, err
}
