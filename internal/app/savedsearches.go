package app

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/google/uuid"

	"github.com/monitorhq/monitor/internal/store"
)

// Limits of saved searches.
const (
	// SavedSearchNameMax is the longest name of a saved search, in characters.
	SavedSearchNameMax = 80
	// SavedSearchesMax is how many saved searches a tenant may keep.
	SavedSearchesMax = 100
)

// SavedSearchView is a query a tenant keeps under a name. Query is its
// canonical form (Query.String), which ParseQuery reads back.
type SavedSearchView struct {
	ID        uuid.UUID `json:"id"`
	Name      string    `json:"name"`
	Query     string    `json:"query"`
	CreatedAt time.Time `json:"created_at"`
	UpdatedAt time.Time `json:"updated_at"`
}

func savedSearchView(s store.SavedSearch) SavedSearchView {
	return SavedSearchView{ID: s.ID, Name: s.Name, Query: s.Query, CreatedAt: s.CreatedAt, UpdatedAt: s.UpdatedAt}
}

// checkSavedSearchName trims a saved search's name and checks it: 1 to
// SavedSearchNameMax characters of printable text.
func checkSavedSearchName(name string) (string, error) {
	name = strings.Join(strings.Fields(name), " ")
	if !utf8.ValidString(name) {
		return "", errorf(ErrInvalid, "the name of a saved search must be UTF-8 text")
	}
	if n := utf8.RuneCountInString(name); n == 0 || n > SavedSearchNameMax {
		return "", errorf(ErrInvalid, "the name of a saved search must be 1 to %d characters, not %d", SavedSearchNameMax, n)
	}
	for _, r := range name {
		if unicode.IsControl(r) {
			return "", errorf(ErrInvalid, "the name of a saved search cannot contain the control character %U", r)
		}
	}
	return name, nil
}

// SaveSearch keeps the query q under name for the tenant. q must be a
// query ParseQuery accepts (else its *QueryError) and not empty; it is
// kept in its canonical form. A name the tenant uses already is
// ErrConflict; a tenant keeps at most SavedSearchesMax.
func (a *App) SaveSearch(ctx context.Context, tenantID uuid.UUID, name, q string) (SavedSearchView, error) {
	name, err := checkSavedSearchName(name)
	if err != nil {
		return SavedSearchView{}, err
	}
	query, err := ParseQuery(q, a.now())
	if err != nil {
		return SavedSearchView{}, err
	}
	canonical := query.String()
	if canonical == "" {
		return SavedSearchView{}, errorf(ErrInvalid, "an empty search finds everything; type a query to save")
	}
	ctx = store.WithTenant(ctx, tenantID)
	var saved store.SavedSearch
	err = a.store.InTx(ctx, func(tx *store.Tx) error {
		// Two saves at once take turns, so neither passes the limit.
		if err := tx.TenantLock(ctx, tenantID); err != nil {
			return err
		}
		n, err := tx.SavedSearchCount(ctx, tenantID)
		if err != nil {
			return err
		}
		if n >= SavedSearchesMax {
			return errorf(ErrInvalid, "you have %d saved searches, the most there can be; delete one to save another", n)
		}
		saved, err = tx.SavedSearchInsert(ctx, store.SavedSearch{TenantID: tenantID, Name: name, Query: canonical})
		return err
	})
	if errors.Is(err, store.ErrConflict) {
		return SavedSearchView{}, errorf(ErrConflict, "you have a saved search named %q already; choose another name or delete that one", name)
	}
	if err != nil {
		return SavedSearchView{}, err
	}
	return savedSearchView(saved), nil
}

// SavedSearches lists the tenant's saved searches by name.
func (a *App) SavedSearches(ctx context.Context, tenantID uuid.UUID) ([]SavedSearchView, error) {
	rows, err := a.store.SavedSearchList(store.WithTenant(ctx, tenantID), tenantID)
	if err != nil {
		return nil, err
	}
	out := make([]SavedSearchView, len(rows))
	for i, r := range rows {
		out[i] = savedSearchView(r)
	}
	return out, nil
}

// SavedSearch finds the tenant's saved search by its name (ErrNotFound:
// none of that name).
func (a *App) SavedSearch(ctx context.Context, tenantID uuid.UUID, name string) (SavedSearchView, error) {
	s, err := a.store.SavedSearchGetByName(store.WithTenant(ctx, tenantID), tenantID, strings.Join(strings.Fields(name), " "))
	if isNotFound(err) {
		return SavedSearchView{}, errorf(ErrNotFound, "no saved search named %q", name)
	}
	if err != nil {
		return SavedSearchView{}, err
	}
	return savedSearchView(s), nil
}

// RenameSavedSearch gives the tenant's saved search id a new name (the
// same checks as SaveSearch's).
func (a *App) RenameSavedSearch(ctx context.Context, tenantID, id uuid.UUID, name string) (SavedSearchView, error) {
	name, err := checkSavedSearchName(name)
	if err != nil {
		return SavedSearchView{}, err
	}
	ctx = store.WithTenant(ctx, tenantID)
	var s store.SavedSearch
	err = a.store.InTx(ctx, func(tx *store.Tx) (err error) {
		s, err = tx.SavedSearchRename(ctx, tenantID, id, name)
		return err
	})
	switch {
	case isNotFound(err):
		return SavedSearchView{}, errorf(ErrNotFound, "no saved search with id %s", id)
	case errors.Is(err, store.ErrConflict):
		return SavedSearchView{}, errorf(ErrConflict, "you have a saved search named %q already; choose another name", name)
	case err != nil:
		return SavedSearchView{}, err
	}
	return savedSearchView(s), nil
}

// DeleteSavedSearch removes the tenant's saved search id and returns what
// it was (ErrNotFound: none of the tenant's has that id).
func (a *App) DeleteSavedSearch(ctx context.Context, tenantID, id uuid.UUID) (SavedSearchView, error) {
	ctx = store.WithTenant(ctx, tenantID)
	var s store.SavedSearch
	err := a.store.InTx(ctx, func(tx *store.Tx) (err error) {
		s, err = tx.SavedSearchDelete(ctx, tenantID, id)
		return err
	})
	if isNotFound(err) {
		return SavedSearchView{}, errorf(ErrNotFound, "no saved search with id %s", id)
	}
	if err != nil {
		return SavedSearchView{}, fmt.Errorf("app: delete saved search: %w", err)
	}
	return savedSearchView(s), nil
}
