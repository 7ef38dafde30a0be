package runtime

import (
	"context"
	"log/slog"

	"github.com/monitorhq/monitor/internal/app"
	"github.com/monitorhq/monitor/internal/blob"
	"github.com/monitorhq/monitor/internal/config"
	"github.com/monitorhq/monitor/internal/store"
)

// Offline is the business layer over this instance's database (and its
// media store when asked), without adapters, queue or servers: what
// one-shot commands such as `monitor admin`, `monitor import` and `monitor
// export` work with; all but an import also while `monitor serve` runs.
type Offline struct {
	app   *app.App
	store *store.Store
	lock  *dataDirLock
}

// OfflineOptions says what an Offline business layer needs beyond the
// database.
type OfflineOptions struct {
	// Media opens the media store too (an S3 bucket is checked as at
	// start), for commands that read or write media bytes.
	Media bool
	// Exclusive (an import) takes the data dir's lock on the embedded
	// default, so it refuses to run beside `monitor serve` (lock.go).
	Exclusive bool
}

// OpenOffline opens the database the way serve does (migrating the
// embedded default, verifying scale mode) and, with opts.Media, the media
// store, and returns the business layer over them. Close releases them.
func OpenOffline(ctx context.Context, cfg *config.Config, log *slog.Logger, opts OfflineOptions) (*Offline, error) {
	var lock *dataDirLock
	if opts.Exclusive {
		var err error
		if lock, err = lockDataDir(cfg); err != nil {
			return nil, err
		}
	}
	st, err := OpenStore(ctx, cfg, log)
	if err != nil {
		lock.release()
		return nil, err
	}
	var bs blob.Store
	if opts.Media {
		if bs, err = OpenBlob(ctx, cfg); err != nil {
			_ = st.Close()
			lock.release()
			return nil, err
		}
	}
	key := instanceKeyOrWarn(ctx, cfg, log)
	a := app.New(app.Deps{Store: st, Blob: bs, Log: log, MasterKey: cfg.MasterKey, HTTPAddr: cfg.HTTPAddr, TelegramToken: cfg.TelegramToken,
		SigningKey: key})
	return &Offline{app: a, store: st, lock: lock}, nil
}

// App is the business layer.
func (o *Offline) App() *app.App { return o.app }

// Close closes the database and gives up the lock.
func (o *Offline) Close() error {
	err := o.store.Close()
	o.lock.release()
	return err
}
