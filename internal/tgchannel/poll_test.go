package tgchannel_test

import (
	"bytes"
	"log/slog"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// process is a channel process whose getUpdates calls are counted (the
// fake cannot tell processes apart) and whose logs are kept.
type process struct {
	stop  func()
	next  http.RoundTripper
	polls atomic.Int64
	mu    sync.Mutex
	logs  bytes.Buffer
}

func (p *process) RoundTrip(r *http.Request) (*http.Response, error) {
	if strings.HasSuffix(r.URL.Path, "/getUpdates") {
		p.polls.Add(1)
	}
	return p.next.RoundTrip(r)
}

func (p *process) Write(b []byte) (int, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.logs.Write(b)
}

// logged reports whether the process logged a message containing s.
func (p *process) logged(s string) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	return strings.Contains(p.logs.String(), s)
}

// startProcess runs a channel process that counts its polls and keeps its
// logs.
func (w *world) startProcess() *process {
	w.t.Helper()
	tr := http.DefaultTransport.(*http.Transport).Clone()
	w.t.Cleanup(tr.CloseIdleConnections)
	p := &process{next: tr}
	p.stop = w.startWith(&http.Client{Transport: p}, slog.New(slog.NewTextHandler(p, nil)))
	return p
}

// helpAnswers counts the answers to /help in a chat.
func (w *world) helpAnswers(chat int64) int {
	n := 0
	for _, c := range w.calls(chat, "sendMessage") {
		if strings.Contains(c.Text, "/list") {
			n++
		}
	}
	return n
}

// waitingMsg is what a process logs while another holds the poll lease.
const waitingMsg = "another process polls this bot"

// Two processes run the same bot: only the holder of the poll lease calls
// getUpdates (and so no getUpdates is answered 409 Conflict), a message is
// answered once, and when the poller stops the other takes over at once
// and answers the next one.
func TestTwoProcessesOfOneBotPollOneAtATime(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	a, b := w.startProcess(), w.startProcess()

	require.Eventually(t, func() bool { return a.logged(waitingMsg) || b.logged(waitingMsg) }, 30*time.Second, 20*time.Millisecond,
		"one process waits for the poll lease")
	poller, waiter := a, b
	if a.logged(waitingMsg) {
		poller, waiter = b, a
	}
	require.False(t, poller.logged(waitingMsg), "only one process waits")
	require.Eventually(t, func() bool { return poller.polls.Load() > 0 }, 30*time.Second, 20*time.Millisecond, "the holder polls")

	w.bot.PushPrivateMessage(alice, "/help")
	w.nthMessage(alice.ID, 0, "the answer to /help")
	require.Equal(t, 1, w.helpAnswers(alice.ID), "answered once")
	require.Zero(t, waiter.polls.Load(), "the process without the poll lease never calls getUpdates")
	require.Zero(t, w.bot.Conflicts(), "no getUpdates answered 409 Conflict")

	// The poller stops and releases the lease: the other takes over well
	// before the lease would have expired.
	poller.stop()
	require.Eventually(t, func() bool { return waiter.polls.Load() > 0 }, 30*time.Second, 20*time.Millisecond,
		"the other process takes over polling")
	w.bot.PushPrivateMessage(alice, "/help")
	w.nthMessage(alice.ID, 1, "the second answer to /help")
	require.Equal(t, 2, w.helpAnswers(alice.ID), "each message answered once")
	require.Zero(t, w.bot.Conflicts())
}
