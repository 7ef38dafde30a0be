package app_test

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/stretchr/testify/require"

	"github.com/monitorhq/monitor/internal/app"
	"github.com/monitorhq/monitor/internal/capsule/export"
	"github.com/monitorhq/monitor/internal/testkit/testcore"
)

// rcloneBin is the rclone the tests run: Debian's, else one on PATH.
func rcloneBin(t *testing.T) string {
	t.Helper()
	for _, p := range []string{"/usr/bin/rclone", "rclone"} {
		if bin, err := exec.LookPath(p); err == nil {
			return bin
		}
	}
	if os.Getenv("CI") == "true" {
		t.Fatal("rclone is not installed (apt-get install rclone, or go install github.com/rclone/rclone@latest)")
	}
	t.Skip("rclone is not installed; the cloud destination tests need it")
	return ""
}

// webdav runs `rclone serve webdav` on a free loopback port over root,
// with a user and password, until the test ends.
func webdav(t *testing.T, bin, root, user, pass string) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	addr := l.Addr().String()
	require.NoError(t, l.Close())
	cmd := exec.Command(bin, "serve", "webdav", root, "--addr", addr, "--user", user, "--pass", pass, "--config", "/dev/null")
	require.NoError(t, cmd.Start())
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	require.Eventually(t, func() bool {
		c, err := net.DialTimeout("tcp", addr, 200*time.Millisecond)
		if err == nil {
			c.Close()
		}
		return err == nil
	}, 20*time.Second, 50*time.Millisecond, "rclone serve webdav did not start")
	return "http://" + addr
}

// obscured is rclone's obscured form of the webdav password "secret123"
// (`rclone obscure secret123`): what an rclone config holds.
const obscured = "Xl_Ef-jLCwhtejmYESST6GzerLU_HzLkUg"

// waitPush waits until a push has ended, or (attempts > 0) has been tried
// at least attempts times and is not running.
func waitPush(t *testing.T, a *app.App, tenant, id uuid.UUID, attempts int) app.PushView {
	t.Helper()
	var v app.PushView
	require.Eventually(t, func() bool {
		var err error
		v, err = a.Push(context.Background(), tenant, id)
		require.NoError(t, err)
		return v.State == "succeeded" || v.State == "failed" || attempts > 0 && v.Attempts >= attempts && v.State != "running"
	}, 60*time.Second, 50*time.Millisecond)
	return v
}

// Pushes through rclone on both databases: to its local backend in a
// temp dir and to a loopback `rclone serve webdav`, the Markdown file and
// the media land in <path>/<platform>/<YYYY-MM-DD>-<id>/ with the right
// names and bytes, each recorded with its size; an unreachable
// destination fails with rclone's reason and is tried again; the rclone
// config never shows in the audit log, the error log, what the API
// answers, or an export.
func TestPushToCloudDestinations(t *testing.T) {
	t.Parallel()
	bin := rcloneBin(t)
	testcore.Each(t, testcore.Options{Limits: testLimits(), MasterKey: "test-master-key-0123456789"}, func(t *testing.T, c *testcore.Core) {
		p := pipelineOf(c)
		a := p.app
		ctx := context.Background()
		tenant := p.tenant(t, "alice", nil)
		res, view := p.capture(t, tenant, photosPost)
		require.Equal(t, "complete", view.State)

		local := t.TempDir()
		_, err := a.AddDestination(ctx, "test", "local", "local:"+local+"/archive", []byte("[local]\ntype = local\n"))
		require.NoError(t, err)
		davRoot := t.TempDir()
		url := webdav(t, bin, davRoot, "monitor", "secret123")
		davConfig := fmt.Sprintf("[dav]\ntype = webdav\nurl = %s\nvendor = other\nuser = monitor\npass = %s\n", url, obscured)
		_, err = a.AddDestination(ctx, "test", "dav", "dav:archive", []byte(davConfig))
		require.NoError(t, err)
		_, err = a.AddDestination(ctx, "test", "gone", "gone:archive",
			[]byte("[gone]\ntype = webdav\nurl = http://127.0.0.1:1\nvendor = other\nuser = monitor\npass = "+obscured+"\n"))
		require.NoError(t, err)
		_, err = a.AddDestination(ctx, "test", "bad", "nosection:x", []byte("[local]\ntype = local\n"))
		require.ErrorIs(t, err, app.ErrInvalid)

		_, err = a.PushCollection(ctx, tenant, res.CollectionID, "local")
		require.ErrorIs(t, err, app.ErrNotFound, "not allowed yet")
		require.NoError(t, a.AllowDestination(ctx, "test", "local", "alice", true))
		require.NoError(t, a.AllowDestination(ctx, "test", "dav", "alice", false))
		require.NoError(t, a.AllowDestination(ctx, "test", "gone", "alice", false))

		item, err := a.Collection(ctx, tenant, res.CollectionID)
		require.NoError(t, err)
		check := func(root string, v app.PushView) {
			t.Helper()
			require.Equal(t, "succeeded", v.State, v.Error)
			require.True(t, strings.HasPrefix(v.RemoteDir, "x/"), v.RemoteDir)
			id := res.CollectionID.String()
			require.True(t, strings.HasSuffix(v.RemoteDir, "-"+id[len(id)-8:]), v.RemoteDir)
			require.Len(t, v.Files, 1+len(item.Media))
			dir := filepath.Join(root, "archive", filepath.FromSlash(v.RemoteDir))
			md, err := os.ReadFile(filepath.Join(dir, filepath.Base(v.RemoteDir)+".md"))
			require.NoError(t, err)
			require.Contains(t, string(md), "id: "+id)
			require.Contains(t, string(md), "Two frames from this morning's walk")
			for _, m := range item.Media {
				data, err := os.ReadFile(filepath.Join(dir, "files", m.SHA256[:2], m.SHA256+".jpg"))
				require.NoError(t, err)
				sum := sha256.Sum256(data)
				require.Equal(t, m.SHA256, hex.EncodeToString(sum[:]))
				require.Contains(t, string(md), "files/"+m.SHA256[:2]+"/"+m.SHA256+".jpg")
			}
			for _, f := range v.Files {
				require.Equal(t, "succeeded", f.State)
				st, err := os.Stat(filepath.Join(dir, filepath.FromSlash(f.Name)))
				require.NoError(t, err)
				require.Equal(t, st.Size(), f.Bytes, f.Name)
			}
		}
		pv, err := a.PushCollection(ctx, tenant, res.CollectionID, "") // the default
		require.NoError(t, err)
		require.Equal(t, "local", pv.Destination)
		check(local, waitPush(t, a, tenant, pv.ID, 0))
		pv, err = a.PushCollection(ctx, tenant, res.CollectionID, "dav")
		require.NoError(t, err)
		check(davRoot, waitPush(t, a, tenant, pv.ID, 0))

		pv, err = a.PushCollection(ctx, tenant, res.CollectionID, "gone")
		require.NoError(t, err)
		gone := waitPush(t, a, tenant, pv.ID, 2)
		require.GreaterOrEqual(t, gone.Attempts, 2, "tried again")
		require.NotEqual(t, "succeeded", gone.State)
		require.Contains(t, gone.Error, "rclone:")
		require.Contains(t, gone.Error, "connection refused")
		require.Equal(t, "failed", gone.Files[0].State)
		require.Contains(t, gone.Files[0].Error, "connection refused")

		// The config is nowhere to be read.
		logs, err := a.ErrorLogs(ctx, app.SourceCloud, 50)
		require.NoError(t, err)
		require.NotEmpty(t, logs)
		audit, err := a.Audit(ctx, 100)
		require.NoError(t, err)
		dests, err := a.Destinations(ctx)
		require.NoError(t, err)
		seen, err := json.Marshal([]any{logs, audit, dests, gone})
		require.NoError(t, err)
		out := filepath.Join(t.TempDir(), "capsule")
		_, err = export.Export(ctx, a, export.Options{TenantID: tenant, TenantName: "alice", Out: out, IncludePrivate: true})
		require.NoError(t, err)
		_ = filepath.Walk(out, func(p string, info os.FileInfo, err error) error {
			if err == nil && !info.IsDir() {
				data, _ := os.ReadFile(p)
				seen = append(seen, data...)
			}
			return nil
		})
		for _, secret := range []string{obscured, "secret123", "vendor = other", url} {
			require.NotContains(t, string(seen), secret)
		}
	})
}
