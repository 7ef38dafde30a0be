package app

import (
	"context"
	"crypto/ed25519"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"slices"

	"github.com/google/uuid"

	"github.com/monitorhq/monitor/internal/chain"
	"github.com/monitorhq/monitor/internal/store"
)

// This file is the verifiable archive's business side (docs/verify.md):
// the instance key's public half, the proof of one collection's chain and
// `monitor verify`, which re-reads and re-hashes what the chains cover.
// The encoding and hashing are internal/chain's.

// ErrNoSigningKey means this instance was started without a signing key.
var ErrNoSigningKey = errors.New("app: this instance has no signing key")

// InstanceView is GET /v1/instance: what anyone may know about this
// instance to check what it signed.
type InstanceView struct {
	// ChainVersion names the chain encoding (monitor-chain-v1).
	ChainVersion string `json:"chain_version"`
	// SigningKey is the Ed25519 public key, standard base64 of 32 bytes;
	// "" when the instance has none.
	SigningKey string `json:"signing_key"`
	// KeyFingerprint is its short form for people to compare.
	KeyFingerprint string `json:"key_fingerprint"`
}

// Instance describes this instance's signing key.
func (a *App) Instance() InstanceView {
	v := InstanceView{ChainVersion: chain.Version}
	if a.signingKey != nil {
		pub := a.signingKey.Public().(ed25519.PublicKey)
		v.SigningKey, v.KeyFingerprint = chain.EncodeKey(pub), chain.Fingerprint(pub)
	}
	return v
}

// SignSum signs a capsule's monitor.sum and returns the signature file
// (chain.Sign); ErrNoSigningKey without a key.
func (a *App) SignSum(sum []byte) ([]byte, error) {
	if a.signingKey == nil {
		return nil, ErrNoSigningKey
	}
	return chain.Sign(a.signingKey, sum), nil
}

// ChainLink is one revision's link, with every field its chain hash covers.
type ChainLink struct {
	RevisionID  uuid.UUID `json:"revision_id"`
	Seq         int       `json:"seq"`
	PrevHash    string    `json:"prev_hash"`
	ContentHash string    `json:"content_hash"`
	// Media and Raw are sorted SHA-256s (Media without repeats).
	Media []string `json:"media"`
	Raw   []string `json:"raw"`
	// CapturedAt is written as the encoding writes it (chain.TimeLayout).
	CapturedAt     string `json:"captured_at"`
	AdapterID      string `json:"adapter_id"`
	AdapterVersion string `json:"adapter_version"`
	ChainHash      string `json:"chain_hash"`
}

// Link is the chain.Link the fields describe.
func (l ChainLink) Link() chain.Link {
	t, _ := chain.ParseTime(l.CapturedAt)
	return chain.Link{PrevHash: l.PrevHash, ContentHash: l.ContentHash, Media: l.Media, Raw: l.Raw, CapturedAt: t,
		AdapterID: l.AdapterID, AdapterVersion: l.AdapterVersion}
}

func chainLinkOf(r store.Revision) (ChainLink, error) {
	media, err := chain.MediaOfContent(r.Content)
	if err != nil {
		return ChainLink{}, fmt.Errorf("app: revision %s: %w", r.ID, err)
	}
	raw := r.Chain.Raw
	if raw == nil {
		raw = []string{}
	}
	return ChainLink{RevisionID: r.ID, Seq: r.Chain.Seq, PrevHash: r.Chain.PrevHash, ContentHash: r.ContentHash, Media: media,
		Raw: raw, CapturedAt: chain.FormatTime(r.CreatedAt), AdapterID: r.Chain.AdapterID, AdapterVersion: r.Chain.AdapterVersion,
		ChainHash: r.Chain.Hash}, nil
}

// collectionChain reads a collection's links, oldest first.
func (a *App) collectionChain(ctx context.Context, collectionID uuid.UUID) ([]ChainLink, []store.Revision, error) {
	revs, err := a.store.RevisionChainList(ctx, collectionID)
	if err != nil {
		return nil, nil, err
	}
	out := make([]ChainLink, 0, len(revs))
	for _, r := range revs {
		l, err := chainLinkOf(r)
		if err != nil {
			return nil, nil, err
		}
		out = append(out, l)
	}
	return out, revs, nil
}

// Proof is GET /v1/collections/{id}/proof: a collection's whole chain and
// the instance's signature over its head, so that someone holding only
// this document and the instance's public key can check the post
// (docs/verify.md shows how).
type Proof struct {
	ChainVersion string    `json:"chain_version"`
	CollectionID uuid.UUID `json:"collection_id"`
	// Chain is every revision's link, oldest first.
	Chain []ChainLink `json:"chain"`
	// Head is the newest link's chain hash.
	Head string `json:"head"`
	// Statement is what Signature covers (chain.HeadStatement).
	Statement string `json:"statement"`
	// Signature is Ed25519 over Statement, standard base64; SigningKey and
	// KeyFingerprint name the key.
	Signature      string `json:"signature"`
	SigningKey     string `json:"signing_key"`
	KeyFingerprint string `json:"key_fingerprint"`
}

// Proof proves the chain of a collection the tenant saved.
func (a *App) Proof(ctx context.Context, tenantID, collectionID uuid.UUID) (Proof, error) {
	ctx = store.WithTenant(ctx, tenantID)
	sc, err := a.savedCollection(ctx, tenantID, collectionID)
	if err != nil {
		return Proof{}, err
	}
	links, _, err := a.collectionChain(ctx, sc.ID)
	if err != nil {
		return Proof{}, err
	}
	if len(links) == 0 {
		return Proof{}, errorf(ErrNotFound, "collection %s has no revision yet; wait for its capture to finish", sc.ID)
	}
	p := Proof{ChainVersion: chain.Version, CollectionID: sc.ID, Chain: links, Head: links[len(links)-1].ChainHash}
	p.Statement = string(chain.HeadStatement(sc.ID.String(), p.Head))
	if a.signingKey != nil {
		in := a.Instance()
		p.SigningKey, p.KeyFingerprint = in.SigningKey, in.KeyFingerprint
		p.Signature = base64.StdEncoding.EncodeToString(ed25519.Sign(a.signingKey, []byte(p.Statement)))
	}
	return p, nil
}

// ChainSummary is what the web shows under a post: how long its chain is
// and whether it holds, with the key that signs its proof.
type ChainSummary struct {
	Revisions int
	// Verified is true when every link recomputes and follows the one
	// before it.
	Verified       bool
	Head           string
	KeyFingerprint string
}

// CollectionChainSummary checks a saved collection's chain from its
// stored fields (not the bytes it covers: that is `monitor verify`).
func (a *App) CollectionChainSummary(ctx context.Context, tenantID, collectionID uuid.UUID) (ChainSummary, error) {
	ctx = store.WithTenant(ctx, tenantID)
	sc, err := a.savedCollection(ctx, tenantID, collectionID)
	if err != nil {
		return ChainSummary{}, err
	}
	links, _, err := a.collectionChain(ctx, sc.ID)
	if err != nil || len(links) == 0 {
		return ChainSummary{}, err
	}
	s := ChainSummary{Revisions: len(links), Head: links[len(links)-1].ChainHash, KeyFingerprint: a.Instance().KeyFingerprint}
	s.Verified = len(chainProblems(links)) == 0
	return s, nil
}

// chainProblems checks links against their recorded hashes; a chain whose
// first link names a previous hash is accepted only for imported content,
// which may arrive without its earlier revisions.
func chainProblems(links []ChainLink) []chain.Problem {
	ls := make([]chain.Link, len(links))
	claimed := make([]string, len(links))
	for i, l := range links {
		ls[i], claimed[i] = l.Link(), l.ChainHash
	}
	return chain.Check(ls, claimed, len(links) > 0 && len(links[0].Raw) == 0 && links[0].PrevHash != "")
}

// VerifyOptions choose what `monitor verify` reads.
type VerifyOptions struct {
	// TenantID, when set, verifies only what the tenant saved.
	TenantID *uuid.UUID
	// Sample, when positive, verifies that many collections picked at
	// random instead of all.
	Sample int
	// Progress, when set, is called after each collection with the
	// collections done and their total.
	Progress func(done, total int)
}

// VerifyProblem is one mismatch `monitor verify` found.
type VerifyProblem struct {
	// Path names what is wrong: collections/<id>, then the revision, raw
	// response or media.
	Path    string
	Field   string
	Message string
}

// String formats the problem as "path: field: message".
func (p VerifyProblem) String() string { return p.Path + ": " + p.Field + ": " + p.Message }

// VerifyReport is what `monitor verify` checked and found.
type VerifyReport struct {
	Collections  int
	Revisions    int
	RawResponses int
	Blobs        int
	// Bytes counts the bytes re-read and re-hashed.
	Bytes    int64
	Problems []VerifyProblem
}

// verifyTarget is one collection to verify, in the scope it lives in.
type verifyTarget struct {
	id     uuid.UUID
	tenant uuid.UUID // the tenant the reads act for
}

// Verify re-reads and re-hashes what the chains cover: every revision's
// content and link, every raw response of the captures that produced
// them, and every media file's bytes. It reports each mismatch; an error
// means the check could not run.
func (a *App) Verify(ctx context.Context, opts VerifyOptions) (VerifyReport, error) {
	var rep VerifyReport
	targets, err := a.verifyTargets(ctx, opts.TenantID)
	if err != nil {
		return rep, err
	}
	if opts.Sample > 0 && opts.Sample < len(targets) {
		rand.Shuffle(len(targets), func(i, j int) { targets[i], targets[j] = targets[j], targets[i] })
		targets = targets[:opts.Sample]
	}
	checked := map[string]bool{} // blobs re-hashed already, by scope and sha256
	buf := make([]byte, 256<<10)
	for i, t := range targets {
		if err := ctx.Err(); err != nil {
			return rep, err
		}
		if err := a.verifyCollection(store.WithTenant(ctx, t.tenant), t.id, checked, buf, &rep); err != nil {
			return rep, err
		}
		rep.Collections++
		if opts.Progress != nil {
			opts.Progress(i+1, len(targets))
		}
	}
	return rep, nil
}

// verifyTargets lists the collections to verify: the tenant's saved ones,
// or every collection of every scope (the public one and each tenant's
// private one), each read as a tenant that may see it.
func (a *App) verifyTargets(ctx context.Context, tenantID *uuid.UUID) ([]verifyTarget, error) {
	var out []verifyTarget
	if tenantID != nil {
		ctx := store.WithTenant(ctx, *tenantID)
		var after *store.SavedCursor
		for {
			rows, err := a.store.SavedCollectionList(ctx, *tenantID, after, exportPage)
			if err != nil {
				return nil, err
			}
			for _, sc := range rows {
				if sc.CurrentRevisionID != nil {
					out = append(out, verifyTarget{sc.ID, *tenantID})
				}
			}
			if len(rows) < exportPage {
				return out, nil
			}
			last := rows[len(rows)-1]
			after = &store.SavedCursor{SavedAt: last.SavedAt, CollectionID: last.ID}
		}
	}
	tenants, err := a.store.TenantList(ctx)
	if err != nil {
		return nil, err
	}
	scopes := []verifyTarget{{store.PublicScope, uuid.Nil}}
	for _, t := range tenants {
		scopes = append(scopes, verifyTarget{t.ID, t.ID})
	}
	for _, sc := range scopes {
		ctx := ctx
		if sc.tenant != uuid.Nil {
			ctx = store.WithTenant(ctx, sc.tenant)
		}
		after := uuid.Nil
		for {
			ids, err := a.store.CollectionIDsInScope(ctx, sc.id, after, 1000)
			if err != nil {
				return nil, err
			}
			for _, id := range ids {
				out = append(out, verifyTarget{id, sc.tenant})
			}
			if len(ids) < 1000 {
				break
			}
			after = ids[len(ids)-1]
		}
	}
	return out, nil
}

func (a *App) verifyCollection(ctx context.Context, id uuid.UUID, checked map[string]bool, buf []byte, rep *VerifyReport) error {
	coll, err := a.store.CollectionGet(ctx, id)
	if err != nil {
		return err
	}
	links, revs, err := a.collectionChain(ctx, id)
	if err != nil {
		return err
	}
	base := "collections/" + id.String()
	add := func(path, field, format string, args ...any) {
		rep.Problems = append(rep.Problems, VerifyProblem{Path: path, Field: field, Message: fmt.Sprintf(format, args...)})
	}
	for _, p := range chainProblems(links) {
		add(base+"/revisions/"+revs[p.Index].ID.String(), p.Field, "%s", p.Message)
	}
	for i, r := range revs {
		rep.Revisions++
		path := base + "/revisions/" + r.ID.String()
		rep.Bytes += int64(len(r.Content))
		if got, err := rehashContent(r.Content); err != nil {
			add(path, "content", "cannot be read: %v", err)
		} else if got != r.ContentHash {
			add(path, "content_hash", "the stored content re-hashes to %s, not the recorded %s: the content was changed in the database", got, r.ContentHash)
		}
		resps, err := a.store.SourceResponsesOf(ctx, r.CaptureID)
		if err != nil {
			return err
		}
		var rehashed []string
		for _, sr := range resps {
			rep.RawResponses++
			rep.Bytes += int64(len(sr.Body))
			s := sha256.Sum256(sr.Body)
			got := hex.EncodeToString(s[:])
			rehashed = append(rehashed, got)
			if got != sr.SHA256 {
				add(path+"/raw/"+sr.SHA256, "sha256", "the raw response from %s re-hashes to %s: its bytes were changed in the database", sr.RequestURL, got)
			}
		}
		slices.Sort(rehashed)
		if len(resps) > 0 && !slices.Equal(rehashed, chain.SortedSetKeep(links[i].Raw)) {
			add(path, "raw", "the capture's raw responses re-hash to %v, but the chain covers %v", rehashed, links[i].Raw)
		}
		for _, m := range links[i].Media {
			key := coll.DataScope.String() + "/" + coll.AccessScope + "/" + m
			if checked[key] {
				continue
			}
			checked[key] = true
			rep.Blobs++
			n, got, err := a.rehashBlob(ctx, coll, m, buf)
			rep.Bytes += n
			switch {
			case err != nil:
				add(path+"/media/"+m, "file", "cannot be read: %v", err)
			case got != m:
				add(path+"/media/"+m, "sha256", "the stored bytes re-hash to %s: the media file was changed or swapped", got)
			}
		}
	}
	return nil
}

// rehashContent re-encodes stored content canonically (encodeContent) and
// hashes it: PostgreSQL keeps content as JSONB, which does not keep the
// bytes it was given, only their meaning.
func rehashContent(stored []byte) (string, error) {
	var doc contentDoc
	if err := json.Unmarshal(stored, &doc); err != nil {
		return "", err
	}
	c, err := encodeContent(doc)
	return c.hash, err
}

func (a *App) rehashBlob(ctx context.Context, coll store.Collection, sum string, buf []byte) (int64, string, error) {
	b, err := a.store.BlobInScope(ctx, coll.DataScope, coll.AccessScope, sum)
	if isNotFound(err) {
		return 0, "", errors.New("no blob holds it in the collection's scope")
	}
	if err != nil {
		return 0, "", err
	}
	rc, _, err := a.blob.Get(ctx, b.ObjectKey, nil)
	if err != nil {
		return 0, "", err
	}
	defer rc.Close()
	h := sha256.New()
	n, err := io.CopyBuffer(h, rc, buf)
	if err != nil {
		return n, "", err
	}
	return n, hex.EncodeToString(h.Sum(nil)), nil
}
