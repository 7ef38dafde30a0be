package app

import (
	"strconv"
	"strings"
)

// Languages people read Monitor in: what Lang answers.
const (
	LangEnglish = "en"
	LangChinese = "zh-CN"
)

// summaryMarkers are the media markers a summary may end with, per media
// kind: the locale-neutral form adapters write today, the Chinese form of
// revisions stored before it, and how each language shows them. Adapters
// write them back to back after one space (adapters/kit.Summary).
var summaryMarkers = []struct {
	neutral, legacy, en, zh string
}{
	{"⟦image⟧", "[图片]", "[photo]", "[图片]"},
	{"⟦video⟧", "[视频]", "[video]", "[视频]"},
	{"⟦audio⟧", "[音频]", "[audio]", "[音频]"},
	{"⟦file⟧", "[文件]", "[file]", "[文件]"},
}

// RenderSummary turns the media markers at the end of a summary — neutral (⟦image⟧) or the
// older Chinese form ([图片]) — into the markers of lang ("zh-CN" → [图片][视频][音频][文件],
// anything else → [photo][video][audio][file]). Text before the markers is never touched.
//
// Stored revisions keep their bytes (and so their content hash): the
// markers are rendered on the way out, never rewritten.
func RenderSummary(summary, lang string) string {
	rest := summary
	var kinds []int // the markers found, last first
	for {
		found := -1
		for k, m := range summaryMarkers {
			if strings.HasSuffix(rest, m.neutral) {
				found, rest = k, rest[:len(rest)-len(m.neutral)]
				break
			}
			if strings.HasSuffix(rest, m.legacy) {
				found, rest = k, rest[:len(rest)-len(m.legacy)]
				break
			}
		}
		if found < 0 {
			break
		}
		kinds = append(kinds, found)
	}
	if len(kinds) == 0 {
		return summary
	}
	var b strings.Builder
	b.Grow(len(summary) + 4*len(kinds))
	b.WriteString(rest)
	zh := lang == LangChinese
	for i := len(kinds) - 1; i >= 0; i-- {
		m := summaryMarkers[kinds[i]]
		if zh {
			b.WriteString(m.zh)
		} else {
			b.WriteString(m.en)
		}
	}
	return b.String()
}

// Lang picks "en" or "zh-CN" from a preference ("" = none) and then an Accept-Language header
// or a Telegram language_code ("zh", "zh-hans", "zh-CN", "zh-TW"… → zh-CN; else en).
//
// An Accept-Language list is read by its q-values: the most preferred
// language Monitor speaks wins (the first on a tie), languages it does not
// speak are passed over, and nothing it speaks means English.
func Lang(preference, acceptOrCode string) string {
	if l, ok := langOf(preference); ok {
		return l
	}
	best, bestQ := LangEnglish, 0.0
	for part := range strings.SplitSeq(acceptOrCode, ",") {
		tag, params, _ := strings.Cut(strings.TrimSpace(part), ";")
		l, ok := langOf(tag)
		if !ok {
			continue
		}
		q := 1.0
		for p := range strings.SplitSeq(params, ";") {
			name, value, _ := strings.Cut(strings.TrimSpace(p), "=")
			if strings.EqualFold(strings.TrimSpace(name), "q") {
				if v, err := strconv.ParseFloat(strings.TrimSpace(value), 64); err == nil {
					q = v
				}
			}
		}
		if q > bestQ {
			best, bestQ = l, q
		}
	}
	return best
}

// langOf maps one language tag to the language Monitor speaks for it.
func langOf(tag string) (string, bool) {
	primary, _, _ := strings.Cut(strings.TrimSpace(tag), "-")
	primary, _, _ = strings.Cut(primary, "_") // zh_CN, as some clients write it
	switch strings.ToLower(primary) {
	case "zh":
		return LangChinese, true
	case "en":
		return LangEnglish, true
	}
	return "", false
}
