package kit

import (
	"fmt"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	adapterv1 "github.com/monitorhq/monitor/api/adapter/v1"
)

// Err is a protocol error with code and a message a person reads; it is
// not retryable.
func Err(code adapterv1.ErrorCode, msg string) *adapterv1.Error {
	return &adapterv1.Error{Code: code, Message: msg}
}

// Retryable is a protocol error that may go away when tried again later.
func Retryable(code adapterv1.ErrorCode, msg string) *adapterv1.Error {
	return &adapterv1.Error{Code: code, Message: msg, Retryable: true}
}

// NotFound is ERROR_CODE_NOT_FOUND; reason, when not empty, is the
// upstream's short word for why (e.g. "deleted").
func NotFound(msg, reason string) *adapterv1.Error {
	return &adapterv1.Error{Code: adapterv1.ErrorCode_ERROR_CODE_NOT_FOUND, Message: msg, Reason: reason}
}

// BadResponse is the permanent error of an upstream answer the adapter
// cannot read.
func BadResponse(msg string) *adapterv1.Error {
	return Err(adapterv1.ErrorCode_ERROR_CODE_BAD_RESPONSE, msg)
}

// FetchError is a FetchResponse that carries only an error.
func FetchError(code adapterv1.ErrorCode, msg string) *adapterv1.FetchResponse {
	return &adapterv1.FetchResponse{Error: Err(code, msg)}
}

// ResolveError is a ResolveResponse that carries only an error.
func ResolveError(code adapterv1.ErrorCode, msg string) *adapterv1.ResolveResponse {
	return &adapterv1.ResolveResponse{Error: Err(code, msg)}
}

// CheckFetch does what every Fetch does first. A request without a target
// is an RPC error (InvalidArgument); a provider or platform that is not the
// adapter's is answered in FetchResponse.error. name is the adapter's name
// in messages ("X"). When the request passes, both results are nil.
func CheckFetch(req *adapterv1.FetchRequest, name, provider, platform string) (*adapterv1.FetchResponse, error) {
	if req == nil || req.GetTarget() == nil {
		return nil, status.Error(codes.InvalidArgument, "fetch: target is required")
	}
	if p := req.GetProviderId(); p != provider {
		return FetchError(adapterv1.ErrorCode_ERROR_CODE_INVALID_REQUEST,
			fmt.Sprintf("provider %s is not a provider of the %s adapter (it has %q)", Quote(p), name, provider)), nil
	}
	if p := req.GetTarget().GetPlatform(); p != platform {
		return FetchError(adapterv1.ErrorCode_ERROR_CODE_INVALID_REQUEST,
			fmt.Sprintf("platform %s is not %q", Quote(p), platform)), nil
	}
	return nil, nil
}
