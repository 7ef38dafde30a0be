// Package verify checks a capsule offline (`monitor check --verify`): every
// file against monitor.sum, monitor.sum against its Ed25519 signature, and
// every collection's hash chain recomputed from the files, with the
// encoding of internal/chain (docs/verify.md). It needs no instance and no
// database.
package verify

import (
	"context"
	"crypto/ed25519"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"

	"github.com/monitorhq/monitor/internal/capsule"
	"github.com/monitorhq/monitor/internal/capsule/check"
	"github.com/monitorhq/monitor/internal/capsule/importer"
	"github.com/monitorhq/monitor/internal/chain"
)

// Options tune a verification.
type Options struct {
	// Key, when set, is the key the capsule must be signed with; without
	// it the result names the key that signed it.
	Key ed25519.PublicKey
}

// Result is what a verification found, beside the check's own result.
type Result struct {
	// Problems are the mismatches, each "path: field: message".
	Problems []capsule.Problem
	// Signer is the key that signed monitor.sum (nil: not signed, or the
	// signature file cannot be read); SignatureOK says it verifies.
	Signer      ed25519.PublicKey
	SignatureOK bool
	// Files and Bytes count the files re-hashed; Collections and
	// Revisions the chains recomputed.
	Files, Collections, Revisions int
	Bytes                         int64
}

// Run verifies a capsule that check.Run read as res (whose problems the
// caller reports itself).
func Run(ctx context.Context, src *capsule.Source, res *check.Result, opts Options) (*Result, error) {
	out := &Result{}
	if err := out.sums(ctx, src, res); err != nil {
		return nil, err
	}
	for _, e := range res.Entries {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		if e.Collection.Chain == nil {
			out.add(e.Path, "chain", "missing: the file carries no hash chain (exported before chains, or the chain was removed)")
			continue
		}
		probs, links := importer.ChainProblems(e.Path, &e.Collection)
		out.Problems = append(out.Problems, probs...)
		if links > 0 {
			out.Collections++
			out.Revisions += links
		}
	}
	if opts.Key != nil && out.Signer != nil && !out.Signer.Equal(opts.Key) {
		out.add(chain.SigName, "key", "the capsule is signed by key %s, not by the key given (%s)",
			chain.Fingerprint(out.Signer), chain.Fingerprint(opts.Key))
	}
	return out, nil
}

func (r *Result) add(path, field, format string, args ...any) {
	r.Problems = append(r.Problems, capsule.Problem{Path: path, Field: field, Message: fmt.Sprintf(format, args...)})
}

// sums re-hashes every file against monitor.sum and checks its signature.
func (r *Result) sums(ctx context.Context, src *capsule.Source, res *check.Result) error {
	if !src.Has(chain.SumName) {
		r.add(chain.SumName, "file", "missing: the capsule was not exported with signatures (monitor export capsule writes monitor.sum and monitor.sum.sig)")
		return nil
	}
	sumBytes, err := src.ReadFile(chain.SumName, 64<<20)
	if err != nil {
		r.add(chain.SumName, "file", "%v", err)
		return nil
	}
	listed := map[string]string{}
	entries, err := chain.ParseSum(sumBytes)
	if err != nil {
		r.add(chain.SumName, "file", "%v", err)
	}
	for _, e := range entries {
		listed[e.Path] = e.SHA256
	}
	buf := make([]byte, 256<<10)
	for _, name := range src.Files() {
		if err := ctx.Err(); err != nil {
			return err
		}
		if name == chain.SumName || name == chain.SigName {
			continue
		}
		want, ok := listed[name]
		if !ok {
			r.add(name, "file", "is not listed in %s: it was added after the export", chain.SumName)
			continue
		}
		delete(listed, name)
		got, ok := res.Files[name] // media check.Run hashed already
		if !ok {
			got, ok = res.Read[name] // and the files it read
		}
		if !ok {
			n, sum, err := hashFile(src, name, buf)
			if err != nil {
				r.add(name, "file", "cannot be read: %v", err)
				continue
			}
			got = sum
			r.Bytes += n
		} else {
			r.Bytes += src.Size(name)
		}
		r.Files++
		if got != want {
			r.add(name, "sha256", "the file has SHA-256 %s, but %s lists %s: the file was changed after the export", got, chain.SumName, want)
		}
	}
	for _, e := range entries {
		if _, missing := listed[e.Path]; missing {
			r.add(e.Path, "file", "is listed in %s but missing from the capsule: it was removed after the export", chain.SumName)
		}
	}
	if !src.Has(chain.SigName) {
		r.add(chain.SigName, "file", "missing: %s is not signed", chain.SumName)
		return nil
	}
	sigBytes, err := src.ReadFile(chain.SigName, 4096)
	if err != nil {
		r.add(chain.SigName, "file", "%v", err)
		return nil
	}
	pub, sig, err := chain.ParseSig(sigBytes)
	if err != nil {
		r.add(chain.SigName, "file", "%v", err)
		return nil
	}
	r.Signer = pub
	if !ed25519.Verify(pub, sumBytes, sig) {
		r.add(chain.SigName, "signature", "does not verify with the key it names (%s) over %s: %s or the signature was changed", chain.Fingerprint(pub), chain.SumName, chain.SumName)
		return nil
	}
	r.SignatureOK = true
	return nil
}

func hashFile(src *capsule.Source, name string, buf []byte) (int64, string, error) {
	f, err := src.OpenFile(name)
	if err != nil {
		return 0, "", err
	}
	defer f.Close()
	h := sha256.New()
	n, err := io.CopyBuffer(h, f, buf)
	if err != nil {
		return n, "", err
	}
	return n, hex.EncodeToString(h.Sum(nil)), nil
}
