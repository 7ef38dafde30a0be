package web_test

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/monitorhq/monitor/internal/testkit/testcore"
	"github.com/monitorhq/monitor/internal/web"
)

// TestAdminRestoreIsStagedForTheNextStart: Backups offers "Restore…" for
// each snapshot; its page shows what comes back and that a restart is
// needed; confirming (with CSRF) stages it, which Backups then shows with
// a cancel button; a second restore, a damaged file and a missing CSRF
// token are refused with what to do.
func TestAdminRestoreIsStagedForTheNextStart(t *testing.T) {
	t.Parallel()
	l := newAdminLive(t)
	ctx := context.Background()
	admin := l.visitor(t, "root", true)
	s, err := l.App().SnapshotNow(ctx, "test")
	require.NoError(t, err)

	list := admin.get("/admin/backups")
	require.Contains(t, list.Body, `href="/admin/backups/`+s.Name+`/restore">Restore…</a>`)
	require.Contains(t, list.Body, "it is swapped in when Monitor next starts")

	pv := admin.get("/admin/backups/" + s.Name + "/restore")
	require.Equal(t, http.StatusOK, pv.Status, pv.Body)
	require.Contains(t, pv.Body, "Restore "+s.Name)
	require.Contains(t, pv.Body, "What will be restored")
	require.Contains(t, pv.Body, "restart needed")
	require.Contains(t, pv.Body, "The whole database and every media file are replaced by the snapshot&#39;s")
	require.Contains(t, pv.Body, "Stage this restore")

	require.Equal(t, http.StatusForbidden, admin.do("POST", "/admin/backups/"+s.Name+"/restore", url.Values{}).Status, "no CSRF token, no restore")
	p := admin.post("/admin/backups/"+s.Name+"/restore", nil)
	require.Equal(t, http.StatusSeeOther, p.Status, p.Body)
	require.Equal(t, "/admin/backups?done=staged", p.Location)
	page := admin.get(p.Location)
	require.Contains(t, page.Body, "Restore staged: restart Monitor to apply it.")
	require.Contains(t, page.Body, "A restore is staged: "+s.Name)
	require.Contains(t, page.Body, "restart Monitor to apply it")
	require.Contains(t, page.Body, "Cancel the restore")
	_, err = os.Stat(filepath.Join(l.dataDir, "restore", "READY"))
	require.NoError(t, err, "staged in the data directory for the next start")

	again := admin.post("/admin/backups/"+s.Name+"/restore", nil)
	require.Equal(t, http.StatusConflict, again.Status)
	require.Contains(t, again.Body, "Not done: "+s.Name+" is staged already and waits for the next start; cancel it before staging another")
	require.NotContains(t, admin.get("/admin/backups/"+s.Name+"/restore").Body, "Stage this restore", "no second restore offered")

	admin.lang = "zh-CN"
	require.Contains(t, admin.get("/admin/backups").Body, "已暂存一次恢复")
	admin.lang = ""

	c := admin.post("/admin/backups/restore/cancel", nil)
	require.Equal(t, http.StatusSeeOther, c.Status, c.Body)
	require.Contains(t, admin.get(c.Location).Body, "Restore cancelled: the next start keeps the current data.")
	_, err = os.Stat(filepath.Join(l.dataDir, "restore"))
	require.ErrorIs(t, err, os.ErrNotExist)
	none := admin.post("/admin/backups/restore/cancel", nil)
	require.Equal(t, http.StatusBadRequest, none.Status)
	require.Contains(t, none.Body, "Not done: no restore is staged")

	bad := "monitor-snapshot-20260101T000000Z.zip"
	require.NoError(t, os.WriteFile(filepath.Join(l.dataDir, "backups", bad), []byte("not a zip"), 0o600))
	got := admin.get("/admin/backups/" + bad + "/restore")
	require.Equal(t, http.StatusBadRequest, got.Status)
	require.Contains(t, got.Body, "Not done: "+bad+" cannot be restored")
	got = admin.post("/admin/backups/"+bad+"/restore", nil)
	require.Equal(t, http.StatusBadRequest, got.Status)
	require.Contains(t, got.Body, "is not a readable zip file")
	require.Equal(t, http.StatusNotFound, admin.get("/admin/backups/monitor-snapshot-x.zip/restore").Status)

	audit := admin.get("/admin/audit").Body
	require.Contains(t, audit, "backup.restore.stage")
	require.Contains(t, audit, "backup.restore.cancel")

	alice := l.visitor(t, "alice", false)
	require.Equal(t, http.StatusNotFound, alice.get("/admin/backups/"+s.Name+"/restore").Status)
	require.Equal(t, http.StatusNotFound, alice.post("/admin/backups/"+s.Name+"/restore", nil).Status)
}

// TestAdminTenantOperatorMark: the tenant page marks and unmarks an
// operator; anything but true or false is refused.
func TestAdminTenantOperatorMark(t *testing.T) {
	t.Parallel()
	l := newAdminLive(t)
	admin := l.visitor(t, "root", true)
	l.visitor(t, "alice", false)

	page := admin.get("/admin/tenants/alice")
	require.Contains(t, page.Body, "Not an operator: the bot refuses their /admin.")
	p := admin.post("/admin/tenants/alice/admin", url.Values{"admin": {"true"}})
	require.Equal(t, http.StatusSeeOther, p.Status, p.Body)
	page = admin.get(p.Location)
	require.Contains(t, page.Body, "Operator mark saved.")
	require.Contains(t, page.Body, `<span class="badge operator">Operator</span>`)
	require.Contains(t, page.Body, "Remove operator rights")
	tn, err := l.App().TenantShow(context.Background(), "alice")
	require.NoError(t, err)
	require.True(t, tn.Admin)

	bad := admin.post("/admin/tenants/alice/admin", url.Values{"admin": {"maybe"}})
	require.Equal(t, http.StatusBadRequest, bad.Status)
	require.Contains(t, bad.Body, "Choose true or false for the operator mark.")
	require.Equal(t, http.StatusForbidden, admin.do("POST", "/admin/tenants/alice/admin", url.Values{"admin": {"false"}}).Status)
	require.Contains(t, admin.get("/admin/audit").Body, "tenant.admin")
}

// TestAdminOverviewMediaUsage: the overview counts the media the archive
// holds from the database; on S3 it names the bucket.
func TestAdminOverviewMediaUsage(t *testing.T) {
	t.Parallel()
	testcore.Each(t, testcore.Options{}, func(t *testing.T, c *testcore.Core) {
		tenant := c.Tenant(t, "root", nil)
		_, v := c.Capture(t, tenant, photosPost)
		require.Equal(t, "complete", v.State)
		mu, err := c.App.MediaUsage(context.Background())
		require.NoError(t, err)
		require.GreaterOrEqual(t, mu.Objects, int64(2), "two photos and the author's avatar")
		n := strconv.FormatInt(mu.Objects, 10)
		require.Positive(t, mu.Bytes)

		get := func(bucket, lang string) string {
			t.Helper()
			h, err := web.HandlerAs(web.Deps{App: c.App, Bucket: bucket}, tenant, &web.Session{TenantName: "root", Admin: true, CSRF: "x"})
			require.NoError(t, err)
			srv := httptest.NewServer(h)
			defer srv.Close()
			req, _ := http.NewRequest("GET", srv.URL+"/admin", nil)
			req.Header.Set("Accept-Language", lang)
			resp, err := http.DefaultClient.Do(req)
			require.NoError(t, err)
			defer resp.Body.Close()
			require.Equal(t, http.StatusOK, resp.StatusCode)
			b := new(strings.Builder)
			_, _ = io.Copy(b, resp.Body)
			return b.String()
		}
		s3 := get("s3://monitor-media", "en")
		require.Contains(t, s3, `<span class="label">Object store</span>`)
		require.Contains(t, s3, n+" objects · <code>s3://monitor-media</code>")
		require.Contains(t, get("s3://monitor-media", "zh-CN"), n+" 个对象")
		local := get("", "en")
		require.Contains(t, local, `<span class="label">Media files</span>`)
		require.NotContains(t, local, "Object store")
	})
}
