package httpapi_test

import (
	"bytes"
	"context"
	"crypto/ed25519"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/monitorhq/monitor/internal/httpapi"
	"github.com/monitorhq/monitor/internal/store/storetest"
	"github.com/monitorhq/monitor/internal/testkit/testcore"
)

// proofDoc is GET /v1/collections/{id}/proof as a third party reads it.
type proofDoc struct {
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
	Head      string `json:"head"`
	Signature string `json:"signature"`
}

// checkProof is a stand-alone checker of a proof, written from
// docs/verify.md with nothing but the standard library: it recomputes every
// link (monitor-chain-v1), follows prev_hash to the head and checks the
// signature over the head with the instance's public key.
func checkProof(p proofDoc, pub ed25519.PublicKey) error {
	prev := ""
	for i, l := range p.Chain {
		var b strings.Builder
		val := func(v string) { fmt.Fprintf(&b, "%d:%s\n", len(v), v) }
		list := func(name string, vs []string) {
			fmt.Fprintf(&b, "%s %d\n", name, len(vs))
			for _, v := range vs {
				val(v)
			}
		}
		t, err := time.Parse(time.RFC3339Nano, l.CapturedAt)
		if err != nil || l.PrevHash != prev || !slices.IsSorted(l.Media) || !slices.IsSorted(l.Raw) {
			return fmt.Errorf("link %d: bad time, order or prev_hash", i)
		}
		b.WriteString("monitor-chain-v1\nprev ")
		val(l.PrevHash)
		b.WriteString("content ")
		val(l.ContentHash)
		list("media", l.Media)
		list("raw", l.Raw)
		b.WriteString("captured_at ")
		val(t.UTC().Format("2006-01-02T15:04:05.000000000Z"))
		b.WriteString("adapter ")
		val(l.AdapterID)
		b.WriteString("adapter_version ")
		val(l.AdapterVersion)
		sum := sha256.Sum256([]byte(b.String()))
		if prev = hex.EncodeToString(sum[:]); prev != l.ChainHash {
			return fmt.Errorf("link %d: chain hash %s, recomputed %s", i, l.ChainHash, prev)
		}
	}
	sig, _ := base64.StdEncoding.DecodeString(p.Signature)
	if prev != p.Head || !ed25519.Verify(pub, []byte("monitor-head-v1\n"+p.CollectionID+"\n"+p.Head+"\n"), sig) {
		return fmt.Errorf("the head or its signature does not verify")
	}
	return nil
}

// The proof of a post verifies with a checker that is not the project's
// code, against the key GET /v1/instance gives anyone; a changed proof
// does not.
func TestProofVerifiesWithAStandAloneChecker(t *testing.T) {
	t.Parallel()
	testcore.Each(t, testcore.Options{}, func(t *testing.T, c *testcore.Core) {
		ctx := context.Background()
		alice := c.Tenant(t, "alice", nil)
		res, cv := c.Capture(t, alice, photosPost)
		require.Equal(t, "complete", cv.State, cv.Error)
		body := bytes.Replace(c.FX.Raw("status-photos.json"), []byte("Two frames from this morning"), []byte("Two frames, edited"), 1)
		c.FX.SetOverride("/2/status/2078399740166950912", 200, "application/json", body)
		rr, err := c.App.Refresh(ctx, alice, res.CollectionID, "")
		require.NoError(t, err)
		c.WaitCapture(t, alice, rr.CaptureID)

		srv := httptest.NewServer(httpapi.NewHandler(httpapi.Deps{App: c.App, Log: storetest.Logger(t)}))
		t.Cleanup(srv.Close)
		r := call(t, srv, http.MethodGet, "/v1/instance", "")
		require.Equal(t, http.StatusOK, r.status, string(r.body))
		var inst struct {
			SigningKey     string `json:"signing_key"`
			KeyFingerprint string `json:"key_fingerprint"`
		}
		require.NoError(t, json.Unmarshal(r.body, &inst))
		raw, err := base64.StdEncoding.DecodeString(inst.SigningKey)
		require.NoError(t, err)
		pub := ed25519.PublicKey(raw)
		require.True(t, pub.Equal(c.SigningKey.Public()))
		require.Len(t, inst.KeyFingerprint, 19)

		key := signIn(t, c.App, "alice")
		r = call(t, srv, http.MethodGet, "/v1/collections/"+res.CollectionID.String()+"/proof", key)
		require.Equal(t, http.StatusOK, r.status, string(r.body))
		var p proofDoc
		require.NoError(t, json.Unmarshal(r.body, &p))
		require.Len(t, p.Chain, 2)
		require.NoError(t, checkProof(p, pub))

		changed := p
		changed.Chain = slices.Clone(p.Chain)
		changed.Chain[0].CapturedAt = "2026-01-01T00:00:00Z"
		require.ErrorContains(t, checkProof(changed, pub), "link 0: chain hash")
		_, other, _ := ed25519.GenerateKey(nil)
		require.ErrorContains(t, checkProof(p, other.Public().(ed25519.PublicKey)), "signature does not verify")

		c.Tenant(t, "bob", nil)
		r = call(t, srv, http.MethodGet, "/v1/collections/"+res.CollectionID.String()+"/proof", signIn(t, c.App, "bob"))
		require.Equal(t, http.StatusNotFound, r.status, "only a saver gets the proof")
	})
}
