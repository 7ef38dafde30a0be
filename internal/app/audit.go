package app

import (
	"context"
	"encoding/json"
	"time"

	"github.com/monitorhq/monitor/internal/store"
)

// Actors of changes made without a person behind them.
const (
	ActorSystem = "system"
	ActorCLI    = "cli"
)

// audit records a change in the transaction that makes it. before and
// after are business fields only, never secrets; nil means none.
func audit(ctx context.Context, tx *store.Tx, actor, action, target string, before, after any) error {
	enc := func(v any) (json.RawMessage, error) {
		if v == nil {
			return nil, nil
		}
		return json.Marshal(v)
	}
	b, err := enc(before)
	if err != nil {
		return err
	}
	af, err := enc(after)
	if err != nil {
		return err
	}
	return tx.AuditInsert(ctx, store.AuditEntry{Actor: actor, Action: action, Target: target, Before: b, After: af})
}

// AuditView is one audit entry.
type AuditView struct {
	At     time.Time       `json:"at"`
	Actor  string          `json:"actor"`
	Action string          `json:"action"`
	Target string          `json:"target"`
	Before json.RawMessage `json:"before,omitempty"`
	After  json.RawMessage `json:"after,omitempty"`
}

// Audit lists audit entries newest first.
func (a *App) Audit(ctx context.Context, limit int) ([]AuditView, error) {
	if limit < 1 || limit > 1000 {
		return nil, errorf(ErrInvalid, "limit must be from 1 to 1000")
	}
	entries, err := a.store.AuditList(ctx, time.Time{}, limit)
	if err != nil {
		return nil, err
	}
	out := make([]AuditView, 0, len(entries))
	for _, e := range entries {
		out = append(out, AuditView{At: e.At, Actor: e.Actor, Action: e.Action, Target: e.Target, Before: e.Before, After: e.After})
	}
	return out, nil
}
