package demo

import (
	"context"
	"fmt"
	"os"
	"path/filepath"

	"github.com/google/uuid"

	"github.com/monitorhq/monitor/internal/app"
	"github.com/monitorhq/monitor/internal/capsule"
	"github.com/monitorhq/monitor/internal/capsule/check"
	"github.com/monitorhq/monitor/internal/capsule/importer"
)

// Import imports the embedded sample archive into the tenant and
// returns how many collections it created.
func Import(ctx context.Context, a *app.App, tenantID uuid.UUID) (int, error) {
	dir, err := os.MkdirTemp("", "monitor-demo-")
	if err != nil {
		return 0, fmt.Errorf("serve --demo: %w", err)
	}
	defer os.RemoveAll(dir)
	root := filepath.Join(dir, "capsule")
	if err := WriteTo(root); err != nil {
		return 0, err
	}
	src, err := capsule.Open(root)
	if err != nil {
		return 0, err
	}
	defer src.Close()
	res, err := check.Run(ctx, src, check.Options{})
	if err != nil {
		return 0, err
	}
	if err := res.Err(); err != nil {
		return 0, fmt.Errorf("serve --demo: the built-in sample archive is broken: %w", err)
	}
	rep, err := importer.Import(ctx, a, src, res, importer.Options{TenantID: tenantID, IncludePrivate: true})
	if err != nil {
		return 0, fmt.Errorf("serve --demo: import the sample archive: %w", err)
	}
	return len(rep.Created), nil
}
