package web

import (
	"errors"
	"net/http"
	"os"
	"time"

	"github.com/monitorhq/monitor/internal/app"
)

// backupsView is the backups page's content.
type backupsView struct {
	// Off says why this instance has no snapshots ("": it has).
	Off       string
	Snapshots []snapshotRow
	// Interval and Keep are the schedule settings' values.
	Interval, Keep string
	// Pending is the restore staged for the next start (nil: none).
	Pending *app.StagedRestore
}

// snapshotRow is one snapshot as the list shows it.
type snapshotRow struct {
	app.SnapshotFile
	SizeText string
}

// adminBackups serves GET /admin/backups: the snapshots, newest first,
// and the schedule.
func (s *server) adminBackups(w http.ResponseWriter, r *http.Request, rq *request) {
	s.renderAdminBackups(w, r, rq, http.StatusOK, "")
}

func (s *server) renderAdminBackups(w http.ResponseWriter, r *http.Request, rq *request, status int, problem string) {
	ctx := r.Context()
	v := &backupsView{}
	list, err := s.d.App.Snapshots(ctx)
	switch {
	case errors.Is(err, app.ErrInvalid):
		v.Off = err.Error()
	case err != nil:
		s.fail(w, r, rq, err)
		return
	}
	for _, f := range list {
		v.Snapshots = append(v.Snapshots, snapshotRow{SnapshotFile: f, SizeText: formatBytes(f.Size)})
	}
	if v.Off == "" {
		if v.Pending, err = s.d.App.PendingRestore(ctx); err != nil && !errors.Is(err, app.ErrInvalid) {
			s.fail(w, r, rq, err)
			return
		}
	}
	settings, err := s.d.App.SettingsList(ctx)
	if err != nil {
		s.fail(w, r, rq, err)
		return
	}
	for _, st := range settings {
		switch st.Key {
		case "backup_interval_hours":
			v.Interval = st.Value
		case "backup_keep_count":
			v.Keep = st.Value
		}
	}
	s.adminPage(w, r, rq, status, "admin_backups.html", "backups", "admin.backups", adminView{Body: v, Error: problem})
}

// adminSnapshotNow serves POST /admin/backups/snapshot: a snapshot now,
// audited with the session as actor.
func (s *server) adminSnapshotNow(w http.ResponseWriter, r *http.Request, rq *request) {
	_, err := s.d.App.SnapshotNow(r.Context(), actorOf(rq))
	if errors.Is(err, app.ErrInvalid) {
		s.renderAdminBackups(w, r, rq, http.StatusBadRequest, s.t(rq, "admin.err.action", err.Error()))
		return
	}
	if err != nil {
		s.fail(w, r, rq, err)
		return
	}
	backTo(w, r, "/admin/backups", "snapshot")
}

// adminSnapshotFile serves GET /admin/backups/{name}: the snapshot's zip,
// streamed from the backup directory (a name that is not a snapshot's is
// 404).
func (s *server) adminSnapshotFile(w http.ResponseWriter, r *http.Request, rq *request) {
	p, err := s.d.App.SnapshotPath(r.Context(), r.PathValue("name"))
	if errors.Is(err, app.ErrInvalid) {
		err = app.ErrNotFound // no snapshots here: nothing to download
	}
	if err != nil {
		s.fail(w, r, rq, err)
		return
	}
	f, err := os.Open(p) //nolint:gosec // p is SnapshotPath's, inside the backup directory
	if errors.Is(err, os.ErrNotExist) {
		s.notFound(w, r, rq) // pruned meanwhile
		return
	}
	if err != nil {
		s.fail(w, r, rq, err)
		return
	}
	defer f.Close()
	info, err := f.Stat()
	if err != nil {
		s.fail(w, r, rq, err)
		return
	}
	w.Header().Set("Content-Type", "application/zip")
	w.Header().Set("Content-Disposition", `attachment; filename="`+info.Name()+`"`)
	w.Header().Set("Cache-Control", "no-store")
	http.ServeContent(w, r, "", time.Time{}, f)
}

// stageTimeout bounds the answer to a restore's staging, which reads and
// verifies every media file of the snapshot.
const stageTimeout = time.Hour

// restoreView is the restore confirmation page's content.
type restoreView struct {
	Preview  app.SnapshotPreview
	SizeText string
	// Pending is a restore staged already: the page says so and offers no
	// second one.
	Pending *app.StagedRestore
}

// adminRestorePreview serves GET /admin/backups/{name}/restore: what the
// snapshot brings back, what a restore replaces, and the button that
// stages it.
func (s *server) adminRestorePreview(w http.ResponseWriter, r *http.Request, rq *request) {
	s.renderRestore(w, r, rq, http.StatusOK, r.PathValue("name"), "")
}

func (s *server) renderRestore(w http.ResponseWriter, r *http.Request, rq *request, status int, name, problem string) {
	ctx := r.Context()
	pv, err := s.d.App.PreviewSnapshot(ctx, name)
	if errors.Is(err, app.ErrInvalid) {
		// A damaged file, or no snapshots here: the backups page says why.
		s.renderAdminBackups(w, r, rq, http.StatusBadRequest, s.t(rq, "admin.err.action", err.Error()))
		return
	}
	if err != nil {
		s.fail(w, r, rq, err)
		return
	}
	pending, err := s.d.App.PendingRestore(ctx)
	if err != nil && !errors.Is(err, app.ErrInvalid) {
		s.fail(w, r, rq, err)
		return
	}
	v := &restoreView{Preview: pv, SizeText: formatBytes(pv.Size), Pending: pending}
	s.adminPage(w, r, rq, status, "admin_restore.html", "backups", "admin.backups", adminView{Body: v, Error: problem})
}

// adminStageRestore serves POST /admin/backups/{name}/restore: verifies
// and stages the snapshot for the next start, audited with the session
// as actor. A damaged snapshot, or a restore staged already, is shown on
// the confirmation page.
func (s *server) adminStageRestore(w http.ResponseWriter, r *http.Request, rq *request) {
	name := r.PathValue("name")
	// Verifying a large archive's media takes longer than an answer may
	// usually take; the operator waits for it.
	_ = http.NewResponseController(w).SetWriteDeadline(time.Now().Add(stageTimeout))
	_, err := s.d.App.StageRestore(r.Context(), actorOf(rq), name)
	switch {
	case errors.Is(err, app.ErrInvalid):
		s.renderRestore(w, r, rq, http.StatusBadRequest, name, s.t(rq, "admin.err.action", err.Error()))
		return
	case errors.Is(err, app.ErrConflict):
		s.renderRestore(w, r, rq, http.StatusConflict, name, s.t(rq, "admin.err.action", err.Error()))
		return
	case err != nil:
		s.fail(w, r, rq, err)
		return
	}
	backTo(w, r, "/admin/backups", "staged")
}

// adminCancelRestore serves POST /admin/backups/restore/cancel: the
// staged restore is dropped, audited.
func (s *server) adminCancelRestore(w http.ResponseWriter, r *http.Request, rq *request) {
	err := s.d.App.CancelRestore(r.Context(), actorOf(rq))
	if errors.Is(err, app.ErrInvalid) || errors.Is(err, app.ErrNotFound) {
		s.renderAdminBackups(w, r, rq, http.StatusBadRequest, s.t(rq, "admin.err.action", err.Error()))
		return
	}
	if err != nil {
		s.fail(w, r, rq, err)
		return
	}
	backTo(w, r, "/admin/backups", "unstaged")
}
