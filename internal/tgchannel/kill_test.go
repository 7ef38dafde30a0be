package tgchannel_test

import (
	"context"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/monitorhq/monitor/internal/channelapi"
	"github.com/monitorhq/monitor/internal/testkit"
	"github.com/monitorhq/monitor/internal/tgchannel"
)

// childEnv carries what the channel process run by
// TestChannelProcessForKillTest needs.
const (
	childEnv       = "TGCHANNEL_TEST_CHILD"
	childBotURL    = "TGCHANNEL_TEST_BOT_URL"
	childBotToken  = "TGCHANNEL_TEST_BOT_TOKEN"
	childCoreAddr  = "TGCHANNEL_TEST_CORE"
	childCoreToken = "TGCHANNEL_TEST_SECRET"
)

// TestChannelProcessForKillTest is not a test of its own: run by
// TestDeliveryOfAKilledProcessResumesAfterItsLease as a separate process,
// it runs the channel until it is killed.
func TestChannelProcessForKillTest(t *testing.T) {
	if os.Getenv(childEnv) != "1" {
		t.Skip("runs only as the child process of TestDeliveryOfAKilledProcessResumesAfterItsLease")
	}
	err := tgchannel.Run(context.Background(), tgchannel.Config{
		Token: os.Getenv(childBotToken), APIURL: os.Getenv(childBotURL), Owner: "doomed",
		Core: channelapi.NewClient(os.Getenv(childCoreAddr), os.Getenv(childCoreToken), nil),
	})
	t.Fatalf("the channel stopped on its own: %v", err)
}

// A channel process killed outright (SIGKILL, no goodbye) in the middle of
// a delivery: its lease runs out after channelapi.LeaseTTL, the next
// process takes the item over from the stored progress, sends the text,
// and sends no media twice. This waits out the real 90-second lease.
func TestDeliveryOfAKilledProcessResumesAfterItsLease(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	held := w.bot.Block("sendMessage", func(c testkit.BotCall) bool { return strings.Contains(c.Text, "🆔 ") })

	child := exec.Command(os.Args[0], "-test.run=^TestChannelProcessForKillTest$", "-test.v")
	child.Env = append(os.Environ(), childEnv+"=1", childBotURL+"="+w.bot.URL(), childBotToken+"="+w.bot.Token(),
		childCoreAddr+"=http://"+w.core.ChannelAddr(), childCoreToken+"="+secret)
	require.NoError(t, child.Start())
	t.Cleanup(func() { _ = child.Process.Kill(); _ = child.Wait() })

	w.bot.PushPrivateMessage(alice, photosPost)
	select {
	case <-held.Arrived():
	case <-time.After(60 * time.Second):
		t.Fatal("the delivery never reached its text")
	}
	require.Len(t, w.calls(alice.ID, "sendMediaGroup"), 1)
	killed := time.Now()
	require.NoError(t, child.Process.Kill())
	_ = child.Wait()
	w.waitCall("the text the killed process never finished", func(c testkit.BotCall) bool {
		return c.Method == "sendMessage" && strings.Contains(c.Error, "went away")
	})
	held.Release()

	w.start()
	res := w.waitCallWithin("the result text from the next process", 3*channelapi.LeaseTTL, func(c testkit.BotCall) bool {
		return c.ChatID == alice.ID && c.OK() && c.Method == "sendMessage" && strings.Contains(c.Text, "🆔 ")
	})
	require.Contains(t, res.Text, "Two frames")
	require.GreaterOrEqual(t, res.At.Sub(killed), channelapi.LeaseTTL-5*time.Second, "taken over only once the lease ran out")
	require.Len(t, w.calls(alice.ID, "sendMediaGroup"), 1, "no media sent twice")
	texts := 0
	for _, c := range w.calls(alice.ID, "sendMessage") {
		if strings.Contains(c.Text, "🆔 ") {
			texts++
		}
	}
	require.Equal(t, 1, texts, "the text delivered once")
}
