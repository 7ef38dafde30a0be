package app

import (
	"context"
	"encoding/base64"
	"strconv"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/google/uuid"

	"github.com/monitorhq/monitor/internal/store"
)

// Search sorts: newest save first (the default) or by relevance.
const (
	SearchSortNewest    = "newest"
	SearchSortRelevance = "relevance"
)

// Snippet markers: a search result's snippet is plain text with each
// match between SnippetOpen and SnippetClose, so "«潮汐»表说…". A surface
// that highlights replaces them (after escaping the text).
const (
	SnippetOpen  = "«"
	SnippetClose = "»"
	// snippetRadius is how many runes of context a snippet keeps before
	// its first match; it keeps about three times as many after.
	snippetRadius = 30
)

// SearchItem is one search result: the collection summary GET
// /v1/collections gives, plus the snippet of its text where the query
// matched ("" when nothing to show: a filter-only query over a post
// without text).
type SearchItem struct {
	CollectionView
	Snippet string `json:"snippet"`
}

// SearchPage is one page of search results.
type SearchPage struct {
	Items      []SearchItem `json:"items"`
	NextCursor string       `json:"next_cursor"`
}

// Search finds, among the collections the tenant saved, those whose
// current revision matches the query q (the language of ParseQuery; a bad
// query is its *QueryError, which matches ErrInvalid). sort is "" or
// "newest" (newest save first) or "relevance" (most of the query's words
// first, then newest save); limit is 1 to 100; cursor is "" or the
// NextCursor of the previous page of the same search.
//
// Text is matched as a case-insensitive substring of the post's text,
// author name and handle, alt texts and link titles, so "潮" finds
// "潮の満ち引き"; terms of three characters or more use the index, shorter
// ones are looked for in the candidates it leaves.
func (a *App) Search(ctx context.Context, tenantID uuid.UUID, q string, limit int, cursor string, sort string) (SearchPage, error) {
	ctx = store.WithTenant(ctx, tenantID)
	if limit < 1 || limit > 100 {
		return SearchPage{}, errorf(ErrInvalid, "limit must be from 1 to 100")
	}
	switch sort {
	case "", SearchSortNewest:
		sort = SearchSortNewest
	case SearchSortRelevance:
	default:
		return SearchPage{}, errorf(ErrInvalid, "sort must be %q or %q, not %q", SearchSortNewest, SearchSortRelevance, sort)
	}
	query, err := ParseQuery(q, a.now())
	if err != nil {
		return SearchPage{}, err
	}
	after, err := decodeSearchCursor(cursor, sort)
	if err != nil {
		return SearchPage{}, err
	}
	sq := store.SearchQuery{After: after, Limit: limit + 1}
	if query.Root != nil {
		e := searchExpr(query.Root)
		sq.Where = &e
	}
	terms := positiveTerms(query.Root, nil)
	if sort == SearchSortRelevance {
		sq.Rank = terms
	}
	rows, err := a.store.Search(ctx, tenantID, sq)
	if err != nil {
		return SearchPage{}, err
	}
	page := SearchPage{Items: []SearchItem{}}
	if len(rows) > limit {
		last := rows[limit-1]
		page.NextCursor = encodeSearchCursor(sort, last)
		rows = rows[:limit]
	}
	saved := make([]store.SavedCollection, len(rows))
	for i, r := range rows {
		saved[i] = r.SavedCollection
	}
	// One read for the whole page, as the library's listing does: one per
	// result cost about 1 ms each on PostgreSQL, most of a search's time.
	views, err := a.collectionViews(ctx, saved)
	if err != nil {
		return SearchPage{}, err
	}
	for _, v := range views {
		page.Items = append(page.Items, SearchItem{CollectionView: v, Snippet: searchSnippet(v, terms)})
	}
	return page, nil
}

// searchExpr is the store's condition for a query node.
func searchExpr(n Node) store.SearchExpr {
	switch n := n.(type) {
	case And:
		return store.SearchExpr{Op: "and", Kids: searchExprs(n.Nodes)}
	case Or:
		return store.SearchExpr{Op: "or", Kids: searchExprs(n.Nodes)}
	case Not:
		return store.SearchExpr{Op: "not", Kids: []store.SearchExpr{searchExpr(n.Node)}}
	case Text:
		return store.SearchExpr{Op: "text", Value: strings.ToLower(n.Value)}
	case Field:
		return store.SearchExpr{Op: n.Name, Value: n.Value}
	case Time:
		return store.SearchExpr{Op: n.Field, Cmp: n.Op, At: n.At}
	}
	// ParseQuery makes no other node; a condition with no operation is
	// one the store refuses with an error, never a silent match.
	return store.SearchExpr{}
}

func searchExprs(ns []Node) []store.SearchExpr {
	out := make([]store.SearchExpr, len(ns))
	for i, n := range ns {
		out[i] = searchExpr(n)
	}
	return out
}

// positiveTerms are the query's text terms that are not excluded, lower
// case, once each: what relevance counts and snippets show.
func positiveTerms(n Node, out []string) []string {
	switch n := n.(type) {
	case And:
		for _, k := range n.Nodes {
			out = positiveTerms(k, out)
		}
	case Or:
		for _, k := range n.Nodes {
			out = positiveTerms(k, out)
		}
	case Text:
		t := strings.ToLower(n.Value)
		for _, o := range out {
			if o == t {
				return out
			}
		}
		out = append(out, t)
	}
	return out
}

// searchSnippet is the part of the item's text (else its author name, alt
// texts) around the first match of a term, each match of that term in it
// between SnippetOpen and SnippetClose; without a match, the text's start.
func searchSnippet(v CollectionView, terms []string) string {
	fields := []string{v.Text, v.AuthorName}
	for _, m := range v.Media {
		fields = append(fields, m.Alt)
	}
	for _, f := range fields {
		if s, ok := snippetOf(f, terms); ok {
			return s
		}
	}
	return clipRunes([]rune(collapseSpace(v.Text)), 4*snippetRadius)
}

// snippetOf finds the earliest match of any term in text.
func snippetOf(text string, terms []string) (string, bool) {
	rs := []rune(collapseSpace(text))
	lower := []rune(strings.ToLower(string(rs)))
	if len(lower) != len(rs) {
		lower = rs // a rune whose lower case has another length: match as is
	}
	best, bestLen := -1, 0
	for _, t := range terms {
		tr := []rune(t)
		if i := runeIndex(lower, tr, 0); i >= 0 && (best < 0 || i < best) {
			best, bestLen = i, len(tr)
		}
	}
	if best < 0 {
		return "", false
	}
	start := max(0, best-snippetRadius)
	end := min(len(rs), best+bestLen+3*snippetRadius)
	// Cut between words where a space is near (scripts without spaces
	// are cut where the radius ends).
	for k := start; k > 0 && k > start-10; k-- {
		if unicode.IsSpace(rs[k-1]) {
			start = k
			break
		}
	}
	for k := end; k < len(rs) && k < end+10; k++ {
		if unicode.IsSpace(rs[k]) {
			end = k
			break
		}
	}
	term := lower[best : best+bestLen]
	var b strings.Builder
	if start > 0 {
		b.WriteString("…")
	}
	for i := start; i < end; {
		if i+bestLen <= end && runeIndex(lower[i:i+bestLen], term, 0) == 0 {
			b.WriteString(SnippetOpen + string(rs[i:i+bestLen]) + SnippetClose)
			i += bestLen
			continue
		}
		b.WriteRune(rs[i])
		i++
	}
	if end < len(rs) {
		b.WriteString("…")
	}
	return b.String(), true
}

func runeIndex(s, sub []rune, from int) int {
	for i := from; i+len(sub) <= len(s); i++ {
		j := 0
		for j < len(sub) && s[i+j] == sub[j] {
			j++
		}
		if j == len(sub) {
			return i
		}
	}
	return -1
}

func clipRunes(rs []rune, n int) string {
	if len(rs) <= n {
		return string(rs)
	}
	return string(rs[:n]) + "…"
}

func collapseSpace(s string) string { return strings.Join(strings.Fields(s), " ") }

// A search cursor: the sort's initial, the score, the save time in Unix
// nanoseconds and the collection id, joined by dots, base64url.
func encodeSearchCursor(sort string, r store.SearchRow) string {
	return base64.RawURLEncoding.EncodeToString([]byte(sort[:1] + "." + strconv.Itoa(r.Score) + "." +
		strconv.FormatInt(r.SavedAt.UnixNano(), 10) + "." + r.ID.String()))
}

func decodeSearchCursor(s, sort string) (*store.SearchCursor, error) {
	if s == "" {
		return nil, nil
	}
	bad := errorf(ErrInvalid, "cursor %q is not one this search gave out; start again without a cursor", s)
	raw, err := base64.RawURLEncoding.DecodeString(s)
	if err != nil || !utf8.Valid(raw) {
		return nil, bad
	}
	parts := strings.Split(string(raw), ".")
	if len(parts) != 4 || parts[0] != sort[:1] {
		return nil, bad
	}
	score, err := strconv.Atoi(parts[1])
	if err != nil || score < 0 {
		return nil, bad
	}
	ns, err := strconv.ParseInt(parts[2], 10, 64)
	if err != nil {
		return nil, bad
	}
	id, err := uuid.Parse(parts[3])
	if err != nil {
		return nil, bad
	}
	return &store.SearchCursor{Score: score, SavedAt: time.Unix(0, ns).UTC(), CollectionID: id}, nil
}
