package testkit

import (
	"sync"
	"time"
)

// Clock is the one clock of a test core: real time moved forward by
// Advance. Give its Now to the store (store.WithClock) and the business
// layer (app.Deps.Now) alike, so tests move time instead of sleeping for
// it. River keeps its own time.
type Clock struct {
	mu     sync.Mutex
	offset time.Duration
}

// Now is real time plus every Advance so far.
func (c *Clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return time.Now().Add(c.offset)
}

// Advance moves the clock forward by d.
func (c *Clock) Advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.offset += d
}
