// Package blob stores Monitor's media bytes: immutable objects under
// slash-separated keys, kept in files under the data directory (FS) or, in
// scale mode, in an S3-compatible bucket. Both sit behind the small Store
// interface; the conformance suite in blob/blobtest keeps them interchangeable.
package blob

import (
	"context"
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/google/uuid"
)

// Store keeps immutable media bytes under slash-separated keys.
//
// Keys must pass ValidateKey. Implementations are safe for concurrent use.
type Store interface {
	// Put streams r into the object at key, computing its size and SHA-256
	// while writing and never holding the whole object in memory. An existing
	// object is replaced atomically: readers see the old bytes or the new ones,
	// never a mix. When r fails or ctx is cancelled, Put returns that error and
	// leaves no new object behind (a previous object stays intact).
	Put(ctx context.Context, key string, r io.Reader) (Info, error)

	// Get opens the object at key. A nil rng reads the whole object; otherwise
	// only the bytes described by rng (see Range). The returned Info describes
	// the whole object, not the range. The caller must close the reader.
	Get(ctx context.Context, key string, rng *Range) (io.ReadCloser, Info, error)

	// Stat describes the object at key without reading it.
	Stat(ctx context.Context, key string) (Info, error)

	// Delete removes the object at key. Deleting a missing key is not an
	// error, so garbage collection can retry freely.
	Delete(ctx context.Context, key string) error

	// List calls fn for every object whose key starts with prefix, in lexical
	// (byte-wise) key order. The prefix may be empty or end in the middle of a
	// segment. List stops at the first error fn returns and returns it.
	List(ctx context.Context, prefix string, fn func(Info) error) error
}

// Info describes a stored object.
type Info struct {
	// Key is the object's key.
	Key string
	// Size is the object's length in bytes.
	Size int64
	// SHA256 is the lowercase hex SHA-256 of the object. Put always fills it;
	// Get, Stat and List may leave it empty when the store does not keep it.
	SHA256 string
	// ModTime is when the object was last written.
	ModTime time.Time
}

// Range selects part of an object for Get.
//
// Offset must lie within the object (0 ≤ Offset ≤ size); an Offset equal to
// the size selects nothing. A negative Length reads to the end; a Length that
// runs past the end is cut at the end, as HTTP range requests are.
type Range struct {
	// Offset is the first byte to read.
	Offset int64
	// Length is how many bytes to read; negative means to the end.
	Length int64
}

// Sentinel errors returned (wrapped) by every Store; compare with errors.Is.
var (
	// ErrNotFound means no object exists at the key.
	ErrNotFound = errors.New("object not found")
	// ErrInvalidKey means a key or list prefix breaks the rules of ValidateKey.
	ErrInvalidKey = errors.New("invalid key")
	// ErrInvalidRange means a Range does not fit the object.
	ErrInvalidRange = errors.New("invalid range")
)

// MaxKeyLen is the longest key ValidateKey accepts, in bytes.
const MaxKeyLen = 512

// MaxSegmentLen is the longest key segment ValidateKey accepts, in bytes. It
// matches the common file-name limit (NAME_MAX), so every valid key can be
// stored by the file implementation.
const MaxSegmentLen = 255

// ObjectKey returns the key of a tenant's object: "<tenant_id>/objects/<object_id>".
func ObjectKey(tenantID, objectID uuid.UUID) string {
	return tenantID.String() + "/objects/" + objectID.String()
}

// ValidateKey reports whether key is a valid object key, returning an error
// wrapping ErrInvalidKey if not. A valid key is 1 to MaxKeyLen bytes of
// slash-separated segments; each segment is non-empty, not "." or "..", at
// most MaxSegmentLen bytes, and made only of A-Z, a-z, 0-9, '.', '_' and '-'.
// So a key has no leading, trailing or doubled slash and can never name a
// path outside a store's root. Every Store implementation applies it.
func ValidateKey(key string) error {
	if err := checkKey(key); err != nil {
		return fmt.Errorf("blob: %w", err)
	}
	return nil
}

// checkKey is ValidateKey without the package prefix, for callers that add
// their own context.
func checkKey(key string) error {
	if reason := keyProblem(key); reason != "" {
		return fmt.Errorf("%w %s: %s", ErrInvalidKey, quoteKey(key), reason)
	}
	return nil
}

func keyProblem(key string) string {
	switch {
	case key == "":
		return "empty"
	case len(key) > MaxKeyLen:
		return fmt.Sprintf("longer than %d bytes", MaxKeyLen)
	}
	start := 0
	for i := 0; i <= len(key); i++ {
		if i < len(key) && key[i] != '/' {
			if !keyChar(key[i]) {
				return fmt.Sprintf("character %q is not allowed (only A-Z a-z 0-9 . _ - and /)", key[i])
			}
			continue
		}
		if reason := segmentProblem(key[start:i]); reason != "" {
			return reason
		}
		start = i + 1
	}
	return ""
}

func segmentProblem(seg string) string {
	switch {
	case seg == "":
		return "empty segment (leading, trailing or doubled slash)"
	case seg == "." || seg == "..":
		return fmt.Sprintf("segment %q is not allowed", seg)
	case len(seg) > MaxSegmentLen:
		return fmt.Sprintf("segment longer than %d bytes", MaxSegmentLen)
	}
	return ""
}

func keyChar(c byte) bool {
	return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' ||
		c == '.' || c == '_' || c == '-'
}

// checkPrefix validates a List prefix: empty, or made of the characters keys
// use, where every complete segment (one followed by a slash) is a valid key
// segment and no segment is "..". The last segment may be partial or empty.
func checkPrefix(prefix string) error {
	if reason := prefixProblem(prefix); reason != "" {
		return fmt.Errorf("%w: prefix %s: %s", ErrInvalidKey, quoteKey(prefix), reason)
	}
	return nil
}

func prefixProblem(prefix string) string {
	if len(prefix) > MaxKeyLen {
		return fmt.Sprintf("longer than %d bytes", MaxKeyLen)
	}
	start := 0
	for i := 0; i < len(prefix); i++ {
		if prefix[i] != '/' {
			if !keyChar(prefix[i]) {
				return fmt.Sprintf("character %q is not allowed (only A-Z a-z 0-9 . _ - and /)", prefix[i])
			}
			continue
		}
		if reason := segmentProblem(prefix[start:i]); reason != "" {
			return reason
		}
		start = i + 1
	}
	if last := prefix[start:]; last == ".." || len(last) > MaxSegmentLen {
		return fmt.Sprintf("segment %q is not allowed", last)
	}
	return ""
}

// bounds resolves rng against an object of the given size, returning the
// offset and length to read.
func (rng *Range) bounds(size int64) (off, n int64, err error) {
	if rng == nil {
		return 0, size, nil
	}
	if rng.Offset < 0 || rng.Offset > size {
		return 0, 0, fmt.Errorf("%w: offset %d outside %d-byte object", ErrInvalidRange, rng.Offset, size)
	}
	n = size - rng.Offset
	if rng.Length >= 0 && rng.Length < n {
		n = rng.Length
	}
	return rng.Offset, n, nil
}

// quoteKey quotes a key for an error message, shortening very long ones.
func quoteKey(key string) string {
	const max = 80
	if len(key) > max {
		return fmt.Sprintf("%q… (%d bytes)", key[:max], len(key))
	}
	return fmt.Sprintf("%q", key)
}
