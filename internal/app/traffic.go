package app

import (
	"context"
	"io"
	"net/http"
	"sync/atomic"

	"github.com/monitorhq/monitor/internal/blob"
)

// traffic counts the bytes the process moves, for the download and upload
// rates of the system metric samples: downloaded are the bytes of upstream
// answers read through the business layer's HTTP client (media fetches),
// uploaded the bytes of stored media read out to people and channels
// (REST, web, the bot, exports).
type traffic struct {
	down, up atomic.Int64
}

// totals are the bytes counted since the process started.
func (t *traffic) totals() (down, up int64) { return t.down.Load(), t.up.Load() }

// countDownloads makes c count the bytes of every answer body it reads.
func (t *traffic) countDownloads(c *http.Client) *http.Client {
	next := c.Transport
	if next == nil {
		next = http.DefaultTransport
	}
	cc := *c
	cc.Transport = roundTripFunc(func(r *http.Request) (*http.Response, error) {
		resp, err := next.RoundTrip(r)
		if resp != nil && resp.Body != nil {
			resp.Body = &countingReader{ReadCloser: resp.Body, n: &t.down}
		}
		return resp, err
	})
	return &cc
}

type roundTripFunc func(*http.Request) (*http.Response, error)

func (f roundTripFunc) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }

// countingReader adds what is read through it to n.
type countingReader struct {
	io.ReadCloser
	n *atomic.Int64
}

func (c *countingReader) Read(p []byte) (int, error) {
	k, err := c.ReadCloser.Read(p)
	c.n.Add(int64(k))
	return k, err
}

// countingBlob is a blob store whose reads count as uploaded bytes.
type countingBlob struct {
	blob.Store
	n *atomic.Int64
}

// Unwrap is the store counted, for blob.NewBatch.
func (b countingBlob) Unwrap() blob.Store { return b.Store }

// Get opens the object and counts the bytes read from it.
func (b countingBlob) Get(ctx context.Context, key string, rng *blob.Range) (io.ReadCloser, blob.Info, error) {
	rc, info, err := b.Store.Get(ctx, key, rng)
	if err != nil {
		return rc, info, err
	}
	return &countingReader{ReadCloser: rc, n: b.n}, info, nil
}
