// Package app holds Monitor's business services: tenants and tokens now;
// submit, capture, download, finalize, collections, quota and lifecycle as
// they arrive. It is the only layer that combines the store, the blob store,
// the queue and the adapter registry.
package app

import (
	"log/slog"

	"github.com/monitorhq/monitor/internal/store"
)

// App is the business layer of one core process.
type App struct {
	store *store.Store
	log   *slog.Logger
}

// New returns the business layer over an open store.
func New(st *store.Store, log *slog.Logger) *App {
	return &App{store: st, log: log}
}
