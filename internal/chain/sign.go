package chain

import (
	"bytes"
	"crypto/ed25519"
	"crypto/rand"
	"crypto/sha256"
	"crypto/x509"
	"encoding/base64"
	"encoding/hex"
	"encoding/pem"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
)

// Names of the signed files of a capsule.
const (
	// SumName lists every other file of the capsule with its SHA-256.
	SumName = "monitor.sum"
	// SigName holds the instance's Ed25519 signature over SumName.
	SigName = "monitor.sum.sig"
	// SigVersion is the first word of a signature file.
	SigVersion = "monitor-sig-v1"
	// HeadVersion starts the statement a proof signs over a chain's head.
	HeadVersion = "monitor-head-v1"
)

// SumEntry is one line of monitor.sum.
type SumEntry struct {
	SHA256 string
	Path   string
}

// FormatSum writes monitor.sum: one line per file, "<sha256 hex>  <path>",
// sorted by path, as sha256sum writes them, so `sha256sum -c monitor.sum`
// checks a capsule folder too.
func FormatSum(entries []SumEntry) []byte {
	es := append([]SumEntry(nil), entries...)
	sort.Slice(es, func(i, j int) bool { return es[i].Path < es[j].Path })
	var b bytes.Buffer
	for _, e := range es {
		b.WriteString(e.SHA256 + "  " + e.Path + "\n")
	}
	return b.Bytes()
}

// ParseSum reads monitor.sum. A line it cannot read is an error naming
// the line.
func ParseSum(data []byte) ([]SumEntry, error) {
	var out []SumEntry
	for i, line := range strings.Split(strings.TrimSuffix(string(data), "\n"), "\n") {
		if line == "" && len(data) == 0 {
			break
		}
		sum, p, ok := strings.Cut(line, "  ")
		if !ok || len(sum) != 64 || p == "" {
			return nil, fmt.Errorf("line %d is not \"<sha256>  <path>\"", i+1)
		}
		if _, err := hex.DecodeString(sum); err != nil {
			return nil, fmt.Errorf("line %d: %q is not a hex SHA-256", i+1, sum)
		}
		out = append(out, SumEntry{SHA256: sum, Path: p})
	}
	return out, nil
}

// Sign signs monitor.sum's bytes and writes the signature file:
//
//	monitor-sig-v1 ed25519 <public key, base64> <signature, base64>\n
//
// (standard base64 with padding; the signature is Ed25519 over the exact
// bytes of monitor.sum).
func Sign(key ed25519.PrivateKey, sum []byte) []byte {
	sig := ed25519.Sign(key, sum)
	pub := key.Public().(ed25519.PublicKey)
	return []byte(SigVersion + " ed25519 " + EncodeKey(pub) + " " + base64.StdEncoding.EncodeToString(sig) + "\n")
}

// ParseSig reads a signature file: the key it names and the signature.
func ParseSig(data []byte) (ed25519.PublicKey, []byte, error) {
	f := strings.Fields(string(data))
	if len(f) != 4 || f[0] != SigVersion || f[1] != "ed25519" {
		return nil, nil, fmt.Errorf("is not \"%s ed25519 <key> <signature>\"", SigVersion)
	}
	pub, err := ParseKey(f[2])
	if err != nil {
		return nil, nil, err
	}
	sig, err := base64.StdEncoding.DecodeString(f[3])
	if err != nil || len(sig) != ed25519.SignatureSize {
		return nil, nil, errors.New("the signature is not a base64 Ed25519 signature")
	}
	return pub, sig, nil
}

// HeadStatement is what a proof's signature covers: the collection and
// the chain hash of its newest revision.
//
//	monitor-head-v1\n<collection id>\n<head chain hash>\n
func HeadStatement(collectionID, head string) []byte {
	return []byte(HeadVersion + "\n" + collectionID + "\n" + head + "\n")
}

// EncodeKey writes a public key as standard base64 of its 32 bytes.
func EncodeKey(pub ed25519.PublicKey) string { return base64.StdEncoding.EncodeToString(pub) }

// ParseKey reads a public key: base64 of its 32 bytes (as EncodeKey and
// GET /v1/instance write it), optionally after "ed25519:", or a PEM
// "PUBLIC KEY" block.
func ParseKey(s string) (ed25519.PublicKey, error) {
	s = strings.TrimSpace(s)
	if strings.HasPrefix(s, "-----BEGIN") {
		blk, _ := pem.Decode([]byte(s))
		if blk == nil {
			return nil, errors.New("the key is not PEM")
		}
		k, err := x509.ParsePKIXPublicKey(blk.Bytes)
		if err != nil {
			return nil, fmt.Errorf("the key: %w", err)
		}
		pub, ok := k.(ed25519.PublicKey)
		if !ok {
			return nil, errors.New("the key is not an Ed25519 key")
		}
		return pub, nil
	}
	b, err := base64.StdEncoding.DecodeString(strings.TrimPrefix(s, "ed25519:"))
	if err != nil || len(b) != ed25519.PublicKeySize {
		return nil, errors.New("the key is not base64 of a 32-byte Ed25519 public key (as `monitor version --key` prints it)")
	}
	return ed25519.PublicKey(b), nil
}

// Fingerprint is a short name of a public key that people compare: the
// first 8 bytes of its SHA-256, in hex, in groups of four.
func Fingerprint(pub ed25519.PublicKey) string {
	sum := sha256.Sum256(pub)
	h := hex.EncodeToString(sum[:8])
	return h[0:4] + " " + h[4:8] + " " + h[8:12] + " " + h[12:16]
}

// LoadKey reads a private key: a PEM "PRIVATE KEY" block (PKCS #8, as
// `openssl genpkey -algorithm ed25519` writes it) or base64 of the 32-byte
// seed.
func LoadKey(data []byte) (ed25519.PrivateKey, error) {
	s := strings.TrimSpace(string(data))
	if strings.HasPrefix(s, "-----BEGIN") {
		blk, _ := pem.Decode([]byte(s))
		if blk == nil {
			return nil, errors.New("the signing key is not PEM")
		}
		k, err := x509.ParsePKCS8PrivateKey(blk.Bytes)
		if err != nil {
			return nil, fmt.Errorf("the signing key: %w", err)
		}
		priv, ok := k.(ed25519.PrivateKey)
		if !ok {
			return nil, errors.New("the signing key is not an Ed25519 key")
		}
		return priv, nil
	}
	seed, err := base64.StdEncoding.DecodeString(s)
	if err != nil || len(seed) != ed25519.SeedSize {
		return nil, errors.New("the signing key is neither a PEM PKCS #8 Ed25519 key nor base64 of a 32-byte seed")
	}
	return ed25519.NewKeyFromSeed(seed), nil
}

// MarshalKey writes a private key as PEM PKCS #8.
func MarshalKey(key ed25519.PrivateKey) ([]byte, error) {
	der, err := x509.MarshalPKCS8PrivateKey(key)
	if err != nil {
		return nil, err
	}
	return pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: der}), nil
}

// LoadOrCreateKeyFile reads the key at path, or makes one there (mode
// 0600, written beside and renamed, so a crash never leaves half a key).
// created reports a new key.
func LoadOrCreateKeyFile(path string) (key ed25519.PrivateKey, created bool, err error) {
	data, err := os.ReadFile(path)
	if err == nil {
		key, err = LoadKey(data)
		if err != nil {
			return nil, false, fmt.Errorf("%s: %w", path, err)
		}
		return key, false, nil
	}
	if !errors.Is(err, os.ErrNotExist) {
		return nil, false, err
	}
	_, key, err = ed25519.GenerateKey(rand.Reader)
	if err != nil {
		return nil, false, err
	}
	pemBytes, err := MarshalKey(key)
	if err != nil {
		return nil, false, err
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return nil, false, err
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), ".instance.key-*")
	if err != nil {
		return nil, false, err
	}
	defer os.Remove(tmp.Name())
	if err := tmp.Chmod(0o600); err != nil {
		_ = tmp.Close()
		return nil, false, err
	}
	if _, err := tmp.Write(pemBytes); err != nil {
		_ = tmp.Close()
		return nil, false, err
	}
	if err := tmp.Sync(); err != nil {
		_ = tmp.Close()
		return nil, false, err
	}
	if err := tmp.Close(); err != nil {
		return nil, false, err
	}
	// Link, not rename: two processes starting at once keep the first key.
	if err := os.Link(tmp.Name(), path); err != nil {
		if errors.Is(err, os.ErrExist) {
			return LoadOrCreateKeyFile(path)
		}
		return nil, false, err
	}
	return key, true, nil
}
