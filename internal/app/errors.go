package app

import (
	"errors"
	"fmt"
	"time"

	adapterv1 "github.com/monitorhq/monitor/api/adapter/v1"
	"github.com/monitorhq/monitor/internal/adapterapi"
	"github.com/monitorhq/monitor/internal/store"
)

// Errors the surfaces map to answers. Messages are written for people.
var (
	// ErrNotFound: the thing does not exist or the tenant may not see it.
	ErrNotFound = errors.New("not found")
	// ErrUnauthorized: no valid credential.
	ErrUnauthorized = errors.New("unauthorized")
	// ErrQuota: the tenant's storage quota does not allow the save.
	ErrQuota = errors.New("storage quota exceeded")
	// ErrIdempotencyMismatch: an idempotency key was reused for another link.
	ErrIdempotencyMismatch = errors.New("idempotency key reused")
	// ErrForbidden: the caller may not do this, e.g. press a button of
	// someone else's request.
	ErrForbidden = errors.New("forbidden")
	// ErrLeaseLost: a channel's work item, or its poll lease, is not leased
	// to the caller (expired, ended or taken by another process).
	ErrLeaseLost = errors.New("lease lost")
	// ErrTenantNotActive: the tenant awaits approval, is disabled or is
	// archived, so it may not do this.
	ErrTenantNotActive = errors.New("tenant not active")
	// ErrConflict: the request does not fit the current state: a saved
	// search of the same name exists, a collection is archived to its end.
	ErrConflict = errors.New("conflict")
)

// QuotaError says by how much a save would exceed the quota.
type QuotaError struct {
	UsedBytes     int64
	ReservedBytes int64
	QuotaBytes    int64
	// AddBytes is what the save would add (0 when not known yet).
	AddBytes int64
}

func (e *QuotaError) Error() string {
	if e.QuotaBytes == 0 {
		return "this tenant's storage quota is 0 bytes, so it cannot save anything; ask the operator to raise it"
	}
	return fmt.Sprintf("storage quota exceeded: %d of %d bytes used, %d reserved by captures in progress, the save needs %d more; delete something or ask the operator to raise the quota",
		e.UsedBytes, e.QuotaBytes, e.ReservedBytes, e.AddBytes)
}

// Is makes errors.Is(err, ErrQuota) true.
func (e *QuotaError) Is(target error) bool { return target == ErrQuota }

// isNotFound reports a missing row.
func isNotFound(err error) bool { return errors.Is(err, store.ErrNotFound) }

// ErrLimit marks a submit the tenant's limits or status refuse.
var ErrLimit = errors.New("limit reached")

// LimitError says which limit refused a submit and when it lifts.
type LimitError struct {
	// Limit is interval, daily, concurrent (answered 429), or
	// pending, disabled, archived (the tenant's status, answered 403).
	Limit string
	// Max is the limit's value (seconds for interval).
	Max int
	// ResetAt is when the limit lifts (nil: when something else happens,
	// such as a capture finishing or an admin approving).
	ResetAt *time.Time
	msg     string
}

func (e *LimitError) Error() string { return e.msg }

// Is makes errors.Is(err, ErrLimit) true.
func (e *LimitError) Is(target error) bool { return target == ErrLimit }

// Status reports whether the refusal is about the tenant's status rather
// than a rate limit.
func (e *LimitError) Status() bool {
	return e.Limit == "pending" || e.Limit == "disabled" || e.Limit == "archived"
}

// AdapterFault is what an adapter's failure means for the person who sent
// the link; every surface answers it by this one classification.
type AdapterFault int

const (
	// FaultLink is the link's fault: no adapter can archive it as sent
	// (not this adapter's, not a valid URL, unsupported, needs an account).
	FaultLink AdapterFault = iota + 1
	// FaultPassing is a passing failure: the adapter cannot answer now, and
	// trying again later (after e.RetryAfter) may work.
	FaultPassing
	// FaultAdapter is the adapter's own failure, which retrying will not fix.
	FaultAdapter
)

// AdapterFaultOf classifies an adapter's typed failure.
func AdapterFaultOf(e *adapterapi.Error) AdapterFault {
	switch {
	case e.Code == adapterv1.ErrorCode_ERROR_CODE_NOT_THIS_ADAPTER, e.Code == adapterv1.ErrorCode_ERROR_CODE_INVALID_URL,
		e.Code == adapterv1.ErrorCode_ERROR_CODE_UNSUPPORTED, e.Code == adapterv1.ErrorCode_ERROR_CODE_NEEDS_ACCOUNT:
		return FaultLink
	case e.Code == adapterv1.ErrorCode_ERROR_CODE_UNAVAILABLE, e.Retryable:
		return FaultPassing
	}
	return FaultAdapter
}
