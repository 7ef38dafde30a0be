package app

import (
	"container/list"
	"sync"
)

// lru keeps at most max values by key, and when it weighs them (weighed)
// at most maxWeight in all, the least recently used first out.
// It is safe for concurrent use; values are handed out as they are, so a
// caller that may change one copies it.
type lru[K comparable, V any] struct {
	mu    sync.Mutex
	max   int
	items map[K]*list.Element
	order *list.List // most recently used first; values are lruEntry
	// weigh, when set, is the weight of a value; weight is the sum kept.
	weigh     func(V) int
	maxWeight int
	weight    int
}

type lruEntry[K comparable, V any] struct {
	key K
	val V
}

func newLRU[K comparable, V any](max int) *lru[K, V] {
	return &lru[K, V]{max: max, items: map[K]*list.Element{}, order: list.New()}
}

// weighed is an lru that also keeps the sum of weigh(value) at most
// maxWeight.
func weighed[K comparable, V any](max, maxWeight int, weigh func(V) int) *lru[K, V] {
	c := newLRU[K, V](max)
	c.weigh, c.maxWeight = weigh, maxWeight
	return c
}

func (c *lru[K, V]) weightOf(v V) int {
	if c.weigh == nil {
		return 0
	}
	return c.weigh(v)
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
		c.weight -= c.weightOf(e.Value.(lruEntry[K, V]).val)
		e.Value = lruEntry[K, V]{key: key, val: val}
		c.order.MoveToFront(e)
	} else {
		c.items[key] = c.order.PushFront(lruEntry[K, V]{key: key, val: val})
	}
	c.weight += c.weightOf(val)
	for c.order.Len() > c.max || (c.weigh != nil && c.weight > c.maxWeight && c.order.Len() > 1) {
		last := c.order.Back()
		c.order.Remove(last)
		old := last.Value.(lruEntry[K, V])
		c.weight -= c.weightOf(old.val)
		delete(c.items, old.key)
	}
}
