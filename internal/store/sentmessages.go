package store

import (
	"context"
	"database/sql"
	"errors"
	"time"

	"github.com/google/uuid"
)

// Sent messages and cancelled submissions (migrations sqlite 0019 /
// postgres 0026_delivery.sql): the bot's messages about a submission, which
// a reply (/cancel, /pin) leads back to, and the submissions their person
// cancelled.

// Kinds of a sent message.
const (
	SentStatus      = "status"
	SentResult      = "result"
	SentChannelCopy = "channel_copy"
)

// SentMessage is one bot message about a submission.
type SentMessage struct {
	TenantID     uuid.UUID
	ChannelID    uuid.UUID
	ChatID       string
	MessageID    string
	SubmissionID uuid.UUID
	Kind         string
	// BindingID is the bound chat of a channel_copy.
	BindingID *uuid.UUID
}

// SentMessageInsert records messages; one already recorded stays as it is.
func (tx *Tx) SentMessageInsert(ctx context.Context, ms ...SentMessage) error {
	now := tx.now()
	for _, m := range ms {
		_, err := tx.tx.ExecContext(ctx, `INSERT INTO sent_messages (id, tenant_id, channel_id, chat_id, message_id, submission_id,
				kind, binding_id, created_at)
			 VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)
			 ON CONFLICT (channel_id, chat_id, message_id) DO NOTHING`,
			uuid.Must(uuid.NewV7()), m.TenantID, m.ChannelID, m.ChatID, m.MessageID, m.SubmissionID, m.Kind, nullUUID(m.BindingID), now)
		if err != nil {
			return wrap(tx.d, "record a sent message", err)
		}
	}
	return nil
}

// SentMessageSubmission finds the submission of one of the tenant's sent
// messages (status or result, not a channel copy).
func (tx *Tx) SentMessageSubmission(ctx context.Context, tenantID, channelID uuid.UUID, chatID, messageID string) (uuid.UUID, error) {
	var id uuid.UUID
	err := tx.tx.QueryRowContext(ctx, `SELECT submission_id FROM sent_messages
		WHERE tenant_id = $1 AND channel_id = $2 AND chat_id = $3 AND message_id = $4 AND kind <> 'channel_copy'`,
		tenantID, channelID, chatID, messageID).Scan(&id)
	return id, wrap(tx.d, "find the submission of a message", err)
}

// ChannelCopyMessage is where a submission's copy landed in a bound chat.
type ChannelCopyMessage struct {
	Binding   Binding
	MessageID string
}

// SentChannelCopies lists the first messages of a submission's copies in
// the chats still bound.
func (tx *Tx) SentChannelCopies(ctx context.Context, tenantID, submissionID uuid.UUID) ([]ChannelCopyMessage, error) {
	rows, err := tx.tx.QueryContext(ctx, `SELECT `+prefixed("b.", bindingColumns)+`, m.message_id
		FROM sent_messages m JOIN channel_bindings b ON b.id = m.binding_id
		WHERE m.tenant_id = $1 AND m.submission_id = $2 AND m.kind = 'channel_copy' AND b.state = 'active'
		ORDER BY m.created_at, m.id`, tenantID, submissionID)
	if err != nil {
		return nil, wrap(tx.d, "list channel copies", err)
	}
	defer rows.Close()
	var out []ChannelCopyMessage
	for rows.Next() {
		var c ChannelCopyMessage
		var b Binding
		var identity uuid.NullUUID
		var unbound sql.NullTime
		if err := rows.Scan(&b.ID, &b.TenantID, &b.ChannelID, &identity, &b.ChatID, &b.ChatType, &b.Username, &b.Title,
			&b.OwnerChatID, &b.State, &b.UnbindReason, &unbound, &b.CreatedAt, &b.UpdatedAt, &c.MessageID); err != nil {
			return nil, wrap(tx.d, "list channel copies", err)
		}
		if identity.Valid {
			b.IdentityID = &identity.UUID
		}
		b.UnboundAt = nullTime(unbound)
		c.Binding = b
		out = append(out, c)
	}
	return out, wrap(tx.d, "list channel copies", rows.Err())
}

// SubmissionCancel marks a submission cancelled; changed is false when it
// was already.
func (tx *Tx) SubmissionCancel(ctx context.Context, tenantID, submissionID uuid.UUID) (changed bool, err error) {
	res, err := tx.tx.ExecContext(ctx, `INSERT INTO submission_cancels (submission_id, tenant_id, cancelled_at) VALUES ($1, $2, $3)
		ON CONFLICT (submission_id) DO NOTHING`, submissionID, tenantID, tx.now())
	if err != nil {
		return false, wrap(tx.d, "cancel a submission", err)
	}
	n, _ := res.RowsAffected()
	return n > 0, nil
}

// SubmissionCancelledAt is when the submission was cancelled (nil: it
// was not).
func (s *Store) SubmissionCancelledAt(ctx context.Context, submissionID uuid.UUID) (at *time.Time, err error) {
	err = s.view(ctx, func(q querier) error {
		var t time.Time
		err := q.QueryRowContext(ctx, `SELECT cancelled_at FROM submission_cancels WHERE submission_id = $1`, submissionID).Scan(&t)
		if errors.Is(err, sql.ErrNoRows) {
			return nil
		}
		if err == nil {
			t = t.UTC()
			at = &t
		}
		return err
	})
	return at, wrap(s.d, "read a submission's cancel", err)
}

// SubmissionsUnfinishedByURL lists the tenant's submissions of a link as
// sent whose capture is still queued or downloading and that were not
// cancelled, oldest first.
func (tx *Tx) SubmissionsUnfinishedByURL(ctx context.Context, tenantID uuid.UUID, url string) ([]Submission, error) {
	rows, err := tx.tx.QueryContext(ctx, `SELECT `+prefixed("s.", submissionColumns)+` FROM submissions s
		JOIN captures c ON c.id = s.capture_id
		WHERE s.tenant_id = $1 AND s.input_url = $2 AND c.state IN ('queued', 'downloading')
		  AND NOT EXISTS (SELECT 1 FROM submission_cancels x WHERE x.submission_id = s.id)
		ORDER BY s.created_at, s.id`, tenantID, url)
	if err != nil {
		return nil, wrap(tx.d, "list unfinished submissions", err)
	}
	defer rows.Close()
	var out []Submission
	for rows.Next() {
		s, err := scanSubmission(rows)
		if err != nil {
			return nil, wrap(tx.d, "list unfinished submissions", err)
		}
		out = append(out, s)
	}
	return out, wrap(tx.d, "list unfinished submissions", rows.Err())
}

// SubmissionLatestByURL is the tenant's newest submission of a link (as
// sent, or the collection's source link).
func (tx *Tx) SubmissionLatestByURL(ctx context.Context, tenantID uuid.UUID, url string) (Submission, error) {
	s, err := scanSubmission(tx.tx.QueryRowContext(ctx, `SELECT `+prefixed("s.", submissionColumns)+` FROM submissions s
		JOIN collections c ON c.id = s.collection_id
		WHERE s.tenant_id = $1 AND (s.input_url = $2 OR c.source_url = $2)
		ORDER BY s.created_at DESC, s.id DESC LIMIT 1`, tenantID, url))
	return s, wrap(tx.d, "find the submission of a link", err)
}
