package app

import "sync"

// A capture whose tenant's (or account's) execution slots are all taken
// waits in its worker for one to come free in this process, up to
// slotWait, instead of snoozing: a slot freed a few milliseconds later is
// taken at once, not after the snooze. Slots freed by other processes
// (several on PostgreSQL) are not signalled here; the wait's end covers
// them, after which the job snoozes so that other tenants' captures get
// the worker.

// slotSignal tells waiting captures that an execution slot came free.
type slotSignal struct {
	mu sync.Mutex
	ch chan struct{}
}

func newSlotSignal() *slotSignal { return &slotSignal{ch: make(chan struct{})} }

// freed is closed the next time a slot comes free.
func (s *slotSignal) freed() <-chan struct{} {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.ch
}

// free wakes every capture waiting for a slot.
func (s *slotSignal) free() {
	s.mu.Lock()
	defer s.mu.Unlock()
	close(s.ch)
	s.ch = make(chan struct{})
}
