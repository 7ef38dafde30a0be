package tgchannel

import (
	"context"
	"strings"

	"github.com/monitorhq/monitor/internal/channelapi"
	"github.com/monitorhq/monitor/internal/config"
)

// /download [DESTINATION] LINK archives the link and has core upload it to
// a cloud destination the person may use; a push item tells them how it
// ended.

func (j *job) cmdDownload(ctx context.Context, args []string) error {
	if j.up.PartsSent > 0 {
		return nil
	}
	req := channelapi.DownloadRequest{Owner: j.ch.owner, URL: args[len(args)-1]}
	if len(args) == 2 {
		req.Destination = args[0]
	}
	if !strings.Contains(req.URL, "://") {
		req.URL = "https://" + req.URL
	}
	p, err := j.ch.core.Download(ctx, j.w.ID, req)
	if msg, ok := userError(j.lang, err); ok {
		return j.reply(ctx, outMessage{text: msg})
	}
	if err != nil {
		return err
	}
	return j.reply(ctx, outMessage{text: j.lang.t("download.queued", req.URL, p.Destination)})
}

// pushProgress is a push item's progress.
type pushProgress struct {
	Notice channelapi.PushNotice `json:"notice"`
	Sent   bool                  `json:"sent,omitempty"`
}

// pushNotice tells the person how their /download's upload ended.
func (j *job) pushNotice(ctx context.Context) error {
	var p pushProgress
	decodeProgress(j.w.Progress, &p)
	if p.Sent {
		return nil
	}
	n := p.Notice
	if n.ChatID == 0 {
		return &failWork{reason: "a push notice without a chat"}
	}
	text := j.lang.t("download.failed", n.URL, n.Destination, n.Error)
	if n.State == "succeeded" {
		text = j.lang.t("download.done", n.URL, n.Destination, n.Files, config.FormatBytes(n.Bytes), n.RemoteDir)
	}
	if _, err := j.ch.sendText(ctx, n.ChatID, 0, outMessage{text: text}); err != nil {
		return err
	}
	p.Sent = true
	return j.saveProgress(ctx, p)
}
