package tgchannel

import (
	"context"

	"github.com/monitorhq/monitor/internal/channelapi"
)

// approvalProgress is an approval item's progress: core's notice, kept,
// and whether the message went out.
type approvalProgress struct {
	Notice channelapi.ApprovalNotice `json:"notice"`
	Sent   bool                      `json:"sent,omitempty"`
}

// approvalNotice tells an applicant in their private chat that an operator
// approved or rejected their account. Sent is saved after the message, so
// a retry after a lost lease never sends it twice once recorded.
func (j *job) approvalNotice(ctx context.Context) error {
	var p approvalProgress
	decodeProgress(j.w.Progress, &p)
	if p.Sent {
		return nil
	}
	n := p.Notice
	if n.ChatID == 0 {
		return &failWork{reason: "an approval notice without a chat"}
	}
	key := "approval.approved"
	switch n.Decision {
	case channelapi.ApprovalApproved:
	case channelapi.ApprovalRejected:
		key = "approval.rejected"
	default:
		return &failWork{reason: "an approval notice with decision " + n.Decision}
	}
	if _, err := j.ch.sendText(ctx, n.ChatID, 0, outMessage{text: j.lang.t(key)}); err != nil {
		return err
	}
	p.Sent = true
	return j.saveProgress(ctx, p)
}
