package app_test

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/monitorhq/monitor/internal/app"
)

var queryNow = time.Date(2026, 12, 1, 11, 30, 0, 0, time.UTC)

func utcDay(y int, m time.Month, d int) time.Time { return time.Date(y, m, d, 0, 0, 0, 0, time.UTC) }

// What a person types, and the tree it means.
func TestParseQueryTrees(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		in   string
		want app.Node
	}{
		{"", nil},
		{"   \t ", nil},
		{"tide", app.Text{Value: "tide"}},
		{"Tide moon", app.And{Nodes: []app.Node{app.Text{Value: "Tide"}, app.Text{Value: "moon"}}}},
		{`"exact  phrase "`, app.Text{Value: "exact phrase", Phrase: true}},
		{`“潮の満ち引き 月”`, app.Text{Value: "潮の満ち引き 月", Phrase: true}},
		{"-word", app.Not{Node: app.Text{Value: "word"}}},
		{`-"a phrase"`, app.Not{Node: app.Text{Value: "a phrase", Phrase: true}}},
		{"-from:@Alice", app.Not{Node: app.Field{Name: "from", Value: "alice"}}},
		{"a OR b c", app.And{Nodes: []app.Node{
			app.Or{Nodes: []app.Node{app.Text{Value: "a"}, app.Text{Value: "b"}}}, app.Text{Value: "c"}}}},
		{"a OR b OR c", app.Or{Nodes: []app.Node{app.Text{Value: "a"}, app.Text{Value: "b"}, app.Text{Value: "c"}}}},
		{"(a b) OR -(c OR d)", app.Or{Nodes: []app.Node{
			app.And{Nodes: []app.Node{app.Text{Value: "a"}, app.Text{Value: "b"}}},
			app.Not{Node: app.Or{Nodes: []app.Node{app.Text{Value: "c"}, app.Text{Value: "d"}}}}}}},
		{"((a))", app.Text{Value: "a"}},
		{"or and", app.And{Nodes: []app.Node{app.Text{Value: "or"}, app.Text{Value: "and"}}}},
		{"FROM:@TideWatch", app.Field{Name: "from", Value: "tidewatch"}},
		{"platform:X", app.Field{Name: "platform", Value: "x"}},
		{"kind:channel", app.Field{Name: "kind", Value: "channel"}},
		{"has:video", app.Field{Name: "has", Value: "video"}},
		{"is:private", app.Field{Name: "is", Value: "private"}},
		{"#潮汐", app.Field{Name: "tag", Value: "潮汐"}},
		{"#Tide_2026", app.Field{Name: "tag", Value: "tide_2026"}},
		{"tag:moon", app.Field{Name: "tag", Value: "moon"}},
		{"#", app.Text{Value: "#"}},
		{"after:2026-12-01", app.Time{Field: "published", Op: ">=", At: utcDay(2026, 12, 1)}},
		{"before:2024-02-29", app.Time{Field: "published", Op: "<", At: utcDay(2024, 2, 29)}},
		{"saved:>7d", app.Time{Field: "saved", Op: "<", At: queryNow.AddDate(0, 0, -7), Ago: "7d"}},
		{"saved:<2w", app.Time{Field: "saved", Op: ">", At: queryNow.AddDate(0, 0, -14), Ago: "2w"}},
		{"saved:>=03M", app.Time{Field: "saved", Op: "<=", At: queryNow.AddDate(0, 0, -90), Ago: "3m"}},
		{"saved:<=1y", app.Time{Field: "saved", Op: ">=", At: queryNow.AddDate(0, 0, -365), Ago: "1y"}},
		{"http://x.com/a", app.Text{Value: "http://x.com/a"}},
		{"note:hello", app.Text{Value: "note:hello"}},
		{"e-mail", app.Text{Value: "e-mail"}},
		{"潮の満ち引き", app.Text{Value: "潮の満ち引き"}},
		{"潮汐　月亮", app.And{Nodes: []app.Node{app.Text{Value: "潮汐"}, app.Text{Value: "月亮"}}}}, // an ideographic space
		{"🌊 👨‍👩‍👧", app.And{Nodes: []app.Node{app.Text{Value: "🌊"}, app.Text{Value: "👨‍👩‍👧"}}}},
		{`a"b c"(d)`, app.And{Nodes: []app.Node{app.Text{Value: "a"}, app.Text{Value: "b c", Phrase: true}, app.Text{Value: "d"}}}},
		{`"OR" "(x)"`, app.And{Nodes: []app.Node{app.Text{Value: "OR", Phrase: true}, app.Text{Value: "(x)", Phrase: true}}}},
	} {
		q, err := app.ParseQuery(tc.in, queryNow)
		require.NoError(t, err, "%q", tc.in)
		require.Equal(t, tc.want, q.Root, "%q", tc.in)
	}
}

// The canonical form of what people type, and that it reads back to the
// same tree.
func TestQueryStringIsCanonical(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{
		"":                                   "",
		"  tide   moon ":                     "tide moon",
		`"exact   phrase"  -"not this"`:      `"exact phrase" -"not this"`,
		"a OR b c":                           "a OR b c",
		"(a OR b) c":                         "a OR b c",
		"(a b) OR c":                         "(a b) OR c",
		"a (b (c d))":                        "a b c d",
		"(a OR (b OR c))":                    "a OR b OR c",
		"-(a b) -(-c)":                       "-(a b) -(-c)",
		"-(a OR b)":                          "-(a OR b)",
		"-(x)":                               "-x",
		"FROM:@Alice Platform:Telegram":      "from:alice platform:telegram",
		"tag:Moon #潮汐":                       "#moon #潮汐",
		"after:2026-01-31 before:2026-03-01": "after:2026-01-31 before:2026-03-01",
		"saved:>007D saved:<2w":              "saved:>7d saved:<2w",
		`“curly quotes”`:                     `"curly quotes"`,
		`a"b"(c)OR(d)`:                       `a "b" c OR d`,
		"http://x.com/status/1?a=b":          "http://x.com/status/1?a=b",
		"潮の満ち引き -#潮汐 has:photo":              "潮の満ち引き -#潮汐 has:photo",
	} {
		q, err := app.ParseQuery(in, queryNow)
		require.NoError(t, err, "%q", in)
		require.Equal(t, want, q.String(), "%q", in)
		again, err := app.ParseQuery(q.String(), queryNow)
		require.NoError(t, err, "%q read back", want)
		require.Equal(t, q, again, "%q read back", want)
	}
}

// Each malformed query: where the problem is and what was expected.
func TestParseQueryErrors(t *testing.T) {
	t.Parallel()
	long := strings.Repeat("潮汐 ", 666) + "ab" // 2,000 characters
	deep := strings.Repeat("(", 17) + "a" + strings.Repeat(")", 17)
	many := strings.TrimSpace(strings.Repeat("w ", 65))
	for _, tc := range []struct {
		in       string
		pos      int
		expected string
	}{
		{`"unclosed`, 9, "a closing quote"},
		{`a "b" "c`, 8, "a closing quote"},
		{`""`, 1, "words between the quotes"},
		{"from:", 5, "a handle (letters, digits, _, . or -) after from:"},
		{"from:@", 6, "a handle"},
		{"from:a,b", 6, "a handle"},
		{"after:2026-13-01", 6, "a date such as 2026-12-01 after after:"},
		{"after:2026-02-30", 6, "a date such as 2026-12-01 after after:"},
		{"before:2026-1-1", 7, "a date such as 2026-12-01 after before:"},
		{"before:", 7, "a date such as 2026-12-01 after before:"},
		{long, 1000, "a query of at most 1,000 characters"},
		{"( a", 3, "a closing )"},
		{"a (b (c)", 8, "a closing )"},
		{"a )", 2, "a ( before it"},
		{"()", 1, "a word, a phrase or a group inside ( )"},
		{"OR a", 0, "a word, a phrase or a group before OR"},
		{"(OR a)", 1, "a word, a phrase or a group before OR"},
		{"a OR", 4, "a word, a phrase or a group after OR"},
		{"a OR OR b", 5, "a word, a phrase or a group after OR"},
		{"(a OR) b", 5, "a word, a phrase or a group after OR"},
		{"has:sound", 4, "one of photo, video, gif, media, quote, poll after has:"},
		{"platform:mastodon", 9, "one of x, telegram after platform:"},
		{"kind:", 5, "one of post, profile, channel after kind:"},
		{"is:fav", 3, "one of sensitive, private, public, failed after is:"},
		{"saved:>7x", 8, "a unit after the number: d (days), w (weeks), m (months of 30 days) or y (years of 365 days)"},
		{"saved:>7", 8, "a unit after the number"},
		{"saved:7d", 6, "an age such as >7d, <2w, >=3m or <1y after saved:"},
		{"saved:>d", 7, "an age such as >7d"},
		{"saved:>7dd", 9, "a space after the age"},
		{"saved:>101y", 7, "an age of at most 100 years"},
		{"saved:>99999999999999999999d", 7, "an age of at most 100 years"},
		{"--x", 1, "a word, a phrase or a group right after -"},
		{"a - b", 3, "a word, a phrase or a group right after -"},
		{"a -", 3, "a word, a phrase or a group right after -"},
		{"-OR", 1, "a word, a phrase or a group right after -"},
		{"#tide-watch", 5, "a tag of letters, digits or _ after #"},
		{"#🌊", 1, "a tag of letters, digits or _ after #"},
		{"tag:", 4, "a tag of letters, digits or _ after tag:"},
		{deep, 16, "at most 16 groups inside each other"},
		{many, 128, "at most 64 terms"},
		{"a\x00b", 1, "printable text"},
		{"a \xff", 2, "text in UTF-8"},
		{strings.Repeat(`"a"`, 60) + " " + strings.Repeat("b", 819), 1000, "a query of at most 1,000 characters"}, // 1,059 once spaced
	} {
		q, err := app.ParseQuery(tc.in, queryNow)
		require.Error(t, err, "%q gave %v", tc.in, q)
		require.ErrorIs(t, err, app.ErrInvalid, "%q", tc.in)
		var qe *app.QueryError
		require.True(t, errors.As(err, &qe), "%q: %T", tc.in, err)
		require.Equal(t, tc.pos, qe.Pos, "%q: %v", tc.in, err)
		require.Contains(t, qe.Expected, tc.expected, "%q", tc.in)
		require.NotEmpty(t, qe.Msg, "%q", tc.in)
		require.NotEmpty(t, qe.ExpectedZH, "%q", tc.in)
		require.NotEmpty(t, qe.MsgZH, "%q", tc.in)
		require.Contains(t, err.Error(), "at character ", "%q", tc.in)
		require.Contains(t, qe.ErrorZH(), "个字符处", "%q", tc.in)
	}
}

// The error names the position as people count and says what to do.
func TestQueryErrorMessage(t *testing.T) {
	t.Parallel()
	_, err := app.ParseQuery(`tide "unclosed`, queryNow)
	require.EqualError(t, err, "at character 15: the phrase opened at character 6 is not closed (expected a closing quote)")
	var qe *app.QueryError
	require.ErrorAs(t, err, &qe)
	require.Equal(t, "第 15 个字符处：第 6 个字符处开始的短语没有结束（应为一个结束引号）", qe.ErrorZH())

	_, err = app.ParseQuery("has:sound", queryNow)
	require.EqualError(t, err, `at character 5: has: does not know "sound" (expected one of photo, video, gif, media, quote, poll after has:)`)

	_, err = app.ParseQuery("after:2026-13-01", queryNow)
	require.EqualError(t, err, "at character 7: 2026-13-01 is not a date: there is no month 13 (expected a date such as 2026-12-01 after after:)")
}

// The limits are inclusive: 1,000 characters, 64 terms, 16 groups deep.
func TestParseQueryAtTheLimits(t *testing.T) {
	t.Parallel()
	at := strings.Repeat("x", 999) + "y"
	q, err := app.ParseQuery(at, queryNow)
	require.NoError(t, err)
	require.Equal(t, app.Text{Value: at}, q.Root)

	q, err = app.ParseQuery(strings.TrimSpace(strings.Repeat("w ", 64)), queryNow)
	require.NoError(t, err)
	require.Len(t, q.Root.(app.And).Nodes, 64)

	deep := strings.Repeat("(", 16) + "a OR b" + strings.Repeat(")", 16)
	q, err = app.ParseQuery(deep, queryNow)
	require.NoError(t, err)
	require.Equal(t, "a OR b", q.String())
}

// saved: is relative to now, so the same query means a later time later.
func TestParseQuerySavedIsRelativeToNow(t *testing.T) {
	t.Parallel()
	later := queryNow.Add(48 * time.Hour)
	a, err := app.ParseQuery("saved:<1w", queryNow)
	require.NoError(t, err)
	b, err := app.ParseQuery("saved:<1w", later)
	require.NoError(t, err)
	require.Equal(t, 48*time.Hour, b.Root.(app.Time).At.Sub(a.Root.(app.Time).At))
	require.Equal(t, a.String(), b.String())
}
