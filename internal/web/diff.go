package web

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// A word diff between two revisions' texts, for the revisions page.
//
// Texts are cut into tokens: runs of non-space letters are words, each
// whitespace run is a token of its own (so line breaks survive), and CJK
// characters (Han, Hiragana, Katakana, Hangul) are one token each, since
// Chinese is written without spaces and a word-level diff would otherwise
// mark a whole paragraph changed. The longest common subsequence of the
// two token lists is found by dynamic programming after the common prefix
// and suffix are cut off.
//
// Bound: the LCS table holds at most MaxDiffCells cells (rows × columns of
// the middle that differs). Longer middles are not compared token by
// token: the middle is shown as deleted and inserted whole, and
// Diff.Truncated says so. Memory is MaxDiffCells×4 bytes at most (16 MB).

// MaxDiffCells bounds the work of one diff: about 2,000 × 2,000 tokens
// that differ.
const MaxDiffCells = 4_000_000

// DiffOp is what happened to a run of text.
type DiffOp int

// The operations of a diff.
const (
	DiffSame DiffOp = iota
	DiffDel
	DiffIns
)

// DiffPart is a run of text that stayed, went or came.
type DiffPart struct {
	Op   DiffOp
	Text string
}

// Same, Del and Ins let templates choose the element for a part.
func (p DiffPart) Same() bool { return p.Op == DiffSame }

// Del reports whether the part was deleted.
func (p DiffPart) Del() bool { return p.Op == DiffDel }

// Ins reports whether the part was inserted.
func (p DiffPart) Ins() bool { return p.Op == DiffIns }

// Diff is the word diff of two texts.
type Diff struct {
	Parts []DiffPart
	// Truncated: the texts differed over more than MaxDiffCells, and the
	// differing middle is shown as one deletion and one insertion.
	Truncated bool
	// Added and Removed count the inserted and deleted tokens, spaces not
	// counted.
	Added, Removed int
}

// WordDiff compares two texts word by word (character by character in
// CJK text).
func WordDiff(from, to string) Diff {
	a, b := tokens(from), tokens(to)
	pre := 0
	for pre < len(a) && pre < len(b) && a[pre] == b[pre] {
		pre++
	}
	suf := 0
	for suf < len(a)-pre && suf < len(b)-pre && a[len(a)-1-suf] == b[len(b)-1-suf] {
		suf++
	}
	var d Diff
	d.add(DiffSame, a[:pre]...)
	ma, mb := a[pre:len(a)-suf], b[pre:len(b)-suf]
	if len(ma)*len(mb) > MaxDiffCells {
		d.Truncated = true
		d.add(DiffDel, ma...)
		d.add(DiffIns, mb...)
	} else {
		lcs(&d, ma, mb)
	}
	d.add(DiffSame, a[len(a)-suf:]...)
	d.tidy()
	return d
}

// tidy joins changes that only a space keeps apart, when both words went
// and others came: "[-coming-]{+going+} [-in-]{+out+}" reads as
// "[-coming in-]{+going out+}". The space goes into both sides, so each
// side still spells its text.
func (d *Diff) tidy() {
	parts := d.Parts
	var out []DiffPart
	for i := 0; i < len(parts); {
		if parts[i].Op == DiffSame {
			out = append(out, parts[i])
			i++
			continue
		}
		// The group: changes, and spaces with a change after them.
		j, hasDel, hasIns := i, false, false
		for ; j < len(parts); j++ {
			p := parts[j]
			if p.Op == DiffSame && (strings.TrimSpace(p.Text) != "" || j+1 == len(parts) || parts[j+1].Op == DiffSame) {
				break
			}
			hasDel = hasDel || p.Op == DiffDel
			hasIns = hasIns || p.Op == DiffIns
		}
		if !hasDel || !hasIns {
			out = append(out, parts[i:j]...)
			i = j
			continue
		}
		var del, ins strings.Builder
		for _, p := range parts[i:j] {
			if p.Op != DiffIns {
				del.WriteString(p.Text)
			}
			if p.Op != DiffDel {
				ins.WriteString(p.Text)
			}
		}
		out = append(out, DiffPart{Op: DiffDel, Text: del.String()}, DiffPart{Op: DiffIns, Text: ins.String()})
		i = j
	}
	d.Parts = out
}

// lcs appends the diff of a and b by the longest common subsequence.
func lcs(d *Diff, a, b []string) {
	n, m := len(a), len(b)
	if n == 0 || m == 0 {
		d.add(DiffDel, a...)
		d.add(DiffIns, b...)
		return
	}
	// t[i*(m+1)+j] is the LCS length of a[i:] and b[j:].
	t := make([]int32, (n+1)*(m+1))
	for i := n - 1; i >= 0; i-- {
		for j := m - 1; j >= 0; j-- {
			if a[i] == b[j] {
				t[i*(m+1)+j] = t[(i+1)*(m+1)+j+1] + 1
			} else {
				t[i*(m+1)+j] = max(t[(i+1)*(m+1)+j], t[i*(m+1)+j+1])
			}
		}
	}
	// Walk the table, handing add whole runs of one operation.
	var run []string
	runOp := DiffSame
	emit := func(op DiffOp, tok string) {
		if op != runOp {
			d.add(runOp, run...)
			run, runOp = run[:0], op
		}
		run = append(run, tok)
	}
	i, j := 0, 0
	for i < n && j < m {
		switch {
		case a[i] == b[j]:
			emit(DiffSame, a[i])
			i, j = i+1, j+1
		case t[(i+1)*(m+1)+j] >= t[i*(m+1)+j+1]:
			emit(DiffDel, a[i])
			i++
		default:
			emit(DiffIns, b[j])
			j++
		}
	}
	d.add(runOp, run...)
	d.add(DiffDel, a[i:]...)
	d.add(DiffIns, b[j:]...)
}

// add appends tokens to the diff, joining runs of one operation. The
// tokens of one call are joined once, so a long common prefix costs one
// copy.
func (d *Diff) add(op DiffOp, toks ...string) {
	if len(toks) == 0 {
		return
	}
	if op != DiffSame {
		for _, tok := range toks {
			if isSpace(tok) {
				continue
			}
			if op == DiffIns {
				d.Added++
			} else {
				d.Removed++
			}
		}
	}
	text := strings.Join(toks, "")
	if k := len(d.Parts); k > 0 && d.Parts[k-1].Op == op {
		d.Parts[k-1].Text += text
		return
	}
	d.Parts = append(d.Parts, DiffPart{Op: op, Text: text})
}

func isSpace(tok string) bool {
	r, _ := utf8.DecodeRuneInString(tok)
	return unicode.IsSpace(r)
}

// tokens cuts a text into words, whitespace runs and single CJK characters.
func tokens(s string) []string {
	var out []string
	start := -1 // start of the current word or space run
	space := false
	flush := func(i int) {
		if start >= 0 {
			out = append(out, s[start:i])
			start = -1
		}
	}
	for i, r := range s {
		switch {
		case isCJK(r):
			flush(i)
			out = append(out, string(r))
		case unicode.IsSpace(r):
			if start >= 0 && !space {
				flush(i)
			}
			if start < 0 {
				start, space = i, true
			}
		default:
			if start >= 0 && space {
				flush(i)
			}
			if start < 0 {
				start, space = i, false
			}
		}
	}
	flush(len(s))
	return out
}

// isCJK reports whether r is written without spaces between words.
func isCJK(r rune) bool {
	return unicode.In(r, unicode.Han, unicode.Hiragana, unicode.Katakana, unicode.Hangul) ||
		(r >= 0x3000 && r <= 0x303f) || (r >= 0xff00 && r <= 0xffef) // CJK punctuation, full-width forms
}

// joinedText is the whole text of one side of a diff, for tests and checks.
func (d Diff) joinedText(side DiffOp) string {
	var b strings.Builder
	for _, p := range d.Parts {
		if p.Op == DiffSame || p.Op == side {
			b.WriteString(p.Text)
		}
	}
	return b.String()
}
