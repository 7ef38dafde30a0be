package app

import (
	"context"
	"encoding/json"
	"errors"
	"sync"
	"sync/atomic"
	"time"

	"github.com/google/uuid"

	adapterv1 "github.com/monitorhq/monitor/api/adapter/v1"
	"github.com/monitorhq/monitor/internal/adapterapi"
	"github.com/monitorhq/monitor/internal/store"
)

// QR sign-in through the bot's /account_add: the dialog is an account
// dialog of method "qr" (channelaccount.go). Core opens the adapter's
// SignIn stream (the adapter keeps its app credentials) and keeps it in
// this process; the channel asks ChannelAccountQRNext for each step and
// sends each QR code as a photo. A scan without two-step verification
// ends with the session, which core seals and stages as the dialog's
// secret itself; with it, the adapter asks for the password and the
// person's next message is staged as a pasted secret is (deleted from the
// chat, never kept in the clear), and ChannelAccountFinish hands it to
// the waiting sign-in. Either way the account is added as a pasted
// session would be (PrepareCredential, sealed, audited). A sign-in lives
// in memory: a restart of core ends it, and the person starts again.

// SettingAccountQRWait is the wait for a scan, in seconds.
const SettingAccountQRWait = "account_qr_wait_seconds"

// qrNextWait is how long ChannelAccountQRNext waits for a step.
const qrNextWait = 20 * time.Second

// Kinds of SignInStepView.
const (
	SignInStepQR       = "qr"
	SignInStepPassword = "password"
	// SignInStepEnd: the sign-in ended; the dialog's item says how.
	SignInStepEnd = "end"
	// SignInStepWait: nothing new yet; ask again.
	SignInStepWait = "wait"
)

// SignInStepView is one step of a QR sign-in for the channel.
type SignInStepView struct {
	Kind      string
	PNG       []byte
	ExpiresAt time.Time
	Hint      string
}

// signIn is one running QR sign-in.
type signIn struct {
	session *adapterapi.SignInSession
	steps   chan SignInStepView
	// asked: the adapter asked for the password; the person's next
	// message is it.
	asked  atomic.Bool
	cancel context.CancelFunc
}

// signIns are the sign-ins of this process by dialog item.
type signIns struct {
	mu sync.Mutex
	m  map[uuid.UUID]*signIn
}

func newSignIns() *signIns { return &signIns{m: map[uuid.UUID]*signIn{}} }

func (s *signIns) put(id uuid.UUID, si *signIn) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.m[id] = si
}

func (s *signIns) get(id uuid.UUID) *signIn {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.m[id]
}

// asked says whether the dialog's sign-in waits for the password.
func (s *signIns) asked(id uuid.UUID) bool {
	si := s.get(id)
	return si != nil && si.asked.Load()
}

// end stops a dialog's sign-in, if any.
func (s *signIns) end(id uuid.UUID) {
	s.mu.Lock()
	si := s.m[id]
	delete(s.m, id)
	s.mu.Unlock()
	if si != nil {
		si.session.Close()
		si.cancel()
	}
}

// CanSignInQR says whether an adapter signs accounts in by QR code here.
func (a *App) CanSignInQR(adapter string) bool {
	return a.adapters != nil && a.adapters.CanSignIn(adapter, "")
}

// ChannelAccountQR starts an /account_add dialog that signs in by QR code
// in the item's private chat.
func (a *App) ChannelAccountQR(ctx context.Context, id uuid.UUID, owner, adapter string) (AccountDialogView, error) {
	j, err := a.ownedJob(ctx, id, owner)
	if err != nil {
		return AccountDialogView{}, err
	}
	if err := privateJob(j); err != nil {
		return AccountDialogView{}, err
	}
	if _, err := a.accountAdapter(adapter); err != nil {
		return AccountDialogView{}, err
	}
	if !a.CanSignInQR(adapter) {
		return AccountDialogView{}, errorf(ErrInvalid, "%s cannot sign in by QR code on this instance; paste a session instead", clip(adapter, 32))
	}
	s, err := a.Settings(j.ctx)
	if err != nil {
		return AccountDialogView{}, err
	}
	v, wid, err := a.startDialog(j, adapter, adapterv1.SignInMethodQR)
	if err != nil {
		return AccountDialogView{}, err
	}
	bg := context.WithoutCancel(j.ctx)
	sctx, cancel := context.WithDeadline(bg, v.ExpiresAt)
	session, err := a.adapters.SignIn(sctx, adapter, "", adapterv1.SignInMethodQR, s.AccountQRWait)
	if err != nil {
		cancel()
		_ = a.store.InTx(bg, func(tx *store.Tx) error { return tx.ChannelWorkCancel(bg, wid, "the sign-in could not start") })
		return AccountDialogView{}, err
	}
	si := &signIn{session: session, steps: make(chan SignInStepView, 16), cancel: cancel}
	a.signIns.put(wid, si)
	go a.pumpSignIn(bg, j.tenantID, wid, si)
	return v, nil
}

// pumpSignIn passes the sign-in's steps to the channel until it asks for
// the password (ChannelAccountFinish goes on from there) or ends; an end
// is staged in the dialog, which becomes claimable and tells the person.
func (a *App) pumpSignIn(ctx context.Context, tenantID, wid uuid.UUID, si *signIn) {
	defer close(si.steps)
	for {
		step, err := si.session.Next()
		if err != nil {
			a.signIns.end(wid)
			a.stageSignIn(ctx, tenantID, wid, nil, err)
			return
		}
		switch st := step.GetStep().(type) {
		case *adapterv1.SignInStep_Qr:
			si.steps <- SignInStepView{Kind: SignInStepQR, PNG: st.Qr.GetPng(), ExpiresAt: st.Qr.GetExpiresAt().AsTime()}
		case *adapterv1.SignInStep_Password:
			si.asked.Store(true)
			si.steps <- SignInStepView{Kind: SignInStepPassword, Hint: st.Password.GetHint()}
			return
		case *adapterv1.SignInStep_Done:
			a.signIns.end(wid)
			a.stageSignIn(ctx, tenantID, wid, st.Done.GetInput(), nil)
			return
		}
	}
}

// stageSignIn ends a dialog whose sign-in ended before a password: with
// the session sealed as its secret, or with why not.
func (a *App) stageSignIn(ctx context.Context, tenantID, wid uuid.UUID, session []byte, failed error) {
	w, err := a.store.ChannelWorkGet(ctx, wid)
	if err == nil {
		err = a.store.InTx(ctx, func(tx *store.Tx) error {
			return a.stageSignInTx(ctx, tx, tenantID, w, session, failed)
		})
	}
	clear(session)
	if err != nil && !isNotFound(err) {
		a.log.WarnContext(ctx, "staging a QR sign-in failed", "work", wid, "err", err)
	}
}

func (a *App) stageSignInTx(ctx context.Context, tx *store.Tx, tenantID uuid.UUID, w store.ChannelWork, session []byte, failed error) error {
	wid := w.ID
	var d accountDialog
	if err := json.Unmarshal(w.Progress, &d); err != nil {
		return err
	}
	d.Staged = true
	var payload []byte
	var ae *adapterapi.Error
	switch {
	case failed == nil:
		box, err := a.credentialBox()
		if err != nil {
			d.Problem = err.Error()
			break
		}
		nonce, sealed := box.sealBytes(session, stagedAAD(tenantID, wid))
		payload, d.SignedIn = append(nonce, sealed...), true
	case errors.As(failed, &ae) && ae.Reason == adapterv1.ReasonQRNotScanned:
		d.NotScanned = true
	case errors.As(failed, &ae):
		d.Problem = "the account was not added: " + ae.Error()
	default:
		a.log.WarnContext(ctx, "a QR sign-in failed", "work", wid, "err", failed)
		d.Problem = "the QR sign-in failed just now; send /account_add again"
	}
	doc, err := json.Marshal(d)
	if err != nil {
		return err
	}
	return tx.ChannelWorkStage(ctx, wid, payload, doc, a.now().Add(time.Millisecond))
}

// ChannelAccountQRNext is the next step of the person's QR sign-in in the
// item's chat, waiting a little for one (SignInStepWait: none yet).
func (a *App) ChannelAccountQRNext(ctx context.Context, id uuid.UUID, owner string) (SignInStepView, error) {
	j, err := a.ownedJob(ctx, id, owner)
	if err != nil {
		return SignInStepView{}, err
	}
	if j.update == nil {
		return SignInStepView{}, badRequest("only a message or a button has a sign-in")
	}
	var si *signIn
	err = a.store.InTx(j.ctx, func(tx *store.Tx) error {
		ds, err := tx.ChannelAccountDialogs(j.ctx, j.work.ChannelID, j.tenantID)
		for _, w := range ds {
			var d accountDialog
			if json.Unmarshal(w.Progress, &d) != nil || d.IdentityID != j.identityID || d.ChatID != j.update.ChatID ||
				d.Method != adapterv1.SignInMethodQR {
				continue
			}
			if s := a.signIns.get(w.ID); s != nil {
				si = s // the newest wins
			}
		}
		return err
	})
	if err != nil {
		return SignInStepView{}, err
	}
	if si == nil {
		return SignInStepView{Kind: SignInStepEnd}, nil
	}
	t := time.NewTimer(qrNextWait)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return SignInStepView{}, ctx.Err()
	case <-t.C:
		return SignInStepView{Kind: SignInStepWait}, nil
	case s, ok := <-si.steps:
		if !ok {
			return SignInStepView{Kind: SignInStepEnd}, nil
		}
		return s, nil
	}
}

// signInPassword hands the staged password to the dialog's waiting
// sign-in and answers the session, or why not for the person.
func (a *App) signInPassword(ctx context.Context, wid uuid.UUID, pw []byte) ([]byte, string) {
	si := a.signIns.get(wid)
	if si == nil || !si.asked.Load() {
		return nil, "the QR sign-in ended before the password came (Monitor restarted?); send /account_add again"
	}
	defer a.signIns.end(wid)
	if err := si.session.Password(string(pw)); err != nil {
		return nil, "the QR sign-in ended before the password came; send /account_add again"
	}
	step, err := si.session.Next()
	var ae *adapterapi.Error
	switch {
	case errors.As(err, &ae):
		return nil, "the account was not added: " + ae.Error()
	case err != nil:
		a.log.WarnContext(ctx, "a QR sign-in failed after the password", "work", wid, "err", err)
		return nil, "the QR sign-in failed just now; send /account_add again"
	}
	done := step.GetDone()
	if done == nil {
		return nil, "the account was not added: Telegram asked for more than the password; send /account_add again"
	}
	return done.GetInput(), ""
}
