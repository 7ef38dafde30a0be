package web

import (
	"context"
	"net/http"
	"strconv"

	"github.com/google/uuid"

	"github.com/monitorhq/monitor/internal/app"
)

// usageService is what the usage page needs.
type usageService interface {
	Usage(ctx context.Context, tenantID uuid.UUID) (app.Usage, error)
}

// usageView is the usage page's Data.
type usageView struct {
	Used, Reserved, Quota string
	// UsedBytes, ReservedBytes and QuotaBytes fill the bar (QuotaBytes 0:
	// no quota, no bar).
	UsedBytes, ReservedBytes, QuotaBytes int64
	// Taken is used plus reserved: what the quota has left.
	Taken     int64
	Unlimited bool
	Percent   int
}

// usage serves GET /usage: used, reserved and quota, as a bar.
func (s *server) usage(w http.ResponseWriter, r *http.Request, rq *request) {
	u, err := s.d.App.Usage(r.Context(), rq.tenantID)
	if err != nil {
		s.fail(w, r, rq, err)
		return
	}
	v := &usageView{Used: formatBytes(u.UsedBytes), Reserved: formatBytes(u.ReservedBytes), UsedBytes: u.UsedBytes,
		ReservedBytes: u.ReservedBytes, Taken: u.UsedBytes + u.ReservedBytes, Unlimited: u.QuotaBytes == nil}
	if u.QuotaBytes != nil {
		v.QuotaBytes, v.Quota = *u.QuotaBytes, formatBytes(*u.QuotaBytes)
		if v.QuotaBytes > 0 {
			v.Percent = int(min(100, (u.UsedBytes+u.ReservedBytes)*100/v.QuotaBytes))
		} else {
			v.Percent = 100
		}
	}
	s.page(w, r, rq, http.StatusOK, "usage.html", &Page{Script: true, Title: s.d.Renderer.cat.T(rq.lang, "usage.title"), Nav: "usage", Data: v})
}

// formatBytes writes a size in binary units: 512 B, 1.5 MiB.
func formatBytes(n int64) string {
	const unit = 1024
	if n < unit {
		return strconv.FormatInt(n, 10) + " B"
	}
	div, exp := int64(unit), 0
	for m := n / unit; m >= unit && exp < 5; m /= unit {
		div *= unit
		exp++
	}
	return trimZero(strconv.FormatFloat(float64(n)/float64(div), 'f', 1, 64)) + " " + string("KMGTPE"[exp]) + "iB"
}

// usageMessages are the usage page's texts.
func usageMessages() catalog {
	return catalog{
		"usage.title":     {"Usage", "用量"},
		"usage.heading":   {"Storage", "存储空间"},
		"usage.used":      {"Used", "已用"},
		"usage.reserved":  {"Reserved by captures in progress", "进行中的采集预留"},
		"usage.quota":     {"Quota", "配额"},
		"usage.unlimited": {"No quota: you may save as much as the server holds.", "没有配额限制：服务器能存多少就可以存多少。"},
		"usage.bar":       {"%d%% of your quota is used or reserved.", "已使用或预留配额的 %d%%。"},
		"usage.explain":   {"Used counts every version of what you saved, each media file once, and the raw responses kept with your captures.", "已用空间包括你保存的每个版本、每个媒体文件（只计一次）以及采集时保留的原始响应。"},
	}
}
