package channelserver_test

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"io"
	"net/http"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/monitorhq/monitor/internal/channelapi"
	"github.com/monitorhq/monitor/internal/channelserver"
	"github.com/monitorhq/monitor/internal/store/storetest"
)

// videoPost is the fixture post with one MP4.
const videoPost = "https://x.com/archivist_demo/status/2079251421658238976"

// A large video sent to the channel takes longer than the server's
// WriteTimeout to stream; the media route moves its own write deadline, so
// the file arrives whole. (On SQLite only: what is tested is the HTTP
// server's deadlines, not the store.)
func TestMediaLargerThanTheWriteTimeoutStreamsWhole(t *testing.T) {
	t.Parallel()
	// The file is much larger than what a loopback connection buffers
	// (some 10 MB), so the server writes for over six seconds while the
	// reader below (some 10 MB/s) holds each write back. The write timeout
	// leaves the other calls (a capture on a loaded machine under -race
	// took over 400 ms) their time.
	const size, writeTimeout = 64 << 20, 2 * time.Second
	c := newCore(t, storetest.New(t, "sqlite"), func(s *http.Server, d *channelserver.Deps) {
		s.WriteTimeout, d.StreamWindow = writeTimeout, writeTimeout
	})
	c.fx.SetMediaSize(size)
	ctx := context.Background()

	w := c.send(t, private(1, videoPost))
	_, err := c.api.Capture(ctx, w.ID, channelapi.CaptureRequest{Owner: owner, URL: videoPost, StatusMessageID: 500})
	require.NoError(t, err)
	require.NoError(t, c.api.Done(ctx, w.ID, owner))
	d := c.next(t)
	got := c.deliver(t, d)
	require.Equal(t, channelapi.DeliveryReady, got.State, got.Error)
	require.Len(t, got.Item.Media, 1)
	m := got.Item.Media[0]
	require.Equal(t, int64(size), m.Size)

	slow := channelapi.NewClient(c.url, secret, http.DefaultClient)
	start := time.Now()
	rc, n, err := slow.Media(ctx, d.ID, owner, m.SHA256)
	require.NoError(t, err)
	defer rc.Close()
	require.Equal(t, int64(size), n)
	h := sha256.New()
	buf := make([]byte, 256<<10)
	var read int64
	for {
		k, err := io.ReadFull(rc, buf)
		h.Write(buf[:k])
		read += int64(k)
		if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
			break
		}
		require.NoError(t, err)
		time.Sleep(25 * time.Millisecond) // a slow channel, not a synchronisation
	}
	require.Equal(t, int64(size), read, "the whole file arrived")
	require.Equal(t, m.SHA256, hex.EncodeToString(h.Sum(nil)))
	require.Greater(t, time.Since(start), 2*writeTimeout, "the transfer outlasted the write timeout")
}
