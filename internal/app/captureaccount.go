package app

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"slices"

	"github.com/google/uuid"

	adapterv1 "github.com/monitorhq/monitor/api/adapter/v1"
	"github.com/monitorhq/monitor/internal/adapterapi"
	"github.com/monitorhq/monitor/internal/store"
)

// Captures through a tenant's account (connection_id on a submit). What
// an account fetches is private to its tenant: it lands in the tenant's
// private collection of the post, never in the public one, and its media
// and raw responses are the tenant's own — unless the adapter proves the
// post public (publishOnEvidence), when it joins the public collection
// and only its raw responses stay the tenant's. A capture records the
// provider, the connection and the credential revision it was asked with;
// if the credential is replaced or the account revoked before the result
// is kept, the result is refused. The upstream refusing the session marks
// the connection reauth_required and ends the capture without retries.

// submitConnection checks the connection a submit names for the resolved
// link and returns it; the capture then runs with its provider.
func (a *App) submitConnection(ctx context.Context, req SubmitRequest, r adapterapi.Resolved) (*store.Connection, error) {
	c, err := a.connection(ctx, req.TenantID, req.ConnectionID)
	if err != nil {
		return nil, err
	}
	switch c.Status {
	case store.ConnectionRevoked:
		return nil, errorf(ErrConflict, "connection %s is revoked; add the account again to capture with it", c.ID)
	case store.ConnectionReauth:
		return nil, errorf(ErrConflict, "the platform no longer accepts connection %s (@%s); add the account again with monitor account add", c.ID, c.Handle)
	}
	if c.AdapterID != r.Adapter {
		return nil, errorf(ErrInvalid, "connection %s is an account of %s; this link belongs to %s", c.ID, c.AdapterID, r.Adapter)
	}
	p := a.provider(c.AdapterID, c.Provider)
	if !hasCap(p, adapterv1.CapCaptureFetch) {
		return nil, errorf(ErrInvalid, "the %s provider of connection %s cannot capture yet", c.Provider, c.ID)
	}
	if r.Collection && !hasCap(p, adapterv1.CapCapturePage) {
		return nil, errorf(ErrInvalid, "the %s provider of connection %s cannot archive a profile's or channel's pages; send a post's link", c.Provider, c.ID)
	}
	return &c, nil
}

// hasCap reports whether a provider declares a capability.
func hasCap(p *adapterv1.Provider, name string) bool {
	for _, c := range p.GetCapabilities() {
		if c.GetName() == name {
			return true
		}
	}
	return false
}

// accountCollection is the tenant's private collection of a target, where
// what its accounts fetch is kept.
func accountCollection(tenantID uuid.UUID, r adapterapi.Resolved) store.Collection {
	t := r.Target
	return store.Collection{
		ID:          PrivateCollectionID(tenantID, t.GetPlatform(), t.GetEntityType(), t.GetObjectScope(), t.GetExternalId()),
		TenantID:    tenantID,
		Visibility:  store.Private,
		DataScope:   tenantID,
		AccessScope: privateAccessScope,
		Platform:    t.GetPlatform(),
		EntityType:  t.GetEntityType(),
		ObjectScope: t.GetObjectScope(),
		ExternalID:  t.GetExternalId(),
		AdapterID:   r.Adapter,
		SourceURL:   t.GetCanonicalUrl(),
	}
}

// fetchCredential opens the credential a capture runs with. A capture
// whose connection was revoked, needs re-adding, or got another
// credential since it was asked for does not fetch.
func (a *App) fetchCredential(ctx context.Context, c store.Capture) ([]byte, error) {
	conn, cred, err := a.connectionCredential(ctx, c.TenantID, *c.ConnectionID)
	if err != nil {
		return nil, err
	}
	if conn.Status == store.ConnectionReauth {
		return nil, errorf(ErrConflict, "the platform no longer accepts the account @%s; add it again with monitor account add", conn.Handle)
	}
	if c.CredentialRevision == nil || conn.CredentialRevision != *c.CredentialRevision {
		return nil, errorf(ErrConflict, "the account's credential was replaced after this capture was asked for; capture again to use the new one")
	}
	return cred, nil
}

// credentialChanged says why a capture's result may not be kept: its
// connection was revoked, or its credential replaced, since the capture
// was asked for ("": neither, or no connection).
func credentialChanged(ctx context.Context, tx *store.Tx, c store.Capture) (string, error) {
	if c.ConnectionID == nil {
		return "", nil
	}
	conn, err := tx.ConnectionGet(ctx, c.TenantID, *c.ConnectionID)
	if err != nil {
		return "", err
	}
	switch {
	case conn.Status == store.ConnectionRevoked:
		return "the account was revoked while this capture ran, so its result is not kept", nil
	case c.CredentialRevision == nil || conn.CredentialRevision != *c.CredentialRevision:
		return "the account's credential was replaced while this capture ran, so its result is not kept; capture again to use the new one", nil
	}
	return "", nil
}

// accountRefused handles the upstream refusing a capture's session: the
// connection (if its credential is still the one used) becomes
// reauth_required, and the capture ends failed at once, without retries.
func (a *App) accountRefused(ctx context.Context, c store.Capture, ferr error) error {
	bg := context.WithoutCancel(ctx)
	var ae *adapterapi.Error
	errors.As(ferr, &ae)
	err := a.store.InTx(bg, func(tx *store.Tx) error {
		conn, err := tx.ConnectionGet(bg, c.TenantID, *c.ConnectionID)
		if err != nil {
			return err
		}
		if conn.Status != store.ConnectionActive || c.CredentialRevision == nil || conn.CredentialRevision != *c.CredentialRevision {
			return nil // replaced or revoked meanwhile: the new state stands
		}
		after, err := tx.ConnectionSetStatus(bg, c.TenantID, conn.ID, store.ConnectionReauth, "")
		if err != nil {
			return err
		}
		return audit(bg, tx, ActorSystem, "connection.status", "connection:"+conn.ID.String(), auditConnection(conn), auditConnection(after))
	})
	if err != nil {
		return err
	}
	a.log.InfoContext(ctx, "account session refused", slog.String("capture", c.ID.String()), slog.String("connection", c.ConnectionID.String()))
	return a.captureFailed(ctx, c, errorf(ErrConflict, "%s refused the account's session (%s); the account needs to be added again (monitor account add)",
		c.AdapterID, ae.Message))
}

// isAuthFailure reports an adapter's AUTH_FAILED answer.
func isAuthFailure(err error) bool {
	var ae *adapterapi.Error
	return errors.As(err, &ae) && ae.Code == adapterv1.ErrorCode_ERROR_CODE_AUTH_FAILED
}

// refusedResult ends a capture whose result may not be kept, inside tx.
func (a *App) refusedResult(ctx context.Context, tx *store.Tx, c store.Capture, why string) error {
	a.log.InfoContext(ctx, "capture result refused", slog.String("capture", c.ID.String()), slog.String("reason", why))
	return a.finishCapture(ctx, tx, c, store.CaptureFailed, nil, fmt.Sprint(why))
}

// publishOnEvidence moves an account capture of a post the adapter showed
// to be public from the tenant's private collection to the post's public
// one, which it then joins like any public capture. The evidence is the
// provider's: an account provider that lists VISIBILITY_PUBLIC among the
// visibilities it may return answers PUBLIC only when the platform shows
// the post to everyone (x-session: an author X reports as not protected).
// A provider that declares only PRIVATE proves nothing by calling a post
// public. A page of a profile or channel, or a thread, read through an
// account stays private whatever it shows: what it lists is the account's
// own view, and never serves anyone else. Anything else is returned
// unchanged.
func (a *App) publishOnEvidence(ctx context.Context, tx *store.Tx, c store.Capture, coll store.Collection, vis adapterv1.Visibility) (store.Capture, store.Collection, error) {
	if c.ConnectionID == nil || vis != adapterv1.Visibility_VISIBILITY_PUBLIC || coll.Visibility != store.Private ||
		!slices.Contains(a.provider(c.AdapterID, c.Provider).GetVisibilities(), adapterv1.Visibility_VISIBILITY_PUBLIC) {
		return c, coll, nil
	}
	if lists, err := tx.CaptureExpands(ctx, c.ID); err != nil || lists {
		return c, coll, err
	}
	to, _, err := tx.CollectionGetOrInsert(ctx, publicCollection(c.TenantID, coll.Platform, coll.EntityType, coll.ObjectScope, coll.ExternalID, coll.AdapterID, coll.SourceURL))
	if err != nil {
		return c, coll, err
	}
	if to, err = canonicalCollection(ctx, tx, c.TenantID, to); err != nil {
		return c, coll, err
	}
	if err := tx.CapturePublish(ctx, c.TenantID, c.ID, coll, to); err != nil {
		return c, coll, err
	}
	a.log.InfoContext(ctx, "account capture shown public; it joins the public collection",
		slog.String("capture", c.ID.String()), slog.String("from", coll.ID.String()), slog.String("to", to.ID.String()))
	c.CollectionID, c.Visibility, c.DataScope, c.AccessScope = to.ID, to.Visibility, to.DataScope, to.AccessScope
	return c, to, nil
}

// scopeCache is what the capture's account provider asked to keep for an
// object scope through the capture's connection (a Telegram channel's
// access hash), handed back with the fetch.
func (a *App) scopeCache(ctx context.Context, c store.Capture, scope string) (v string, err error) {
	if scope == "" {
		return "", nil
	}
	err = a.store.InTx(ctx, func(tx *store.Tx) error {
		v, err = tx.ConnectionPeerGet(ctx, c.TenantID, *c.ConnectionID, scope)
		return err
	})
	return v, err
}

// keepScopeCache keeps what the provider asked to keep for an object
// scope through the capture's connection, unless it was revoked.
func (a *App) keepScopeCache(ctx context.Context, c store.Capture, scope, value string) error {
	if scope == "" {
		return nil
	}
	return a.store.InTx(ctx, func(tx *store.Tx) error {
		return tx.ConnectionPeerPut(ctx, c.TenantID, *c.ConnectionID, scope, value)
	})
}
