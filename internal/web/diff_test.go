package web

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// show writes a diff as [-deleted-]{+inserted+} for readable assertions.
func show(d Diff) string {
	var b strings.Builder
	for _, p := range d.Parts {
		switch p.Op {
		case DiffDel:
			b.WriteString("[-" + p.Text + "-]")
		case DiffIns:
			b.WriteString("{+" + p.Text + "+}")
		default:
			b.WriteString(p.Text)
		}
	}
	return b.String()
}

func TestWordDiff(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name, from, to, want string
		added, removed       int
	}{
		{"same", "low tide at six", "low tide at six", "low tide at six", 0, 0},
		{"a word changed", "low tide at six", "high tide at six", "[-low-]{+high+} tide at six", 1, 1},
		{"a word added", "tide at six", "tide at six today", "tide at six{+ today+}", 1, 0},
		{"a word removed in the middle", "the big low tide", "the low tide", "the [-big -]low tide", 0, 1},
		{"from nothing", "", "new text", "{+new text+}", 2, 0},
		{"to nothing", "old text", "", "[-old text-]", 0, 2},
		{"neighbouring changes read as one", "coming in: low tide", "going out: low tide", "[-coming in:-]{+going out:+} low tide", 2, 2},
		{"a kept word keeps changes apart", "a x b", "c x d", "[-a-]{+c+} x [-b-]{+d+}", 2, 2},
		{"deletions alone stay apart", "a b c", "b", "[-a -]b[- c-]", 0, 2},
		{"line breaks survive", "one\ntwo", "one\nthree", "one\n[-two-]{+three+}", 1, 1},
		// Chinese has no spaces: one character is one token, so a changed
		// character is shown alone, not the whole sentence.
		{"chinese per character", "今天涨潮很早", "今天退潮很早", "今天[-涨-]{+退+}潮很早", 1, 1},
		{"mixed scripts", "潮汐 table v1", "潮汐 table v2", "潮汐 table [-v1-]{+v2+}", 1, 1},
		{"japanese kana", "しおのみちひき", "しおのひき", "しおの[-みち-]ひき", 0, 2},
	} {
		t.Run(tc.name, func(t *testing.T) {
			d := WordDiff(tc.from, tc.to)
			require.Equal(t, tc.want, show(d))
			require.Equal(t, tc.added, d.Added, "added")
			require.Equal(t, tc.removed, d.Removed, "removed")
			require.False(t, d.Truncated)
			require.Equal(t, tc.from, d.joinedText(DiffDel), "the old text is the kept and deleted parts")
			require.Equal(t, tc.to, d.joinedText(DiffIns), "the new text is the kept and inserted parts")
		})
	}
}

func TestWordDiffIsMinimal(t *testing.T) {
	t.Parallel()
	// An LCS keeps the longest common run, not the first match.
	d := WordDiff("a b c d e", "b c d e a")
	require.Equal(t, "[-a -]b c d e{+ a+}", show(d))
}

func TestWordDiffBoundsItsWork(t *testing.T) {
	t.Parallel()
	// Two long texts that share only a prefix and suffix: the middle is
	// more than MaxDiffCells, so it is shown removed and added whole.
	var a, b strings.Builder
	a.WriteString("start ")
	b.WriteString("start ")
	for i := 0; i < 2100; i++ {
		a.WriteString("x ")
		b.WriteString("y ")
	}
	a.WriteString("end")
	b.WriteString("end")
	d := WordDiff(a.String(), b.String())
	require.True(t, d.Truncated)
	require.Equal(t, 2100, d.Added)
	require.Equal(t, 2100, d.Removed)
	require.Equal(t, "start ", d.Parts[0].Text)
	require.Equal(t, " end", d.Parts[len(d.Parts)-1].Text)
	require.Equal(t, a.String(), d.joinedText(DiffDel))
	require.Equal(t, b.String(), d.joinedText(DiffIns))

	// One word against many: within the bound, and fast.
	d = WordDiff("x", strings.Repeat("y ", 1_000_000))
	require.False(t, d.Truncated)
	require.Equal(t, 1_000_000, d.Added)
	require.Equal(t, 1, d.Removed)

	// Long texts that differ in one place are still compared word by
	// word: the common prefix and suffix cost nothing.
	long := strings.Repeat("tide ", 50000)
	d = WordDiff(long+"low", long+"high")
	require.False(t, d.Truncated)
	require.Equal(t, 1, d.Added)
	require.Equal(t, 1, d.Removed)
}

func TestTokens(t *testing.T) {
	t.Parallel()
	require.Equal(t, []string{"a", "  ", "b", "\n", "涨", "潮", "x1", "。"}, tokens("a  b\n涨潮x1。"))
	require.Empty(t, tokens(""))
}
