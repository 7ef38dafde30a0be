package store

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/google/uuid"
)

// Search: the index of revisions (search_docs, and in SQLite its FTS5
// trigram table search_fts) and the one query that reads it. The index is
// described in migrations/sqlite/0010_search.sql; the SELECT that builds a
// revision's row is the one the migration runs over what was archived
// before it, read from the migration itself so the two cannot drift.

// searchIndexMarker starts the migration's backfill statement.
const searchIndexMarker = "-- What is already archived.\n"

// searchIndexSQL is the statement that indexes the revisions $1 … $n:
// the migration's backfill narrowed to them. On SQLite the revisions are
// read first with their content as JSONB, so that the statement's many
// JSON functions do not each parse the content's text again.
func searchIndexSQL(d dialect, n int) (string, error) {
	fs, name := sqliteMigrations, "migrations/sqlite/0010_search.sql"
	if d.name() == "postgres" {
		fs, name = postgresMigrations, "migrations/postgres/0011_search.sql"
	}
	b, err := fs.ReadFile(name)
	if err != nil {
		return "", err
	}
	s := string(b)
	i := strings.Index(s, searchIndexMarker)
	if i < 0 {
		return "", fmt.Errorf("store: %s has no backfill statement", name)
	}
	s = strings.TrimSpace(s[i+len(searchIndexMarker):])
	s = strings.TrimSuffix(s, ";")
	marks := make([]string, n)
	for i := range marks {
		marks[i] = "$" + strconv.Itoa(i+1)
	}
	in := strings.Join(marks, ", ")
	if d.name() == "postgres" {
		return s + ` WHERE r.id IN (` + in + `) ON CONFLICT (revision_id) DO NOTHING`, nil
	}
	const from = "FROM revisions r"
	if strings.Count(s, from) != 1 {
		return "", fmt.Errorf("store: %s: the backfill statement should read %q once", name, from)
	}
	// WHERE true: SQLite needs a WHERE before an upsert's ON CONFLICT.
	return `WITH picked AS MATERIALIZED (SELECT id, collection_id, data_scope, jsonb(content_json) AS content_json
		FROM revisions WHERE id IN (` + in + `)) ` +
		strings.Replace(s, from, "FROM picked r", 1) + ` WHERE true ON CONFLICT (revision_id) DO NOTHING`, nil
}

// SearchIndexRevision writes the search index row of a revision, in the
// transaction that inserted it. Indexing it again does nothing.
func (tx *Tx) SearchIndexRevision(ctx context.Context, revisionID uuid.UUID) error {
	q, err := searchIndexSQL(tx.d, 1)
	if err != nil {
		return err
	}
	_, err = tx.tx.ExecContext(ctx, q, revisionID)
	return wrap(tx.d, "index revision for search", err)
}

// SearchIndexRevisions writes the search index rows of many revisions
// inserted in this transaction, a few hundred a statement. An import
// indexes its revisions this way at its end: SQLite's full-text table
// writes what it holds at the start of every later statement of the
// transaction, so one row a statement would write one index segment for
// each revision.
func (tx *Tx) SearchIndexRevisions(ctx context.Context, ids []uuid.UUID) error {
	const chunk = 500
	for start := 0; start < len(ids); start += chunk {
		part := ids[start:min(start+chunk, len(ids))]
		q, err := searchIndexSQL(tx.d, len(part))
		if err != nil {
			return err
		}
		args := make([]any, len(part))
		for i, id := range part {
			args[i] = id
		}
		if _, err := tx.tx.ExecContext(ctx, q, args...); err != nil {
			return wrap(tx.d, "index revisions for search", err)
		}
	}
	return nil
}

// SearchExpr is a search condition, built by the caller from a parsed
// query. Op is one of:
//
//	"and", "or"  every / any one of Kids
//	"not"        not Kids[0]
//	"text"       the revision's document contains Value (lower case)
//	"from"       the author's handle is Value (lower case, no @)
//	"platform"   the collection's platform is Value
//	"kind"       post, profile or channel (from the entity type)
//	"has"        photo, video, gif, media, quote or poll
//	"is"         sensitive, private, public or failed (the latest capture failed)
//	"tag"        the document contains #Value
//	"published"  the post's time Cmp At (Cmp one of < <= > >=)
//	"saved"      the tenant's save time Cmp At
//
// Values are always passed as parameters.
type SearchExpr struct {
	Op    string
	Kids  []SearchExpr
	Value string
	Cmp   string
	At    time.Time
}

// SearchCursor is a position in a search's results: the score (0 when
// sorted by save time), then the save time and collection id.
type SearchCursor struct {
	Score        int
	SavedAt      time.Time
	CollectionID uuid.UUID
}

// SearchQuery is one page of a search of a tenant's saved collections.
type SearchQuery struct {
	// Where is the condition (nil: every saved collection).
	Where *SearchExpr
	// Rank, when not empty, sorts by how many of these terms (lower
	// case) the document contains, most first, then newest save first.
	Rank  []string
	After *SearchCursor
	Limit int
}

// SearchRow is one result: the saved collection and its score.
type SearchRow struct {
	SavedCollection
	Score int
}

// searchBuilder builds the SQL of a search, every value a parameter.
type searchBuilder struct {
	d    dialect
	args []any
	// ids, when not nil, are the revisions PostgreSQL's index lookup found
	// already: every match of the required terms (searchPostgres).
	ids []string
}

func (b *searchBuilder) arg(v any) string {
	b.args = append(b.args, v)
	return "$" + itoa(len(b.args))
}

var searchCmps = map[string]bool{"<": true, "<=": true, ">": true, ">=": true}

// textCond is true when the document contains the lower-case term. It
// is LIKE on the row, which is cheap on the rows a search reads (the index
// only picks them: Search), except in SQLite for a term of 3 runes or
// more with a letter that has case beyond ASCII ("école"): SQLite's lower()
// and LIKE fold ASCII only, and the trigram index folds every script, so
// such a term is looked up in the index to find "ÉCOLE" too.
func (b *searchBuilder) textCond(term string) string {
	if b.d.name() == "sqlite" && utf8.RuneCountInString(term) >= 3 && !asciiCaseOnly(term) {
		return `coalesce(sd.id IN (SELECT rowid FROM search_fts WHERE search_fts MATCH ` +
			b.arg(`"`+strings.ReplaceAll(term, `"`, `""`)+`"`) + `), 0) = 1`
	}
	return `coalesce(sd.doc, '') LIKE ` + b.arg("%"+likeEscape(term)+"%") + ` ESCAPE '\'`
}

// asciiCaseOnly is true when no rune of s outside ASCII has case (CJK,
// digits, emoji and ASCII letters have none that LIKE misses).
func asciiCaseOnly(s string) bool {
	for _, r := range s {
		if r >= utf8.RuneSelf && (unicode.ToLower(r) != r || unicode.ToUpper(r) != r || unicode.ToTitle(r) != r) {
			return false
		}
	}
	return true
}

func (b *searchBuilder) cond(e SearchExpr) (string, error) {
	switch e.Op {
	case "and", "or":
		if len(e.Kids) == 0 {
			return "", fmt.Errorf("store: search %s without terms", e.Op)
		}
		parts := make([]string, 0, len(e.Kids))
		for _, k := range e.Kids {
			s, err := b.cond(k)
			if err != nil {
				return "", err
			}
			parts = append(parts, "("+s+")")
		}
		return strings.Join(parts, " "+strings.ToUpper(e.Op)+" "), nil
	case "not":
		if len(e.Kids) != 1 {
			return "", fmt.Errorf("store: search not needs one term")
		}
		s, err := b.cond(e.Kids[0])
		if err != nil {
			return "", err
		}
		return "NOT (" + s + ")", nil
	case "text":
		return b.textCond(e.Value), nil
	case "tag":
		return b.textCond("#" + e.Value), nil
	case "from":
		return `coalesce(sd.handles, '') LIKE ` + b.arg("% "+likeEscape(e.Value)+" %") + ` ESCAPE '\'`, nil
	case "platform":
		return `c.platform = ` + b.arg(e.Value), nil
	case "kind":
		switch e.Value {
		case "post":
			return `(c.entity_type LIKE '%.post' OR c.entity_type LIKE '%.message')`, nil
		case "profile":
			return `c.entity_type LIKE '%.profile'`, nil
		case "channel":
			return `c.entity_type LIKE '%.channel'`, nil
		}
	case "has":
		return `coalesce(sd.flags, '') LIKE ` + b.arg("% "+likeEscape(e.Value)+" %") + ` ESCAPE '\'`, nil
	case "is":
		switch e.Value {
		case "sensitive":
			return `coalesce(sd.flags, '') LIKE '% sensitive %'`, nil
		case "private", "public":
			return `c.visibility = ` + b.arg(e.Value), nil
		case "failed":
			return `coalesce((SELECT p.state FROM captures p WHERE p.collection_id = c.id AND p.automatic = false
				ORDER BY p.created_at DESC, p.id DESC LIMIT 1), '') = 'failed'`, nil
		}
	case "published", "saved":
		if !searchCmps[e.Cmp] {
			return "", fmt.Errorf("store: search comparison %q", e.Cmp)
		}
		if e.Op == "saved" {
			return `tc.saved_at ` + e.Cmp + ` ` + b.arg(e.At.UTC()), nil
		}
		return `(sd.published_at IS NOT NULL AND sd.published_at ` + e.Cmp + ` ` + b.arg(e.At.UTC()) + `)`, nil
	}
	return "", fmt.Errorf("store: search condition %s:%s", e.Op, e.Value)
}

// searchDriveLimit is where a search stops reading from its index first.
// When the terms every result must contain match fewer documents than
// this, the search reads those documents and sorts their saves (work
// grows with the matches, about 10 µs each); with more, it walks the
// tenant's saves newest first and stops at a full page (work grows with
// saves/matches rows, about 1 µs each, and a term this common fills a page
// within a few thousand rows of 100,000). The two cost the same near 500
// matches on 100,000 saves (internal/app's BenchmarkSearch); a query with
// no such term always walks, so a rare filter alone (has:poll) reads every
// save.
const searchDriveLimit = 500

// requiredTerms are the text terms of 3 or more characters (lower case)
// that every match of e contains: e itself or the terms of its top AND.
func requiredTerms(e *SearchExpr) []string {
	if e == nil {
		return nil
	}
	kids := []SearchExpr{*e}
	if e.Op == "and" {
		kids = e.Kids
	}
	var out []string
	for _, k := range kids {
		t := k.Value
		switch k.Op {
		case "tag":
			t = "#" + t
		case "text":
		default:
			continue
		}
		if utf8.RuneCountInString(t) >= 3 {
			out = append(out, t)
		}
	}
	return out
}

// docFilters are what every match of e requires of its document's handles
// and flags (from:, has:, is:sensitive at the top AND), as LIKE patterns:
// PostgreSQL's index lookup applies them to the documents its terms find
// (monitor_search_match_docs).
func docFilters(e *SearchExpr) (handles, flags []string) {
	if e == nil {
		return nil, nil
	}
	kids := []SearchExpr{*e}
	if e.Op == "and" {
		kids = e.Kids
	}
	for _, k := range kids {
		switch {
		case k.Op == "from":
			handles = append(handles, "% "+likeEscape(k.Value)+" %")
		case k.Op == "has", k.Op == "is" && k.Value == "sensitive":
			flags = append(flags, "% "+likeEscape(k.Value)+" %")
		}
	}
	return handles, flags
}

// sqliteMatches are the rowids of the search documents (up to limit)
// that contain every one of terms, found in the FTS5 index alone, as a
// JSON array the search reads back with json_each instead of asking the
// index twice.
func sqliteMatches(ctx context.Context, qr querier, terms []string, limit int) (string, int, error) {
	rows, err := qr.QueryContext(ctx, `SELECT rowid FROM search_fts WHERE search_fts MATCH $1 LIMIT `+itoa(limit), ftsAll(terms))
	if err != nil {
		return "", 0, err
	}
	defer rows.Close()
	var b strings.Builder
	b.WriteByte('[')
	n := 0
	for rows.Next() {
		var id int64
		if err := rows.Scan(&id); err != nil {
			return "", 0, err
		}
		if n > 0 {
			b.WriteByte(',')
		}
		b.WriteString(strconv.FormatInt(id, 10))
		n++
	}
	b.WriteByte(']')
	return b.String(), n, rows.Err()
}

// ftsAll is the FTS5 query for documents that contain every term.
func ftsAll(terms []string) string {
	parts := make([]string, len(terms))
	for i, t := range terms {
		parts[i] = `"` + strings.ReplaceAll(t, `"`, `""`) + `"`
	}
	return strings.Join(parts, " AND ")
}

// after is the condition (with a leading AND) that a newest-first row
// comes after the cursor a, "" without one. Newest first, every score is 0.
func (b *searchBuilder) after(a *SearchCursor, id string) string {
	if a == nil {
		return ""
	}
	sc, at, cid := b.arg(a.Score), b.arg(a.SavedAt), b.arg(a.CollectionID)
	return ` AND (0 < ` + sc + ` OR (0 = ` + sc + ` AND (tc.saved_at < ` + at +
		` OR (tc.saved_at = ` + at + ` AND ` + id + ` < ` + cid + `))))`
}

// searchSlice is how many of the newest saves PostgreSQL's walk reads
// before it gives up on the slice and lets the planner read everything.
// PostgreSQL cannot use the trigram index here: LIKE is not leakproof, so
// under row-level security it is never an index condition, and the
// planner, which believes any LIKE '%…%' is rare, would join every save
// and sort. The walk stops early for every term or filter found in one
// save in 250 or more (measured in internal/app's BenchmarkSearch).
const searchSlice = 5000

// Search lists the tenant's saved collections whose current revision
// matches q.Where: newest save first, or by score when q.Rank is set;
// at most q.Limit rows after q.After. Collections the tenant did not
// save, or may not see, are never read. How the rows are read depends on
// how many documents the required terms match (searchDriveLimit).
func (s *Store) Search(ctx context.Context, tenantID uuid.UUID, q SearchQuery) ([]SearchRow, error) {
	b := &searchBuilder{d: s.d, args: []any{tenantID, PublicScope}}
	where := "1 = 1"
	if q.Where != nil {
		w, err := b.cond(*q.Where)
		if err != nil {
			return nil, err
		}
		where = w
	}
	score := "0"
	if len(q.Rank) > 0 {
		parts := make([]string, 0, len(q.Rank))
		for _, t := range q.Rank {
			parts = append(parts, `CASE WHEN `+b.textCond(t)+` THEN 1 ELSE 0 END`)
		}
		score = strings.Join(parts, " + ")
	}
	cols := `c.id, c.tenant_id, c.visibility, c.data_scope, c.access_scope, c.platform, c.entity_type, c.object_scope,
			c.external_id, c.adapter_id, c.source_url, c.claimed_visibility, c.current_revision_id, c.created_at, c.updated_at,
			tc.saved_at, (` + score + `) AS score`
	// build is the query: fromIndex reads the documents the required terms
	// match first; otherwise the tenant's saves are read, newest first when
	// the sort allows it.
	base := len(b.args)
	matches := "" // SQLite: the required terms' documents, when few (sqliteMatches)
	build := func(fromIndex bool, terms []string, slice int) string {
		b.args = b.args[:base]
		from := ` FROM tenant_collections tc
		 JOIN collections c ON c.id = tc.collection_id AND (c.data_scope = $2 OR c.data_scope = $1)
		 LEFT JOIN search_docs sd ON sd.revision_id = c.current_revision_id
		 WHERE tc.tenant_id = $1 AND (` + where + `)`
		if slice > 0 {
			// The newest slice of the saves (after the cursor), each joined
			// by its own index lookups (LATERAL ... OFFSET 0 keeps the
			// planner from hashing the tables whole), so PostgreSQL walks
			// it in order and stops at a full page; see searchSlice.
			from = ` FROM (SELECT * FROM tenant_collections tc WHERE tc.tenant_id = $1` + b.after(q.After, "tc.collection_id") +
				` ORDER BY tc.saved_at DESC, tc.collection_id DESC LIMIT ` + itoa(slice) + `) tc
			 CROSS JOIN LATERAL (SELECT * FROM collections c WHERE c.id = tc.collection_id
				AND (c.data_scope = $2 OR c.data_scope = $1) OFFSET 0) c
			 LEFT JOIN LATERAL (SELECT * FROM search_docs sd WHERE sd.revision_id = c.current_revision_id OFFSET 0) sd ON true
			 WHERE (` + where + `)`
		}
		if fromIndex {
			// A required term's document exists, so the joins are inner;
			// SQLite's CROSS JOIN keeps the order: index, collection, save.
			join, match := " JOIN ", ""
			if s.d.name() == "sqlite" {
				join = " CROSS JOIN "
				match = ` AND sd.id IN (SELECT rowid FROM search_fts WHERE search_fts MATCH ` + b.arg(ftsAll(terms)) + `)`
				if matches != "" {
					match = ` AND sd.id IN (SELECT value FROM json_each(` + b.arg(matches) + `))`
				}
			}
			from = ` FROM search_docs sd` + join + `collections c ON c.current_revision_id = sd.revision_id
				AND (c.data_scope = $2 OR c.data_scope = $1)` + join + `tenant_collections tc ON tc.tenant_id = $1 AND tc.collection_id = c.id
			 WHERE (` + where + `)` + match
			if s.d.name() == "postgres" {
				// The documents every required term matches, found through
				// the trigram index (pgMatches), each joined by index
				// lookups: the planner, misjudging LIKE, would hash every
				// table.
				from = ` FROM (SELECT * FROM search_docs sd WHERE ` + b.pgMatches(terms, q.Where) + ` OFFSET 0) sd
				 CROSS JOIN LATERAL (SELECT * FROM collections c WHERE c.current_revision_id = sd.revision_id
					AND (c.data_scope = $2 OR c.data_scope = $1) OFFSET 0) c
				 CROSS JOIN LATERAL (SELECT * FROM tenant_collections tc WHERE tc.tenant_id = $1 AND tc.collection_id = c.id OFFSET 0) tc
				 WHERE (` + where + `)`
			}
		}
		if len(q.Rank) == 0 {
			// Newest first: the order of tenant_collections_saved_idx, so a
			// walk of the saves stops at a full page.
			sel := `SELECT ` + cols + from
			if slice == 0 {
				sel += b.after(q.After, "tc.collection_id")
			}
			return sel + ` ORDER BY tc.saved_at DESC, tc.collection_id DESC LIMIT ` + itoa(q.Limit)
		}
		outer := `SELECT * FROM (SELECT ` + cols + from + `) x`
		if a := q.After; a != nil {
			sc, at, id := b.arg(a.Score), b.arg(a.SavedAt), b.arg(a.CollectionID)
			outer += ` WHERE (x.score < ` + sc + ` OR (x.score = ` + sc + ` AND (x.saved_at < ` + at +
				` OR (x.saved_at = ` + at + ` AND x.id < ` + id + `))))`
		}
		return outer + ` ORDER BY x.score DESC, x.saved_at DESC, x.id DESC LIMIT ` + itoa(q.Limit)
	}
	var out []SearchRow
	err := s.view(ctx, func(qr querier) error {
		fromIndex := false
		terms := requiredTerms(q.Where)
		limit := searchDriveLimit
		if s.searchDrive != 0 {
			limit = s.searchDrive
		}
		if s.d.name() == "postgres" {
			return s.searchPostgres(ctx, qr, q, terms, build, b, &out)
		}
		switch {
		case len(terms) == 0 || limit < 0:
		case len(q.Rank) > 0:
			// Ranked: every match is scored, so a walk would not stop
			// early; reading the matches costs less.
			fromIndex = true
		default:
			ids, n, err := sqliteMatches(ctx, qr, terms, limit)
			if err != nil {
				return err
			}
			if fromIndex = n < limit; fromIndex {
				matches = ids
			}
		}
		var err error
		out, err = scanSearch(ctx, qr, build(fromIndex, terms, 0), b.args)
		return err
	})
	return out, wrap(s.d, "search", err)
}

// pgDriveLimit is PostgreSQL's searchDriveLimit. Its index lookup
// returns the matching documents' ids (about 10 to 20 µs each, measured
// over 100,000 posts), which the search then reads by id (about 10 µs
// each), while a walk of the newest saves costs about 12 µs a save: a
// term in 1 document of 150 ("the old crane") took 36 ms to fill a page
// by walking and about 20 ms through its 556 ids.
const pgDriveLimit = 1000

// searchPostgres runs a search on PostgreSQL. With required terms, it
// first asks the index for up to pgDriveLimit matching documents; fewer
// than that are all the matches, read by id. Otherwise a newest-first
// search walks the newest searchSlice saves, and only when they hold less
// than a page asks for every match.
func (s *Store) searchPostgres(ctx context.Context, qr querier, q SearchQuery, terms []string,
	build func(bool, []string, int) string, b *searchBuilder, out *[]SearchRow) error {
	if len(terms) > 0 && s.searchDrive == 0 && len(q.Rank) == 0 {
		handles, flags := docFilters(q.Where)
		ids, err := pgMatchIDs(ctx, qr, terms, handles, flags, pgDriveLimit)
		if err != nil {
			return err
		}
		if len(ids) < pgDriveLimit {
			b.ids = ids
			rows, err := scanSearch(ctx, qr, build(true, terms, 0), b.args)
			*out = rows
			return err
		}
	}
	if len(q.Rank) == 0 && s.searchDrive <= 0 {
		rows, err := scanSearch(ctx, qr, build(false, terms, searchSlice), b.args)
		if err != nil || len(rows) == q.Limit {
			*out = rows
			return err
		}
	}
	rows, err := scanSearch(ctx, qr, build(len(terms) > 0 && s.searchDrive >= 0, terms, 0), b.args)
	*out = rows
	return err
}

// pgMatchIDs are the revision ids of the documents (at most limit) that contain every one of terms and match the handle and flag
// patterns, found through the trigram index by monitor_search_match_docs
// (migrations/postgres/0024_search_filters.sql), which filters as the
// row-level security policy does.
func pgMatchIDs(ctx context.Context, qr querier, terms, handles, flags []string, limit int) ([]string, error) {
	rows, err := qr.QueryContext(ctx, `SELECT revision_id::text FROM monitor_search_match_docs($1::text[], $2::text[], $3::text[], $4)`,
		pgPatterns(terms), handles, flags, limit)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	ids := []string{}
	for rows.Next() {
		var id string
		if err := rows.Scan(&id); err != nil {
			return nil, err
		}
		ids = append(ids, id)
	}
	return ids, rows.Err()
}

// pgMatches is the condition that a document (sd) contains every one of
// terms and has what where requires of its handles and flags, answered
// through the trigram index by monitor_search_match_docs
// (migrations/postgres/0024_search_filters.sql) in one query over all of
// them, which filters as the row-level security policy does.
func (b *searchBuilder) pgMatches(terms []string, where *SearchExpr) string {
	if b.ids != nil {
		// Found already (searchPostgres).
		return `sd.revision_id = ANY(` + b.arg(b.ids) + `::uuid[])`
	}
	handles, flags := docFilters(where)
	return `sd.revision_id IN (SELECT monitor_search_match_docs(` + b.arg(pgPatterns(terms)) + `::text[], ` +
		b.arg(handles) + `::text[], ` + b.arg(flags) + `::text[], NULL))`
}

// pgPatterns are the LIKE patterns of terms: each anywhere in a document.
func pgPatterns(terms []string) []string {
	patterns := make([]string, len(terms))
	for i, t := range terms {
		patterns[i] = "%" + likeEscape(t) + "%"
	}
	return patterns
}

// scanSearch runs a search's query and reads its rows.
func scanSearch(ctx context.Context, qr querier, query string, args []any) ([]SearchRow, error) {
	rows, err := qr.QueryContext(ctx, query, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []SearchRow
	for rows.Next() {
		var r SearchRow
		var cur uuid.NullUUID
		c := &r.Collection
		if err := rows.Scan(&c.ID, &c.TenantID, &c.Visibility, &c.DataScope, &c.AccessScope, &c.Platform, &c.EntityType,
			&c.ObjectScope, &c.ExternalID, &c.AdapterID, &c.SourceURL, &c.ClaimedVisibility, &cur, &c.CreatedAt, &c.UpdatedAt,
			&r.SavedAt, &r.Score); err != nil {
			return nil, err
		}
		if cur.Valid {
			c.CurrentRevisionID = &cur.UUID
		}
		out = append(out, r)
	}
	return out, rows.Err()
}
