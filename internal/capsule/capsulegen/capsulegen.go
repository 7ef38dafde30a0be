// Package capsulegen writes generated capsules for benchmarks: n posts,
// each with a short text, a tag and one small distinct image, and the
// same posts as a minimal Hugo site, so that `monitor build` can be timed
// next to Hugo on the same content (scripts/bench-build). Nothing here is
// used by the product.
package capsulegen

import (
	"crypto/ed25519"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"time"

	"github.com/google/uuid"

	"github.com/monitorhq/monitor/internal/app"
	"github.com/monitorhq/monitor/internal/capsule"
	"github.com/monitorhq/monitor/internal/capsule/importer"
	"github.com/monitorhq/monitor/internal/chain"
)

// ImageSize is the size of each post's image in bytes.
const ImageSize = 2048

// Tags is how many distinct tags the posts share (post i has tag i%Tags).
const Tags = 50

var base = time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)

// post is generated post i: its external id, date, text, tag and image.
type post struct {
	ext       string
	published time.Time
	text      string
	tag       string
	img       []byte
}

func gen(i int, img []byte) post {
	for j := 0; j < len(img); j += 8 {
		binary.LittleEndian.PutUint64(img[j:], uint64(i)*0x9e3779b97f4a7c15+uint64(j))
	}
	ext := strconv.Itoa(1_000_000 + i)
	return post{ext: ext, published: base.Add(time.Duration(i) * time.Hour), img: img,
		tag:  fmt.Sprintf("tag%d", i%Tags),
		text: fmt.Sprintf("Post number %d with a little text to search for. #tag%d", i, i%Tags)}
}

func write(dir, name string, data []byte) error {
	p := filepath.Join(dir, filepath.FromSlash(name))
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		return err
	}
	return os.WriteFile(p, data, 0o644)
}

// Capsule writes a capsule of n posts into dir.
func Capsule(dir string, n int) error { return generate(dir, n, nil) }

// SigningKey is the key VerifiableCapsule signs with: fixed, so runs
// compare.
func SigningKey() ed25519.PrivateKey {
	seed := sha256.Sum256([]byte("capsulegen"))
	return ed25519.NewKeyFromSeed(seed[:])
}

// VerifiableCapsule writes a capsule of n posts as an export does, for
// `monitor check --verify`: each post with its hash chain (one link, over
// its content, its image and one raw response) and monitor.sum with its
// signature by SigningKey.
func VerifiableCapsule(dir string, n int) error {
	var sums []chain.SumEntry
	if err := generate(dir, n, &sums); err != nil {
		return err
	}
	sum := chain.FormatSum(sums)
	if err := write(dir, chain.SumName, sum); err != nil {
		return err
	}
	return write(dir, chain.SigName, chain.Sign(SigningKey(), sum))
}

// generate writes the capsule; with sums it chains every post and records
// each file's SHA-256.
func generate(dir string, n int, sums *[]chain.SumEntry) error {
	put := func(name string, data []byte) error {
		if sums != nil {
			s := sha256.Sum256(data)
			*sums = append(*sums, chain.SumEntry{SHA256: hex.EncodeToString(s[:]), Path: name})
		}
		return write(dir, name, data)
	}
	man, err := capsule.MarshalManifest(&capsule.Manifest{SchemaVersion: 1, Generator: "capsulegen", Site: capsule.Site{Title: "Bench"}})
	if err != nil {
		return err
	}
	if err := put(capsule.ManifestName, man); err != nil {
		return err
	}
	img := make([]byte, ImageSize)
	for i := range n {
		p := gen(i, img)
		sum := sha256.Sum256(p.img)
		sha := hex.EncodeToString(sum[:])
		file := capsule.FilePath(sha, "image/png")
		if err := put(file, p.img); err != nil {
			return err
		}
		c := capsule.Collection{
			ID: uuid.NewSHA1(uuid.NameSpaceURL, []byte("bench/"+p.ext)).String(), Platform: "x", Kind: "x.post", ExternalID: p.ext,
			URL: "https://x.com/bench/status/" + p.ext, Visibility: "public", SavedAt: p.published.Add(time.Minute), PublishedAt: &p.published,
			CapturedAt: p.published.Add(time.Minute), Author: capsule.Author{Name: "Bench Author", Handle: "bench"},
			Summary: "Bench Author：post " + p.ext, Tags: []string{p.tag}, TextKind: "plain", Text: p.text,
			Media: []capsule.Media{{File: file, SHA256: sha, Kind: "image", Mime: "image/png", Size: int64(len(p.img)), Width: 32, Height: 32}},
			Graph: capsule.Graph{Root: "post:" + p.ext, Entities: []capsule.Entity{{Key: "post:" + p.ext, Type: "x.post", ExternalID: p.ext,
				Data: []byte(`{"id":"` + p.ext + `","text":"Post"}`)}}},
		}
		if sums != nil {
			it := importer.ToImport("", &c)
			hash, err := app.ContentHash(it.Revisions[0], c.URL)
			if err != nil {
				return err
			}
			raw := sha256.Sum256([]byte(`{"tweet":{"id":"` + p.ext + `"}}`))
			l := chain.Link{ContentHash: hash, Media: []string{sha}, Raw: []string{hex.EncodeToString(raw[:])}, CapturedAt: c.CapturedAt,
				AdapterID: "x", AdapterVersion: "capsulegen"}
			h := l.Hash()
			c.Chain = &capsule.Chain{Version: chain.Version, Head: h, Revisions: []capsule.ChainLink{{Time: l.CapturedAt, ChainHash: h,
				ContentHash: hash, Media: l.Media, Raw: l.Raw, AdapterID: l.AdapterID, AdapterVersion: l.AdapterVersion}}}
		}
		data, err := capsule.MarshalCollection(&c)
		if err != nil {
			return err
		}
		if err := put(capsule.CollectionPath(&c), data); err != nil {
			return err
		}
	}
	return nil
}

// hugoLayouts are a minimal Hugo theme that draws what the Monitor site
// draws: a page per post with its image, the home list, tag and author
// pages paginated by 20, and Hugo's default feed and sitemap.
var hugoLayouts = map[string]string{
	// buildFuture: post i is dated i hours after 2025-01-01, so a large
	// capsule has posts dated after today, which Hugo leaves out by
	// default (at 50,000 posts, in December 2026, about two thirds of
	// them) while monitor build draws every post.
	"hugo.toml": `baseURL = "https://example.org/"
title = "Bench"
buildFuture = true
[pagination]
  pagerSize = 20
[taxonomies]
  tag = "tags"
  author = "authors"
`,
	"layouts/_default/baseof.html": `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>{{ .Title }} · {{ site.Title }}</title></head>
<body><nav><a href="{{ "" | relURL }}">Home</a> <a href="{{ "tags/" | relURL }}">Tags</a> <a href="{{ "authors/" | relURL }}">Authors</a></nav>
<main>{{ block "main" . }}{{ end }}</main></body></html>
`,
	"layouts/_default/single.html": `{{ define "main" }}<article><h1>{{ .Title }}</h1><time>{{ .Date.Format "2006-01-02 15:04" }}</time>
{{ .Content }}{{ with .Resources.GetMatch "image.png" }}<img src="{{ .RelPermalink }}" width="32" height="32" alt="">{{ end }}
<p>{{ range .GetTerms "tags" }}<a href="{{ .RelPermalink }}">#{{ .LinkTitle }}</a> {{ end }}</p></article>{{ end }}
`,
	"layouts/_default/list.html": `{{ define "main" }}<h1>{{ .Title }}</h1>{{ $p := .Paginate .Pages }}{{ range $p.Pages }}
<article><h2><a href="{{ .RelPermalink }}">{{ .Title }}</a></h2><p>{{ .Summary }}</p>{{ with .Resources.GetMatch "image.png" }}<img src="{{ .RelPermalink }}" alt="">{{ end }}</article>{{ end }}
{{ with $p.Prev }}<a href="{{ .URL }}">Newer</a>{{ end }} {{ with $p.Next }}<a href="{{ .URL }}">Older</a>{{ end }}{{ end }}
`,
	"layouts/_default/terms.html": `{{ define "main" }}<h1>{{ .Title }}</h1><ul>{{ range .Data.Terms.Alphabetical }}<li><a href="{{ .Page.RelPermalink }}">{{ .Page.Title }}</a> ({{ .Count }})</li>{{ end }}</ul>{{ end }}
`,
}

// Hugo writes the same n posts as a Hugo site into dir: one page bundle
// per post (content/posts/ID/index.md and its image.png) and the layouts
// above.
func Hugo(dir string, n int) error {
	for name, body := range hugoLayouts {
		if err := write(dir, name, []byte(body)); err != nil {
			return err
		}
	}
	img := make([]byte, ImageSize)
	for i := range n {
		p := gen(i, img)
		md := fmt.Sprintf("---\ntitle: %q\ndate: %s\ntags: [%q]\nauthors: [\"Bench Author\"]\n---\n%s\n",
			"Bench Author: "+p.text, p.published.Format(time.RFC3339), p.tag, p.text)
		bundle := "content/posts/" + p.ext + "/"
		if err := write(dir, bundle+"index.md", []byte(md)); err != nil {
			return err
		}
		if err := write(dir, bundle+"image.png", p.img); err != nil {
			return err
		}
	}
	return nil
}
