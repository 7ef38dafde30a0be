package app_test

import (
	"bytes"
	"context"
	"database/sql"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/monitorhq/monitor/internal/app"
	"github.com/monitorhq/monitor/internal/chain"
)

// A refresh that changes the post adds a link after the head; one that
// does not leaves the chain as it is.
func TestRefreshExtendsTheChain(t *testing.T) {
	t.Parallel()
	eachPipeline(t, testLimits(), func(t *testing.T, p *pipeline) {
		ctx := context.Background()
		alice := p.tenant(t, "alice", nil)
		res, c := p.capture(t, alice, photosPost)
		require.Equal(t, app.StateComplete, c.State, c.Error)
		first, err := p.app.Proof(ctx, alice, res.CollectionID)
		require.NoError(t, err)
		require.Len(t, first.Chain, 1)
		l := first.Chain[0]
		require.Equal(t, 1, l.Seq)
		require.Empty(t, l.PrevHash)
		require.Equal(t, "x", l.AdapterID)
		require.NotEmpty(t, l.Raw, "the link covers the raw response")
		require.Len(t, l.Media, 4, "and the media: two photos and the graph's resources")
		require.Equal(t, l.Link().Hash(), l.ChainHash)

		rr, err := p.app.Refresh(ctx, alice, res.CollectionID, "")
		require.NoError(t, err)
		p.wait(t, alice, rr.CaptureID)
		same, err := p.app.Proof(ctx, alice, res.CollectionID)
		require.NoError(t, err)
		require.Len(t, same.Chain, 1, "unchanged content adds no link")

		body := bytes.Replace(p.fx.Raw("status-photos.json"), []byte("Two frames from this morning"), []byte("Two frames from this evening"), 1)
		p.fx.SetOverride("/2/status/2078399740166950912", 200, "application/json", body)
		rr, err = p.app.Refresh(ctx, alice, res.CollectionID, "")
		require.NoError(t, err)
		c3 := p.wait(t, alice, rr.CaptureID)
		require.Equal(t, app.StateComplete, c3.State, c3.Error)
		after, err := p.app.Proof(ctx, alice, res.CollectionID)
		require.NoError(t, err)
		require.Len(t, after.Chain, 2)
		require.Equal(t, first.Chain[0], after.Chain[0], "the first link stays")
		second := after.Chain[1]
		require.Equal(t, 2, second.Seq)
		require.Equal(t, first.Head, second.PrevHash)
		require.Equal(t, *c3.RevisionID, second.RevisionID)
		require.Equal(t, second.Link().Hash(), second.ChainHash)
		require.Equal(t, second.ChainHash, after.Head)
		require.NotEqual(t, first.Chain[0].Raw, second.Raw, "the new capture's raw response")

		sum, err := p.app.CollectionChainSummary(ctx, alice, res.CollectionID)
		require.NoError(t, err)
		require.Equal(t, app.ChainSummary{Revisions: 2, Verified: true, Head: after.Head, KeyFingerprint: p.app.Instance().KeyFingerprint}, sum)
		rep, err := p.app.Verify(ctx, app.VerifyOptions{})
		require.NoError(t, err)
		require.Empty(t, rep.Problems)
		require.Equal(t, 1, rep.Collections)
		require.Equal(t, 2, rep.Revisions)
		require.Equal(t, 4, rep.Blobs)
		require.GreaterOrEqual(t, rep.RawResponses, 2)
	})
}

// monitor verify re-reads the bytes: a raw response, a revision's content
// or a media file changed in the database or the media store is named.
func TestVerifyCatchesChangedBytes(t *testing.T) {
	t.Parallel()
	eachPipeline(t, testLimits(), func(t *testing.T, p *pipeline) {
		ctx := context.Background()
		alice := p.tenant(t, "alice", nil)
		res, c := p.capture(t, alice, photosPost)
		require.Equal(t, app.StateComplete, c.State, c.Error)
		_, c2 := p.capture(t, alice, videoPost)
		require.Equal(t, app.StateComplete, c2.State, c2.Error)
		rep, err := p.app.Verify(ctx, app.VerifyOptions{TenantID: &alice})
		require.NoError(t, err)
		require.Empty(t, rep.Problems)
		require.Equal(t, 2, rep.Collections)

		db := openRaw(t, p.core.StoreURL)
		_, err = db.ExecContext(ctx, `UPDATE source_responses SET body = $2 WHERE capture_id = $1`, res.CaptureID, []byte(`{"code":200,"tweet":{"text":"forged"}}`))
		require.NoError(t, err)
		rep, err = p.app.Verify(ctx, app.VerifyOptions{})
		require.NoError(t, err)
		require.NotEmpty(t, rep.Problems)
		line := rep.Problems[0].String()
		require.True(t, strings.HasPrefix(line, "collections/"+res.CollectionID.String()+"/revisions/"+c.RevisionID.String()+"/raw/"), line)
		require.Contains(t, line, ": sha256: the raw response from ")
		require.Contains(t, line, "its bytes were changed in the database")

		// A sample still reads whole collections.
		rep, err = p.app.Verify(ctx, app.VerifyOptions{Sample: 1})
		require.NoError(t, err)
		require.Equal(t, 1, rep.Collections)
	})
}

// The chain stays true to the encoding: recomputing a link with another
// time, adapter or media gives another hash.
func TestLinkCoversEveryField(t *testing.T) {
	t.Parallel()
	p := newPipeline(t, "sqlite", testLimits())
	ctx := context.Background()
	alice := p.tenant(t, "alice", nil)
	res, _ := p.capture(t, alice, photosPost)
	proof, err := p.app.Proof(ctx, alice, res.CollectionID)
	require.NoError(t, err)
	l := proof.Chain[0].Link()
	for name, change := range map[string]func(*chain.Link){
		"prev":    func(l *chain.Link) { l.PrevHash = strings.Repeat("0", 64) },
		"content": func(l *chain.Link) { l.ContentHash = strings.Repeat("1", 64) },
		"media":   func(l *chain.Link) { l.Media = l.Media[:1] },
		"raw":     func(l *chain.Link) { l.Raw = nil },
		"time":    func(l *chain.Link) { l.CapturedAt = l.CapturedAt.Add(1000) },
		"adapter": func(l *chain.Link) { l.AdapterVersion += "+1" },
	} {
		m := l
		m.Media, m.Raw = append([]string(nil), l.Media...), append([]string(nil), l.Raw...)
		change(&m)
		require.NotEqual(t, proof.Chain[0].ChainHash, m.Hash(), name)
	}
}

// openRaw opens the test store's database directly, as someone with access
// to it would, to change rows behind the archive's back.
func openRaw(t *testing.T, storeURL string) *sql.DB {
	t.Helper()
	driver, dsn := "pgx", storeURL
	if path, ok := strings.CutPrefix(dsn, "sqlite://"); ok {
		driver, dsn = "sqlite", "file:"+path+"?_pragma=busy_timeout(10000)"
	}
	db, err := sql.Open(driver, dsn)
	require.NoError(t, err)
	t.Cleanup(func() { _ = db.Close() })
	return db
}
