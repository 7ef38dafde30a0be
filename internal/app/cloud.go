package app

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/google/uuid"
	"github.com/riverqueue/river"

	"github.com/monitorhq/monitor/internal/mediatype"
	"github.com/monitorhq/monitor/internal/queue"
	"github.com/monitorhq/monitor/internal/store"
)

// Cloud destinations: an operator defines an rclone remote and path with
// its rclone config (sealed with the master key), lets tenants use it, and
// a tenant pushes a collection there (REST POST /v1/collections/{id}/push).
// A River job uploads the current revision's media and its Markdown file
// (the capsule's collection format) into
// <path>/<platform>/<YYYY-MM-DD>-<id>/ by running the rclone binary with the
// config in a 0600 temporary file that is removed afterwards; each file is
// recorded in cloud_uploads with its bytes, state and error, a failed
// attempt is retried, and rclone's stderr goes to the error log with every
// value of the config redacted.

// destinationsPurpose derives the key rclone configs are sealed with.
const destinationsPurpose = "monitor destinations v1"

// CollectionFile renders a collection as a capsule collection file: its
// file name (<YYYY-MM-DD>-<id>.md) and bytes. The runtime gives app the
// capsule's writer (app sits below internal/capsule).
type CollectionFile func(ExportedCollection) (name string, data []byte, err error)

// DestinationView is a destination as operators and tenants see it: never
// its config.
type DestinationView struct {
	ID        uuid.UUID `json:"id"`
	Name      string    `json:"name"`
	Remote    string    `json:"remote"`
	CreatedAt time.Time `json:"created_at"`
	// Default: the tenant's default (a tenant's list only).
	Default bool `json:"default,omitempty"`
}

func destinationView(d store.Destination) DestinationView {
	return DestinationView{ID: d.ID, Name: d.Name, Remote: d.Remote, CreatedAt: d.CreatedAt, Default: d.IsDefault}
}

// remoteRe is an rclone remote and path: NAME:PATH.
var remoteRe = regexp.MustCompile(`^[A-Za-z0-9_][A-Za-z0-9_. -]*:[^\x00-\x1f]*$`)

// destinationNameRe is a destination's name.
var destinationNameRe = regexp.MustCompile(`^[a-z0-9][a-z0-9_-]{0,31}$`)

// maxRcloneConfig bounds a stored rclone config.
const maxRcloneConfig = 64 << 10

// destinationBox is the box rclone configs are sealed with.
func (a *App) destinationBox() (*secretBox, error) {
	box, err := newSecretBox(a.masterKey, destinationsPurpose)
	if errors.Is(err, errNoMasterKey) {
		return nil, errorf(ErrInvalid, "set MONITOR_MASTER_KEY to keep rclone configs: they are stored encrypted with it")
	}
	if err != nil {
		return nil, errorf(ErrInvalid, "cannot keep rclone configs: %v", err)
	}
	return box, nil
}

// destinationConfig opens a destination's sealed rclone config.
func (a *App) destinationConfig(dest store.Destination) (string, error) {
	box, err := a.destinationBox()
	if err != nil {
		return "", err
	}
	config, err := box.open(dest.ConfigSealed, "destination:"+dest.Name)
	if err != nil {
		return "", fmt.Errorf("destination %s: the rclone config %v; add it again", dest.Name, err)
	}
	return config, nil
}

// AddDestination defines a destination: name, an rclone remote:path, and
// the rclone config that defines the remote (sealed; never shown again).
func (a *App) AddDestination(ctx context.Context, actor, name, remote string, config []byte) (DestinationView, error) {
	name, remote = strings.TrimSpace(name), strings.TrimSpace(remote)
	if !destinationNameRe.MatchString(name) {
		return DestinationView{}, errorf(ErrInvalid, "a destination's name is 1 to 32 lowercase letters, digits, - or _, not %q", clip(name, 40))
	}
	if !remoteRe.MatchString(remote) {
		return DestinationView{}, errorf(ErrInvalid, "--remote is rclone's REMOTE:PATH, e.g. drive:archive, not %q", clip(remote, 80))
	}
	if len(config) == 0 || len(config) > maxRcloneConfig {
		return DestinationView{}, errorf(ErrInvalid, "the rclone config must be 1 byte to %d KiB", maxRcloneConfig>>10)
	}
	section := "[" + remote[:strings.Index(remote, ":")] + "]"
	if !bytes.Contains(config, []byte(section)) {
		return DestinationView{}, errorf(ErrInvalid, "the rclone config has no %s section for the remote", section)
	}
	box, err := a.destinationBox()
	if err != nil {
		return DestinationView{}, err
	}
	var d store.Destination
	err = a.store.InTx(ctx, func(tx *store.Tx) error {
		d, err = tx.DestinationInsert(ctx, store.Destination{Name: name, Remote: remote, ConfigSealed: box.seal(string(config), "destination:"+name)})
		if err != nil {
			return err
		}
		return audit(ctx, tx, actor, "destination.add", "destination:"+name, nil, map[string]any{"remote": remote})
	})
	if errors.Is(err, store.ErrConflict) {
		return DestinationView{}, errorf(ErrConflict, "a destination named %s exists already", name)
	}
	return destinationView(d), err
}

// Destinations lists every destination by name.
func (a *App) Destinations(ctx context.Context) ([]DestinationView, error) {
	ds, err := a.store.DestinationList(ctx)
	out := make([]DestinationView, 0, len(ds))
	for _, d := range ds {
		out = append(out, destinationView(d))
	}
	return out, err
}

// RemoveDestination removes a destination, with its record of pushes.
func (a *App) RemoveDestination(ctx context.Context, actor, name string) error {
	return a.store.InTx(ctx, func(tx *store.Tx) error {
		d, err := destinationByName(ctx, tx, name)
		if err != nil {
			return err
		}
		if err := tx.DestinationDelete(ctx, d.ID); err != nil {
			return err
		}
		return audit(ctx, tx, actor, "destination.remove", "destination:"+name, map[string]any{"remote": d.Remote}, nil)
	})
}

// AllowDestination lets a tenant push to a destination, as its default
// with isDefault.
func (a *App) AllowDestination(ctx context.Context, actor, name, tenantName string, isDefault bool) error {
	t, err := a.tenantByName(ctx, tenantName)
	if err != nil {
		return err
	}
	ctx = store.WithTenant(ctx, t.ID)
	return a.store.InTx(ctx, func(tx *store.Tx) error {
		d, err := destinationByName(ctx, tx, name)
		if err != nil {
			return err
		}
		if err := tx.TenantDestinationAllow(ctx, t.ID, d.ID, isDefault); err != nil {
			return err
		}
		return audit(ctx, tx, actor, "destination.allow", "destination:"+name, nil,
			map[string]any{"tenant": t.Name, "default": isDefault})
	})
}

// destinationByName finds a destination, or says there is none.
func destinationByName(ctx context.Context, tx *store.Tx, name string) (store.Destination, error) {
	d, err := tx.DestinationGetByName(ctx, name)
	if isNotFound(err) {
		return d, errorf(ErrNotFound, "no destination named %s (monitor admin destination list)", clip(name, 40))
	}
	return d, err
}

// TenantDestinations lists the destinations a tenant may push to.
func (a *App) TenantDestinations(ctx context.Context, tenantID uuid.UUID) ([]DestinationView, error) {
	ctx = store.WithTenant(ctx, tenantID)
	var out []DestinationView
	err := a.store.InTx(ctx, func(tx *store.Tx) error {
		ds, err := tx.DestinationsOfTenant(ctx, tenantID)
		for _, d := range ds {
			out = append(out, destinationView(d))
		}
		return err
	})
	return out, err
}

// PushView is a push and its files.
type PushView struct {
	ID           uuid.UUID    `json:"id"`
	CollectionID uuid.UUID    `json:"collection_id"`
	Destination  string       `json:"destination"`
	RemoteDir    string       `json:"remote_dir"`
	State        string       `json:"state"`
	Attempts     int          `json:"attempts"`
	Error        string       `json:"error,omitempty"`
	CreatedAt    time.Time    `json:"created_at"`
	FinishedAt   *time.Time   `json:"finished_at,omitempty"`
	Files        []UploadView `json:"files"`
}

// UploadView is one file of a push.
type UploadView struct {
	Name       string `json:"name"`
	RemotePath string `json:"remote_path"`
	Bytes      int64  `json:"bytes"`
	State      string `json:"state"`
	Error      string `json:"error,omitempty"`
}

// PushCollection queues an upload of one of the tenant's collections to a
// destination it may use (destination "" = its default).
func (a *App) PushCollection(ctx context.Context, tenantID, collectionID uuid.UUID, destination string) (PushView, error) {
	ctx = store.WithTenant(ctx, tenantID)
	sc, err := a.store.SavedCollectionGet(ctx, tenantID, collectionID)
	if isNotFound(err) {
		return PushView{}, errorf(ErrNotFound, "no saved collection with id %s", collectionID)
	}
	if err != nil {
		return PushView{}, err
	}
	if sc.CurrentRevisionID == nil {
		return PushView{}, errorf(ErrConflict, "the collection is not archived yet; push it once its capture has ended")
	}
	var v PushView
	err = a.store.InTx(ctx, func(tx *store.Tx) error {
		v, err = a.queuePush(ctx, tx, store.Push{TenantID: tenantID, CollectionID: collectionID}, destination)
		return err
	})
	return v, err
}

// queuePush records a push to the tenant's destination (its default for
// "") with its job; a push of the same submission there is answered as it
// stands.
func (a *App) queuePush(ctx context.Context, tx *store.Tx, p store.Push, destination string) (PushView, error) {
	ds, err := tx.DestinationsOfTenant(ctx, p.TenantID)
	if err != nil {
		return PushView{}, err
	}
	var dest *store.Destination
	for i, d := range ds {
		if destination == "" && d.IsDefault || destination != "" && d.Name == destination {
			dest = &ds[i]
		}
	}
	switch {
	case dest == nil && len(ds) == 0:
		return PushView{}, errorf(ErrNotFound, "this account may not push to any destination; ask the operator")
	case dest == nil && destination == "":
		return PushView{}, errorf(ErrInvalid, "say which destination (%s): this account has no default one", destinationNames(ds))
	case dest == nil:
		return PushView{}, errorf(ErrNotFound, "no destination named %s that this account may use (%s)", clip(destination, 40), destinationNames(ds))
	}
	p.DestinationID = dest.ID
	if p.SubmissionID != nil {
		old, err := tx.PushGetBySubmission(ctx, p.TenantID, *p.SubmissionID, dest.ID)
		if err == nil {
			return pushView(old, dest.Name, nil), nil
		}
		if !isNotFound(err) {
			return PushView{}, err
		}
	}
	if p, err = tx.PushInsert(ctx, p); err != nil {
		return PushView{}, err
	}
	if err := a.insertJob(ctx, tx, queue.PushArgs{PushID: p.ID, TenantID: p.TenantID}); err != nil {
		return PushView{}, err
	}
	return pushView(p, dest.Name, nil), nil
}

// destinationNames lists destinations for a message.
func destinationNames(ds []store.Destination) string {
	names := make([]string, 0, len(ds))
	for _, d := range ds {
		names = append(names, d.Name)
	}
	return strings.Join(names, ", ")
}

func pushView(p store.Push, destination string, ups []store.Upload) PushView {
	v := PushView{ID: p.ID, CollectionID: p.CollectionID, Destination: destination, RemoteDir: p.RemoteDir, State: p.State,
		Attempts: p.Attempts, Error: p.Error, CreatedAt: p.CreatedAt, FinishedAt: p.FinishedAt, Files: []UploadView{}}
	for _, u := range ups {
		v.Files = append(v.Files, UploadView{Name: u.FileName, RemotePath: u.RemotePath, Bytes: u.Bytes, State: u.State, Error: u.Error})
	}
	return v
}

// Push shows one of the tenant's pushes with its files.
func (a *App) Push(ctx context.Context, tenantID, id uuid.UUID) (PushView, error) {
	ctx = store.WithTenant(ctx, tenantID)
	p, err := a.store.PushGet(ctx, tenantID, id)
	if isNotFound(err) {
		return PushView{}, errorf(ErrNotFound, "no push with id %s", id)
	}
	if err != nil {
		return PushView{}, err
	}
	d, err := a.store.DestinationGet(ctx, p.DestinationID)
	if err != nil {
		return PushView{}, err
	}
	ups, err := a.store.UploadList(ctx, tenantID, id)
	return pushView(p, d.Name, ups), err
}

type pushWorker struct {
	river.WorkerDefaults[queue.PushArgs]
	app *App
}

// Timeout bounds one attempt: media files go up one after another.
func (w *pushWorker) Timeout(*river.Job[queue.PushArgs]) time.Duration { return 30 * time.Minute }

func (w *pushWorker) Work(ctx context.Context, job *river.Job[queue.PushArgs]) error {
	ctx = store.WithTenant(ctx, job.Args.TenantID)
	a, tenantID, id := w.app, job.Args.TenantID, job.Args.PushID
	err := a.runPush(ctx, tenantID, id, job.Attempt)
	var snooze *river.JobSnoozeError
	var cancel *river.JobCancelError
	if err == nil || errors.As(err, &snooze) {
		return err
	}
	state := store.PushQueued // River tries again
	if job.Attempt >= job.MaxAttempts || errors.As(err, &cancel) {
		state = store.PushFailed
	}
	serr := a.store.InTx(ctx, func(tx *store.Tx) error {
		if err := tx.PushSetState(ctx, tenantID, id, state, job.Attempt, clip(err.Error(), maxWorkErrorLen)); err != nil {
			return err
		}
		if state == store.PushFailed {
			return a.queuePushNotice(ctx, tx, tenantID, id)
		}
		return nil
	})
	return errors.Join(err, serr)
}

// pushWait is how long a /download's push waits for its capture to end.
const pushWait = 3 * time.Second

// ChannelWorkPush tells the person who sent /download how its push
// ended. Its Progress starts as {"notice": PushNotice}.
const ChannelWorkPush = "push"

// PushNotice is what a ChannelWorkPush item tells, in the private chat
// ChatID.
type PushNotice struct {
	ChatID      int64  `json:"chat_id"`
	URL         string `json:"url"`
	Destination string `json:"destination"`
	State       string `json:"state"` // succeeded or failed
	RemoteDir   string `json:"remote_dir,omitempty"`
	Files       int    `json:"files"`
	Bytes       int64  `json:"bytes"`
	Error       string `json:"error,omitempty"`
}

// queuePushNotice queues the notice of a push a channel asked for, once it
// has ended, in the transaction that ended it.
func (a *App) queuePushNotice(ctx context.Context, tx *store.Tx, tenantID, id uuid.UUID) error {
	p, err := tx.PushGet(ctx, tenantID, id)
	if err != nil || p.ChannelID == nil || p.NotifyChatID == "" {
		return err
	}
	d, err := tx.DestinationGet(ctx, p.DestinationID)
	if err != nil {
		return err
	}
	n := PushNotice{Destination: d.Name, State: p.State, RemoteDir: p.RemoteDir, Error: p.Error}
	n.ChatID, _ = strconv.ParseInt(p.NotifyChatID, 10, 64)
	if p.SubmissionID != nil {
		sub, err := tx.SubmissionGet(ctx, *p.SubmissionID)
		if err != nil {
			return err
		}
		n.URL = sub.InputURL
	}
	ups, err := tx.UploadList(ctx, tenantID, id)
	if err != nil {
		return err
	}
	for _, u := range ups {
		if u.State == store.UploadSucceeded {
			n.Files++
			n.Bytes += u.Bytes
		}
	}
	doc, err := json.Marshal(map[string]PushNotice{"notice": n})
	if err != nil {
		return err
	}
	_, err = tx.ChannelWorkInsert(ctx, store.ChannelWork{ChannelID: *p.ChannelID, Kind: ChannelWorkPush, TenantID: tenantID, Progress: doc})
	return err
}

// ChannelDownload archives a link for the person behind an update and
// pushes it to a cloud destination once archived (destination "" = the
// tenant's default); the person is told in their private chat how the
// upload ended. The result is not sent to the chat.
func (a *App) ChannelDownload(ctx context.Context, id uuid.UUID, owner, url, destination string) (PushView, error) {
	j, err := a.ownedJob(ctx, id, owner)
	if err != nil {
		return PushView{}, err
	}
	if j.update == nil || j.update.ChatType != "private" {
		return PushView{}, forbidden("send /download in a private chat with the bot")
	}
	var allowed []store.Destination
	if err := a.store.InTx(j.ctx, func(tx *store.Tx) error {
		allowed, err = tx.DestinationsOfTenant(j.ctx, j.tenantID)
		return err
	}); err != nil {
		return PushView{}, err
	}
	if len(allowed) == 0 {
		return PushView{}, errorf(ErrForbidden, "this account may not upload to a cloud drive; ask the operator")
	}
	res, err := a.Submit(j.ctx, SubmitRequest{TenantID: j.tenantID, URL: url, IdemKey: channelIdemKey(j.work.ID, "download:"+url),
		NoCopies: true})
	if err != nil {
		return PushView{}, err
	}
	var v PushView
	err = a.store.InTx(j.ctx, func(tx *store.Tx) error {
		v, err = a.queuePush(j.ctx, tx, store.Push{TenantID: j.tenantID, CollectionID: res.CollectionID,
			SubmissionID: &res.SubmissionID, ChannelID: &j.work.ChannelID,
			NotifyChatID: strconv.FormatInt(j.update.ChatID, 10)}, destination)
		return err
	})
	return v, err
}

// runPush makes one attempt of a push: the files are staged in a
// temporary folder, then each goes up with rclone.
func (a *App) runPush(ctx context.Context, tenantID, id uuid.UUID, attempt int) error {
	p, err := a.store.PushGet(ctx, tenantID, id)
	if err != nil {
		return err
	}
	if p.State == store.PushSucceeded || p.State == store.PushFailed {
		return nil
	}
	if p.SubmissionID != nil {
		// A /download: wait for its capture.
		sub, err := a.store.SubmissionGet(ctx, *p.SubmissionID)
		if err != nil {
			return err
		}
		c, err := a.store.CaptureGet(ctx, sub.CaptureID)
		if err != nil {
			return err
		}
		switch {
		case !captureEnded(c.State):
			return river.JobSnooze(pushWait)
		case c.State == store.CaptureFailed:
			return river.JobCancel(fmt.Errorf("the post could not be archived: %s", clip(c.Error, 200)))
		}
	}
	dest, err := a.store.DestinationGet(ctx, p.DestinationID)
	if err != nil {
		return err
	}
	if a.collectionFile == nil {
		return errors.New("app: no collection file writer: the runtime did not give one")
	}
	sc, err := a.store.SavedCollectionGet(ctx, tenantID, p.CollectionID)
	if err != nil {
		return err
	}
	ec, err := a.exportedOne(ctx, sc, false)
	if err != nil {
		return err
	}
	name, md, err := a.collectionFile(ec)
	if err != nil {
		return err
	}
	dir := path.Join(ec.Platform, strings.TrimSuffix(name, ".md"))
	if err := a.store.InTx(ctx, func(tx *store.Tx) error {
		if err := tx.PushSetDir(ctx, tenantID, id, dir); err != nil {
			return err
		}
		return tx.PushSetState(ctx, tenantID, id, store.PushRunning, attempt, "")
	}); err != nil {
		return err
	}
	config, err := a.destinationConfig(dest)
	if err != nil {
		return err
	}
	stage, err := os.MkdirTemp("", "monitor-push-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(stage)
	files := []string{name}
	if err := os.WriteFile(filepath.Join(stage, name), md, 0o600); err != nil {
		return err
	}
	for _, m := range ec.Current.Media {
		rel := mediaFileName(m.SHA256, m.Mime)
		if err := a.stageMedia(ctx, ec.Current.ID, m.SHA256, filepath.Join(stage, filepath.FromSlash(rel))); err != nil {
			return err
		}
		files = append(files, rel)
	}
	rc, err := newRclone(a.rclone, config, stage)
	if err != nil {
		return err
	}
	defer rc.close()
	var failed error
	for _, f := range files {
		remote := strings.TrimRight(dest.Remote, "/") + "/" + dir + "/" + f
		if strings.HasSuffix(dest.Remote, ":") {
			remote = dest.Remote + dir + "/" + f
		}
		st, err := os.Stat(filepath.Join(stage, filepath.FromSlash(f)))
		if err != nil {
			return err
		}
		u := store.Upload{PushID: id, TenantID: tenantID, FileName: f, RemotePath: dir + "/" + f, State: store.UploadUploading}
		if err := a.store.InTx(ctx, func(tx *store.Tx) error { return tx.UploadSet(ctx, u) }); err != nil {
			return err
		}
		uerr := rc.copyTo(ctx, filepath.Join(stage, filepath.FromSlash(f)), remote)
		u.State, u.Bytes = store.UploadSucceeded, st.Size()
		if uerr != nil {
			u.State, u.Bytes, u.Error = store.UploadFailed, 0, clip(uerr.Error(), maxWorkErrorLen)
			a.LogError(ctx, ErrorRecord{Source: SourceCloud, Stage: "upload", Message: "an upload to a destination failed",
				Detail: uerr.Error(), Context: map[string]string{"destination": dest.Name, "file": f, "push_id": id.String()},
				TenantID: tenantID})
			failed = fmt.Errorf("uploading %s to %s: %w", f, dest.Name, uerr)
		}
		if err := a.store.InTx(ctx, func(tx *store.Tx) error { return tx.UploadSet(ctx, u) }); err != nil {
			return err
		}
		if failed != nil {
			return failed
		}
	}
	return a.store.InTx(ctx, func(tx *store.Tx) error {
		if err := tx.PushSetState(ctx, tenantID, id, store.PushSucceeded, attempt, ""); err != nil {
			return err
		}
		return a.queuePushNotice(ctx, tx, tenantID, id)
	})
}

// SourceCloud is the error log's source of uploads to destinations.
const SourceCloud = "cloud"

// mediaFileName is where a media file goes in a push's folder: where the
// capsule keeps it, so the Markdown file's references hold.
func mediaFileName(sha256, mime string) string {
	return path.Join("files", sha256[:2], sha256+"."+mediatype.Ext(mime))
}

// stageMedia copies one media file of a revision from the blob store.
func (a *App) stageMedia(ctx context.Context, revisionID uuid.UUID, sha256, dst string) error {
	b, err := a.store.BlobForRevision(ctx, revisionID, sha256)
	if err != nil {
		return err
	}
	rc, _, err := a.blob.Get(ctx, b.ObjectKey, nil)
	if err != nil {
		return err
	}
	defer rc.Close()
	if err := os.MkdirAll(filepath.Dir(dst), 0o700); err != nil {
		return err
	}
	f, err := os.OpenFile(dst, os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o600)
	if err != nil {
		return err
	}
	if _, err := io.Copy(f, rc); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// rclone runs the rclone binary with a destination's config.
type rclone struct {
	bin     string
	config  string // the 0600 config file, removed by close
	secrets []string
}

// newRclone writes the config to a 0600 file in dir.
func newRclone(bin, config, dir string) (*rclone, error) {
	if bin == "" {
		bin = "rclone"
	}
	f, err := os.CreateTemp(dir, ".rclone-*.conf")
	if err != nil {
		return nil, err
	}
	if err := f.Chmod(0o600); err != nil {
		f.Close()
		os.Remove(f.Name())
		return nil, err
	}
	if _, err := f.WriteString(config); err != nil {
		f.Close()
		os.Remove(f.Name())
		return nil, err
	}
	if err := f.Close(); err != nil {
		os.Remove(f.Name())
		return nil, err
	}
	return &rclone{bin: bin, config: f.Name(), secrets: configValues(config)}, nil
}

func (r *rclone) close() { os.Remove(r.config) }

// rcloneTimeout bounds one file's upload.
const rcloneTimeout = 10 * time.Minute

// copyTo uploads one file; an error carries rclone's stderr, redacted.
func (r *rclone) copyTo(ctx context.Context, local, remote string) error {
	return r.run(ctx, "copyto", local, remote)
}

// run runs one rclone command (copyto a file, copy a folder) from local
// to remote; an error carries rclone's stderr, redacted.
func (r *rclone) run(ctx context.Context, verb, local, remote string) error {
	ctx, cancel := context.WithTimeout(ctx, rcloneTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, r.bin, verb, "--config", r.config, "--retries", "1", "--low-level-retries", "1",
		"--contimeout", "10s", "--timeout", "60s", "--", local, remote)
	cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + filepath.Dir(r.config)}
	var stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = io.Discard, &stderr
	err := cmd.Run()
	if err == nil {
		return nil
	}
	msg := lastLines(r.redact(stderr.String()), 3)
	if msg == "" {
		msg = err.Error()
	}
	return errors.New("rclone: " + msg)
}

// redact replaces every value of the config in s.
func (r *rclone) redact(s string) string {
	for _, v := range r.secrets {
		s = strings.ReplaceAll(s, v, "<redacted>")
	}
	return s
}

// configValues are the values of an rclone config's key = value lines
// worth hiding (short ones such as "true" or a type name are left).
func configValues(config string) []string {
	var out []string
	sc := bufio.NewScanner(strings.NewReader(config))
	for sc.Scan() {
		_, v, ok := strings.Cut(sc.Text(), "=")
		v = strings.TrimSpace(v)
		if ok && len(v) >= 6 {
			out = append(out, v)
		}
	}
	return out
}

// lastLines keeps the last n non-empty lines of s, on one line.
func lastLines(s string, n int) string {
	var lines []string
	for _, l := range strings.Split(s, "\n") {
		if l = strings.TrimSpace(l); l != "" {
			lines = append(lines, l)
		}
	}
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, " | ")
}

// UploadFolder copies a local folder (an export) into a destination, under
// sub (a path below the destination's own; "" = right there), with rclone;
// it answers where it went.
func (a *App) UploadFolder(ctx context.Context, actor, destination, sub, dir string) (string, error) {
	var dest store.Destination
	err := a.store.InTx(ctx, func(tx *store.Tx) error {
		var err error
		dest, err = destinationByName(ctx, tx, destination)
		return err
	})
	if err != nil {
		return "", err
	}
	sub = strings.Trim(path.Clean("/"+sub), "/")
	if strings.HasPrefix(sub, "..") {
		return "", errorf(ErrInvalid, "the path below a destination may not climb out of it")
	}
	config, err := a.destinationConfig(dest)
	if err != nil {
		return "", err
	}
	tmp, err := os.MkdirTemp("", "monitor-rclone-")
	if err != nil {
		return "", err
	}
	defer os.RemoveAll(tmp)
	rc, err := newRclone(a.rclone, config, tmp)
	if err != nil {
		return "", err
	}
	defer rc.close()
	remote := dest.Remote
	if sub != "" {
		remote = strings.TrimRight(remote, "/") + "/" + sub
		if strings.HasSuffix(dest.Remote, ":") {
			remote = dest.Remote + sub
		}
	}
	if err := rc.run(ctx, "copy", dir, remote); err != nil {
		a.LogError(ctx, ErrorRecord{Source: SourceCloud, Stage: "upload", Message: "copying an export to a destination failed",
			Detail: err.Error(), Context: map[string]string{"destination": dest.Name}})
		return "", fmt.Errorf("copying to %s: %w", dest.Name, err)
	}
	if err := a.store.InTx(ctx, func(tx *store.Tx) error {
		return audit(ctx, tx, actor, "destination.upload", "destination:"+dest.Name, nil, map[string]any{"path": sub})
	}); err != nil {
		return "", err
	}
	return dest.Name + ":" + sub, nil
}
