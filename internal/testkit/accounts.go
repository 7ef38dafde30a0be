package testkit

import (
	"bytes"
	"context"
	"net/url"
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
//
// Its posts, https://accounts.example/p/<id>, are protected: the public
// provider answers NEEDS_ACCOUNT, the account provider a private post
// whose text names the account that read it. Hold makes the next account
// fetch wait until the test releases it.
type AccountAdapter struct {
	adapterv1.UnimplementedAdapterServer

	mu      sync.Mutex
	expired map[string]bool
	limited bool
	handles map[string]string
	moved   map[string]string
	checked [][]byte
	fetched [][]byte
	hold    *FetchHold
	media   string
}

// SetMedia gives every post fetched through an account one image at url.
func (f *AccountAdapter) SetMedia(url string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.media = url
}

// FetchHold is a held account fetch: Started is closed when the fetch
// has begun (with the credential it got), and the fetch answers once
// Release is called.
type FetchHold struct {
	Started chan struct{}
	release chan struct{}
	once    sync.Once
}

// Release lets the held fetch answer.
func (h *FetchHold) Release() { h.once.Do(func() { close(h.release) }) }

// Hold makes the next account fetch wait for Release.
func (f *AccountAdapter) Hold() *FetchHold {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.hold = &FetchHold{Started: make(chan struct{}), release: make(chan struct{})}
	return f.hold
}

// Fetched are the credentials account fetches got, in order.
func (f *AccountAdapter) Fetched() [][]byte {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([][]byte(nil), f.fetched...)
}

// AccountPostURL is the link of a protected post of the adapter.
func AccountPostURL(id string) string { return "https://" + AccountAdapterHost + "/p/" + id }

const accountPostSchema = `{"$schema": "https://json-schema.org/draft/2020-12/schema", "type": "object",
	"required": ["id", "read_by"], "properties": {"id": {"type": "string"}, "read_by": {"type": "string"}}}`

// AccountAdapter's names.
const (
	AccountAdapterID       = "acct"
	AccountAdapterHost     = "accounts.example"
	AccountAdapterProvider = "session"
	AccountAdapterPublic   = "public"
)

// NewAccountAdapter returns the adapter, every token valid.
func NewAccountAdapter() *AccountAdapter {
	return &AccountAdapter{expired: map[string]bool{}, handles: map[string]string{}, moved: map[string]string{}}
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

// Move makes the upstream answer a check of account's sessions with
// another account id, as when a browser's cookies now belong to someone
// else.
func (f *AccountAdapter) Move(account, to string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.moved[account] = to
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
		EntityTypes:    []*adapterv1.EntityType{{Name: "acct.post", JsonSchema: accountPostSchema}},
		Providers: []*adapterv1.Provider{
			{Id: AccountAdapterPublic, AuthMode: adapterv1.AuthMode_AUTH_MODE_NONE, DefaultProvider: true,
				Visibilities: []adapterv1.Visibility{adapterv1.Visibility_VISIBILITY_PUBLIC},
				Capabilities: []*adapterv1.Capability{adapterv1.Cap1(adapterv1.CapCaptureFetch)}, EntityTypes: []string{"acct.post"}},
			{Id: AccountAdapterProvider, AuthMode: adapterv1.AuthMode_AUTH_MODE_ACCOUNT, DefaultProvider: true,
				Visibilities: []adapterv1.Visibility{adapterv1.Visibility_VISIBILITY_PRIVATE}, EntityTypes: []string{"acct.post"},
				Capabilities: []*adapterv1.Capability{adapterv1.Cap1(adapterv1.CapCaptureFetch), adapterv1.Cap1(adapterv1.CapContentText),
					adapterv1.Cap1(adapterv1.CapEntityGraph), adapterv1.Cap1(adapterv1.CapCredentialPrepare), adapterv1.Cap1(adapterv1.CapConnectionCheck)},
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
	handle, account := parts[2], parts[1]
	if h, ok := f.handles[account]; ok {
		handle = h
	}
	if to, ok := f.moved[account]; ok {
		account = to
	}
	return &adapterv1.CheckConnectionResponse{Ok: true, AccountId: account, Handle: handle}, nil
}

// Resolve accepts https://accounts.example/p/<id>.
func (f *AccountAdapter) Resolve(_ context.Context, req *adapterv1.ResolveRequest) (*adapterv1.ResolveResponse, error) {
	u, err := url.Parse(req.GetUrl())
	id, ok := "", false
	if err == nil && u.Host == AccountAdapterHost {
		id, ok = strings.CutPrefix(u.Path, "/p/")
	}
	if !ok || id == "" || strings.Contains(id, "/") {
		return &adapterv1.ResolveResponse{Error: &adapterv1.Error{Code: adapterv1.ErrorCode_ERROR_CODE_INVALID_URL,
			Message: "not a post link; send https://accounts.example/p/<id>"}}, nil
	}
	return &adapterv1.ResolveResponse{Target: &adapterv1.Target{Platform: "acct", EntityType: "acct.post", ExternalId: id,
		CanonicalUrl: AccountPostURL(id)}}, nil
}

// Fetch reads a protected post: the public provider cannot, the account
// provider reads it as the credential's account (posts "pub…" it calls
// public, without further evidence).
func (f *AccountAdapter) Fetch(_ context.Context, req *adapterv1.FetchRequest) (*adapterv1.FetchResponse, error) {
	if req.GetProviderId() != AccountAdapterProvider {
		return &adapterv1.FetchResponse{Error: &adapterv1.Error{Code: adapterv1.ErrorCode_ERROR_CODE_NEEDS_ACCOUNT,
			Message: "this post is protected; connect an account that may see it"}}, nil
	}
	f.mu.Lock()
	f.fetched = append(f.fetched, bytes.Clone(req.GetCredential()))
	hold := f.hold
	f.hold = nil
	f.mu.Unlock()
	if hold != nil {
		close(hold.Started)
		<-hold.release
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	parts := strings.Split(string(req.GetCredential()), "|")
	if len(parts) != 4 || parts[0] != "acct1" {
		return &adapterv1.FetchResponse{Error: &adapterv1.Error{Code: adapterv1.ErrorCode_ERROR_CODE_INVALID_REQUEST,
			Message: "not a credential of this adapter"}}, nil
	}
	if f.expired[parts[3]] {
		return &adapterv1.FetchResponse{Error: &adapterv1.Error{Code: adapterv1.ErrorCode_ERROR_CODE_AUTH_FAILED,
			Message: "the upstream no longer accepts this session"}}, nil
	}
	id := req.GetTarget().GetExternalId()
	data := `{"id": "` + id + `", "read_by": "` + parts[1] + `"}`
	// A post whose id starts with "pub" the adapter calls public.
	vis := adapterv1.Visibility_VISIBILITY_PRIVATE
	if strings.HasPrefix(id, "pub") {
		vis = adapterv1.Visibility_VISIBILITY_PUBLIC
	}
	var media []*adapterv1.Media
	if f.media != "" {
		media = append(media, &adapterv1.Media{Url: f.media, Kind: adapterv1.MediaKind_MEDIA_KIND_IMAGE, Mime: "image/png"})
	}
	return &adapterv1.FetchResponse{
		Media:      media,
		Visibility: vis,
		Display: &adapterv1.Display{Text: "protected post " + id + " read by account " + parts[1], TextKind: adapterv1.TextKind_TEXT_KIND_PLAIN,
			Summary: "protected post " + id, AuthorName: "Someone protected"},
		Graph: &adapterv1.Graph{RootKey: "post", Entities: []*adapterv1.Entity{{Key: "post", Type: "acct.post", ExternalId: id, DataJson: data}}},
	}, nil
}
