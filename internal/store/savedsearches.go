package store

import (
	"context"
	"time"

	"github.com/google/uuid"
)

// SavedSearch is a query of the search language a tenant keeps under a
// name (migrations 0011/0012_saved_searches.sql). The name is unique per
// tenant.
type SavedSearch struct {
	ID        uuid.UUID
	TenantID  uuid.UUID
	Name      string
	Query     string
	CreatedAt time.Time
	UpdatedAt time.Time
}

const savedSearchColumns = `id, tenant_id, name, query, created_at, updated_at`

func scanSavedSearch(row interface{ Scan(...any) error }) (SavedSearch, error) {
	var s SavedSearch
	err := row.Scan(&s.ID, &s.TenantID, &s.Name, &s.Query, &s.CreatedAt, &s.UpdatedAt)
	return s, err
}

// SavedSearchInsert stores a new saved search of s.TenantID; a name the
// tenant already uses is ErrConflict. Zero ID and times are filled in.
func (tx *Tx) SavedSearchInsert(ctx context.Context, s SavedSearch) (SavedSearch, error) {
	if s.ID == uuid.Nil {
		s.ID = uuid.Must(uuid.NewV7())
	}
	if s.CreatedAt.IsZero() {
		s.CreatedAt = tx.now()
	}
	s.CreatedAt = utc(s.CreatedAt)
	s.UpdatedAt = s.CreatedAt
	_, err := tx.tx.ExecContext(ctx,
		`INSERT INTO saved_searches (`+savedSearchColumns+`) VALUES ($1, $2, $3, $4, $5, $6)`,
		s.ID, s.TenantID, s.Name, s.Query, s.CreatedAt, s.UpdatedAt)
	return s, wrap(tx.d, "insert saved search", err)
}

// SavedSearchCount is how many saved searches the tenant has.
func (tx *Tx) SavedSearchCount(ctx context.Context, tenantID uuid.UUID) (int, error) {
	var n int
	err := tx.tx.QueryRowContext(ctx, `SELECT count(*) FROM saved_searches WHERE tenant_id = $1`, tenantID).Scan(&n)
	return n, wrap(tx.d, "count saved searches", err)
}

// SavedSearchList lists the tenant's saved searches by name.
func (s *Store) SavedSearchList(ctx context.Context, tenantID uuid.UUID) ([]SavedSearch, error) {
	var out []SavedSearch
	err := s.view(ctx, func(q querier) error {
		rows, err := q.QueryContext(ctx, `SELECT `+savedSearchColumns+` FROM saved_searches
			WHERE tenant_id = $1 ORDER BY name, id`, tenantID)
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
			ss, err := scanSavedSearch(rows)
			if err != nil {
				return err
			}
			out = append(out, ss)
		}
		return rows.Err()
	})
	return out, wrap(s.d, "list saved searches", err)
}

// SavedSearchGetByName finds the tenant's saved search of that name
// (ErrNotFound: none).
func (s *Store) SavedSearchGetByName(ctx context.Context, tenantID uuid.UUID, name string) (ss SavedSearch, err error) {
	err = s.view(ctx, func(q querier) error {
		ss, err = scanSavedSearch(q.QueryRowContext(ctx, `SELECT `+savedSearchColumns+` FROM saved_searches
			WHERE tenant_id = $1 AND name = $2`, tenantID, name))
		return err
	})
	return ss, wrap(s.d, "get saved search", err)
}

// SavedSearchRename gives the tenant's saved search id another name; a
// missing one is ErrNotFound, a name in use ErrConflict.
func (tx *Tx) SavedSearchRename(ctx context.Context, tenantID, id uuid.UUID, name string) (SavedSearch, error) {
	ss, err := scanSavedSearch(tx.tx.QueryRowContext(ctx,
		`UPDATE saved_searches SET name = $3, updated_at = $4 WHERE id = $1 AND tenant_id = $2 RETURNING `+savedSearchColumns,
		id, tenantID, name, tx.now()))
	return ss, wrap(tx.d, "rename saved search", err)
}

// SavedSearchDelete removes the tenant's saved search id and returns what
// it was; a missing one (or another tenant's) is ErrNotFound.
func (tx *Tx) SavedSearchDelete(ctx context.Context, tenantID, id uuid.UUID) (SavedSearch, error) {
	ss, err := scanSavedSearch(tx.tx.QueryRowContext(ctx,
		`DELETE FROM saved_searches WHERE id = $1 AND tenant_id = $2 RETURNING `+savedSearchColumns, id, tenantID))
	return ss, wrap(tx.d, "delete saved search", err)
}
