package app_test

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/monitorhq/monitor/internal/app"
)

// FuzzParseQuery: ParseQuery never panics, answers any input quickly, refuses
// only with a *QueryError pointing inside the query, and reads back the
// canonical form of what it accepts to the same tree and the same form.
func FuzzParseQuery(f *testing.F) {
	for _, s := range []string{
		"", "tide moon", `"exact phrase" -"not this"`, "a OR b c", "(a b) OR -(c OR d)", "-(-x)",
		"from:@Alice platform:x kind:post has:video is:private #潮汐 tag:moon",
		"after:2026-12-01 before:2026-02-29 saved:>7d saved:<=1y", "http://x.com/a?b=c",
		"潮の満ち引き 🌊 👨‍👩‍👧", `“curly”`, `a"b"(c)OR(d)`, `"unclosed`, "from:", "after:2026-13-01",
		"( a", "a )", "OR a", "a OR", "has:sound", "saved:>7x", "--x", "#", "#İ", "from:İstanbul",
		strings.Repeat("(", 17) + "a", strings.Repeat(`"a"`, 300), strings.Repeat("x ", 70), "a\x00", "\xff",
	} {
		f.Add(s)
	}
	now := time.Date(2026, 12, 1, 11, 30, 0, 0, time.UTC)
	f.Fuzz(func(t *testing.T, s string) {
		start := time.Now()
		q, err := app.ParseQuery(s, now)
		if took := time.Since(start); took > time.Second {
			t.Fatalf("ParseQuery took %v on %d bytes", took, len(s))
		}
		if err != nil {
			var qe *app.QueryError
			if !errors.As(err, &qe) || !errors.Is(err, app.ErrInvalid) {
				t.Fatalf("%q: not a QueryError: %T %v", s, err, err)
			}
			if n := len([]rune(s)); qe.Pos < 0 || qe.Pos > n || qe.Expected == "" || qe.Msg == "" || qe.ExpectedZH == "" || qe.MsgZH == "" {
				t.Fatalf("%q (%d runes): bad error %+v", s, n, qe)
			}
			return
		}
		canon := q.String()
		again, err := app.ParseQuery(canon, now)
		if err != nil {
			t.Fatalf("%q: canonical %q refused: %v", s, canon, err)
		}
		if again.String() != canon {
			t.Fatalf("%q: canonical %q reads back as %q", s, canon, again.String())
		}
		if !queryTreesEqual(q.Root, again.Root) {
			t.Fatalf("%q: canonical %q reads back to another tree: %#v, not %#v", s, canon, again.Root, q.Root)
		}
	})
}

func queryTreesEqual(a, b app.Node) bool {
	switch x := a.(type) {
	case app.And:
		y, ok := b.(app.And)
		return ok && queryListsEqual(x.Nodes, y.Nodes)
	case app.Or:
		y, ok := b.(app.Or)
		return ok && queryListsEqual(x.Nodes, y.Nodes)
	case app.Not:
		y, ok := b.(app.Not)
		return ok && queryTreesEqual(x.Node, y.Node)
	case app.Time:
		y, ok := b.(app.Time)
		return ok && x.Field == y.Field && x.Op == y.Op && x.At.Equal(y.At) && x.Ago == y.Ago
	}
	return a == b
}

func queryListsEqual(a, b []app.Node) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if !queryTreesEqual(a[i], b[i]) {
			return false
		}
	}
	return true
}
