package adapterapi

import (
	"errors"
	"fmt"
	"time"

	adapterv1 "github.com/monitorhq/monitor/api/adapter/v1"
)

// Error is a typed failure from an adapter or from the registry's checks of
// one. Its message is for people; Code and Retryable are for the pipeline.
type Error struct {
	// Adapter is the adapter's id, when one was involved.
	Adapter string
	Code    adapterv1.ErrorCode
	Message string
	// Retryable: the same request may succeed later.
	Retryable bool
	// RetryAfter is when to try again, when the upstream said.
	RetryAfter time.Duration
	// Reason is the upstream's own word (e.g. a tombstone reason).
	Reason string
	err    error
}

func (e *Error) Error() string {
	if e.Adapter != "" {
		return "adapter " + e.Adapter + ": " + e.Message
	}
	return e.Message
}

func (e *Error) Unwrap() error { return e.err }

// Permanent reports whether retrying cannot help.
func (e *Error) Permanent() bool { return !e.Retryable }

// ErrContract marks an adapter that broke adapter.v1: it declared a
// capability and answered UNIMPLEMENTED, or returned a graph that does not
// follow its own entity types. Such failures are permanent.
var ErrContract = errors.New("adapter broke the adapter.v1 contract")

// ErrNoAdapter marks a URL no configured adapter handles.
var ErrNoAdapter = errors.New("no adapter for this link")

// fromProto turns an adapter's typed error into an *Error.
func fromProto(adapter string, pe *adapterv1.Error) *Error {
	msg := pe.GetMessage()
	if msg == "" {
		msg = "failed with " + pe.GetCode().String()
	}
	return &Error{
		Adapter:    adapter,
		Code:       pe.GetCode(),
		Message:    msg,
		Retryable:  pe.GetRetryable(),
		RetryAfter: time.Duration(pe.GetRetryAfterSeconds()) * time.Second,
		Reason:     pe.GetReason(),
	}
}

func contractError(adapter, format string, args ...any) *Error {
	return &Error{
		Adapter: adapter,
		Code:    adapterv1.ErrorCode_ERROR_CODE_BAD_RESPONSE,
		Message: fmt.Sprintf(format, args...),
		err:     ErrContract,
	}
}
