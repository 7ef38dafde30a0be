package tgchannel_test

import (
	"context"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/google/uuid"
	"github.com/gotd/td/tg"
	"github.com/stretchr/testify/require"

	"github.com/monitorhq/monitor/internal/app"
	"github.com/monitorhq/monitor/internal/channelapi"
	"github.com/monitorhq/monitor/internal/testkit"
	"github.com/monitorhq/monitor/internal/testkit/testcore"
)

// /join LINK end to end on the fake Bot API and gotd's test server:
// refused while account_join_enabled is off, refused without a Telegram
// account, then pending until an operator approves; asked again once a
// member, joined at once with the channel's link.
func TestBotJoinByInvite(t *testing.T) {
	// Not parallel: its MTProto sign-in (SRP key stretching under -race)
	// starved the large-media tests beside it past their waits in CI.
	fake := testkit.NewTelegram(t)
	fake.AddInvite("HarbourInvite01", testkit.FakeInvite{Channel: &tg.Channel{ID: 5550001, AccessHash: 5, Title: "Harbour Watch", Broadcast: true}})
	keys := filepath.Join(t.TempDir(), "dc.pem")
	require.NoError(t, os.WriteFile(keys, fake.KeysPEM(), 0o600))
	fx, tme := testkit.NewFxTwitter(t), testkit.NewTme(t)
	cfg := testcore.Config(t, map[string]string{
		"MONITOR_CHANNEL_ADDR":      "127.0.0.1:0",
		"MONITOR_CHANNEL_SECRET":    secret,
		"MONITOR_FXTWITTER_URL":     fx.URL(),
		"MONITOR_TME_URL":           tme.URL(),
		"MONITOR_MASTER_KEY":        "bot-join-test-master-key-0123456789",
		"MONITOR_TELEGRAM_APP_ID":   "1",
		"MONITOR_TELEGRAM_APP_HASH": "test-hash",
		"MONITOR_TELEGRAM_DC_ADDR":  fake.Addr(),
		"MONITOR_TELEGRAM_DC_KEYS":  keys,
	})
	core := testcore.Run(t, cfg)
	hc := &http.Client{Transport: http.DefaultTransport.(*http.Transport).Clone()}
	t.Cleanup(hc.CloseIdleConnections)
	w := &world{t: t, core: core, fx: fx, tme: tme, bot: testkit.NewBotAPI(t), dbPath: cfg.Database.Path,
		api: channelapi.NewClient("http://"+core.ChannelAddr(), secret, hc)}
	w.start()
	ctx := context.Background()
	n := 0
	answer := func(text string) string {
		t.Helper()
		w.bot.PushPrivateMessage(alice, text)
		n++
		return w.nthMessage(alice.ID, n-1, "the answer to "+text).Text
	}

	require.Contains(t, answer("/join https://t.me/+HarbourInvite01"), "account_join_enabled")
	_, err := core.App().SetSetting(ctx, "test", app.SettingAccountJoin, "true")
	require.NoError(t, err)
	require.Contains(t, answer("/join https://t.me/+HarbourInvite01"), "no telegram account is connected")

	tv, err := core.App().TenantByName(ctx, "tg"+strconv.FormatInt(alice.ID, 10))
	require.NoError(t, err)
	_, err = core.App().AddConnection(ctx, app.AddConnectionRequest{TenantID: tv.ID, Adapter: "telegram", Secret: fake.Session(t)})
	require.NoError(t, err)
	got := answer("/join t.me/+HarbourInvite01")
	require.Contains(t, got, "Asked to join Harbour Watch. An operator decides")
	id := got[strings.LastIndex(got, " ")+1 : len(got)-1]
	require.False(t, fake.Member(5550001))
	require.Contains(t, answer("/join https://t.me/durov"), "not a Telegram invite link")

	r, err := core.App().AdminDecideJoin(ctx, app.DecideJoin{ID: uuid.MustParse(id), Approve: true, Actor: "ops"})
	require.NoError(t, err)
	require.Equal(t, "joined", r.State)
	require.Contains(t, answer("/join https://t.me/+HarbourInvite01"), "member of Harbour Watch already. Send its link to archive it: https://t.me/c/5550001")
}
