package build_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/monitorhq/monitor/internal/capsule"
	"github.com/monitorhq/monitor/internal/capsule/build"
	"github.com/monitorhq/monitor/internal/capsule/capsuletest"
	"github.com/monitorhq/monitor/internal/capsule/check"
	"github.com/monitorhq/monitor/internal/capsule/export"
	"github.com/monitorhq/monitor/internal/chain"
	"github.com/monitorhq/monitor/internal/store/storetest"
)

// A site built from a signed capsule shows each post's verified chain and
// the key, and offers its proof.json beside the page, with the signed
// monitor.sum at the site's root.
func TestBuildShowsTheVerifiedChain(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	in := capsuletest.NewPipeline(t, storetest.New(t, "sqlite"))
	alice := in.Tenant(t, "alice", nil)
	ids := in.Capture(t, alice, capsuletest.FixturePosts()[0])
	dir := filepath.Join(t.TempDir(), "capsule")
	_, err := export.Export(ctx, in.App, export.Options{TenantID: alice, TenantName: "alice", Out: dir})
	require.NoError(t, err)
	src, err := capsule.Open(dir)
	require.NoError(t, err)
	defer src.Close()
	res, err := check.Run(ctx, src, check.Options{})
	require.NoError(t, err)
	out := filepath.Join(t.TempDir(), "site")
	_, err = build.Build(ctx, src, res, build.Options{Out: out})
	require.NoError(t, err)

	fp := in.App.Instance().KeyFingerprint
	page, err := os.ReadFile(filepath.Join(out, "c", ids[0].String(), "index.html"))
	require.NoError(t, err)
	require.Contains(t, strings.Join(strings.Fields(string(page)), " "), "verified chain</span> <span>· 1 revision</span> <span>· key <code>"+fp+"</code>")
	require.Contains(t, string(page), `<a href="proof.json" download="proof-`+ids[0].String()+`.json">`)

	var p struct {
		CollectionID string `json:"collection_id"`
		Chain        []struct {
			PrevHash       string   `json:"prev_hash"`
			ContentHash    string   `json:"content_hash"`
			Media          []string `json:"media"`
			Raw            []string `json:"raw"`
			CapturedAt     string   `json:"captured_at"`
			AdapterID      string   `json:"adapter_id"`
			AdapterVersion string   `json:"adapter_version"`
			ChainHash      string   `json:"chain_hash"`
		} `json:"chain"`
		Head           string `json:"head"`
		File           string `json:"file"`
		FileSHA256     string `json:"file_sha256"`
		KeyFingerprint string `json:"key_fingerprint"`
	}
	b, err := os.ReadFile(filepath.Join(out, "c", ids[0].String(), "proof.json"))
	require.NoError(t, err)
	require.NoError(t, json.Unmarshal(b, &p))
	require.Len(t, p.Chain, 1)
	l := p.Chain[0]
	at, err := chain.ParseTime(l.CapturedAt)
	require.NoError(t, err)
	require.Equal(t, l.ChainHash, chain.Link{PrevHash: l.PrevHash, ContentHash: l.ContentHash, Media: l.Media, Raw: l.Raw, CapturedAt: at,
		AdapterID: l.AdapterID, AdapterVersion: l.AdapterVersion}.Hash())
	require.Equal(t, l.ChainHash, p.Head)
	require.Equal(t, fp, p.KeyFingerprint)
	sum, err := os.ReadFile(filepath.Join(out, chain.SumName))
	require.NoError(t, err)
	require.Contains(t, string(sum), p.FileSHA256+"  "+p.File+"\n", "the collection file is in the signed monitor.sum")
	require.FileExists(t, filepath.Join(out, chain.SigName))
}
