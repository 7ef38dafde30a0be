package app

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"time"

	"github.com/google/uuid"

	adapterv1 "github.com/monitorhq/monitor/api/adapter/v1"
	"github.com/monitorhq/monitor/internal/adapterapi"
	"github.com/monitorhq/monitor/internal/store"
)

// The bot's accounts: /accounts, /account_remove and the /account_add
// dialog. A dialog is a work item of kind ChannelWorkAccount, pending for
// AccountDialogTTL. The person's next message in that private chat that is
// not a command is the secret: core seals it as the update arrives (AAD:
// tenant and work item), keeps it in the item's payload, and stores the
// update with its text blanked and Staged set, so the channel deletes the
// message from the chat and nothing keeps the secret in the clear. The
// item then becomes claimable; the channel asks ChannelAccountFinish,
// which takes the payload once and adds the account. A dialog nobody
// answered becomes claimable when it expires and finishes as expired. All
// of it is in core, so a restart of the channel loses nothing.

// ChannelWorkAccount is the kind of an account dialog's work item.
const ChannelWorkAccount = store.WorkAccount

// AccountDialogTTL is how long /account_add waits for the secret.
const AccountDialogTTL = 10 * time.Minute

// ActorChannel is the audit actor of what a channel's person did.
const ActorChannel = "channel"

// accountDialog is an account dialog's progress document. It never holds
// the secret (that is the sealed payload).
type accountDialog struct {
	Adapter    string    `json:"adapter"`
	ChatID     int64     `json:"chat_id"`
	IdentityID uuid.UUID `json:"identity_id"`
	ExpiresAt  time.Time `json:"expires_at"`
	// Staged: the secret arrived (and MessageID is the deleted message).
	Staged    bool  `json:"staged,omitempty"`
	MessageID int64 `json:"message_id,omitempty"`
	// Problem is why a staged secret could not be kept.
	Problem string `json:"problem,omitempty"`
	// LanguageCode is what the person's client reported, for the answer.
	LanguageCode string `json:"language_code,omitempty"`
	// Method is how the account signs in: "" a pasted secret, "qr" a QR
	// code core shows through the adapter's SignIn (channelqr.go). For
	// "qr" the staged secret is the two-step verification password,
	// unless SignedIn says core staged the finished session itself.
	Method   string `json:"method,omitempty"`
	SignedIn bool   `json:"signed_in,omitempty"`
	// NotScanned: the QR sign-in's wait ended without a scan.
	NotScanned bool `json:"not_scanned,omitempty"`
}

// accountLanguageCode is the language code a dialog item was started in.
func accountLanguageCode(progress []byte) string {
	var d accountDialog
	_ = json.Unmarshal(progress, &d)
	return d.LanguageCode
}

// AccountAdapterView is an adapter a tenant may connect an account of.
type AccountAdapterView struct {
	ID   string `json:"id"`
	Name string `json:"name"`
	// Help says what to paste.
	Help string `json:"help"`
	// QR: the account may sign in by a QR code instead (channelqr.go).
	QR bool `json:"qr,omitempty"`
}

// AccountDialogView is a running /account_add.
type AccountDialogView struct {
	Adapter   AccountAdapterView `json:"adapter"`
	ChatID    int64              `json:"chat_id"`
	ExpiresAt time.Time          `json:"expires_at"`
}

// ChannelAccountsView is what /accounts shows.
type ChannelAccountsView struct {
	Adapters    []AccountAdapterView
	Connections []ConnectionView
}

// ChannelAccountResult is how a dialog ended.
type ChannelAccountResult struct {
	Dialog AccountDialogView
	// Expired: no secret came in time (or the dialog was cancelled).
	Expired bool
	// Connection is the added account; Replaced says it was connected
	// already and got the new credential.
	Connection *ConnectionView
	Replaced   bool
	// Problem is why the account was not added, for the person.
	Problem string
	// NotScanned: a QR sign-in ended with no code scanned in time.
	NotScanned bool
}

// AccountAdapters lists the adapters with an account provider, for the
// surfaces that add accounts.
func (a *App) AccountAdapters() []AccountAdapterView {
	if a.adapters == nil {
		return nil
	}
	var out []AccountAdapterView
	for _, ad := range a.adapters.Adapters() {
		p, err := a.adapters.AccountProvider(ad.ID(), "")
		if err != nil {
			continue
		}
		name := ad.Describe().GetDisplayName()
		if name == "" {
			name = ad.ID()
		}
		out = append(out, AccountAdapterView{ID: ad.ID(), Name: name, Help: p.GetCredentialHelp(),
			QR: a.adapters.CanSignIn(ad.ID(), p.GetId())})
	}
	return out
}

func (a *App) accountAdapter(id string) (AccountAdapterView, error) {
	for _, ad := range a.AccountAdapters() {
		if ad.ID == id {
			return ad, nil
		}
	}
	return AccountAdapterView{}, errorf(ErrInvalid, "%s takes no accounts on this instance", clip(id, 32))
}

// ChannelAccounts lists the item's tenant's connections and the adapters
// that take accounts.
func (a *App) ChannelAccounts(ctx context.Context, id uuid.UUID, owner string) (ChannelAccountsView, error) {
	j, err := a.ownedJob(ctx, id, owner)
	if err != nil {
		return ChannelAccountsView{}, err
	}
	conns, err := a.Connections(j.ctx, j.tenantID)
	if err != nil {
		return ChannelAccountsView{}, err
	}
	return ChannelAccountsView{Adapters: a.AccountAdapters(), Connections: conns}, nil
}

// privateJob refuses an item that does not answer a private chat: a
// secret pasted in a group is seen by everyone in it.
func privateJob(j *channelJob) error {
	if j.update == nil || j.update.ChatType != "private" {
		return forbidden("accounts are added only in a private chat with the bot, where nobody else sees what you paste")
	}
	return nil
}

// ChannelAccountStart starts an /account_add dialog for adapter in the
// item's private chat, replacing one still waiting there. Without a master
// key it is refused before anyone pastes a secret.
func (a *App) ChannelAccountStart(ctx context.Context, id uuid.UUID, owner, adapter string) (AccountDialogView, error) {
	j, err := a.ownedJob(ctx, id, owner)
	if err != nil {
		return AccountDialogView{}, err
	}
	v, _, err := a.startDialog(j, adapter, "")
	return v, err
}

// startDialog starts a dialog of method ("": a pasted secret) and answers
// its work item's id.
func (a *App) startDialog(j *channelJob, adapter, method string) (AccountDialogView, uuid.UUID, error) {
	fail := func(err error) (AccountDialogView, uuid.UUID, error) { return AccountDialogView{}, uuid.Nil, err }
	if err := privateJob(j); err != nil {
		return fail(err)
	}
	if _, err := a.credentialBox(); err != nil {
		return fail(err)
	}
	ad, err := a.accountAdapter(adapter)
	if err != nil {
		return fail(err)
	}
	now := a.now().UTC()
	d := accountDialog{Adapter: ad.ID, ChatID: j.update.ChatID, IdentityID: j.identityID, ExpiresAt: now.Add(AccountDialogTTL),
		LanguageCode: j.update.From.Language, Method: method}
	doc, err := json.Marshal(d)
	if err != nil {
		return fail(err)
	}
	var w store.ChannelWork
	err = a.store.InTx(j.ctx, func(tx *store.Tx) error {
		if err := cancelDialogs(j.ctx, tx, j, "replaced by a new /account_add"); err != nil {
			return err
		}
		w, err = tx.ChannelWorkInsert(j.ctx, store.ChannelWork{ChannelID: j.work.ChannelID, Kind: ChannelWorkAccount,
			TenantID: j.tenantID, NotBefore: d.ExpiresAt, Progress: doc})
		return err
	})
	if err != nil {
		return fail(err)
	}
	return AccountDialogView{Adapter: ad, ChatID: d.ChatID, ExpiresAt: d.ExpiresAt}, w.ID, nil
}

// cancelDialogs cancels the waiting dialogs of the item's person in its
// chat; it reports how many.
func cancelDialogs(ctx context.Context, tx *store.Tx, j *channelJob, why string) error {
	_, err := cancelDialogsN(ctx, tx, j, why)
	return err
}

func cancelDialogsN(ctx context.Context, tx *store.Tx, j *channelJob, why string) (int, error) {
	ds, err := tx.ChannelAccountDialogs(ctx, j.work.ChannelID, j.tenantID)
	if err != nil {
		return 0, err
	}
	n := 0
	for _, w := range ds {
		var d accountDialog
		if json.Unmarshal(w.Progress, &d) != nil || d.IdentityID != j.identityID || d.ChatID != j.update.ChatID || d.Staged {
			continue
		}
		if err := tx.ChannelWorkCancel(ctx, w.ID, why); err != nil && !isNotFound(err) {
			return n, err
		}
		n++
	}
	return n, nil
}

// ChannelAccountCancel is /cancel: it ends the person's waiting dialog in
// this chat (ErrNotFound: none was waiting).
func (a *App) ChannelAccountCancel(ctx context.Context, id uuid.UUID, owner string) error {
	j, err := a.ownedJob(ctx, id, owner)
	if err != nil {
		return err
	}
	if j.update == nil {
		return badRequest("only a message can cancel")
	}
	var n int
	err = a.store.InTx(j.ctx, func(tx *store.Tx) error {
		n, err = cancelDialogsN(j.ctx, tx, j, "cancelled")
		return err
	})
	if err == nil && n == 0 {
		return errorf(ErrNotFound, "nothing to cancel: no /account_add is waiting for you")
	}
	return err
}

// ChannelAccountRemove revokes one of the tenant's connections.
func (a *App) ChannelAccountRemove(ctx context.Context, id uuid.UUID, owner string, connectionID uuid.UUID) (ConnectionView, error) {
	j, err := a.ownedJob(ctx, id, owner)
	if err != nil {
		return ConnectionView{}, err
	}
	return a.RevokeConnection(j.ctx, j.tenantID, connectionID, ActorChannel)
}

// ChannelAccountFinish ends a claimed dialog item: it takes the staged
// secret (once) and adds the account, or says the dialog expired.
func (a *App) ChannelAccountFinish(ctx context.Context, id uuid.UUID, owner string) (ChannelAccountResult, error) {
	j, err := a.job(ctx, id, owner)
	if err != nil {
		return ChannelAccountResult{}, err
	}
	if j.work.Kind != ChannelWorkAccount {
		return ChannelAccountResult{}, badRequest("work %s is not an account dialog", id)
	}
	var d accountDialog
	if err := json.Unmarshal(j.work.Progress, &d); err != nil {
		return ChannelAccountResult{}, badRequest("work %s has no account dialog", id)
	}
	res := ChannelAccountResult{Dialog: AccountDialogView{Adapter: AccountAdapterView{ID: d.Adapter, Name: d.Adapter}, ChatID: d.ChatID, ExpiresAt: d.ExpiresAt}}
	if ad, err := a.accountAdapter(d.Adapter); err == nil {
		res.Dialog.Adapter = ad
	}
	var payload []byte
	err = a.store.InTx(j.ctx, func(tx *store.Tx) error {
		payload, err = tx.ChannelWorkTakePayload(j.ctx, id)
		return err
	})
	if err != nil {
		return res, err
	}
	switch {
	case d.Problem != "":
		res.Problem = d.Problem
		return res, nil
	case d.NotScanned:
		res.NotScanned = true
		return res, nil
	case payload == nil:
		a.signIns.end(id)
		res.Expired = true
		return res, nil
	}
	secret, err := a.openStaged(j.tenantID, id, payload)
	if err != nil {
		a.signIns.end(id)
		res.Problem = err.Error()
		return res, nil
	}
	if d.Method == adapterv1.SignInMethodQR && !d.SignedIn {
		// The staged secret is the password the sign-in asked for.
		session, problem := a.signInPassword(ctx, id, secret)
		clear(secret)
		if problem != "" {
			res.Problem = problem
			return res, nil
		}
		secret = session
	}
	added, err := a.AddConnection(j.ctx, AddConnectionRequest{TenantID: j.tenantID, Adapter: d.Adapter, Secret: secret, Actor: ActorChannel})
	clear(secret)
	var (
		ue *userError
		ae *adapterapi.Error
	)
	switch {
	case errors.As(err, &ue):
		res.Problem = ue.Error()
		return res, nil
	case errors.As(err, &ae):
		res.Problem = "the account was not added: " + ae.Error()
		return res, nil
	}
	if err != nil {
		// The secret is gone from core; the person pastes it again.
		a.log.WarnContext(ctx, "adding a channel account failed", "work", id, "err", err)
		res.Problem = "the account could not be added just now; send /account_add and paste it again"
		return res, nil
	}
	res.Connection, res.Replaced = &added.Connection, added.Replaced
	return res, nil
}

// stagedAAD binds a staged secret to its tenant and dialog item.
func stagedAAD(tenantID, workID uuid.UUID) []byte {
	return []byte("tenant:" + tenantID.String() + "/channel-work:" + workID.String())
}

// openStaged opens a staged secret (nonce, then ciphertext).
func (a *App) openStaged(tenantID, workID uuid.UUID, payload []byte) ([]byte, error) {
	box, err := a.credentialBox()
	if err != nil {
		return nil, err
	}
	n := box.aead.NonceSize()
	if len(payload) < n {
		return nil, errorf(ErrInvalid, "the staged secret is damaged; send /account_add and paste it again")
	}
	plain, err := box.openBytes(payload[:n], payload[n:], stagedAAD(tenantID, workID))
	if err != nil {
		return nil, errorf(ErrInvalid, "the staged secret cannot be opened (the master key changed?); send /account_add and paste it again")
	}
	return plain, nil
}

// stageAccountSecret runs as an update is stored: a private message that
// is not a command, from a person whose /account_add is waiting in that
// chat (or expired there, not yet ended), is the secret. It is sealed at once and the update keeps no text
// (Staged), so the channel deletes the message; the returned stage, run
// once the update's own item is queued, keeps the sealed secret in the
// dialog's payload and makes the dialog claimable just after that item.
// stage is nil when the message is no secret.
func (a *App) stageAccountSecret(ctx context.Context, tx *store.Tx, ch store.Channel, ident store.Identity, u *ChannelUpdate) (stage func() error, err error) {
	text := strings.TrimSpace(u.Text)
	if u.Kind != ChannelUpdateMessage || u.ChatType != "private" || text == "" || strings.HasPrefix(text, "/") {
		return nil, nil
	}
	ds, err := tx.ChannelAccountDialogs(ctx, ch.ID, ident.TenantID)
	if err != nil || len(ds) == 0 {
		return nil, err
	}
	now := a.now().UTC()
	for _, w := range ds {
		var d accountDialog
		if json.Unmarshal(w.Progress, &d) != nil || d.IdentityID != ident.ID || d.ChatID != u.ChatID || d.Staged ||
			w.State != store.WorkPending || d.Method == adapterv1.SignInMethodQR && !a.signIns.asked(w.ID) {
			continue
		}
		d.Staged, d.MessageID = true, u.MessageID
		var payload []byte
		if !now.Before(d.ExpiresAt) {
			// Too late, but most likely the secret all the same: it is
			// deleted and kept nowhere, and nothing is added.
			d.Problem = "the /account_add had waited 10 minutes and ended before this message came, so nothing was stored; send /account_add again"
		} else if box, err := a.credentialBox(); err != nil {
			d.Problem = err.Error()
		} else {
			nonce, sealed := box.sealBytes([]byte(text), stagedAAD(ident.TenantID, w.ID))
			payload = append(nonce, sealed...)
		}
		doc, err := json.Marshal(d)
		if err != nil {
			return nil, err
		}
		u.Text, u.Entities, u.Staged = "", nil, true
		id := w.ID
		return func() error {
			return tx.ChannelWorkStage(ctx, id, payload, doc, a.now().Add(time.Millisecond))
		}, nil
	}
	return nil, nil
}
