package build

import (
	"crypto/ed25519"
	"encoding/json"

	"github.com/monitorhq/monitor/internal/capsule/importer"
	"github.com/monitorhq/monitor/internal/chain"
	"github.com/monitorhq/monitor/internal/web"
)

// A built site shows each post's hash chain as the live item page does,
// and offers its proof: c/<id>/proof.json holds the chain, the collection
// file's SHA-256 as the signed monitor.sum lists it, and the key that
// signed it; monitor.sum and monitor.sum.sig are copied to the site's
// root beside it (docs/verify.md).

// signature is what a site knows of its capsule's signature.
type signature struct {
	// fingerprint is the key that signed monitor.sum, "" when the capsule
	// is not signed or the signature does not verify.
	fingerprint, key string
	sums             map[string]string // path → SHA-256, from monitor.sum
	sum, sig         []byte
}

// readSignature reads monitor.sum and checks its signature.
func (s *site) readSignature() signature {
	var out signature
	sum, err := s.src.ReadFile(chain.SumName, 64<<20)
	if err != nil {
		return out
	}
	entries, err := chain.ParseSum(sum)
	if err != nil {
		return out
	}
	out.sums = map[string]string{}
	for _, e := range entries {
		out.sums[e.Path] = e.SHA256
	}
	sig, err := s.src.ReadFile(chain.SigName, 4096)
	if err != nil {
		return out
	}
	pub, raw, err := chain.ParseSig(sig)
	if err != nil || !ed25519.Verify(pub, sum, raw) {
		return out
	}
	out.fingerprint, out.key, out.sum, out.sig = chain.Fingerprint(pub), chain.EncodeKey(pub), sum, sig
	return out
}

// proofLink is one link of a site's proof.json, as GET
// /v1/collections/{id}/proof writes it.
type proofLink struct {
	PrevHash       string   `json:"prev_hash"`
	ContentHash    string   `json:"content_hash"`
	Media          []string `json:"media"`
	Raw            []string `json:"raw"`
	CapturedAt     string   `json:"captured_at"`
	AdapterID      string   `json:"adapter_id"`
	AdapterVersion string   `json:"adapter_version"`
	ChainHash      string   `json:"chain_hash"`
}

// siteProof is a post's proof.json.
type siteProof struct {
	ChainVersion string      `json:"chain_version"`
	CollectionID string      `json:"collection_id"`
	Chain        []proofLink `json:"chain"`
	Head         string      `json:"head"`
	// File and FileSHA256 are the collection file and its SHA-256 in the
	// signed monitor.sum (beside the site's index).
	File           string `json:"file"`
	FileSHA256     string `json:"file_sha256"`
	SigningKey     string `json:"signing_key"`
	KeyFingerprint string `json:"key_fingerprint"`
}

// proofs gives every post with a chain its chain line and proof.json, and
// copies the signed monitor.sum beside the site's index.
func (s *site) proofs(posts []*post) error {
	sig := s.readSignature()
	for _, p := range posts {
		if err := s.proof(p, sig); err != nil {
			return err
		}
	}
	if sig.sum == nil {
		return nil
	}
	if err := s.write(chain.SumName, sig.sum); err != nil {
		return err
	}
	return s.write(chain.SigName, sig.sig)
}

// proof gives a post its chain line and writes its proof.json; a file
// without a chain shows none.
func (s *site) proof(p *post, sig signature) error {
	c := p.c
	if c.Chain == nil || len(c.Chain.Revisions) == 0 {
		return nil
	}
	probs, n := importer.ChainProblems(p.path, c)
	doc := siteProof{ChainVersion: c.Chain.Version, CollectionID: c.ID, Head: c.Chain.Head, File: p.path, FileSHA256: sig.sums[p.path],
		SigningKey: sig.key, KeyFingerprint: sig.fingerprint}
	for _, l := range c.Chain.Revisions {
		media, raw := l.Media, l.Raw
		if media == nil {
			media = []string{}
		}
		if raw == nil {
			raw = []string{}
		}
		doc.Chain = append(doc.Chain, proofLink{PrevHash: l.PrevHash, ContentHash: l.ContentHash, Media: chain.SortedSet(media),
			Raw: chain.SortedSetKeep(raw), CapturedAt: chain.FormatTime(l.Time), AdapterID: l.AdapterID, AdapterVersion: l.AdapterVersion,
			ChainHash: l.ChainHash})
	}
	data, err := json.MarshalIndent(doc, "", "  ")
	if err != nil {
		return err
	}
	p.Proof = &web.Proof{Revisions: len(c.Chain.Revisions), Verified: n > 0 && len(probs) == 0, Fingerprint: sig.fingerprint,
		Href: "proof.json", Name: "proof-" + c.ID + ".json"}
	return s.write("c/"+c.ID+"/proof.json", append(data, '\n'))
}
