package runtime

import (
	"time"

	"github.com/monitorhq/monitor/internal/app"
)

// Option changes how Open and OpenEngine assemble a process. Production
// passes none; the test core (internal/testkit/testcore) moves the clock
// and arms the business layer's hooks through them.
type Option func(*options)

type options struct {
	now      func() time.Time
	hooks    app.Hooks
	pageSize int
}

func buildOptions(opts []Option) options {
	o := options{now: time.Now}
	for _, f := range opts {
		f(&o)
	}
	return o
}

// WithClock makes now the one clock of the store, the business layer and
// the runtime's own checks (default time.Now).
func WithClock(now func() time.Time) Option {
	return func(o *options) {
		if now != nil {
			o.now = now
		}
	}
}

// WithHooks arms the business layer's hooks (app.Hooks).
func WithHooks(h app.Hooks) Option { return func(o *options) { o.hooks = h } }

// WithPageSize makes the pages of profiles and channels hold n posts
// (app.Limits.PageSize; default app.DefaultPageSize), so that tests span
// several pages with few posts.
func WithPageSize(n int) Option { return func(o *options) { o.pageSize = n } }
