package web

import (
	"regexp"
	"slices"
	"testing"

	"github.com/stretchr/testify/require"
)

// Every text exists in both languages, with the same formatting verbs in
// the same order, so a Chinese page never shows a key or a %!s(MISSING).
func TestCatalogHasBothLanguages(t *testing.T) {
	t.Parallel()
	verbs := regexp.MustCompile(`%[-+# 0]*[0-9]*(?:\.[0-9]+)?[a-zA-Z%]`)
	cat, err := newCatalog()
	require.NoError(t, err, "no key is defined twice")
	for key, m := range cat {
		require.NotEmpty(t, m.en, key)
		require.NotEmpty(t, m.zh, key)
		require.True(t, slices.Equal(verbs.FindAllString(m.en, -1), verbs.FindAllString(m.zh, -1)),
			"%s: %q and %q use different verbs", key, m.en, m.zh)
	}
}

func TestPickLang(t *testing.T) {
	t.Parallel()
	for _, c := range []struct{ pref, accept, want string }{
		{"", "", LangEnglish},
		{"", "zh-CN,zh;q=0.9,en;q=0.8", LangChinese},
		{"", "fr-FR, zh-Hans;q=0.5", LangChinese},
		{"", "de, en-GB;q=0.7", LangEnglish},
		{"en", "zh-CN", LangEnglish},
		{"zh-CN", "en-US", LangChinese},
		{"klingon", "zh-TW", LangChinese},
	} {
		require.Equal(t, c.want, pickLang(c.pref, c.accept), "%+v", c)
	}
}
