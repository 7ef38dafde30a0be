package chain_test

import (
	"crypto/ed25519"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/monitorhq/monitor/internal/chain"
)

// The encoding is the one docs/verify.md writes down, byte for byte.
func TestEncodingIsTheDocumentedOne(t *testing.T) {
	t.Parallel()
	l := chain.Link{
		PrevHash:    "",
		ContentHash: strings.Repeat("c", 64),
		Media:       []string{strings.Repeat("b", 64), strings.Repeat("a", 64), strings.Repeat("b", 64)},
		Raw:         []string{strings.Repeat("e", 64), strings.Repeat("d", 64)},
		CapturedAt:  time.Date(2026, 11, 1, 10, 0, 0, 123456000, time.FixedZone("CET", 3600)),
		AdapterID:   "x", AdapterVersion: "1.2.0",
	}
	want := "monitor-chain-v1\n" +
		"prev 0:\n" +
		"content 64:" + strings.Repeat("c", 64) + "\n" +
		"media 2\n64:" + strings.Repeat("a", 64) + "\n64:" + strings.Repeat("b", 64) + "\n" +
		"raw 2\n64:" + strings.Repeat("d", 64) + "\n64:" + strings.Repeat("e", 64) + "\n" +
		"captured_at 30:2026-11-01T09:00:00.123456000Z\n" +
		"adapter 1:x\n" +
		"adapter_version 5:1.2.0\n"
	require.Equal(t, want, string(l.Encode()))
	require.Len(t, l.Hash(), 64)
}

// A break anywhere is named: a changed field, a missing first revision, a
// link that does not follow the one before it.
func TestCheckNamesEachBreak(t *testing.T) {
	t.Parallel()
	at := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	a := chain.Link{ContentHash: "a", CapturedAt: at}
	b := chain.Link{PrevHash: a.Hash(), ContentHash: "b", CapturedAt: at.Add(time.Hour)}
	c := chain.Link{PrevHash: b.Hash(), ContentHash: "c", CapturedAt: at.Add(2 * time.Hour)}
	links := []chain.Link{a, b, c}
	hashes := []string{a.Hash(), b.Hash(), c.Hash()}
	require.Empty(t, chain.Check(links, hashes, false))

	changed := []chain.Link{a, b, c}
	changed[1].ContentHash = "B"
	p := chain.Check(changed, hashes, false)
	require.Len(t, p, 1)
	require.Equal(t, 1, p[0].Index)
	require.Equal(t, "chain_hash", p[0].Field)

	p = chain.Check([]chain.Link{b, c}, hashes[1:], false)
	require.Equal(t, "prev_hash", p[0].Field, "the first revision is missing")
	require.Empty(t, chain.Check([]chain.Link{b, c}, hashes[1:], true), "unless the chain may start later")

	p = chain.Check([]chain.Link{a, c}, []string{hashes[0], hashes[2]}, false)
	require.Equal(t, []chain.Problem{{Index: 1, Field: "prev_hash", Message: p[0].Message}}, p, "a revision was dropped")
}

func TestSumAndSignature(t *testing.T) {
	t.Parallel()
	sum := chain.FormatSum([]chain.SumEntry{{SHA256: strings.Repeat("1", 64), Path: "b.md"}, {SHA256: strings.Repeat("2", 64), Path: "a.md"}})
	require.Equal(t, strings.Repeat("2", 64)+"  a.md\n"+strings.Repeat("1", 64)+"  b.md\n", string(sum))
	entries, err := chain.ParseSum(sum)
	require.NoError(t, err)
	require.Len(t, entries, 2)
	_, err = chain.ParseSum([]byte("nonsense\n"))
	require.ErrorContains(t, err, "line 1")

	_, key, _ := ed25519.GenerateKey(nil)
	sig := chain.Sign(key, sum)
	pub, raw, err := chain.ParseSig(sig)
	require.NoError(t, err)
	require.True(t, pub.Equal(key.Public()))
	require.True(t, ed25519.Verify(pub, sum, raw))
	require.Regexp(t, `^[0-9a-f]{4} [0-9a-f]{4} [0-9a-f]{4} [0-9a-f]{4}$`, chain.Fingerprint(pub))

	pemKey, err := chain.MarshalKey(key)
	require.NoError(t, err)
	back, err := chain.LoadKey(pemKey)
	require.NoError(t, err)
	require.True(t, back.Equal(key))
	p2, err := chain.ParseKey(chain.EncodeKey(pub))
	require.NoError(t, err)
	require.True(t, p2.Equal(pub))
}

func TestKeyFileIsMadeOnceWithMode0600(t *testing.T) {
	t.Parallel()
	p := t.TempDir() + "/instance.key"
	k1, created, err := chain.LoadOrCreateKeyFile(p)
	require.NoError(t, err)
	require.True(t, created)
	k2, created, err := chain.LoadOrCreateKeyFile(p)
	require.NoError(t, err)
	require.False(t, created)
	require.True(t, k1.Equal(k2))
	st, err := osStat(p)
	require.NoError(t, err)
	require.Equal(t, "-rw-------", st.Mode().String())
}

// BenchmarkLinkHash is the hashing a new revision's link costs in
// finalize: encode and SHA-256 a link with four media and two raw
// responses.
func BenchmarkLinkHash(b *testing.B) {
	l := chain.Link{PrevHash: strings.Repeat("f", 64), ContentHash: strings.Repeat("c", 64),
		Media: []string{strings.Repeat("1", 64), strings.Repeat("2", 64), strings.Repeat("3", 64), strings.Repeat("4", 64)},
		Raw:   []string{strings.Repeat("5", 64), strings.Repeat("6", 64)}, CapturedAt: time.Now(), AdapterID: "x", AdapterVersion: "1.0.0"}
	for b.Loop() {
		_ = l.Hash()
	}
}
