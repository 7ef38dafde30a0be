package app

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"strconv"
	"time"

	"github.com/google/uuid"
	"github.com/riverqueue/river"

	"github.com/monitorhq/monitor/internal/adapterapi"
	"github.com/monitorhq/monitor/internal/blob"
	"github.com/monitorhq/monitor/internal/netguard"
	"github.com/monitorhq/monitor/internal/queue"
	"github.com/monitorhq/monitor/internal/store"
)

// downloadTimeout bounds one media download; large videos take a while.
const downloadTimeout = 30 * time.Minute

// reserveStep is how much more quota a download of unknown or growing size
// reserves at a time.
const reserveStep = 4 << 20

// mediaUserAgent identifies Monitor to media hosts.
const mediaUserAgent = "Monitor/1 (+self-hosted archive)"

type downloadWorker struct {
	river.WorkerDefaults[queue.DownloadArgs]
	app *App
}

// Timeout bounds one download attempt.
func (w *downloadWorker) Timeout(*river.Job[queue.DownloadArgs]) time.Duration {
	return downloadTimeout
}

func (w *downloadWorker) Work(ctx context.Context, job *river.Job[queue.DownloadArgs]) error {
	return w.app.runDownload(store.WithTenant(ctx, job.Args.TenantID), job.Args.AssetID)
}

// downloadError is a failed download: permanent ones fail the asset,
// retryable ones are tried again after wait.
type downloadError struct {
	msg       string
	retryable bool
	wait      time.Duration
}

func (e *downloadError) Error() string { return e.msg }

func permanent(format string, args ...any) error {
	return &downloadError{msg: fmt.Sprintf(format, args...)}
}

func retryable(wait time.Duration, format string, args ...any) error {
	return &downloadError{msg: fmt.Sprintf(format, args...), retryable: true, wait: wait}
}

// runDownload stores one asset's media: reserve quota, record a pending
// object, stream the bytes into the blob store while hashing, then reuse an
// existing blob with the same content or attach the new one.
func (a *App) runDownload(ctx context.Context, id uuid.UUID) error {
	var as store.Asset
	done := false
	err := a.store.InTx(ctx, func(tx *store.Tx) error {
		var err error
		if as, err = tx.AssetGet(ctx, id); err != nil {
			return err
		}
		if as.State != store.AssetPending && as.State != store.AssetDownloading {
			done = true
			return a.afterAsset(ctx, tx, as.CaptureID, as.TenantID)
		}
		// Immutable media already stored under the same cache key need no
		// second download.
		if b, err := tx.AssetBlobByCacheKey(ctx, as.DataScope, as.AccessScope, as.CacheKey); err == nil {
			done = true
			if err := tx.AssetAttach(ctx, as.ID, b.ID, b.Size, b.Mime); err != nil {
				return err
			}
			return a.afterAsset(ctx, tx, as.CaptureID, as.TenantID)
		} else if !errors.Is(err, store.ErrNotFound) {
			return err
		}
		return tx.AssetSetState(ctx, as.ID, store.AssetDownloading, "", false)
	})
	if err != nil || done {
		return err
	}

	err = a.download(ctx, as)
	if err == nil {
		return nil
	}
	bg := context.WithoutCancel(ctx)
	if ctx.Err() != nil {
		// Shutting down: the job comes back at the next start.
		_ = a.store.InTx(bg, func(tx *store.Tx) error { return tx.AssetSetState(bg, as.ID, store.AssetPending, "", false) })
		return river.JobSnooze(0)
	}
	var de *downloadError
	if !errors.As(err, &de) {
		return err // our own failure (database, blob store): River retries
	}
	attempts := as.Attempts + 1
	if de.retryable && attempts < a.limits.Attempts {
		wait := de.wait
		if wait <= 0 {
			wait = a.limits.RetryDelay << (attempts - 1)
		}
		a.log.InfoContext(ctx, "download will retry", slog.String("asset", as.ID.String()),
			slog.Int("attempt", attempts), slog.Duration("wait", wait), slog.String("err", de.msg))
		if err := a.store.InTx(bg, func(tx *store.Tx) error {
			return tx.AssetSetState(bg, as.ID, store.AssetPending, de.msg, true)
		}); err != nil {
			return err
		}
		return river.JobSnooze(wait)
	}
	msg := de.msg
	if de.retryable {
		msg = fmt.Sprintf("%s (gave up after %d attempts)", msg, attempts)
	}
	a.log.InfoContext(ctx, "download failed", slog.String("asset", as.ID.String()), slog.String("err", msg))
	a.LogError(ctx, ErrorRecord{Source: SourceDownload, Stage: "download", Message: "media download failed", Detail: msg,
		Context: map[string]string{"asset_id": as.ID.String(), "kind": as.Kind}, CaptureID: as.CaptureID, TenantID: as.TenantID})
	return a.store.InTx(bg, func(tx *store.Tx) error {
		if err := tx.AssetSetState(bg, as.ID, store.AssetFailed, msg, true); err != nil {
			return err
		}
		return a.afterAsset(bg, tx, as.CaptureID, as.TenantID)
	})
}

// download streams the media and attaches it. Any reservation it made is
// given back when it fails; on success it stays until finalize.
func (a *App) download(ctx context.Context, as store.Asset) (err error) {
	body, err := a.openMedia(ctx, as)
	if err != nil {
		return err
	}
	defer body.r.Close()
	limit := a.limits.MaxMediaBytes
	if body.length > limit {
		return permanent("media is %d bytes, over the %d-byte limit for one file", body.length, limit)
	}

	meter := &meter{app: a, ctx: ctx, asset: as, max: limit}
	defer func() {
		if err != nil {
			bg := context.WithoutCancel(ctx)
			_ = a.store.InTx(bg, func(tx *store.Tx) error {
				return tx.AssetReserve(bg, as.ID, as.TenantID, -meter.reserved)
			})
		}
	}()
	if err := meter.reserve(max64(body.length, 0)); err != nil {
		return err
	}

	objectID := uuid.Must(uuid.NewV7())
	key := blob.ObjectKey(as.TenantID, objectID)
	if err := a.store.InTx(ctx, func(tx *store.Tx) error {
		return tx.ObjectInsertPending(ctx, store.Object{ID: objectID, TenantID: as.TenantID, Key: key})
	}); err != nil {
		return err
	}
	meter.r = body.r
	info, err := a.blob.Put(ctx, key, meter)
	if err == nil && body.length >= 0 && info.Size != body.length {
		err = retryable(0, "the media download was cut short: got %d of %d bytes", info.Size, body.length)
	}
	if err != nil {
		// The bytes are ours to remove; only if that fails is the object
		// left for the garbage collector.
		bg := context.WithoutCancel(ctx)
		deleted := a.blob.Delete(bg, key) == nil
		_ = a.store.InTx(bg, func(tx *store.Tx) error {
			if deleted {
				return tx.ObjectDelete(bg, objectID)
			}
			return tx.ObjectSetState(bg, objectID, store.ObjectGarbage, 0, "")
		})
		var de *downloadError
		switch {
		case errors.As(err, &de), errors.Is(err, ErrQuota):
			return err
		case ctx.Err() != nil:
			return ctx.Err()
		case errors.Is(err, io.ErrUnexpectedEOF) || isReadError(err):
			return retryable(0, "the media download was cut short: %v", err)
		}
		return fmt.Errorf("app: store media: %w", err)
	}

	mime := body.mime
	return a.store.InTx(ctx, func(tx *store.Tx) error {
		b, _, err := archiveWriter{}.attachBlob(ctx, tx, blobInput{
			DataScope: as.DataScope, AccessScope: as.AccessScope, Visibility: as.Visibility, TenantID: as.TenantID,
			SHA256: info.SHA256, Mime: firstNonEmpty(mime, as.Mime), Object: &storedObject{ID: objectID, Size: info.Size},
		})
		if err != nil {
			return err
		}
		if err := tx.AssetAttach(ctx, as.ID, b.ID, info.Size, mime); err != nil {
			return err
		}
		// Keep exactly the stored size reserved until finalize.
		if err := tx.AssetReserve(ctx, as.ID, as.TenantID, info.Size-meter.reserved); err != nil {
			return err
		}
		meter.reserved = info.Size
		return a.afterAsset(ctx, tx, as.CaptureID, as.TenantID)
	})
}

// mediaBody is what a download reads: a media host's HTTP body, or the
// stream of an adapter that alone can read the medium.
type mediaBody struct {
	r io.ReadCloser
	// length is the size announced up front (-1: unknown).
	length int64
	mime   string
}

// openMedia starts reading an asset's bytes: by its URL, or for media
// without one through the adapter's ReadMedia with the credential of the
// capture that fetched it.
func (a *App) openMedia(ctx context.Context, as store.Asset) (mediaBody, error) {
	if as.StreamRef != "" {
		return a.openStream(ctx, as)
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, as.SourceURL, nil)
	if err != nil {
		return mediaBody{}, permanent("media address %q is not usable: %v", as.SourceURL, err)
	}
	if netguard.CheckURL(req.URL) != nil {
		return mediaBody{}, permanent("media address %q is not an http or https address; Monitor fetches media only over http and https", as.SourceURL)
	}
	allow, err := a.fetchAllowHosts(ctx)
	if err != nil {
		return mediaBody{}, err
	}
	req = req.WithContext(netguard.WithAllow(ctx, allow))
	req.Header.Set("User-Agent", mediaUserAgent)
	resp, err := a.http.Do(req)
	if err != nil {
		if ctx.Err() != nil {
			return mediaBody{}, ctx.Err()
		}
		if refused := fetchRefusal(err); refused != nil {
			return mediaBody{}, refused
		}
		return mediaBody{}, retryable(0, "could not reach the media host: %v", err)
	}
	if e := mediaStatusError(resp, a.now()); e != nil {
		resp.Body.Close()
		return mediaBody{}, e
	}
	return mediaBody{r: resp.Body, length: resp.ContentLength, mime: resp.Header.Get("Content-Type")}, nil
}

// openStream reads a medium through its adapter. The capture's account
// must still hold the credential the capture ran with.
func (a *App) openStream(ctx context.Context, as store.Asset) (mediaBody, error) {
	var c store.Capture
	if err := a.store.InTx(ctx, func(tx *store.Tx) (err error) {
		c, err = tx.CaptureGet(ctx, as.CaptureID)
		return err
	}); err != nil {
		return mediaBody{}, err
	}
	if c.ConnectionID == nil {
		return mediaBody{}, permanent("the adapter gave a media reference to a capture without an account")
	}
	cred, err := a.fetchCredential(ctx, c)
	if err != nil {
		var ue *userError
		if errors.As(err, &ue) {
			return mediaBody{}, permanent("%s", ue.msg)
		}
		return mediaBody{}, err
	}
	ms, err := a.adapters.ReadMedia(ctx, c.AdapterID, c.Provider, cred, as.StreamRef)
	if err != nil {
		if ctx.Err() != nil {
			return mediaBody{}, ctx.Err()
		}
		return mediaBody{}, streamError(err)
	}
	length := ms.Size
	if length <= 0 {
		length = -1
	}
	return mediaBody{r: ms, length: length, mime: ms.Mime}, nil
}

// streamError classifies an adapter's failure to stream a medium: what
// it says may pass is tried again (after its wait), the rest fails the
// asset with its words.
func streamError(err error) error {
	var ae *adapterapi.Error
	if !errors.As(err, &ae) {
		return retryable(0, "the media stream failed: %v", err)
	}
	if ae.Retryable {
		return retryable(ae.RetryAfter, "%s", ae.Message)
	}
	return permanent("%s", ae.Message)
}

// afterAsset starts finalizing once every asset of the capture is
// terminal. Only the transaction that ends the last asset sees that.
func (a *App) afterAsset(ctx context.Context, tx *store.Tx, captureID, tenantID uuid.UUID) error {
	if err := tx.CaptureLock(ctx, captureID); err != nil {
		return err
	}
	n, err := tx.AssetsPending(ctx, captureID)
	if err != nil || n > 0 {
		return err
	}
	return a.finalizeInline(ctx, tx, captureID, tenantID)
}

// mediaStatusError classifies a media host's answer received at now.
func mediaStatusError(resp *http.Response, now time.Time) error {
	switch c := resp.StatusCode; {
	case c >= 200 && c < 300:
		return nil
	case c == http.StatusTooManyRequests || c == http.StatusRequestTimeout || c >= 500:
		return retryable(retryAfter(resp.Header.Get("Retry-After"), now), "the media host answered %s", resp.Status)
	default:
		return permanent("the media host answered %s", resp.Status)
	}
}

// retryAfter reads a Retry-After header (seconds or an HTTP date, counted
// from now), capped at an hour.
func retryAfter(v string, now time.Time) time.Duration {
	if v == "" {
		return 0
	}
	var d time.Duration
	if n, err := strconv.Atoi(v); err == nil {
		d = time.Duration(n) * time.Second
	} else if t, err := http.ParseTime(v); err == nil {
		d = t.Sub(now)
	}
	return min(max(d, 0), time.Hour)
}

// meter reads the media body for the blob store, enforcing the size limit
// and growing the quota reservation as bytes arrive.
type meter struct {
	app      *App
	ctx      context.Context
	asset    store.Asset
	r        io.Reader
	max      int64
	read     int64
	reserved int64
}

func (m *meter) Read(p []byte) (int, error) {
	n, err := m.r.Read(p)
	m.read += int64(n)
	m.app.metrics.DownloadedBytes(n)
	if m.read > m.max {
		return n, permanent("media is over the %d-byte limit for one file", m.max)
	}
	if m.read > m.reserved {
		if rerr := m.reserve(max64(m.read-m.reserved, reserveStep)); rerr != nil {
			return n, rerr
		}
	}
	if err != nil && err != io.EOF {
		var ae *adapterapi.Error
		if errors.As(err, &ae) {
			return n, streamError(ae)
		}
		return n, &readError{err}
	}
	return n, err
}

// reserve adds n bytes to the asset's reservation when the tenant's quota
// has room for them.
func (m *meter) reserve(n int64) error {
	if n <= 0 {
		return nil
	}
	err := m.app.store.InTx(m.ctx, func(tx *store.Tx) error {
		t, err := tx.TenantGetByID(m.ctx, m.asset.TenantID)
		if err != nil {
			return err
		}
		if t.QuotaBytes != nil {
			u, err := tx.TenantUsage(m.ctx, t.ID, nil)
			if err != nil {
				return err
			}
			if u.UsedBytes+u.ReservedBytes+n > *t.QuotaBytes {
				return &QuotaError{UsedBytes: u.UsedBytes, ReservedBytes: u.ReservedBytes, QuotaBytes: *t.QuotaBytes, AddBytes: n}
			}
		}
		return tx.AssetReserve(m.ctx, m.asset.ID, t.ID, n)
	})
	if errors.Is(err, ErrQuota) {
		return permanent("%v", err)
	}
	if err == nil {
		m.reserved += n
	}
	return err
}

// readError marks a failure reading the upstream body, which is worth a
// retry, apart from failures writing the blob store.
type readError struct{ err error }

func (e *readError) Error() string { return e.err.Error() }
func (e *readError) Unwrap() error { return e.err }

func isReadError(err error) bool {
	var re *readError
	return errors.As(err, &re)
}

func max64(a, b int64) int64 {
	if a > b {
		return a
	}
	return b
}
