package store

import (
	"context"
	"fmt"
	"strings"

	"github.com/google/uuid"
)

// CollectionDetails are what a page of saved collections shows beside
// their rows, read in one read transaction with three queries however many
// collections the page holds (a page used to cost three transactions per
// collection).
type CollectionDetails struct {
	// States is the state of each collection's newest capture a person
	// asked for (absent: none).
	States map[uuid.UUID]string
	// Revisions are the current revisions, by id.
	Revisions map[uuid.UUID]Revision
	// EntityIDs are each revision's entities: revision id → graph key →
	// entity id.
	EntityIDs map[uuid.UUID]map[string]uuid.UUID
}

// CollectionDetailsOf reads the details of the collections and of the
// revisions named (their current ones).
func (s *Store) CollectionDetailsOf(ctx context.Context, collectionIDs, revisionIDs []uuid.UUID) (CollectionDetails, error) {
	d := CollectionDetails{States: map[uuid.UUID]string{}, Revisions: map[uuid.UUID]Revision{},
		EntityIDs: map[uuid.UUID]map[string]uuid.UUID{}}
	err := s.view(ctx, func(q querier) error {
		if len(collectionIDs) > 0 {
			rows, err := q.QueryContext(ctx, `SELECT collection_id, state FROM (
				SELECT collection_id, state, ROW_NUMBER() OVER (PARTITION BY collection_id ORDER BY created_at DESC, id DESC) AS n
				FROM captures WHERE automatic = false AND collection_id IN (`+s.d.idSet(1)+`)) latest WHERE n = 1`,
				s.d.idArg(collectionIDs))
			if err != nil {
				return fmt.Errorf("latest capture states: %w", err)
			}
			for rows.Next() {
				var id uuid.UUID
				var state string
				if err := rows.Scan(&id, &state); err != nil {
					rows.Close()
					return err
				}
				d.States[id] = state
			}
			rows.Close()
			if err := rows.Err(); err != nil {
				return err
			}
		}
		if len(revisionIDs) == 0 {
			return nil
		}
		revs := s.d.idArg(revisionIDs)
		rows, err := q.QueryContext(ctx, `SELECT `+revisionColumns+` FROM revisions WHERE id IN (`+s.d.idSet(1)+`)`, revs)
		if err != nil {
			return fmt.Errorf("revisions: %w", err)
		}
		for rows.Next() {
			r, err := scanRevision(rows)
			if err != nil {
				rows.Close()
				return err
			}
			d.Revisions[r.ID] = r
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return err
		}
		rows, err = q.QueryContext(ctx, `SELECT re.revision_id, re.graph_key, ev.entity_id FROM revision_entities re
			JOIN entity_versions ev ON ev.id = re.entity_version_id WHERE re.revision_id IN (`+s.d.idSet(1)+`)`, revs)
		if err != nil {
			return fmt.Errorf("revision entities: %w", err)
		}
		defer rows.Close()
		for rows.Next() {
			var rev, id uuid.UUID
			var key string
			if err := rows.Scan(&rev, &key, &id); err != nil {
				return err
			}
			if d.EntityIDs[rev] == nil {
				d.EntityIDs[rev] = map[string]uuid.UUID{}
			}
			d.EntityIDs[rev][key] = id
		}
		return rows.Err()
	})
	return d, wrap(s.d, "read collection details", err)
}

// joinIDs writes ids between open and close, each quoted with quote.
func joinIDs(ids []uuid.UUID, open, close, quote string) string {
	var b strings.Builder
	b.WriteString(open)
	for i, id := range ids {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(quote + id.String() + quote)
	}
	b.WriteString(close)
	return b.String()
}
