package runtime

import (
	"context"
	"crypto/ed25519"
	"fmt"
	"log/slog"
	"path/filepath"

	"github.com/monitorhq/monitor/internal/chain"
	"github.com/monitorhq/monitor/internal/config"
)

// InstanceKeyFile is the instance key's file in the data dir. It is never
// in the database, a snapshot or a capsule: only its public half leaves
// the instance.
const InstanceKeyFile = "instance.key"

// InstanceKey is the Ed25519 key that signs this instance's exports and
// proofs: MONITOR_SIGNING_KEY (or its _FILE) when set, which scale mode's
// replicas share; otherwise $MONITOR_DATA_DIR/instance.key, made (mode
// 0600) at first start.
func InstanceKey(cfg *config.Config) (ed25519.PrivateKey, error) {
	if cfg.SigningKey != "" {
		k, err := chain.LoadKey([]byte(cfg.SigningKey))
		if err != nil {
			return nil, fmt.Errorf("MONITOR_SIGNING_KEY: %w", err)
		}
		return k, nil
	}
	k, _, err := chain.LoadOrCreateKeyFile(filepath.Join(cfg.DataDir, InstanceKeyFile))
	if err != nil {
		return nil, fmt.Errorf("instance key: %w; set MONITOR_SIGNING_KEY_FILE to a key, or make the data dir writable", err)
	}
	return k, nil
}

// instanceKeyOrWarn is InstanceKey for a starting process: one that cannot
// have its key (a read-only data dir in scale mode without
// MONITOR_SIGNING_KEY) still starts, signing nothing, and says so.
func instanceKeyOrWarn(ctx context.Context, cfg *config.Config, log *slog.Logger) ed25519.PrivateKey {
	k, err := InstanceKey(cfg)
	if err != nil {
		log.WarnContext(ctx, "no instance key: exports and proofs are not signed", slog.String("err", err.Error()))
		return nil
	}
	return k
}
