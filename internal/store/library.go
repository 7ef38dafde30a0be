package store

import (
	"context"
	"database/sql"
	"strings"
	"time"

	"github.com/google/uuid"
)

// LibraryFilter narrows a tenant's library. Empty fields do not filter.
type LibraryFilter struct {
	// Platform is a collection's platform ("x", "telegram").
	Platform string
	// Visibility is Public or Private.
	Visibility string
	// Author matches the current revision's author name, case-insensitive,
	// as a substring.
	Author string
	// Words keep collections whose current revision's text, summary or
	// author name contains every one of them, case-insensitive.
	Words []string
	// MediaKind keeps collections whose current revision has a media of
	// this kind (image, video, gif, audio, document).
	MediaKind string
	// SavedFrom and SavedBefore bound the save time: from inclusive,
	// before exclusive.
	SavedFrom, SavedBefore *time.Time
	// MemberOf keeps the members of a collection (a profile's or channel's
	// posts): the collections its pages' expansions saved for the tenant.
	MemberOf *uuid.UUID
}

// LibraryRow is one card of a tenant's library: the saved collection, its
// current revision's content and its latest capture, read in one query.
type LibraryRow struct {
	ID         uuid.UUID
	Platform   string
	EntityType string
	Visibility string
	SourceURL  string
	SavedAt    time.Time
	// RevisionID and Content are nil until a capture completed.
	RevisionID *uuid.UUID
	Content    []byte
	// CaptureID is the latest capture (nil: none, e.g.
	// imported content); its state, error and error code.
	CaptureID        *uuid.UUID
	CaptureState     string
	CaptureError     string
	CaptureErrorCode string
}

// LibraryList lists a tenant's saved collections newest save first, after
// the cursor (nil: from the newest), with the filter, at most limit rows.
// It is one query: keyset pagination on tenant_collections_saved_idx, the
// current revision and the latest capture joined by key.
func (s *Store) LibraryList(ctx context.Context, tenantID uuid.UUID, f LibraryFilter, after *SavedCursor, limit int) ([]LibraryRow, error) {
	// The page is chosen first, on the index, with only what the filters
	// need: without a filter on the collection it is read from
	// tenant_collections alone, which the index answers whatever the
	// planner's statistics say.
	byCollection := f.Platform != "" || f.Visibility != "" || f.Author != "" || f.MediaKind != "" || len(f.Words) > 0
	var b strings.Builder
	b.WriteString(`SELECT tc.collection_id, tc.saved_at,
		(SELECT p.id FROM captures p WHERE p.collection_id = tc.collection_id
			ORDER BY p.created_at DESC, p.id DESC LIMIT 1) AS latest_capture
	 FROM tenant_collections tc`)
	if byCollection {
		b.WriteString(` JOIN collections c ON c.id = tc.collection_id AND (c.data_scope = $2 OR c.data_scope = $1)`)
	}
	if f.Author != "" || f.MediaKind != "" || len(f.Words) > 0 {
		b.WriteString(` LEFT JOIN revisions r ON r.id = c.current_revision_id`)
	}
	b.WriteString(` WHERE tc.tenant_id = $1`)
	args := []any{tenantID, PublicScope}
	arg := func(v any) string {
		args = append(args, v)
		return "$" + itoa(len(args))
	}
	if after != nil {
		at, id := arg(after.SavedAt), arg(after.CollectionID)
		b.WriteString(` AND (tc.saved_at, tc.collection_id) < (` + at + `, ` + id + `)`)
	}
	if f.MemberOf != nil {
		b.WriteString(` AND tc.collection_id IN (SELECT ch.collection_id FROM submissions ch
			JOIN submissions pg ON pg.id = ch.parent_submission_id
			WHERE ch.tenant_id = $1 AND ch.automatic = true AND pg.collection_id = ` + arg(*f.MemberOf) + `)`)
	}
	if f.Platform != "" {
		b.WriteString(` AND c.platform = ` + arg(f.Platform))
	}
	if f.Visibility != "" {
		b.WriteString(` AND c.visibility = ` + arg(f.Visibility))
	}
	if f.SavedFrom != nil {
		b.WriteString(` AND tc.saved_at >= ` + arg(*f.SavedFrom))
	}
	if f.SavedBefore != nil {
		b.WriteString(` AND tc.saved_at < ` + arg(*f.SavedBefore))
	}
	if f.Author != "" {
		b.WriteString(` AND lower(` + libraryAuthorExpr(s.d) + `) LIKE ` + arg("%"+likeEscape(strings.ToLower(f.Author))+"%") + ` ESCAPE '\'`)
	}
	for _, w := range f.Words {
		b.WriteString(` AND lower(` + libraryWordsExpr(s.d) + `) LIKE ` + arg("%"+likeEscape(strings.ToLower(w))+"%") + ` ESCAPE '\'`)
	}
	if f.MediaKind != "" {
		b.WriteString(` AND ` + libraryMediaKindCond(s.d, arg(f.MediaKind)))
	}
	b.WriteString(` ORDER BY tc.saved_at DESC, tc.collection_id DESC LIMIT ` + itoa(limit))
	// The content and the latest capture are joined to the page's rows
	// alone, by key (the latest capture's id is found in the page query,
	// so PostgreSQL does not hash all captures to join it), and the cost
	// does not grow with the library.
	q := `SELECT c.id, c.platform, c.entity_type, c.visibility, c.source_url, pg.saved_at, c.current_revision_id,
		r.content_json, lc.id, lc.state, lc.error, lc.error_code
	 FROM (` + b.String() + `) pg
	 JOIN collections c ON c.id = pg.collection_id AND (c.data_scope = $2 OR c.data_scope = $1)
	 LEFT JOIN revisions r ON r.id = c.current_revision_id
	 LEFT JOIN captures lc ON lc.id = pg.latest_capture
	 ORDER BY pg.saved_at DESC, pg.collection_id DESC`
	var out []LibraryRow
	err := s.view(ctx, func(qr querier) error {
		rows, err := qr.QueryContext(ctx, q, args...)
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
			var lr LibraryRow
			var rev, capID uuid.NullUUID
			var content, state, cerr, code sql.NullString
			if err := rows.Scan(&lr.ID, &lr.Platform, &lr.EntityType, &lr.Visibility, &lr.SourceURL, &lr.SavedAt, &rev,
				&content, &capID, &state, &cerr, &code); err != nil {
				return err
			}
			if rev.Valid {
				lr.RevisionID = &rev.UUID
			}
			if content.Valid && lr.RevisionID != nil {
				lr.Content = []byte(content.String)
			}
			if capID.Valid {
				lr.CaptureID = &capID.UUID
				lr.CaptureState, lr.CaptureError, lr.CaptureErrorCode = state.String, cerr.String, code.String
			}
			out = append(out, lr)
		}
		return rows.Err()
	})
	return out, wrap(s.d, "list library", err)
}

// libraryAuthorExpr is the current revision's author name in SQL.
func libraryAuthorExpr(d dialect) string {
	if d.name() == "postgres" {
		return `COALESCE(r.content_json->>'author_name', '')`
	}
	return `COALESCE(json_extract(r.content_json, '$.author_name'), '')`
}

// libraryWordsExpr is what a word of the filter is looked for in: the
// current revision's text, summary and author name.
func libraryWordsExpr(d dialect) string {
	if d.name() == "postgres" {
		return `concat_ws(' ', r.content_json->>'text', r.content_json->>'summary', r.content_json->>'author_name')`
	}
	return `(COALESCE(json_extract(r.content_json, '$.text'), '') || ' ' || COALESCE(json_extract(r.content_json, '$.summary'), '') || ' ' || ` +
		`COALESCE(json_extract(r.content_json, '$.author_name'), ''))`
}

// libraryMediaKindCond is true when the current revision has a media of
// the kind in placeholder p.
func libraryMediaKindCond(d dialect, p string) string {
	if d.name() == "postgres" {
		return `r.content_json->'media' @> jsonb_build_array(jsonb_build_object('kind', ` + p + `::text))`
	}
	return `EXISTS (SELECT 1 FROM json_each(r.content_json, '$.media') m WHERE json_extract(m.value, '$.kind') = ` + p + `)`
}

// likeEscape escapes LIKE's wildcards so a filter matches them literally.
func likeEscape(s string) string {
	return strings.NewReplacer(`\`, `\\`, `%`, `\%`, `_`, `\_`).Replace(s)
}

// TenantCollectionRestore puts back a tenant's reference that was just
// removed, at the save time it had (so the item returns to its place),
// and clears the collection's purge mark. The collection must still have
// content the tenant may see; created is false when the reference was
// there already.
func (tx *Tx) TenantCollectionRestore(ctx context.Context, tenantID, collectionID uuid.UUID, savedAt time.Time) (created bool, err error) {
	if err := tx.collectionVisible(ctx, tenantID, collectionID); err != nil {
		return false, err
	}
	res, err := tx.tx.ExecContext(ctx,
		`INSERT INTO tenant_collections (tenant_id, collection_id, saved_at, created_at) VALUES ($1, $2, $3, $4)
		 ON CONFLICT (tenant_id, collection_id) DO NOTHING`, tenantID, collectionID, savedAt, tx.now())
	if err != nil {
		return false, wrap(tx.d, "restore saved collection", err)
	}
	if _, err := tx.tx.ExecContext(ctx,
		`UPDATE collections SET unreferenced_at = NULL WHERE id = $1 AND unreferenced_at IS NOT NULL`, collectionID); err != nil {
		return false, wrap(tx.d, "restore saved collection", err)
	}
	n, _ := res.RowsAffected()
	return n > 0, nil
}
