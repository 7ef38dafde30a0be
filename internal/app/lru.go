package app

import (
	"container/list"
	"sync"
)

// lru keeps at most max values by key, the least recently used first out.
// It is safe for concurrent use; values are handed out as they are, so a
// caller that may change one copies it.
type lru[K comparable, V any] struct {
	mu    sync.Mutex
	max   int
	items map[K]*list.Element
	order *list.List // most recently used first; values are lruEntry
}

type lruEntry[K comparable, V any] struct {
	key K
	val V
}

func newLRU[K comparable, V any](max int) *lru[K, V] {
	return &lru[K, V]{max: max, items: map[K]*list.Element{}, order: list.New()}
}

// get is the value kept under key.
func (c *lru[K, V]) get(key K) (V, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	e, ok := c.items[key]
	if !ok {
		var zero V
		return zero, false
	}
	c.order.MoveToFront(e)
	return e.Value.(lruEntry[K, V]).val, true
}

// put keeps val under key, in place of what was kept there.
func (c *lru[K, V]) put(key K, val V) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if e, ok := c.items[key]; ok {
		e.Value = lruEntry[K, V]{key: key, val: val}
		c.order.MoveToFront(e)
		return
	}
	c.items[key] = c.order.PushFront(lruEntry[K, V]{key: key, val: val})
	for c.order.Len() > c.max {
		last := c.order.Back()
		c.order.Remove(last)
		delete(c.items, last.Value.(lruEntry[K, V]).key)
	}
}
