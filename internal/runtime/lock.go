package runtime

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/monitorhq/monitor/internal/config"
)

// On the embedded default one process owns a data dir: `monitor serve`,
// `monitor migrate` and `monitor import capsule` hold an exclusive lock on
// lockName in it for as long as they run, and a second one refuses to
// start beside them rather than share the SQLite writer and the job
// queue. The lock is the kernel's (flock), so a killed process leaves no
// stale lock behind; the file keeps who held it last, for the message.
// Scale mode (PostgreSQL) runs many processes and takes no lock.
const lockName = "monitor.lock"

// dataDirLock is a held lock; nil when none was needed.
type dataDirLock struct{ f *os.File }

// errLocked is what tryLock answers when another process holds the lock.
var errLocked = errors.New("locked")

// lockDataDir takes the data dir's lock for what (e.g. "serve"), or says
// which process holds it.
func lockDataDir(cfg *config.Config, what string) (*dataDirLock, error) {
	if !Embedded(cfg) {
		return nil, nil
	}
	dir := filepath.Dir(cfg.Database.Path)
	if err := os.MkdirAll(dir, 0o750); err != nil {
		return nil, fmt.Errorf("data dir %s: %v", dir, unwrapPathError(err))
	}
	path := filepath.Join(dir, lockName)
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o640)
	if err != nil {
		return nil, fmt.Errorf("data dir %s: cannot open its lock file: %v", dir, unwrapPathError(err))
	}
	if err := tryLock(f); err != nil {
		holder, _ := io.ReadAll(io.LimitReader(f, 200))
		_ = f.Close()
		if errors.Is(err, errLocked) {
			who := strings.TrimSpace(string(holder))
			if who == "" {
				who = "another monitor process"
			}
			return nil, fmt.Errorf("data dir %s is in use (%s): only one monitor serve, migrate or import may run on an embedded data dir at a time; stop that one first, or give this one its own MONITOR_DATA_DIR", dir, who)
		}
		return nil, fmt.Errorf("data dir %s: cannot lock %s: %v", dir, path, err)
	}
	note := fmt.Sprintf("monitor %s, pid %d, since %s\n", what, os.Getpid(), time.Now().UTC().Format(time.RFC3339))
	if err := f.Truncate(0); err == nil {
		_, _ = f.WriteAt([]byte(note), 0)
	}
	return &dataDirLock{f: f}, nil
}

// release gives the lock up (closing the file releases it).
func (l *dataDirLock) release() {
	if l != nil {
		_ = l.f.Close()
	}
}
