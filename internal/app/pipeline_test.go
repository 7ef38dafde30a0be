package app_test

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"io"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/monitorhq/monitor/internal/app"
	"github.com/monitorhq/monitor/internal/store"
	"github.com/monitorhq/monitor/internal/store/storetest"
)

func TestCapturePhotosPost(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, st *store.Store) {
		p := newPipeline(t, st, testLimits())
		ctx := context.Background()
		alice := p.tenant(t, "alice", nil)
		res, c := p.capture(t, alice, photosPost+"?s=20")
		require.Equal(t, app.StateComplete, c.State, c.Error)
		require.Equal(t, app.PublicCollectionID("x", "x.post", "", "2078399740166950912"), res.CollectionID)

		coll, err := p.app.Collection(ctx, alice, res.CollectionID)
		require.NoError(t, err)
		require.NotEmpty(t, coll.Text)
		require.Len(t, coll.Media, 2)
		for _, m := range coll.Media {
			require.Equal(t, "image", m.Kind)
			rc, f, err := p.app.OpenMedia(ctx, alice, m.SHA256, nil)
			require.NoError(t, err)
			b, err := io.ReadAll(rc)
			require.NoError(t, rc.Close())
			require.NoError(t, err)
			sum := sha256.Sum256(b)
			require.Equal(t, m.SHA256, hex.EncodeToString(sum[:]))
			require.Equal(t, f.Size, int64(len(b)))
		}
		require.Equal(t, "post:2078399740166950912", coll.Graph.Root)
		u, err := p.app.Usage(ctx, alice)
		require.NoError(t, err)
		require.Zero(t, u.ReservedBytes)
		require.Greater(t, u.UsedBytes, coll.Media[0].Size+coll.Media[1].Size)
	})
}
