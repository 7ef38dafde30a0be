package app

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/monitorhq/monitor/internal/netguard"
)

// fetchAllowTTL is how long a read of fetch_allow_hosts is used before the
// next download reads it again: a change made through this process applies
// at once, one made through another replica within this time.
const fetchAllowTTL = 10 * time.Second

// fetchAllowCache holds the parsed fetch_allow_hosts setting, so a download
// does not read the config table each time.
type fetchAllowCache struct {
	mu    sync.Mutex
	allow netguard.Allow
	until time.Time
}

// fetchAllowHosts returns the hosts and ranges media downloads may reach
// although not public, read at most once per fetchAllowTTL.
func (a *App) fetchAllowHosts(ctx context.Context) (netguard.Allow, error) {
	c := &a.fetchAllow
	c.mu.Lock()
	defer c.mu.Unlock()
	now := a.now()
	if now.Before(c.until) {
		return c.allow, nil
	}
	s, err := a.Settings(ctx)
	if err != nil {
		return netguard.Allow{}, fmt.Errorf("app: read fetch_allow_hosts: %w", err)
	}
	c.allow, c.until = s.FetchAllowHosts, now.Add(fetchAllowTTL)
	return c.allow, nil
}

// forgetFetchAllowHosts makes the next download read the setting again.
func (a *App) forgetFetchAllowHosts() {
	a.fetchAllow.mu.Lock()
	a.fetchAllow.until = time.Time{}
	a.fetchAllow.mu.Unlock()
}

// allowHint is how a refused media address tells operators what to do.
const allowHint = "Monitor fetches media only from public addresses (an operator can allow it with fetch_allow_hosts)"

// fetchRefusal turns a refusal of the guarded client into the asset's
// permanent failure, or returns nil when err is something else.
func fetchRefusal(err error) error {
	var blocked *netguard.BlockedError
	var scheme *netguard.SchemeError
	switch {
	case errors.As(err, &blocked):
		return permanent("media host %s; %s", blocked.Describe(), allowHint)
	case errors.As(err, &scheme):
		return permanent("the media host redirected to a %s: address; Monitor fetches media only over http and https", scheme.Scheme)
	case errors.Is(err, netguard.ErrTooManyRedirects):
		return permanent("the media host redirected more than %d times; Monitor follows at most %d redirects", netguard.MaxRedirects, netguard.MaxRedirects)
	}
	return nil
}
