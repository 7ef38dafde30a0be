package testkit

import (
	"strconv"
	"sync"
)

// mediaBodies keeps the media bodies a fake host has generated, by path,
// format and size, so that a body is built once however many times it is
// asked for. The media tests serve bodies of 51 MB, several per post, and
// a download may come back for a range or a retry: building each answer
// again (SHA-256 over every 32 bytes, slow under the race detector) kept
// the headers back past a client's timeout on a loaded machine.
type mediaBodies struct {
	mu     sync.Mutex
	bodies map[string]*mediaBody
}

type mediaBody struct {
	once        sync.Once
	body        []byte
	contentType string
}

// get returns the body for key, from gen the first time; callers asking
// for one key at once wait for the one build.
func (c *mediaBodies) get(p, format string, size int, gen func() ([]byte, string)) ([]byte, string) {
	key := p + "\x00" + format + "\x00" + strconv.Itoa(size)
	c.mu.Lock()
	if c.bodies == nil {
		c.bodies = map[string]*mediaBody{}
	}
	b, ok := c.bodies[key]
	if !ok {
		b = &mediaBody{}
		c.bodies[key] = b
	}
	c.mu.Unlock()
	b.once.Do(func() { b.body, b.contentType = gen() })
	return b.body, b.contentType
}
