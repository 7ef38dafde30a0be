package app_test

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"io"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/monitorhq/monitor/internal/app"
)

func TestCapturePhotosPost(t *testing.T) {
	t.Parallel()
	eachPipeline(t, testLimits(), func(t *testing.T, p *pipeline) {
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

func TestCaptureFixtures(t *testing.T) {
	t.Parallel()
	p := newPipeline(t, "sqlite", testLimits())
	ctx := context.Background()
	alice := p.tenant(t, "alice", nil)

	t.Run("video stores the highest-bitrate MP4", func(t *testing.T) {
		res, c := p.capture(t, alice, videoPost)
		require.Equal(t, app.StateComplete, c.State, c.Error)
		coll, err := p.app.Collection(ctx, alice, res.CollectionID)
		require.NoError(t, err)
		require.Len(t, coll.Media, 1)
		m := coll.Media[0]
		require.Equal(t, "video", m.Kind)
		require.Equal(t, 1920, m.Width)
		want := p.fx.MediaBytes(p.fx.MediaURL("https://video.twimg.com/ext_tw_video/2079250786962731008/pu/vid/avc1/1920x1080/kL0mN2oP4qR6sT8u.mp4?tag=12"))
		sum := sha256.Sum256(want)
		require.Equal(t, hex.EncodeToString(sum[:]), m.SHA256, "the stored video is byte-equal to the 1920x1080 variant")
	})
	t.Run("quote keeps the quoted post in the graph", func(t *testing.T) {
		res, c := p.capture(t, alice, quotePost)
		require.Equal(t, app.StateComplete, c.State, c.Error)
		coll, err := p.app.Collection(ctx, alice, res.CollectionID)
		require.NoError(t, err)
		var quotes bool
		for _, r := range coll.Graph.Relations {
			quotes = quotes || r.Relation == "quotes"
		}
		require.True(t, quotes, "a quotes relation")
		for _, e := range coll.Graph.Entities {
			require.NotEqual(t, "00000000-0000-0000-0000-000000000000", e.EntityID.String(), e.Key)
			ent, err := p.app.Entity(ctx, alice, e.EntityID)
			require.NoError(t, err)
			require.Equal(t, e.Type, ent.Type)
		}
	})
	t.Run("sensitive gif", func(t *testing.T) {
		res, c := p.capture(t, alice, gifPost)
		require.Equal(t, app.StateComplete, c.State, c.Error)
		coll, err := p.app.Collection(ctx, alice, res.CollectionID)
		require.NoError(t, err)
		require.NotEmpty(t, coll.Media)
		for _, m := range coll.Media {
			require.Equal(t, "gif", m.Kind)
			require.True(t, m.Sensitive)
		}
	})
	t.Run("upstream 404 fails with the reason", func(t *testing.T) {
		_, c := p.capture(t, alice, goncePost)
		require.Equal(t, app.StateFailed, c.State)
		require.Contains(t, c.Error, "post not found or not public")
		require.Nil(t, c.RevisionID)
	})
}
