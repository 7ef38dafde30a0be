package web_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/monitorhq/monitor/internal/app"
	"github.com/monitorhq/monitor/internal/httpapi"
	"github.com/monitorhq/monitor/internal/store/storetest"
	"github.com/monitorhq/monitor/internal/testkit/testcore"
)

// BenchmarkProfilePages measures the server time of a profile's progress
// page and of its item page (20 posts, Fetch more), on each database, for
// the synthetic 250-post profile archived as three pages: the progress
// page of the first page counts all three and walks to the last for
// Fetch more.
//
//	go test ./internal/web -run '^$' -bench ProfilePages -benchtime 200x
//
// Measured on 2 shared cores (load ≈ 13), per page: progress SQLite 3.9 ms,
// PostgreSQL 7.3 ms; the profile's page with Fetch more SQLite 12.5 ms,
// PostgreSQL 35.8 ms, and without it (plain) 7.9 and 30.3 ms. Most of a
// profile's page is App.Members, which reads each of the 20 posts whole.
func BenchmarkProfilePages(b *testing.B) {
	for _, db := range storetest.Drivers() {
		b.Run(db, func(b *testing.B) {
			ctx := context.Background()
			c := testcore.New(b, testcore.Options{DB: db})
			tl := c.FX.AddTimeline(timelineHandle, timelineID, 250, 20)
			s := newItemSite(b, c, "alice")
			res, err := c.App.Submit(ctx, app.SubmitRequest{TenantID: s.tenant, URL: tl.ProfileURL})
			require.NoError(b, err)
			page := res.SubmissionID
			for range 2 {
				waitSubmission(b, c, s.tenant, page)
				more, err := c.App.More(ctx, s.tenant, page)
				require.NoError(b, err)
				page = more.SubmissionID
			}
			waitSubmission(b, c, s.tenant, page)
			root := waitSubmission(b, c, s.tenant, res.SubmissionID)
			require.Equal(b, 250, root.Progress.Total)

			for _, p := range []struct{ name, path string }{
				{"progress", "/submissions/" + res.SubmissionID.String()},
				{"profile", "/c/" + res.CollectionID.String() + "?submission=" + res.SubmissionID.String()},
				{"plain", "/c/" + res.CollectionID.String()},
			} {
				b.Run(p.name, func(b *testing.B) {
					for b.Loop() {
						req := httptest.NewRequest(http.MethodGet, p.path, nil)
						req.AddCookie(&http.Cookie{Name: httpapi.SessionCookie, Value: s.key})
						w := httptest.NewRecorder()
						s.h.ServeHTTP(w, req)
						if w.Code != http.StatusOK {
							b.Fatalf("%s: %d", p.path, w.Code)
						}
					}
				})
			}
		})
	}
}
