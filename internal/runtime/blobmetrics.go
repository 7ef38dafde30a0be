package runtime

import (
	"context"
	"errors"
	"io"

	"github.com/monitorhq/monitor/internal/blob"
	"github.com/monitorhq/monitor/internal/metrics"
)

// countedBlob is a media store whose every call is counted in
// monitor_blob_operations_total{op,result}.
type countedBlob struct {
	blob.Store
	m *metrics.Metrics
}

// countBlob wraps st so its calls are counted (st itself when m is nil).
func countBlob(st blob.Store, m *metrics.Metrics) blob.Store {
	if m == nil {
		return st
	}
	return &countedBlob{Store: st, m: m}
}

func (c *countedBlob) count(op string, err error) {
	result := metrics.ResultOK
	switch {
	case errors.Is(err, blob.ErrNotFound):
		result = metrics.ResultNotFound
	case err != nil:
		result = metrics.ResultError
	}
	c.m.BlobOperation(op, result)
}

func (c *countedBlob) Put(ctx context.Context, key string, r io.Reader) (blob.Info, error) {
	info, err := c.Store.Put(ctx, key, r)
	c.count("put", err)
	return info, err
}

func (c *countedBlob) Get(ctx context.Context, key string, rng *blob.Range) (io.ReadCloser, blob.Info, error) {
	rc, info, err := c.Store.Get(ctx, key, rng)
	c.count("get", err)
	return rc, info, err
}

func (c *countedBlob) Stat(ctx context.Context, key string) (blob.Info, error) {
	info, err := c.Store.Stat(ctx, key)
	c.count("stat", err)
	return info, err
}

func (c *countedBlob) Delete(ctx context.Context, key string) error {
	err := c.Store.Delete(ctx, key)
	c.count("delete", err)
	return err
}

func (c *countedBlob) List(ctx context.Context, prefix string, fn func(blob.Info) error) error {
	err := c.Store.List(ctx, prefix, fn)
	c.count("list", err)
	return err
}
