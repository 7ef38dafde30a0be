package export

import (
	"embed"
	"fmt"
	"io/fs"
	"strings"

	"github.com/monitorhq/monitor/internal/capsule"
)

// hugoFiles are what Hugo needs to build a capsule as it is, with no theme:
// hugo.toml at the root and, under .hugo/ (a folder Monitor's reader
// skips), a content adapter that reads the collection files and two
// layouts. docs/capsule.md ("Hugo") describes them.
//
//go:embed all:hugo
var hugoFiles embed.FS

// HugoDir is the folder of the Hugo files, which capsule readers ignore.
const HugoDir = capsule.HugoDir

// writeHugo writes the Hugo files into the staged capsule, the site
// titled title.
func writeHugo(w *writer, title string) error {
	return fs.WalkDir(hugoFiles, "hugo", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, err := hugoFiles.ReadFile(p)
		if err != nil {
			return err
		}
		rel := strings.TrimPrefix(p, "hugo/")
		if rel == "hugo.toml" {
			data = []byte(strings.Replace(string(data), `title = "Monitor archive"`, "title = "+tomlString(title), 1))
		} else {
			rel = HugoDir + "/" + rel
		}
		return w.write(rel, data)
	})
}

// tomlString quotes s as a TOML basic string.
func tomlString(s string) string {
	var b strings.Builder
	b.WriteByte('"')
	for _, r := range s {
		switch {
		case r == '"' || r == '\\':
			b.WriteByte('\\')
			b.WriteRune(r)
		case r < 0x20 || r == 0x7f:
			fmt.Fprintf(&b, `\u%04X`, r)
		default:
			b.WriteRune(r)
		}
	}
	b.WriteByte('"')
	return b.String()
}
