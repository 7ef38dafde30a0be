// Package chain is the verifiable archive's arithmetic: the canonical
// encoding and hash that chain a collection's revisions (monitor-chain-v1),
// the monitor.sum file of a capsule and its Ed25519 signature, the signed
// statement over a chain's head, and the instance key. It is a leaf: the
// store (backfill), app (finalize, import, verify, proof), the capsule
// export and the offline verifier all use this one definition, and
// docs/verify.md writes it down for people checking an archive with other
// tools.
package chain

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"slices"
	"strconv"
	"strings"
	"time"
)

// Version names the chain encoding; it is the first line of every
// encoded link, so a later encoding can never collide with this one.
const Version = "monitor-chain-v1"

// TimeLayout is how a link writes its time: RFC 3339 in UTC with all nine
// fractional digits, so one instant has one spelling.
const TimeLayout = "2006-01-02T15:04:05.000000000Z"

// Link is what one revision's chain hash covers.
type Link struct {
	// PrevHash is the chain hash of the collection's previous revision,
	// "" for its first.
	PrevHash string
	// ContentHash is the revision's content hash (hex SHA-256 of its
	// canonical content).
	ContentHash string
	// Media are the SHA-256s of the media the revision shows (display media
	// and entity resources), in any order: Encode sorts and deduplicates.
	Media []string
	// Raw are the SHA-256s of the raw upstream responses of the capture
	// that produced the revision, in any order: Encode sorts them.
	Raw []string
	// CapturedAt is when the revision was captured.
	CapturedAt time.Time
	// AdapterID and AdapterVersion name the adapter that fetched it.
	AdapterID      string
	AdapterVersion string
}

// Encode writes the link in the canonical encoding monitor-chain-v1:
//
//	monitor-chain-v1\n
//	prev <len>:<prev_hash>\n
//	content <len>:<content_hash>\n
//	media <n>\n     then n lines <len>:<sha256>\n, sorted, without repeats
//	raw <n>\n       then n lines <len>:<sha256>\n, sorted
//	captured_at <len>:<time in TimeLayout>\n
//	adapter <len>:<adapter id>\n
//	adapter_version <len>:<adapter version>\n
//
// where <len> is the value's length in bytes, in decimal. Hashes are
// lowercase hex.
func (l Link) Encode() []byte {
	var b strings.Builder
	b.WriteString(Version + "\n")
	field := func(name, v string) {
		b.WriteString(name)
		b.WriteByte(' ')
		value(&b, v)
	}
	list := func(name string, vs []string) {
		b.WriteString(name + " " + strconv.Itoa(len(vs)) + "\n")
		for _, v := range vs {
			value(&b, v)
		}
	}
	field("prev", l.PrevHash)
	field("content", l.ContentHash)
	list("media", SortedSet(l.Media))
	raw := slices.Clone(l.Raw)
	slices.Sort(raw)
	list("raw", raw)
	field("captured_at", FormatTime(l.CapturedAt))
	field("adapter", l.AdapterID)
	field("adapter_version", l.AdapterVersion)
	return []byte(b.String())
}

func value(b *strings.Builder, v string) {
	b.WriteString(strconv.Itoa(len(v)))
	b.WriteByte(':')
	b.WriteString(v)
	b.WriteByte('\n')
}

// Hash is the link's chain hash: the hex SHA-256 of its encoding.
func (l Link) Hash() string {
	sum := sha256.Sum256(l.Encode())
	return hex.EncodeToString(sum[:])
}

// FormatTime writes a time as a link does.
func FormatTime(t time.Time) string { return t.UTC().Format(TimeLayout) }

// SortedSet sorts a copy of vs and drops repeats and empty values.
func SortedSet(vs []string) []string {
	out := make([]string, 0, len(vs))
	for _, v := range vs {
		if v != "" {
			out = append(out, v)
		}
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// Problem is one place where a chain does not hold.
type Problem struct {
	// Index is the revision, oldest first.
	Index int
	// Field is prev_hash or chain_hash.
	Field   string
	Message string
}

// Check recomputes a collection's chain: links oldest first, claimed the
// chain hash each revision records. The first link's PrevHash may be
// anything when openStart (a chain whose earlier revisions are not at
// hand, such as a capsule exported without --history); otherwise it must be
// "". It returns every break.
func Check(links []Link, claimed []string, openStart bool) []Problem {
	var out []Problem
	for i, l := range links {
		switch {
		case i == 0 && !openStart && l.PrevHash != "":
			out = append(out, Problem{i, "prev_hash", "the first revision names a previous one (" + short(l.PrevHash) + "), so an earlier revision is missing"})
		case i > 0 && l.PrevHash != claimed[i-1]:
			out = append(out, Problem{i, "prev_hash", "is " + short(l.PrevHash) + ", but the revision before it has chain hash " + short(claimed[i-1]) + ": a revision was dropped, added or moved"})
		}
		if got := l.Hash(); got != claimed[i] {
			out = append(out, Problem{i, "chain_hash", "recomputed as " + short(got) + " from the revision's fields, but " + short(claimed[i]) + " is recorded: the revision was changed"})
		}
	}
	return out
}

// short abbreviates a hash for messages.
func short(h string) string {
	if h == "" {
		return `""`
	}
	if len(h) > 16 {
		return h[:16] + "…"
	}
	return h
}

// MediaOfContent lists the media a revision's content shows: the sha256
// of every entry of its "media" and of every "resources" entry of its
// graph's entities, as a link's Media. It reads only those fields of the
// canonical content JSON.
func MediaOfContent(content []byte) ([]string, error) {
	var doc struct {
		Media []struct {
			SHA256 string `json:"sha256"`
		} `json:"media"`
		Graph struct {
			Entities []struct {
				Resources []struct {
					SHA256 string `json:"sha256"`
				} `json:"resources"`
			} `json:"entities"`
		} `json:"graph"`
	}
	if err := json.Unmarshal(content, &doc); err != nil {
		return nil, err
	}
	var out []string
	for _, m := range doc.Media {
		out = append(out, m.SHA256)
	}
	for _, e := range doc.Graph.Entities {
		for _, r := range e.Resources {
			out = append(out, r.SHA256)
		}
	}
	return SortedSet(out), nil
}

// JoinRaw writes a list of raw-response SHA-256s sorted and comma
// separated, as the store keeps them; SplitRaw reads it back.
func JoinRaw(raw []string) string {
	s := slices.Clone(raw)
	slices.Sort(s)
	return strings.Join(s, ",")
}

// SplitRaw reads JoinRaw's form.
func SplitRaw(s string) []string {
	if s == "" {
		return nil
	}
	return strings.Split(s, ",")
}

// SortedSetKeep sorts a copy of vs, keeping repeats: the order Encode
// writes Raw in.
func SortedSetKeep(vs []string) []string {
	out := slices.Clone(vs)
	slices.Sort(out)
	return out
}

// ParseTime reads a time as FormatTime writes it (any RFC 3339 time is
// accepted).
func ParseTime(s string) (time.Time, error) {
	t, err := time.Parse(time.RFC3339Nano, s)
	return t.UTC(), err
}
