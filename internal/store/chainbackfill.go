package store

import (
	"context"
	"fmt"
	"time"

	"github.com/google/uuid"

	"github.com/monitorhq/monitor/internal/chain"
)

// afterMigration are steps that run in a migration's transaction right
// after its SQL, for what SQL cannot do on both databases (SQLite has no
// SHA-256). They are part of the migration: its checksum covers only the
// file, so a step must never change once released.
var afterMigration = map[string]func(ctx context.Context, tx *Tx) error{
	"0018_chain.sql": backfillChains, // sqlite
	"0021_chain.sql": backfillChains, // postgres
}

// backfillChains links every existing revision into its collection's hash
// chain (migrations 0018/0021), oldest first per collection: the capture's
// raw responses and adapter, the content's media, the revision's creation
// time. The migrating role sees every tenant's rows.
func backfillChains(ctx context.Context, tx *Tx) error {
	type row struct {
		id, collection, capture uuid.UUID
		contentHash             string
		content                 []byte
		createdAt               time.Time
		adapterID, adapterVer   string
	}
	rows, err := tx.tx.QueryContext(ctx,
		`SELECT r.id, r.collection_id, r.capture_id, r.content_hash, r.content_json, r.created_at, c.adapter_id, c.adapter_version
		 FROM revisions r JOIN captures c ON c.id = r.capture_id
		 ORDER BY r.collection_id, r.created_at, r.id`)
	if err != nil {
		return wrap(tx.d, "backfill chains: read revisions", err)
	}
	var revs []row
	for rows.Next() {
		var r row
		var content string
		if err := rows.Scan(&r.id, &r.collection, &r.capture, &r.contentHash, &content, &r.createdAt, &r.adapterID, &r.adapterVer); err != nil {
			rows.Close()
			return wrap(tx.d, "backfill chains: read revisions", err)
		}
		r.content = []byte(content)
		revs = append(revs, r)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return wrap(tx.d, "backfill chains: read revisions", err)
	}
	raw := map[uuid.UUID][]string{}
	rrows, err := tx.tx.QueryContext(ctx, `SELECT capture_id, sha256 FROM source_responses ORDER BY capture_id, sha256`)
	if err != nil {
		return wrap(tx.d, "backfill chains: read raw responses", err)
	}
	for rrows.Next() {
		var id uuid.UUID
		var h string
		if err := rrows.Scan(&id, &h); err != nil {
			rrows.Close()
			return wrap(tx.d, "backfill chains: read raw responses", err)
		}
		raw[id] = append(raw[id], h)
	}
	rrows.Close()
	if err := rrows.Err(); err != nil {
		return wrap(tx.d, "backfill chains: read raw responses", err)
	}
	var last uuid.UUID
	seq, prev := 0, ""
	for _, r := range revs {
		if r.collection != last {
			last, seq, prev = r.collection, 0, ""
		}
		media, err := chain.MediaOfContent(r.content)
		if err != nil {
			return fmt.Errorf("store: backfill chains: revision %s: content: %w", r.id, err)
		}
		l := chain.Link{PrevHash: prev, ContentHash: r.contentHash, Media: media, Raw: raw[r.capture],
			CapturedAt: r.createdAt, AdapterID: r.adapterID, AdapterVersion: r.adapterVer}
		seq++
		h := l.Hash()
		if _, err := tx.tx.ExecContext(ctx,
			`UPDATE revisions SET chain_seq = $2, prev_hash = $3, chain_hash = $4, chain_raw = $5, chain_adapter_id = $6, chain_adapter_version = $7
			 WHERE id = $1`, r.id, seq, prev, h, chain.JoinRaw(l.Raw), r.adapterID, r.adapterVer); err != nil {
			return wrap(tx.d, "backfill chains: write", err)
		}
		prev = h
	}
	return nil
}
