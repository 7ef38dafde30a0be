package runtime

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sort"
	"strings"
	"time"

	"github.com/google/uuid"

	"github.com/monitorhq/monitor/internal/config"
	"github.com/monitorhq/monitor/internal/demo"
)

// DemoTenant is the tenant `monitor serve --demo` fills with the sample
// archive (internal/demo).
const DemoTenant = "demo"

// DemoLinkTTL is how long the sign-in link serve --demo prints works.
const DemoLinkTTL = time.Hour

// ErrDemoRefused is returned by PrepareDemo on an archive that has
// tenants but no demo tenant: the demo never mixes its posts into a real
// archive.
var ErrDemoRefused = errors.New("serve --demo needs an empty data dir")

// Demo is what PrepareDemo found or did.
type Demo struct {
	TenantID uuid.UUID
	// Imported is how many collections this start imported (0 when the
	// demo tenant had its archive already).
	Imported int
	// LoginURL signs a browser in to the demo tenant, once, until
	// ExpiresAt.
	LoginURL  string
	ExpiresAt time.Time
}

// PrepareDemo readies the demo on the engine's archive. On an archive
// without tenants it creates the tenant demo and imports the embedded
// sample archive into it through the capsule import (the archive writer
// captures use), so nothing needs the network. On an archive that has the
// demo tenant it imports nothing, unless that tenant is still empty (an
// earlier start stopped before its import). On an archive with other
// tenants and no demo it refuses (ErrDemoRefused) and writes nothing.
// Every time it makes a fresh sign-in link for the demo tenant.
func (e *Engine) PrepareDemo(ctx context.Context) (Demo, error) {
	tenants, err := e.app.Tenants(ctx)
	if err != nil {
		return Demo{}, err
	}
	var d Demo
	var others []string
	for _, t := range tenants {
		if t.Name == DemoTenant {
			d.TenantID = t.ID
		} else {
			others = append(others, t.Name)
		}
	}
	if d.TenantID == uuid.Nil && len(others) > 0 {
		sort.Strings(others)
		if len(others) > 5 {
			others = append(others[:5], "…")
		}
		return Demo{}, fmt.Errorf("%w: this data dir already holds an archive (tenants %s) and no %q tenant; "+
			"start the demo on an empty data dir (e.g. MONITOR_DATA_DIR=./demo-data monitor serve --demo) or serve this archive without --demo",
			ErrDemoRefused, strings.Join(others, ", "), DemoTenant)
	}
	fill := d.TenantID == uuid.Nil
	if !fill {
		page, err := e.app.Collections(ctx, d.TenantID, 1, "")
		if err != nil {
			return Demo{}, err
		}
		fill = len(page.Items) == 0
	} else {
		t, err := e.app.CreateTenant(ctx, "serve --demo", DemoTenant, nil)
		if err != nil {
			return Demo{}, err
		}
		d.TenantID = t.ID
	}
	if fill {
		if d.Imported, err = demo.Import(ctx, e.app, d.TenantID); err != nil {
			return Demo{}, err
		}
	}
	d.LoginURL, d.ExpiresAt, err = e.app.LoginLinkURL(ctx, d.TenantID, DemoLinkTTL)
	if err != nil {
		return d, fmt.Errorf("serve --demo: sign-in link: %w", err)
	}
	return d, nil
}

// OpenDemo opens a core as Open does and readies the demo on it
// (PrepareDemo). When the demo cannot be readied the core is closed again
// and nothing is served.
func OpenDemo(ctx context.Context, cfg *config.Config, log *slog.Logger, opts ...Option) (*Core, Demo, error) {
	c, err := Open(ctx, cfg, log, opts...)
	if err != nil {
		return nil, Demo{}, err
	}
	d, err := c.PrepareDemo(ctx)
	if err != nil {
		_ = c.listener.Close()
		if c.channelListener != nil {
			_ = c.channelListener.Close()
		}
		_ = c.Close()
		return nil, Demo{}, err
	}
	if d.Imported > 0 {
		log.InfoContext(ctx, "demo archive imported", slog.String("tenant", DemoTenant), slog.Int("collections", d.Imported))
	}
	return c, d, nil
}
