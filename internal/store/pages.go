package store

import (
	"context"
	"time"

	"github.com/google/uuid"
)

// Collection pages: a profile or channel submission is the first page of a
// chain; each page's expansion makes automatic child submissions (parent =
// the page), and "more" or a batch makes the next page (parent = the
// chain's first page, linked from the page before by next_submission_id).

// SubmissionGet finds a submission inside the transaction.
func (tx *Tx) SubmissionGet(ctx context.Context, id uuid.UUID) (Submission, error) {
	s, err := scanSubmission(tx.tx.QueryRowContext(ctx, `SELECT `+submissionColumns+` FROM submissions WHERE id = $1`, id))
	return s, wrap(tx.d, "get submission", err)
}

// SubmissionSetRelated records how a page's expansion stands.
func (tx *Tx) SubmissionSetRelated(ctx context.Context, id uuid.UUID, state, errText string) error {
	_, err := tx.tx.ExecContext(ctx,
		`UPDATE submissions SET related_state = $2, related_error = $3, updated_at = $4 WHERE id = $1`, id, state, errText, tx.now())
	return wrap(tx.d, "record expansion state", err)
}

// SubmissionSetNext links a page to the page after it.
func (tx *Tx) SubmissionSetNext(ctx context.Context, id, next uuid.UUID) error {
	_, err := tx.tx.ExecContext(ctx,
		`UPDATE submissions SET next_submission_id = $2, updated_at = $3 WHERE id = $1`, id, next, tx.now())
	return wrap(tx.d, "link next page", err)
}

// ChainStop stops the chain whose first page is root: it and every later
// page are marked stopped. The caller holds the tenant lock, which child
// creation takes too, so no child is made after it commits.
func (tx *Tx) ChainStop(ctx context.Context, root uuid.UUID) error {
	_, err := tx.tx.ExecContext(ctx,
		`UPDATE submissions SET collection_stopped = true, updated_at = $2
		  WHERE id = $1 OR (parent_submission_id = $1 AND automatic = false)`, root, tx.now())
	return wrap(tx.d, "stop collection", err)
}

// ChildCount is how many children a page has made.
func (tx *Tx) ChildCount(ctx context.Context, page uuid.UUID) (int, error) {
	var n int
	err := tx.tx.QueryRowContext(ctx,
		`SELECT count(*) FROM submissions WHERE parent_submission_id = $1 AND automatic = true`, page).Scan(&n)
	return n, wrap(tx.d, "count children", err)
}

// CaptureSetNextPage records where the page after a fetched page starts
// ("" = it was the last).
func (tx *Tx) CaptureSetNextPage(ctx context.Context, id uuid.UUID, cursor string) error {
	_, err := tx.tx.ExecContext(ctx,
		`UPDATE captures SET next_page_cursor = $2, updated_at = $3 WHERE id = $1`, id, nullString(cursor), tx.now())
	return wrap(tx.d, "record next page", err)
}

// ChainPages are the pages of the chain whose first page is root, in
// order: root first.
func (s *Store) ChainPages(ctx context.Context, root uuid.UUID) ([]Submission, error) {
	var out []Submission
	err := s.view(ctx, func(q querier) error {
		rows, err := q.QueryContext(ctx, `SELECT `+submissionColumns+` FROM submissions
			WHERE id = $1 OR (parent_submission_id = $1 AND automatic = false)
			ORDER BY created_at, id`, root)
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
			sub, err := scanSubmission(rows)
			if err != nil {
				return err
			}
			out = append(out, sub)
		}
		return rows.Err()
	})
	return out, wrap(s.d, "list pages", err)
}

// ChildStates counts the children of the given pages by the state of
// their capture.
func (s *Store) ChildStates(ctx context.Context, pages []uuid.UUID) (map[string]int, error) {
	out := map[string]int{}
	if len(pages) == 0 {
		return out, nil
	}
	args := make([]any, len(pages))
	in := ""
	for i, p := range pages {
		args[i] = p
		if i > 0 {
			in += ", "
		}
		in += "$" + itoa(i+1)
	}
	err := s.view(ctx, func(q querier) error {
		rows, err := q.QueryContext(ctx, `SELECT c.state, count(*) FROM submissions s JOIN captures c ON c.id = s.capture_id
			WHERE s.automatic = true AND s.parent_submission_id IN (`+in+`) GROUP BY c.state`, args...)
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
			var state string
			var n int
			if err := rows.Scan(&state, &n); err != nil {
				return err
			}
			out[state] = n
		}
		return rows.Err()
	})
	return out, wrap(s.d, "count children by state", err)
}

// RevisionObservedAt is when a revision was last observed.
func (tx *Tx) RevisionObservedAt(ctx context.Context, id uuid.UUID) (time.Time, error) {
	var at time.Time
	err := tx.tx.QueryRowContext(ctx, `SELECT observed_at FROM revisions WHERE id = $1`, id).Scan(&at)
	return at, wrap(tx.d, "get revision observed time", err)
}

// CaptureExpands reports whether a submission of the capture expands it
// (a page of a profile or channel, a thread): what the capture lists is
// then followed.
func (tx *Tx) CaptureExpands(ctx context.Context, captureID uuid.UUID) (bool, error) {
	var ok bool
	err := tx.tx.QueryRowContext(ctx, `SELECT EXISTS (SELECT 1 FROM submissions WHERE capture_id = $1 AND related_state <> $2)`,
		captureID, RelatedNone).Scan(&ok)
	return ok, wrap(tx.d, "read whether a capture expands", err)
}
