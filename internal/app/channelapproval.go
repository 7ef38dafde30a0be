package app

import (
	"context"
	"encoding/json"
	"errors"
	"strconv"

	"github.com/google/uuid"

	"github.com/monitorhq/monitor/internal/store"
)

// ChannelWorkApproval tells a person who applied through a channel that an
// operator approved or rejected their account; its progress document
// starts as {"notice": ApprovalNotice}.
const ChannelWorkApproval = "approval"

// Approval decisions.
const (
	ApprovalApproved = "approved"
	ApprovalRejected = "rejected"
)

// ApprovalNotice is what an approval work item tells the applicant, in
// their private chat with the bot.
type ApprovalNotice struct {
	ChatID   int64  `json:"chat_id"`
	Decision string `json:"decision"`
	// LanguageCode is the language the person's client reported in their
	// last message ("" = not known), for when the tenant chose none.
	LanguageCode string `json:"language_code,omitempty"`
}

// approvalDecision is what a status change means to an applicant: ""
// unless the tenant was pending and now is not.
func approvalDecision(before, after store.Tenant) string {
	if before.Status != store.TenantPending || after.Status == before.Status {
		return ""
	}
	if after.Status == store.TenantEnabled {
		return ApprovalApproved
	}
	return ApprovalRejected
}

// queueApprovalNotice hands an approval or rejection to the tenant's
// private chat with the bot, in the transaction that changes the status,
// so a crash loses nothing and sends nothing twice. A tenant with no
// identity on a channel (made by an operator) is told nothing.
func (a *App) queueApprovalNotice(ctx context.Context, tx *store.Tx, before, after store.Tenant) error {
	decision := approvalDecision(before, after)
	if decision == "" {
		return nil
	}
	ident, chat, ok, err := privateChat(ctx, tx, after.ID)
	if err != nil || !ok {
		return err
	}
	n := ApprovalNotice{ChatID: chat, Decision: decision}
	e, err := tx.InboxLatestOfTenant(ctx, after.ID)
	switch {
	case err == nil:
		var u ChannelUpdate
		if json.Unmarshal(e.Payload, &u) == nil {
			n.LanguageCode = u.From.Language
		}
	case !errors.Is(err, store.ErrNotFound):
		return err
	}
	doc, err := json.Marshal(map[string]ApprovalNotice{"notice": n})
	if err != nil {
		return err
	}
	_, err = tx.ChannelWorkInsert(ctx, store.ChannelWork{ChannelID: ident.ChannelID, Kind: ChannelWorkApproval,
		TenantID: after.ID, Progress: doc})
	return err
}

// privateChat is the tenant's first identity on a channel and its private
// chat with the bot (on Telegram the chat id is the person's id); ok is
// false for a tenant with none.
func privateChat(ctx context.Context, tx *store.Tx, tenantID uuid.UUID) (store.Identity, int64, bool, error) {
	idents, err := tx.IdentitiesOfTenant(ctx, tenantID)
	if err != nil || len(idents) == 0 {
		return store.Identity{}, 0, false, err
	}
	ident := idents[0]
	chat, err := strconv.ParseInt(ident.ExternalID, 10, 64)
	if err != nil {
		return store.Identity{}, 0, false, nil
	}
	return ident, chat, true, nil
}

// approvalLanguageCode is the client language an approval item carries.
func approvalLanguageCode(progress []byte) string {
	var p struct {
		Notice ApprovalNotice `json:"notice"`
	}
	if json.Unmarshal(progress, &p) != nil {
		return ""
	}
	return p.Notice.LanguageCode
}
