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
	// IdentityID and ChannelID say which channel user asked (nil: REST,
	// CLI or web). ChatID, ReplyToMessageID and StatusMessageID are the
	// platform's ids where the result goes ("" = none).
	IdentityID       *uuid.UUID
	ChannelID        *uuid.UUID
	ChatID           string
	ReplyToMessageID string
	StatusMessageID  string
	IdemKey          string // "" = none
	InputURL         string
	// DeliveryState is none (result not ready), pending, delivering,
	// delivered or failed; DeliveryProgress is the channel's progress.
	DeliveryState    string
	DeliveryProgress []byte
	CreatedAt        time.Time

	// Collections (profiles, channels, threads). Automatic: made by a
	// page's expansion, a child that never expands or delivers on its own.
	// ParentID: a child's page, or a later page's first page (nil: a
	// chain's first page or a plain submission). NextID: the page after
	// this one. Limit: how many children the chain may still create (nil:
	// one page, no batch). Stopped: no child or page is made after it.
	// RelatedState: none, pending (to expand when its capture ends),
	// running, done or failed (RelatedError says why).
	Automatic    bool
	ParentID     *uuid.UUID
	NextID       *uuid.UUID
	Limit        *int
	Stopped      bool
	RelatedState string
	RelatedError string
}

// Expansion states of a submission.
const (
	RelatedNone    = "none"
	RelatedPending = "pending"
	RelatedDone    = "done"
	RelatedFailed  = "failed"
)

// Delivery states of a submission.
const (
	DeliveryNone      = "none"
	DeliveryPending   = "pending"
	DeliveryDelivered = "delivered"
	DeliveryFailed    = "failed"
)

const submissionColumns = `id, tenant_id, capture_id, collection_id, identity_id, channel_id, chat_id, reply_to_message_id,
	status_message_id, idem_key, input_url, delivery_state, delivery_progress_json, created_at,
	automatic, parent_submission_id, next_submission_id, collection_limit, collection_stopped, related_state, related_error`

func scanSubmission(row interface{ Scan(...any) error }) (Submission, error) {
	var s Submission
	var ident, ch uuid.NullUUID
	var idem, chat, replyTo, status sql.NullString
	var progress string
	var parent, next uuid.NullUUID
	var limit sql.NullInt64
	err := row.Scan(&s.ID, &s.TenantID, &s.CaptureID, &s.CollectionID, &ident, &ch, &chat, &replyTo, &status, &idem, &s.InputURL,
		&s.DeliveryState, &progress, &s.CreatedAt,
		&s.Automatic, &parent, &next, &limit, &s.Stopped, &s.RelatedState, &s.RelatedError)
	if parent.Valid {
		s.ParentID = &parent.UUID
	}
	if next.Valid {
		s.NextID = &next.UUID
	}
	if limit.Valid {
		n := int(limit.Int64)
		s.Limit = &n
	}
	if ident.Valid {
		s.IdentityID = &ident.UUID
	}
	if ch.Valid {
		s.ChannelID = &ch.UUID
	}
	s.ChatID, s.ReplyToMessageID, s.StatusMessageID = chat.String, replyTo.String, status.String
	s.IdemKey = idem.String
	s.DeliveryProgress = []byte(progress)
	return s, err
}

// nullString stores "" as NULL.
func nullString(v string) any {
	if v == "" {
		return nil
	}
	return v
}

// SubmissionInsert records a submission; a taken (tenant, idempotency key)
// is ErrConflict.
func (tx *Tx) SubmissionInsert(ctx context.Context, s Submission) (Submission, error) {
	if s.ID == uuid.Nil {
		s.ID = uuid.Must(uuid.NewV7())
	}
	s.CreatedAt = tx.now()
	if s.DeliveryState == "" {
		s.DeliveryState = DeliveryNone
	}
	if len(s.DeliveryProgress) == 0 {
		s.DeliveryProgress = []byte("{}")
	}
	if s.RelatedState == "" {
		s.RelatedState = RelatedNone
	}
	var limit any
	if s.Limit != nil {
		limit = *s.Limit
	}
	_, err := tx.tx.ExecContext(ctx,
		`INSERT INTO submissions (id, tenant_id, capture_id, collection_id, identity_id, channel_id, chat_id, reply_to_message_id,
			status_message_id, idem_key, input_url, delivery_state, delivery_progress_json, created_at, updated_at,
			automatic, parent_submission_id, collection_limit, related_state)
		 VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $14, $15, $16, $17, $18)`,
		s.ID, s.TenantID, s.CaptureID, s.CollectionID, nullUUID(s.IdentityID), nullUUID(s.ChannelID), nullString(s.ChatID),
		nullString(s.ReplyToMessageID), nullString(s.StatusMessageID), nullString(s.IdemKey), s.InputURL, s.DeliveryState,
		string(s.DeliveryProgress), s.CreatedAt, s.Automatic, nullUUID(s.ParentID), limit, s.RelatedState)
	return s, wrap(tx.d, "insert submission", err)
}

// SubmissionGet finds a submission.
func (s *Store) SubmissionGet(ctx context.Context, id uuid.UUID) (sub Submission, err error) {
	err = s.view(ctx, func(q querier) error {
		sub, err = scanSubmission(q.QueryRowContext(ctx, `SELECT `+submissionColumns+` FROM submissions WHERE id = $1`, id))
		return err
	})
	return sub, wrap(s.d, "get submission", err)
}

// SubmissionDeliveryProgress replaces a submission's delivery progress.
func (tx *Tx) SubmissionDeliveryProgress(ctx context.Context, id uuid.UUID, progress []byte) error {
	_, err := tx.tx.ExecContext(ctx,
		`UPDATE submissions SET delivery_progress_json = $2, updated_at = $3 WHERE id = $1`, id, string(progress), tx.now())
	return wrap(tx.d, "record delivery progress", err)
}

// SubmissionDeliveryEnd records how a submission's delivery ended:
// DeliveryDelivered or DeliveryFailed.
func (tx *Tx) SubmissionDeliveryEnd(ctx context.Context, id uuid.UUID, state string) error {
	_, err := tx.tx.ExecContext(ctx,
		`UPDATE submissions SET delivery_state = $2, updated_at = $3 WHERE id = $1`, id, state, tx.now())
	return wrap(tx.d, "end delivery", err)
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
// It also wakes their deliver items, which may be waiting for a later try.
func (tx *Tx) SubmissionsMarkDeliverable(ctx context.Context, captureID uuid.UUID) error {
	if _, err := tx.tx.ExecContext(ctx, tx.d.markDeliverableQuery(), captureID); err != nil {
		return wrap(tx.d, "mark submissions deliverable", err)
	}
	q := tx.d.wakeDeliveriesQuery()
	if q == "" {
		return nil
	}
	_, err := tx.tx.ExecContext(ctx, q, captureID)
	return wrap(tx.d, "wake deliveries", err)
}
