package app

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"strconv"
	"sync"
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
	if wait := job.Args.NotBefore.Sub(w.app.now()); wait > 0 {
		return river.JobSnooze(wait) // a retry waiting out its delay
	}
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
		if reused, err := a.reuseCached(ctx, tx, as); err != nil || reused {
			done = reused
			if err != nil {
				return err
			}
			return a.afterAsset(ctx, tx, as.CaptureID, as.TenantID)
		}
		return tx.AssetSetState(ctx, as.ID, store.AssetDownloading, "", false)
	})
	if err != nil || done {
		return err
	}

	got, err := a.fetchMedia(ctx, as)
	if err == nil {
		err = a.store.InTx(ctx, func(tx *store.Tx) error {
			if err := a.attachFetched(ctx, tx, as, got); err != nil {
				return err
			}
			return a.afterAsset(ctx, tx, as.CaptureID, as.TenantID)
		})
		if err != nil {
			a.unreserve(ctx, as, got.reserved)
		}
		return err
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
	end := a.attemptEnd(as, de)
	a.logAttemptEnd(ctx, as, end)
	if err := a.store.InTx(bg, func(tx *store.Tx) error {
		if err := end.record(bg, tx, as); err != nil || end.retry {
			return err
		}
		return a.afterAsset(bg, tx, as.CaptureID, as.TenantID)
	}); err != nil {
		return err
	}
	if end.retry {
		return river.JobSnooze(end.wait)
	}
	return nil
}

// reuseCached attaches to as the blob already stored under its cache key,
// if any: immutable media need no second download.
func (a *App) reuseCached(ctx context.Context, tx *store.Tx, as store.Asset) (bool, error) {
	b, err := tx.AssetBlobByCacheKey(ctx, as.DataScope, as.AccessScope, as.CacheKey)
	if errors.Is(err, store.ErrNotFound) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	return true, tx.AssetAttach(ctx, as.ID, b.ID, b.Size, b.Mime)
}

// attempt is how a failed download attempt ends: retry after wait, or
// fail the asset with msg.
type attempt struct {
	retry bool
	wait  time.Duration
	msg   string
}

// attemptEnd decides what a failed attempt of as leads to: a retryable
// failure is tried again (after the host's Retry-After, else a doubling
// delay) until the attempts run out.
func (a *App) attemptEnd(as store.Asset, de *downloadError) attempt {
	attempts := as.Attempts + 1
	if de.retryable && attempts < a.limits.Attempts {
		wait := de.wait
		if wait <= 0 {
			wait = a.limits.RetryDelay << (attempts - 1)
		}
		return attempt{retry: true, wait: wait, msg: de.msg}
	}
	msg := de.msg
	if de.retryable {
		msg = fmt.Sprintf("%s (gave up after %d attempts)", msg, attempts)
	}
	return attempt{msg: msg}
}

// record counts the attempt on as: back to pending for a retry, else
// failed.
func (e attempt) record(ctx context.Context, tx *store.Tx, as store.Asset) error {
	state := store.AssetFailed
	if e.retry {
		state = store.AssetPending
	}
	return tx.AssetSetState(ctx, as.ID, state, e.msg, true)
}

// logAttemptEnd says how the attempt ended; a failed asset goes to the
// error log too.
func (a *App) logAttemptEnd(ctx context.Context, as store.Asset, e attempt) {
	if e.retry {
		a.log.InfoContext(ctx, "download will retry", slog.String("asset", as.ID.String()),
			slog.Int("attempt", as.Attempts+1), slog.Duration("wait", e.wait), slog.String("err", e.msg))
		return
	}
	a.log.InfoContext(ctx, "download failed", slog.String("asset", as.ID.String()), slog.String("err", e.msg))
	a.LogError(ctx, ErrorRecord{Source: SourceDownload, Stage: "download", Message: "media download failed", Detail: e.msg,
		Context: map[string]string{"asset_id": as.ID.String(), "kind": as.Kind}, CaptureID: as.CaptureID, TenantID: as.TenantID})
}

// fetched is a medium stored in the blob store as a pending object, not
// yet attached to its asset.
type fetched struct {
	objectID uuid.UUID
	sha256   string
	size     int64
	mime     string
	// reserved is the asset's quota reservation the download made.
	reserved int64
}

// fetchMedia streams as's media into the blob store, reserving quota as
// the bytes come. When it fails, what it reserved is given back and what
// it stored is removed (or left to the garbage collector).
func (a *App) fetchMedia(ctx context.Context, as store.Asset) (fetched, error) {
	m, err := a.openPending(ctx, as)
	if err != nil {
		return fetched{}, err
	}
	defer m.body.r.Close()
	if err := a.recordPending(ctx, []*pendingMedia{m}); err != nil {
		return fetched{}, err
	}
	if m.err != nil {
		return fetched{}, m.err
	}
	return a.storePending(ctx, m)
}

// pendingMedia is a medium on its way into the blob store: its body is
// open, and once recordPending has run its object is recorded as pending
// and its announced size reserved, unless err says why it cannot go on.
type pendingMedia struct {
	as     store.Asset
	body   mediaBody
	meter  *meter
	object store.Object
	err    error
}

// openPending starts reading as's media and checks its announced size.
func (a *App) openPending(ctx context.Context, as store.Asset) (*pendingMedia, error) {
	body, err := a.openMedia(ctx, as)
	if err != nil {
		return nil, err
	}
	limit := a.limits.MaxMediaBytes
	if body.length > limit {
		body.r.Close()
		return nil, permanent("media is %d bytes, over the %d-byte limit for one file", body.length, limit)
	}
	id := uuid.Must(uuid.NewV7())
	return &pendingMedia{as: as, body: body, meter: &meter{app: a, ctx: ctx, asset: as, max: limit},
		object: store.Object{ID: id, TenantID: as.TenantID, Key: blob.ObjectKey(as.TenantID, id)}}, nil
}

// recordPending records the media's pending objects and reserves their
// announced sizes in one transaction, checking each against its tenant's
// quota in turn: one that does not fit gets the quota error as its err
// (and no object), the others go on.
func (a *App) recordPending(ctx context.Context, media []*pendingMedia) error {
	reserved := make([]int64, len(media))
	err := a.store.InTx(ctx, func(tx *store.Tx) error {
		quotas := map[uuid.UUID]*QuotaError{} // tenant → its quota and use; nil: no quota
		for i, m := range media {
			reserved[i], m.err = 0, nil
			n := max(m.body.length, 0)
			q, seen := quotas[m.as.TenantID]
			if !seen && n > 0 {
				t, err := tx.TenantGetByID(ctx, m.as.TenantID)
				if err != nil {
					return err
				}
				if t.QuotaBytes != nil {
					u, err := tx.TenantUsage(ctx, t.ID, nil)
					if err != nil {
						return err
					}
					q = &QuotaError{UsedBytes: u.UsedBytes, ReservedBytes: u.ReservedBytes, QuotaBytes: *t.QuotaBytes}
				}
				quotas[m.as.TenantID] = q
			}
			if q != nil && q.UsedBytes+q.ReservedBytes+n > q.QuotaBytes {
				refused := *q
				refused.AddBytes = n
				m.err = permanent("%v", &refused)
				continue
			}
			if err := tx.ObjectInsertPending(ctx, m.object); err != nil {
				return err
			}
			if n > 0 {
				if err := tx.AssetReserve(ctx, m.as.ID, m.as.TenantID, n); err != nil {
					return err
				}
				reserved[i] = n
				if q != nil {
					q.ReservedBytes += n
				}
			}
		}
		return nil
	})
	if err != nil {
		return err
	}
	for i, m := range media {
		m.meter.reserved = reserved[i]
	}
	return nil
}

// storePending streams a recorded medium into the blob store. When it
// fails, its reservation is given back and what it stored is removed (or
// left to the garbage collector).
func (a *App) storePending(ctx context.Context, m *pendingMedia) (_ fetched, err error) {
	defer func() {
		if err != nil {
			a.unreserve(ctx, m.as, m.meter.reserved)
		}
	}()
	m.meter.r = m.body.r
	info, err := a.blob.Put(ctx, m.object.Key, m.meter)
	if err == nil && m.body.length >= 0 && info.Size != m.body.length {
		err = retryable(0, "the media download was cut short: got %d of %d bytes", info.Size, m.body.length)
	}
	if err != nil {
		// The bytes are ours to remove; only if that fails is the object
		// left for the garbage collector.
		bg := context.WithoutCancel(ctx)
		deleted := a.blob.Delete(bg, m.object.Key) == nil
		_ = a.store.InTx(bg, func(tx *store.Tx) error {
			if deleted {
				return tx.ObjectDelete(bg, m.object.ID)
			}
			return tx.ObjectSetState(bg, m.object.ID, store.ObjectGarbage, 0, "")
		})
		var de *downloadError
		switch {
		case errors.As(err, &de), errors.Is(err, ErrQuota):
			return fetched{}, err
		case ctx.Err() != nil:
			return fetched{}, ctx.Err()
		case errors.Is(err, io.ErrUnexpectedEOF) || isReadError(err):
			return fetched{}, retryable(0, "the media download was cut short: %v", err)
		}
		return fetched{}, fmt.Errorf("app: store media: %w", err)
	}
	return fetched{objectID: m.object.ID, sha256: info.SHA256, size: info.Size, mime: m.body.mime, reserved: m.meter.reserved}, nil
}

// attachFetched attaches what fetchMedia stored to as in tx, reusing an
// existing blob with the same content, and keeps exactly the stored size
// reserved until finalize.
func (a *App) attachFetched(ctx context.Context, tx *store.Tx, as store.Asset, f fetched) error {
	b, _, err := archiveWriter{}.attachBlob(ctx, tx, blobInput{
		DataScope: as.DataScope, AccessScope: as.AccessScope, Visibility: as.Visibility, TenantID: as.TenantID,
		SHA256: f.sha256, Mime: firstNonEmpty(f.mime, as.Mime), Object: &storedObject{ID: f.objectID, Size: f.size},
	})
	if err != nil {
		return err
	}
	if err := tx.AssetAttach(ctx, as.ID, b.ID, f.size, f.mime); err != nil {
		return err
	}
	return tx.AssetReserve(ctx, as.ID, as.TenantID, f.size-f.reserved)
}

// unreserve gives back n bytes as's download reserved.
func (a *App) unreserve(ctx context.Context, as store.Asset, n int64) {
	if n == 0 {
		return
	}
	bg := context.WithoutCancel(ctx)
	_ = a.store.InTx(bg, func(tx *store.Tx) error { return tx.AssetReserve(bg, as.ID, as.TenantID, -n) })
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
	return a.afterAssetStaged(ctx, tx, captureID, tenantID, nil)
}

// afterAssetStaged is afterAsset given the capture's staged content (nil:
// finalize reads it from the capture).
func (a *App) afterAssetStaged(ctx context.Context, tx *store.Tx, captureID, tenantID uuid.UUID, st *staged) error {
	if err := tx.CaptureLock(ctx, captureID); err != nil {
		return err
	}
	n, err := tx.AssetsPending(ctx, captureID)
	if err != nil || n > 0 {
		return err
	}
	return a.finalizeInline(ctx, tx, captureID, tenantID, st)
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

// A capture job downloads its photos itself, a few at a time, right after
// staging them: a photo post then costs one job instead of one per photo,
// one write transaction recording a group's pending objects and
// reservations, and one attaching all of them with the finalize. Videos, other
// media and media read through an adapter's stream keep a download job
// each, as a long download must not hold a capture worker. A photo the
// capture job could not store (a retryable failure, the window running
// out, shutdown, an error of our own) continues as a download job; a
// permanent failure fails the asset as a download job would.

// inlineParallel is how many of one capture's photos download at once,
// as one group.
const inlineParallel = 4

// inlineWindow is how long a capture job downloads; what is not stored by
// then continues as download jobs.
const inlineWindow = time.Minute

// downloadsInline says whether the capture job downloads as itself
// rather than a download job.
func downloadsInline(as store.Asset) bool {
	return as.Kind == "image" && as.StreamRef == "" && as.SourceURL != ""
}

// downloadInline downloads the capture's own assets (in state
// downloading), then in one transaction attaches what was stored, records
// what failed, hands the rest to download jobs and finalizes the capture
// when nothing is left, from st, the content the job staged.
func (a *App) downloadInline(ctx context.Context, captureID, tenantID uuid.UUID, st *staged, assets []store.Asset) error {
	window, cancel := context.WithTimeout(ctx, inlineWindow)
	defer cancel()
	got := make([]fetched, len(assets))
	errs := make([]error, len(assets))
	for from := 0; from < len(assets); from += inlineParallel {
		group := assets[from:min(from+inlineParallel, len(assets))]
		a.fetchGroup(window, group, got[from:], errs[from:])
	}

	ends := make([]*attempt, len(assets))
	for i, as := range assets {
		var de *downloadError
		if errs[i] != nil && ctx.Err() == nil && window.Err() == nil && errors.As(errs[i], &de) {
			end := a.attemptEnd(as, de)
			ends[i] = &end
			a.logAttemptEnd(ctx, as, end)
		}
	}
	bg := context.WithoutCancel(ctx)
	err := a.store.InTx(bg, func(tx *store.Tx) error {
		var jobs []river.JobArgs
		for i, as := range assets {
			switch end := ends[i]; {
			case errs[i] == nil:
				if err := a.attachFetched(bg, tx, as, got[i]); err != nil {
					return err
				}
			case end != nil:
				if err := end.record(bg, tx, as); err != nil {
					return err
				}
				if end.retry {
					jobs = append(jobs, queue.DownloadArgs{AssetID: as.ID, TenantID: tenantID, NotBefore: a.now().Add(end.wait)})
				}
			default:
				// Shutdown, the window's end or our own failure: a download
				// job takes over, without an attempt counted.
				if err := tx.AssetSetState(bg, as.ID, store.AssetPending, "", false); err != nil {
					return err
				}
				jobs = append(jobs, queue.DownloadArgs{AssetID: as.ID, TenantID: tenantID})
			}
		}
		if len(jobs) > 0 {
			return a.insertJobs(bg, tx, jobs)
		}
		return a.afterAssetStaged(bg, tx, captureID, tenantID, st)
	})
	if err != nil {
		for i, as := range assets {
			if errs[i] == nil {
				a.unreserve(bg, as, got[i].reserved)
			}
		}
	}
	return err
}

// fetchGroup fetches a few media at once, with one transaction recording
// all their pending objects and reservations; got and errs receive each
// one's result.
func (a *App) fetchGroup(ctx context.Context, assets []store.Asset, got []fetched, errs []error) {
	media := make([]*pendingMedia, len(assets))
	var wg sync.WaitGroup
	for i, as := range assets {
		wg.Go(func() { media[i], errs[i] = a.openPending(ctx, as) })
	}
	wg.Wait()
	var open []*pendingMedia
	for _, m := range media {
		if m != nil {
			defer m.body.r.Close()
			open = append(open, m)
		}
	}
	if len(open) == 0 {
		return
	}
	if err := a.recordPending(ctx, open); err != nil {
		for i, m := range media {
			if m != nil {
				errs[i] = err
			}
		}
		return
	}
	for i, m := range media {
		if m == nil {
			continue
		}
		if m.err != nil {
			errs[i] = m.err
			continue
		}
		wg.Go(func() { got[i], errs[i] = a.storePending(ctx, m) })
	}
	wg.Wait()
}

// handOverInline gives the capture's assets its job was downloading
// itself to download jobs: the job runs again after its process stopped
// mid-way (or it failed after staging). A download job already there for
// an asset is not doubled (DownloadArgs are unique).
func (a *App) handOverInline(ctx context.Context, c store.Capture) error {
	return a.store.InTx(ctx, func(tx *store.Tx) error {
		assets, err := tx.AssetList(ctx, c.ID)
		if err != nil {
			return err
		}
		var jobs []river.JobArgs
		for _, as := range assets {
			if as.State == store.AssetDownloading && downloadsInline(as) {
				jobs = append(jobs, queue.DownloadArgs{AssetID: as.ID, TenantID: c.TenantID})
			}
		}
		if len(jobs) == 0 {
			return nil
		}
		return a.insertJobs(ctx, tx, jobs)
	})
}
