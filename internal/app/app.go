// Package app holds Monitor's business services: tenants and tokens, the
// capture pipeline (submit → capture → download → finalize), reading the
// archive, and quota. It is the only layer that combines the store, the
// blob store, the queue and the adapter registry.
package app

import (
	"crypto/ed25519"
	"log/slog"
	"net/http"
	"sync"
	"time"

	"github.com/google/uuid"
	"github.com/riverqueue/river"

	"github.com/monitorhq/monitor/internal/adapterapi"
	"github.com/monitorhq/monitor/internal/blob"
	"github.com/monitorhq/monitor/internal/metrics"
	"github.com/monitorhq/monitor/internal/netguard"
	"github.com/monitorhq/monitor/internal/queue"
	"github.com/monitorhq/monitor/internal/store"
)

// Limits bound the pipeline's work.
type Limits struct {
	// MaxMediaBytes is the largest media file stored; larger ones fail.
	MaxMediaBytes int64
	// TenantCaptures is how many captures of one tenant fetch at once.
	TenantCaptures int
	// ConnectionCaptures is how many captures of one account connection
	// fetch at once.
	ConnectionCaptures int
	// Attempts is how many times a retryable fetch or download is tried.
	Attempts int
	// RetryDelay is the first wait before a retry when the upstream names
	// none; it doubles with each attempt.
	RetryDelay time.Duration
	// PageSize is how many posts a page of a profile or channel holds
	// (0: DefaultPageSize, which the adapter also defaults to). Tests set
	// a small one so that a few dozen posts span several pages.
	PageSize int
}

// DefaultLimits are the limits of seed 000: two captures per tenant, one
// per connection, three attempts.
func DefaultLimits() Limits {
	return Limits{MaxMediaBytes: 2 << 30, TenantCaptures: 2, ConnectionCaptures: 1, Attempts: 3, RetryDelay: 2 * time.Second}
}

// Deps are what the business layer runs on. Only Store and Log are needed
// for tenant and token administration.
type Deps struct {
	Store    *store.Store
	Blob     blob.Store
	Adapters *adapterapi.Registry
	Log      *slog.Logger
	Limits   Limits
	// Now is the business layer's only time source (limits, leases,
	// retention, garbage collection, Retry-After). Give the store the same
	// one (store.WithClock), so both see one time; nil means the store's
	// clock. Tests set it to move time.
	Now func() time.Time
	// MasterKey (MONITOR_MASTER_KEY) encrypts secret settings; "" means
	// they cannot be stored or read.
	MasterKey string
	// Hooks are signals tests arm; production sets none.
	Hooks Hooks
	// Metrics counts captures, downloaded bytes, stored channel updates,
	// deliveries and watch runs for /metrics (nil: nothing is counted).
	Metrics *metrics.Metrics
	// HTTPAddr is where the HTTP server listens (MONITOR_HTTP_ADDR): the
	// base of sign-in links when the web_base_url setting is not set.
	HTTPAddr string
	// TelegramToken is the bot's token (MONITOR_TELEGRAM_TOKEN) for
	// checking Telegram sign-ins; "" means the telegram_token setting.
	TelegramToken string
	// TelegramAPIURL is the Bot API's base URL (MONITOR_TELEGRAM_API_URL),
	// where notifications to a Telegram chat go ("": api.telegram.org).
	TelegramAPIURL string
	// Backups is where scheduled and on-demand snapshots are written; the
	// zero value means this instance has no snapshots (backups.go).
	Backups BackupConfig
	// SigningKey is the instance key (runtime.InstanceKey) that signs
	// exports and proofs (verify.go); nil signs nothing.
	SigningKey ed25519.PrivateKey
	// CollectionFile renders a collection's Markdown file for pushes to
	// cloud destinations (cloud.go); nil: pushes fail saying so.
	CollectionFile CollectionFile
	// Rclone is the rclone binary pushes run ("" = rclone on PATH).
	Rclone string
}

// Hooks are signals the pipeline fires for tests, so they wait on an event
// instead of polling or sleeping (River's testsignal pattern). Production
// sets none, and an unset hook costs nothing.
type Hooks struct {
	// CaptureEnded is called once the transaction that ended a capture
	// (complete, partial or failed) has committed, so what it reads after
	// the call is the capture's final state.
	CaptureEnded func(tenantID, captureID uuid.UUID)
}

// App is the business layer of one core process.
type App struct {
	// collectionFile and rclone are Deps.CollectionFile and Deps.Rclone.
	collectionFile CollectionFile
	rclone         string
	store          *store.Store
	blob           blob.Store
	adapters       *adapterapi.Registry
	// signIns are the running QR sign-ins of the bot's /account_add
	// (channelqr.go).
	signIns *signIns
	log     *slog.Logger
	limits  Limits
	http    *http.Client
	queue   *queue.Queue
	now     func() time.Time
	hooks   Hooks
	// metrics is Deps.Metrics; its methods do nothing on nil, so code
	// counts unconditionally: a.metrics.WatchRun("ok") when a watch run
	// ends, and so on (counted after commit where a transaction decides).
	metrics *metrics.Metrics
	// masterKey is MONITOR_MASTER_KEY (secrets.go).
	masterKey string
	// fetchAllow caches the fetch_allow_hosts setting that http's guard
	// follows (fetchallow.go). http is always netguard's client, so upstream
	// answers cannot point downloads at private addresses; there is
	// deliberately no way to inject an unguarded one.
	fetchAllow fetchAllowCache
	// httpAddr and telegramToken are Deps.HTTPAddr and Deps.TelegramToken.
	httpAddr      string
	telegramToken string
	// traffic counts downloaded and uploaded bytes (traffic.go).
	traffic *traffic
	// notify sends notifications (notify.go); backups is Deps.Backups.
	notify  notifier
	backups BackupConfig
	// contents keeps recently listed revisions' decoded content
	// (contentcache.go).
	contents *contentCache
	// answers and principals are kept until the database changes
	// (kept.go).
	answers    *lru[keptKey, keptAnswer]
	principals *lru[string, keptPrincipal]
	// snapshotMu makes one snapshot at a time in this process; restoreMu
	// one restore staged or cancelled at a time.
	// signingKey is Deps.SigningKey.
	signingKey ed25519.PrivateKey
	snapshotMu sync.Mutex
	restoreMu  sync.Mutex
	// slots wakes captures waiting for an execution slot (slots.go).
	slots *slotSignal
}

// New returns the business layer. Pipeline work needs a queue: register the
// workers with RegisterWorkers when building it, then AttachQueue.
func New(d Deps) *App {
	a := &App{store: d.Store, blob: d.Blob, adapters: d.Adapters, log: d.Log, limits: d.Limits, http: netguard.NewClient(), now: d.Now,
		masterKey: d.MasterKey, hooks: d.Hooks, metrics: d.Metrics, httpAddr: d.HTTPAddr, telegramToken: d.TelegramToken, signingKey: d.SigningKey}
	a.traffic, a.backups = &traffic{}, d.Backups
	a.collectionFile, a.rclone = d.CollectionFile, d.Rclone
	a.contents = newContentCache(contentCacheSize)
	a.signIns = newSignIns()
	a.slots = newSlotSignal()
	a.answers = weighed[keptKey](keptAnswers, keptAnswerBytes, func(e keptAnswer) int { return len(e.body) })
	a.principals = newLRU[string, keptPrincipal](keptTokens)
	a.http = a.traffic.countDownloads(a.http)
	if a.blob != nil {
		a.blob = countingBlob{Store: a.blob, n: &a.traffic.up}
	}
	a.notify = newNotifier(d.TelegramAPIURL)
	if a.now == nil {
		a.now = time.Now
		if d.Store != nil {
			a.now = d.Store.Clock()
		}
	}
	if a.limits == (Limits{}) {
		a.limits = DefaultLimits()
	}
	return a
}

// RegisterWorkers adds the pipeline's job workers to River's bundle.
func (a *App) RegisterWorkers(w *river.Workers) {
	river.AddWorker(w, &captureWorker{app: a})
	river.AddWorker(w, &downloadWorker{app: a})
	river.AddWorker(w, &finalizeWorker{app: a})
	river.AddWorker(w, &relatedWorker{app: a})
	river.AddWorker(w, &pushWorker{app: a})
	river.AddWorker(w, &purgeErrorLogsWorker{app: a})
	river.AddWorker(w, &purgeChannelRowsWorker{app: a})
	river.AddWorker(w, &purgeWebSessionsWorker{app: a})
	river.AddWorker(w, &lifecycleWorker[queue.PurgeCollectionsArgs]{run: a.PurgeCollections})
	river.AddWorker(w, &lifecycleWorker[queue.CollectGarbageArgs]{run: a.CollectGarbage})
	river.AddWorker(w, &lifecycleWorker[queue.InterruptStaleArgs]{run: a.InterruptStale})
	river.AddWorker(w, &notifyWorker{app: a})
	river.AddWorker(w, &snapshotWorker{app: a})
	river.AddWorker(w, &watchTickWorker{app: a})
	river.AddWorker(w, &watchSourceWorker{app: a})
	river.AddWorker(w, &watchPushWorker{app: a})
}

// AttachQueue gives the business layer the queue its transactions insert
// jobs into. The queue must have been built with RegisterWorkers.
func (a *App) AttachQueue(q *queue.Queue) { a.queue = q }
