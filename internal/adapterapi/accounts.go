package adapterapi

import (
	"context"
	"fmt"
	"time"

	adapterv1 "github.com/monitorhq/monitor/api/adapter/v1"
)

// accountTimeout bounds PrepareCredential and CheckConnection: both may
// ask the upstream once.
const accountTimeout = 30 * time.Second

// AccountProvider finds the provider of an adapter that works with a
// tenant's account: the named one, or the adapter's default account
// provider when provider is "". It must declare credential.prepare and
// connection.check.
func (r *Registry) AccountProvider(adapterID, provider string) (*adapterv1.Provider, error) {
	a, ok := r.Get(adapterID)
	if !ok {
		return nil, &Error{Adapter: adapterID, Code: adapterv1.ErrorCode_ERROR_CODE_INVALID_REQUEST,
			Message: "this adapter is not configured on this instance"}
	}
	var p *adapterv1.Provider
	if provider == "" {
		var err error
		if p, err = a.defaultProvider(adapterv1.AuthMode_AUTH_MODE_ACCOUNT); err != nil {
			return nil, &Error{Adapter: a.ID(), Code: adapterv1.ErrorCode_ERROR_CODE_UNSUPPORTED,
				Message: "has no account provider yet; accounts cannot be connected to it"}
		}
	} else if p, ok = a.d.providers[provider]; !ok {
		return nil, &Error{Adapter: a.ID(), Code: adapterv1.ErrorCode_ERROR_CODE_INVALID_REQUEST,
			Message: fmt.Sprintf("has no provider %q", provider)}
	}
	if p.GetAuthMode() != adapterv1.AuthMode_AUTH_MODE_ACCOUNT {
		return nil, &Error{Adapter: a.ID(), Code: adapterv1.ErrorCode_ERROR_CODE_INVALID_REQUEST,
			Message: fmt.Sprintf("provider %s is public and takes no account", p.GetId())}
	}
	for _, c := range []string{adapterv1.CapCredentialPrepare, adapterv1.CapConnectionCheck} {
		if !hasCapability(p, c, 0) {
			return nil, &Error{Adapter: a.ID(), Code: adapterv1.ErrorCode_ERROR_CODE_UNSUPPORTED,
				Message: fmt.Sprintf("provider %s cannot take accounts (no %s capability)", p.GetId(), c)}
		}
	}
	return p, nil
}

// PrepareCredential asks the adapter to turn what a person pasted into its
// own credential format. Core never reads either: both are opaque bytes.
// A refusal (e.g. a missing cookie) comes back as *Error with the
// adapter's words.
func (r *Registry) PrepareCredential(ctx context.Context, adapterID, provider string, input []byte) (*adapterv1.PrepareCredentialResponse, error) {
	p, err := r.AccountProvider(adapterID, provider)
	if err != nil {
		return nil, err
	}
	a, _ := r.Get(adapterID)
	cctx, cancel := context.WithTimeout(ctx, accountTimeout)
	defer cancel()
	resp, err := a.client.PrepareCredential(cctx, &adapterv1.PrepareCredentialRequest{ProviderId: p.GetId(), Input: input})
	if err != nil {
		return nil, a.callError("prepare credential", adapterv1.CapCredentialPrepare, err)
	}
	if pe := resp.GetError(); pe != nil {
		return nil, fromProto(a.ID(), pe)
	}
	if len(resp.GetCredential()) == 0 {
		return nil, contractError(a.ID(), "prepare credential answered no credential and no error")
	}
	return resp, nil
}

// CheckConnection asks the adapter whether a credential still works and
// whose account it is. An answer with ok false, or with an
// ERROR_CODE_AUTH_FAILED error, means the upstream refused the
// credential; any other error says nothing about it.
func (r *Registry) CheckConnection(ctx context.Context, adapterID, provider string, credential []byte) (*adapterv1.CheckConnectionResponse, error) {
	p, err := r.AccountProvider(adapterID, provider)
	if err != nil {
		return nil, err
	}
	a, _ := r.Get(adapterID)
	cctx, cancel := context.WithTimeout(ctx, accountTimeout)
	defer cancel()
	resp, err := a.client.CheckConnection(cctx, &adapterv1.CheckConnectionRequest{ProviderId: p.GetId(), Credential: credential})
	if err != nil {
		return nil, a.callError("check connection", adapterv1.CapConnectionCheck, err)
	}
	if pe := resp.GetError(); pe != nil && pe.GetCode() != adapterv1.ErrorCode_ERROR_CODE_AUTH_FAILED {
		return nil, fromProto(a.ID(), pe)
	}
	if resp.GetOk() && resp.GetAccountId() == "" {
		return nil, contractError(a.ID(), "check connection answered ok without an account id")
	}
	return resp, nil
}

// Join asks an account provider to make the credential's account a member
// of a chat by an invite link, or with checkOnly only to read what the
// invite is (capability account.join). The provider parses the link; a
// refusal comes back as *Error with the adapter's words.
func (r *Registry) Join(ctx context.Context, adapterID, provider string, credential []byte, invite string, checkOnly bool) (*adapterv1.JoinResponse, error) {
	p, err := r.AccountProvider(adapterID, provider)
	if err != nil {
		return nil, err
	}
	a, _ := r.Get(adapterID)
	if !hasCapability(p, adapterv1.CapAccountJoin, 0) {
		return nil, &Error{Adapter: a.ID(), Code: adapterv1.ErrorCode_ERROR_CODE_UNSUPPORTED,
			Message: fmt.Sprintf("provider %s cannot join chats (no %s capability)", p.GetId(), adapterv1.CapAccountJoin)}
	}
	cctx, cancel := context.WithTimeout(ctx, accountTimeout)
	defer cancel()
	resp, err := a.client.Join(cctx, &adapterv1.JoinRequest{ProviderId: p.GetId(), Credential: credential, Invite: invite, CheckOnly: checkOnly})
	if err != nil {
		return nil, a.callError("join", adapterv1.CapAccountJoin, err)
	}
	if pe := resp.GetError(); pe != nil {
		return nil, fromProto(a.ID(), pe)
	}
	want := adapterv1.JoinState_JOIN_STATE_JOINED
	if checkOnly {
		want = adapterv1.JoinState_JOIN_STATE_CHECKED
	}
	switch s := resp.GetState(); {
	case s == want, !checkOnly && s == adapterv1.JoinState_JOIN_STATE_REQUESTED,
		checkOnly && s == adapterv1.JoinState_JOIN_STATE_JOINED:
	default:
		return nil, contractError(a.ID(), "join answered state %s to a request with check_only %t", s, checkOnly)
	}
	if resp.GetInvite() == "" {
		return nil, contractError(a.ID(), "join answered no invite")
	}
	return resp, nil
}
