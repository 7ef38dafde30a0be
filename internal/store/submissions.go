package store

import (
	"context"
	"database/sql"
	"time"

	"github.com/google/uuid"
)

// Submission is one request by someone to archive a link.
type Submission struct {
	ID           uuid.UUID
	TenantID     uuid.UUID
	CaptureID    uuid.UUID
	CollectionID uuid.UUID
	ChannelID    *uuid.UUID
	IdemKey      string // "" = none
	InputURL     string
	CreatedAt    time.Time
}

const submissionColumns = `id, tenant_id, capture_id, collection_id, channel_id, idem_key, input_url, created_at`

func scanSubmission(row interface{ Scan(...any) error }) (Submission, error) {
	var s Submission
	var ch uuid.NullUUID
	var idem sql.NullString
	err := row.Scan(&s.ID, &s.TenantID, &s.CaptureID, &s.CollectionID, &ch, &idem, &s.InputURL, &s.CreatedAt)
	if ch.Valid {
		s.ChannelID = &ch.UUID
	}
	s.IdemKey = idem.String
	return s, err
}

// SubmissionInsert records a submission; a taken (tenant, idempotency key)
// is ErrConflict.
func (tx *Tx) SubmissionInsert(ctx context.Context, s Submission) (Submission, error) {
	if s.ID == uuid.Nil {
		s.ID = uuid.Must(uuid.NewV7())
	}
	s.CreatedAt = now()
	var idem any
	if s.IdemKey != "" {
		idem = s.IdemKey
	}
	_, err := tx.tx.ExecContext(ctx,
		`INSERT INTO submissions (id, tenant_id, capture_id, collection_id, channel_id, idem_key, input_url, created_at, updated_at)
		 VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $8)`,
		s.ID, s.TenantID, s.CaptureID, s.CollectionID, nullUUID(s.ChannelID), idem, s.InputURL, s.CreatedAt)
	return s, wrap(tx.d, "insert submission", err)
}

// SubmissionGetByIdemKey finds a tenant's submission by idempotency key.
func (tx *Tx) SubmissionGetByIdemKey(ctx context.Context, tenantID uuid.UUID, key string) (Submission, error) {
	s, err := scanSubmission(tx.tx.QueryRowContext(ctx,
		`SELECT `+submissionColumns+` FROM submissions WHERE tenant_id = $1 AND idem_key = $2`, tenantID, key))
	return s, wrap(tx.d, "get submission by idempotency key", err)
}

// SubmissionExistsForCapture reports whether the tenant submitted the
// capture: only submitters may see a capture.
func (s *Store) SubmissionExistsForCapture(ctx context.Context, tenantID, captureID uuid.UUID) (bool, error) {
	var n int
	err := s.view(ctx, func(q querier) error {
		return q.QueryRowContext(ctx,
			`SELECT count(*) FROM submissions WHERE tenant_id = $1 AND capture_id = $2`, tenantID, captureID).Scan(&n)
	})
	return n > 0, wrap(s.d, "look up submission", err)
}

// SubmissionsMarkDeliverable marks a finished capture's channel
// submissions ready to be delivered back where they came from.
func (tx *Tx) SubmissionsMarkDeliverable(ctx context.Context, captureID uuid.UUID) error {
	_, err := tx.tx.ExecContext(ctx, tx.d.markDeliverableQuery(), captureID)
	return wrap(tx.d, "mark submissions deliverable", err)
}
