package tgchannel

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"unicode"

	"github.com/stretchr/testify/require"

	"github.com/monitorhq/monitor/internal/channelapi"
)

// verbs matches the formatting verbs of a catalog text (%% is none).
var verbs = regexp.MustCompile(`%[-+# 0]*[0-9]*(?:\.[0-9]+)?[a-zA-Z%]`)

func verbsOf(s string) []string {
	var out []string
	for _, v := range verbs.FindAllString(s, -1) {
		if v != "%%" {
			out = append(out, v)
		}
	}
	return out
}

// Both languages have every text, with the same verbs in the same order,
// and the Chinese ones are written in Chinese.
func TestCatalogHasEveryTextInBothLanguages(t *testing.T) {
	t.Parallel()
	require.NotEmpty(t, catalog)
	for key, texts := range catalog {
		require.Len(t, texts, len(locales), "%s: one text per language", key)
		en, zh := texts[langEN], texts[langZH]
		require.NotEmpty(t, en, "%s: English", key)
		require.NotEmpty(t, zh, "%s: Chinese", key)
		require.Equal(t, verbsOf(en), verbsOf(zh), "%s: the same verbs in the same order", key)
		if strings.IndexFunc(en, unicode.IsLetter) >= 0 && key != "wait.h" && !strings.HasPrefix(key, "err.") && key != "media.gif.one" && key != "media.gif.many" {
			require.True(t, strings.ContainsFunc(zh, func(r rune) bool { return unicode.Is(unicode.Han, r) }), "%s: %q is not Chinese", key, zh)
		}
	}
}

// Every key the code asks for is in the catalog.
func TestEveryTextTheBotSendsIsInTheCatalog(t *testing.T) {
	t.Parallel()
	uses := regexp.MustCompile(`\.t\("([^"]+)"[,)]`) // whole keys; "media."+kind is checked below
	files, err := filepath.Glob("*.go")
	require.NoError(t, err)
	seen := 0
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		src, err := os.ReadFile(f)
		require.NoError(t, err)
		for _, m := range uses.FindAllStringSubmatch(string(src), -1) {
			_, ok := catalog[m[1]]
			require.True(t, ok, "%s asks for %q, which the catalog lacks", f, m[1])
			seen++
		}
	}
	for _, c := range newRegistry().commands {
		_, ok := catalog[c.descKey]
		require.True(t, ok, "/%s: %q", c.name, c.descKey)
	}
	for _, kind := range []string{"image", "video", "gif", "audio", "document"} {
		for _, n := range []string{".one", ".many"} {
			_, ok := catalog["media."+kind+n]
			require.True(t, ok, kind+n)
		}
	}
	require.Greater(t, seen, 40)
}

func TestLocaleOf(t *testing.T) {
	t.Parallel()
	require.Equal(t, langZH, localeOf("zh-CN", "en"), "core's choice wins")
	require.Equal(t, langEN, localeOf("en", "zh-hans"))
	for code, want := range map[string]locale{"zh": langZH, "zh-hans": langZH, "zh-TW": langZH, "en": langEN, "ru": langEN, "": langEN} {
		require.Equal(t, want, localeOf("", code), code)
	}
	require.Equal(t, "30 秒", formatWait(langZH, 30))
	require.Equal(t, "1 小时 1 分钟", formatWait(langZH, 3601))
	require.Equal(t, "2 张图片 · 1 个视频", mediaLine(langZH, []channelapi.Media{{Kind: "image"}, {Kind: "image"}, {Kind: "video"}}))
}
