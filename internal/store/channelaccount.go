package store

import (
	"context"
	"time"

	"github.com/google/uuid"
)

// A channel's account dialog (the bot's /account_add) is one work item of
// kind "account": pending until the person's secret arrives or the dialog
// expires, with the secret, sealed by core, in channel_work.payload. The
// payload goes when the item ends (ChannelWorkFinish) or is cancelled.

// WorkAccount is the kind of an account dialog's work item.
const WorkAccount = "account"

// ChannelAccountDialogs lists the pending account dialogs of a tenant on a
// channel, oldest first.
func (tx *Tx) ChannelAccountDialogs(ctx context.Context, channelID, tenantID uuid.UUID) ([]ChannelWork, error) {
	rows, err := tx.tx.QueryContext(ctx,
		`SELECT `+workColumns+` FROM channel_work
		 WHERE channel_id = $1 AND tenant_id = $2 AND kind = $3 AND state IN ('pending', 'leased')
		 ORDER BY created_at, id`, channelID, tenantID, WorkAccount)
	if err != nil {
		return nil, wrap(tx.d, "list account dialogs", err)
	}
	defer rows.Close()
	var out []ChannelWork
	for rows.Next() {
		w, err := scanWork(rows)
		if err != nil {
			return nil, wrap(tx.d, "list account dialogs", err)
		}
		out = append(out, w)
	}
	return out, wrap(tx.d, "list account dialogs", rows.Err())
}

// ChannelWorkStage keeps a sealed payload on a pending item with its new
// progress document and makes it claimable from notBefore. An item no
// longer pending is ErrNotFound.
func (tx *Tx) ChannelWorkStage(ctx context.Context, id uuid.UUID, payload, progress []byte, notBefore time.Time) error {
	res, err := tx.tx.ExecContext(ctx,
		`UPDATE channel_work SET payload = $2, progress_json = $3, not_before = $4, updated_at = $5
		 WHERE id = $1 AND state = 'pending'`, id, payload, string(progress), utc(notBefore), tx.now())
	if err != nil {
		return wrap(tx.d, "stage channel work", err)
	}
	return wrap(tx.d, "stage channel work", affectedOne(res))
}

// ChannelWorkTakePayload reads an item's staged payload and clears it, so
// it is read once (nil: none staged).
func (tx *Tx) ChannelWorkTakePayload(ctx context.Context, id uuid.UUID) ([]byte, error) {
	var p []byte
	err := tx.tx.QueryRowContext(ctx, `SELECT payload FROM channel_work WHERE id = $1`, id).Scan(&p)
	if err != nil {
		return nil, wrap(tx.d, "read staged payload", err)
	}
	if p == nil {
		return nil, nil
	}
	_, err = tx.tx.ExecContext(ctx, `UPDATE channel_work SET payload = NULL, updated_at = $2 WHERE id = $1`, id, tx.now())
	return p, wrap(tx.d, "clear staged payload", err)
}

// ChannelWorkCancel ends a pending item without running it, its payload
// gone. An item no longer pending is ErrNotFound.
func (tx *Tx) ChannelWorkCancel(ctx context.Context, id uuid.UUID, reason string) error {
	res, err := tx.tx.ExecContext(ctx,
		`UPDATE channel_work SET state = 'done', error = $2, payload = NULL, updated_at = $3
		 WHERE id = $1 AND state = 'pending'`, id, reason, tx.now())
	if err != nil {
		return wrap(tx.d, "cancel channel work", err)
	}
	return wrap(tx.d, "cancel channel work", affectedOne(res))
}

// affectedOne is ErrNotFound when a statement changed no row.
func affectedOne(res interface{ RowsAffected() (int64, error) }) error {
	n, err := res.RowsAffected()
	if err == nil && n == 0 {
		return ErrNotFound
	}
	return err
}
