package testkit

import (
	"bytes"
	"context"
	"strings"
	"sync"

	adapterv1 "github.com/monitorhq/monitor/api/adapter/v1"
)

// AccountAdapter is a small adapter of an imaginary platform whose people
// sign in with a session token: the outside world of core's account flows
// (PrepareCredential, CheckConnection), served over real gRPC like every
// adapter. What a person pastes reads
//
//	account=<id>
//	handle=<name>
//	token=<session token>
//
// (lines, or ';'-separated). PrepareCredential says which line is missing
// and answers the adapter's own format, "acct1|<id>|<handle>|<token>",
// which core must hand back unchanged. CheckConnection refuses tokens the
// test expired (AUTH_FAILED) and answers RATE_LIMITED while the test says
// so.
type AccountAdapter struct {
	adapterv1.UnimplementedAdapterServer

	mu      sync.Mutex
	expired map[string]bool
	limited bool
	handles map[string]string
	checked [][]byte
}

// AccountAdapter's names.
const (
	AccountAdapterID       = "acct"
	AccountAdapterHost     = "accounts.example"
	AccountAdapterProvider = "session"
	AccountAdapterPublic   = "public"
)

// NewAccountAdapter returns the adapter, every token valid.
func NewAccountAdapter() *AccountAdapter {
	return &AccountAdapter{expired: map[string]bool{}, handles: map[string]string{}}
}

// Expire makes the upstream refuse a session token from now on.
func (f *AccountAdapter) Expire(token string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.expired[token] = true
}

// RateLimit makes every check answer RATE_LIMITED while on is true.
func (f *AccountAdapter) RateLimit(on bool) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.limited = on
}

// Rename makes the upstream call account id by another handle.
func (f *AccountAdapter) Rename(accountID, handle string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.handles[accountID] = handle
}

// Checked are the credentials CheckConnection was asked about, in order.
func (f *AccountAdapter) Checked() [][]byte {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([][]byte(nil), f.checked...)
}

// Describe declares a public provider and the account provider.
func (f *AccountAdapter) Describe(context.Context, *adapterv1.DescribeRequest) (*adapterv1.DescribeResponse, error) {
	return &adapterv1.DescribeResponse{
		Protocol:       &adapterv1.ProtocolVersion{Major: adapterv1.ProtocolMajor, Minor: adapterv1.ProtocolMinor},
		AdapterId:      AccountAdapterID,
		AdapterVersion: "0.0.1",
		DisplayName:    "Accounts (test)",
		Hosts:          []string{AccountAdapterHost},
		Providers: []*adapterv1.Provider{
			{Id: AccountAdapterPublic, AuthMode: adapterv1.AuthMode_AUTH_MODE_NONE, DefaultProvider: true,
				Visibilities: []adapterv1.Visibility{adapterv1.Visibility_VISIBILITY_PUBLIC}},
			{Id: AccountAdapterProvider, AuthMode: adapterv1.AuthMode_AUTH_MODE_ACCOUNT, DefaultProvider: true,
				Visibilities:   []adapterv1.Visibility{adapterv1.Visibility_VISIBILITY_PRIVATE},
				Capabilities:   []*adapterv1.Capability{adapterv1.Cap1(adapterv1.CapCredentialPrepare), adapterv1.Cap1(adapterv1.CapConnectionCheck)},
				CredentialHelp: "account=<id>, handle=<name> and token=<session token>, one a line"},
		},
	}, nil
}

// PrepareCredential parses what the person pasted.
func (f *AccountAdapter) PrepareCredential(_ context.Context, req *adapterv1.PrepareCredentialRequest) (*adapterv1.PrepareCredentialResponse, error) {
	fields := map[string]string{}
	for _, part := range strings.FieldsFunc(string(req.GetInput()), func(r rune) bool { return r == '\n' || r == ';' }) {
		k, v, ok := strings.Cut(strings.TrimSpace(part), "=")
		if ok {
			fields[strings.TrimSpace(k)] = strings.TrimSpace(v)
		}
	}
	for _, k := range []string{"account", "token"} {
		if fields[k] == "" {
			return &adapterv1.PrepareCredentialResponse{Error: &adapterv1.Error{Code: adapterv1.ErrorCode_ERROR_CODE_INVALID_REQUEST,
				Message: "the " + k + " line is missing; paste account=, handle= and token="}}, nil
		}
	}
	cred := "acct1|" + fields["account"] + "|" + fields["handle"] + "|" + fields["token"]
	return &adapterv1.PrepareCredentialResponse{Credential: []byte(cred), AccountId: fields["account"], Handle: fields["handle"]}, nil
}

// CheckConnection asks the imaginary upstream who the session is.
func (f *AccountAdapter) CheckConnection(_ context.Context, req *adapterv1.CheckConnectionRequest) (*adapterv1.CheckConnectionResponse, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.checked = append(f.checked, bytes.Clone(req.GetCredential()))
	parts := strings.Split(string(req.GetCredential()), "|")
	if len(parts) != 4 || parts[0] != "acct1" {
		return &adapterv1.CheckConnectionResponse{Error: &adapterv1.Error{Code: adapterv1.ErrorCode_ERROR_CODE_INVALID_REQUEST,
			Message: "not a credential of this adapter"}}, nil
	}
	if f.limited {
		return &adapterv1.CheckConnectionResponse{Error: &adapterv1.Error{Code: adapterv1.ErrorCode_ERROR_CODE_RATE_LIMITED,
			Message: "the upstream asks to slow down", Retryable: true, RetryAfterSeconds: 60}}, nil
	}
	if f.expired[parts[3]] {
		return &adapterv1.CheckConnectionResponse{Error: &adapterv1.Error{Code: adapterv1.ErrorCode_ERROR_CODE_AUTH_FAILED,
			Message: "the upstream no longer accepts this session; sign in again and add the account anew"}}, nil
	}
	handle := parts[2]
	if h, ok := f.handles[parts[1]]; ok {
		handle = h
	}
	return &adapterv1.CheckConnectionResponse{Ok: true, AccountId: parts[1], Handle: handle}, nil
}
