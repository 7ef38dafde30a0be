package main

import (
	"net/http"
	"net/http/httptest"
	"strconv"
	"syscall"
	"testing"
	"time"

	"github.com/monitorhq/monitor/internal/testkit"
)

// BenchmarkCaptureVideoPeakRSS runs `monitor capture --wait` as its own
// process on one 512 MiB video served by a streaming fake media host, and
// reports the process's peak resident memory: media must stream, never sit
// in memory whole.
func BenchmarkCaptureVideoPeakRSS(b *testing.B) {
	const size = 512 << 20
	chunk := make([]byte, 1<<20)
	for i := range chunk {
		chunk[i] = byte(i*7 + i>>8)
	}
	media := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "video/mp4")
		w.Header().Set("Content-Length", strconv.Itoa(size))
		for sent := 0; sent < size; sent += len(chunk) {
			chunk[0] = byte(sent >> 20) // vary the content a little
			if _, err := w.Write(chunk); err != nil {
				return
			}
		}
	}))
	defer media.Close()
	fx := testkit.NewFxTwitter(b)

	var peakKiB int64
	var elapsed time.Duration
	n := 0
	for b.Loop() {
		n++
		dir := b.TempDir()
		env := map[string]string{"MONITOR_DATA_DIR": dir, "MONITOR_FXTWITTER_URL": fx.URL(), "MONITOR_MAX_MEDIA_SIZE": "1GiB", "MONITOR_LOG_LEVEL": "warn"}
		if out, err := binary(b, env, "admin", "tenant", "create", "bench").CombinedOutput(); err != nil {
			b.Fatalf("%v: %s", err, out)
		}
		allowFakeMedia(b, env)
		url := fx.AddPost(testkit.SyntheticPost{ID: "5" + strconv.Itoa(1000000+n), VideoURL: media.URL + "/big.mp4", NoAvatar: true})
		cmd := binary(b, env, "capture", url, "--tenant", "bench", "--wait")
		start := time.Now()
		if out, err := cmd.CombinedOutput(); err != nil {
			b.Fatalf("%v: %s", err, out)
		}
		elapsed += time.Since(start)
		if ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage); ok && ru.Maxrss > peakKiB {
			peakKiB = ru.Maxrss
		}
	}
	b.ReportMetric(float64(peakKiB)/1024, "peak-RSS-MiB")
	b.ReportMetric(float64(n)*size/(1<<20)/elapsed.Seconds(), "MiB/s")
}
