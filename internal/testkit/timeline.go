package testkit

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// Timeline is a synthetic profile the fake serves with its posts: the
// profile at /2/profile/<handle>, its timeline at
// /2/profile/<handle>/statuses in upstream pages (cursor "p<k>" is page k;
// past the end the answer has no results and the same cursor, as the real
// API's last page), and each post at /2/status/<id>. The profile and its
// timeline answer by handle and by id:<id> alike.
type Timeline struct {
	Handle string
	// ID is the profile's numeric id.
	ID string
	// ProfileURL is the profile's x.com link; Posts are the posts' links,
	// newest first, as the timeline lists them.
	ProfileURL string
	Posts      []string
}

type fxTimeline struct {
	handle, id string
	perPage    int
	// newest is the number of the newest post so far (ids count up from
	// the oldest, 1).
	newest   int
	statuses []any
	// text: the posts have no media at all (AddTextTimeline).
	text bool
	// fail: upstream page index → status to answer it with, once each
	// time FailTimelinePage is called.
	fail map[int]int
	// hold, when set, holds the next page request (HoldTimeline).
	hold *FetchHold
}

// AddTimeline serves a profile with n posts, each with one photo, over
// upstream pages of perPage posts.
func (f *FxTwitter) AddTimeline(handle, id string, n, perPage int) Timeline {
	f.t.Helper()
	return f.addTimeline(handle, id, n, perPage, false)
}

// AddTextTimeline is AddTimeline with text posts that fetch no media at
// all, for tests whose subject is the pages, not the downloads.
func (f *FxTwitter) AddTextTimeline(handle, id string, n, perPage int) Timeline {
	f.t.Helper()
	return f.addTimeline(handle, id, n, perPage, true)
}

func (f *FxTwitter) addTimeline(handle, id string, n, perPage int, text bool) Timeline {
	f.t.Helper()
	var prof map[string]any
	if err := json.Unmarshal(f.Raw("profile.json"), &prof); err != nil {
		f.t.Fatalf("testkit: profile fixture: %v", err)
	}
	user := prof["user"].(map[string]any)
	user["screen_name"], user["id"], user["name"] = handle, id, "Synthetic "+handle
	user["url"] = "https://x.com/" + handle
	user["statuses"] = n
	body, err := json.Marshal(prof)
	if err != nil {
		f.t.Fatalf("testkit: synthetic profile: %v", err)
	}
	// FxTwitter answers a profile by handle and by its id: form.
	f.SetOverride("/2/profile/"+handle, 200, "application/json", body)
	f.SetOverride("/2/profile/id:"+id, 200, "application/json", body)

	tl := Timeline{Handle: handle, ID: id, ProfileURL: "https://x.com/" + handle}
	ft := &fxTimeline{handle: handle, id: id, perPage: perPage, newest: n, fail: map[int]int{}, text: text}
	for i := 0; i < n; i++ {
		// Newest first: ids count down.
		st := f.timelinePost(ft, n-i)
		ft.statuses = append(ft.statuses, st)
		tl.Posts = append(tl.Posts, st["url"].(string))
	}
	f.mu.Lock()
	if f.timelines == nil {
		f.timelines = map[string]*fxTimeline{}
	}
	f.timelines["/2/profile/"+handle+"/statuses"] = ft
	f.timelines["/2/profile/id:"+id+"/statuses"] = ft
	f.mu.Unlock()
	return tl
}

// timelinePost serves post number k of a synthetic timeline and returns
// its status object.
func (f *FxTwitter) timelinePost(ft *fxTimeline, k int) map[string]any {
	p := SyntheticPost{ID: strconv.FormatInt(3_000_000_000_000_000_000+int64(k), 10), Photos: 1, Handle: ft.handle, AuthorID: ft.id}
	if ft.text {
		p.Photos, p.NoAvatar = 0, true
	}
	doc := f.syntheticDoc(p)
	st := doc["status"].(map[string]any)
	at := SyntheticTime(k)
	st["created_at"], st["created_timestamp"] = at.Format(time.RubyDate), at.Unix()
	b, err := json.Marshal(doc)
	if err != nil {
		f.t.Fatalf("testkit: synthetic post: %v", err)
	}
	f.SetOverride("/2/status/"+p.ID, 200, "application/json", b)
	return st
}

// SyntheticTime is when post number k (from 1, oldest first) of a
// synthetic timeline or channel was published: an hour after the one
// before, from 2026-01-01 01:00 UTC.
func SyntheticTime(k int) time.Time {
	return time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC).Add(time.Duration(k) * time.Hour)
}

// GrowTimeline publishes n new posts on top of handle's synthetic
// timeline (AddTimeline), as a profile that keeps posting, and returns
// their links, newest first: a watch of the profile should find them.
func (f *FxTwitter) GrowTimeline(handle string, n int) []string {
	f.t.Helper()
	f.mu.Lock()
	ft := f.timelines["/2/profile/"+handle+"/statuses"]
	f.mu.Unlock()
	if ft == nil {
		f.t.Fatalf("testkit: no synthetic timeline of %s", handle)
	}
	added := make([]any, 0, n)
	urls := make([]string, 0, n)
	for i := 0; i < n; i++ {
		f.mu.Lock()
		ft.newest++
		k := ft.newest
		f.mu.Unlock()
		st := f.timelinePost(ft, k)
		// Newest first.
		added = append([]any{st}, added...)
		urls = append([]string{st["url"].(string)}, urls...)
	}
	f.mu.Lock()
	ft.statuses = append(added, ft.statuses...)
	f.mu.Unlock()
	return urls
}

// RemoveTimeline makes handle's synthetic profile and timeline answer 404
// from now on, as a deleted or renamed account.
func (f *FxTwitter) RemoveTimeline(handle, id string) {
	f.t.Helper()
	gone := []byte(`{"code":404,"message":"NOT_FOUND"}`)
	f.mu.Lock()
	delete(f.timelines, "/2/profile/"+handle+"/statuses")
	delete(f.timelines, "/2/profile/id:"+id+"/statuses")
	f.mu.Unlock()
	for _, p := range []string{"/2/profile/" + handle, "/2/profile/id:" + id, "/2/profile/" + handle + "/statuses", "/2/profile/id:" + id + "/statuses"} {
		f.SetOverride(p, 404, "application/json", gone)
	}
}

// FailTimelinePage makes the next request for upstream page k (0 = the
// first) of handle's timeline answer status.
func (f *FxTwitter) FailTimelinePage(handle string, k, status int) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if ft := f.timelines["/2/profile/"+handle+"/statuses"]; ft != nil {
		ft.fail[k] = status
	}
}

// HoldTimeline makes the next page request of handle's timeline wait for
// the hold's Release (or its client to give up); Started is closed when
// it arrives.
func (f *FxTwitter) HoldTimeline(handle string) *FetchHold {
	f.mu.Lock()
	defer f.mu.Unlock()
	h := &FetchHold{Started: make(chan struct{}), release: make(chan struct{})}
	if ft := f.timelines["/2/profile/"+handle+"/statuses"]; ft != nil {
		ft.hold = h
	}
	return h
}

// serveTimeline answers a synthetic timeline's page; ok is false for any
// other path.
func (f *FxTwitter) serveTimeline(w http.ResponseWriter, r *http.Request) bool {
	f.mu.Lock()
	ft := f.timelines[r.URL.Path]
	if ft == nil {
		f.mu.Unlock()
		return false
	}
	k := 0
	if c := r.URL.Query().Get("cursor"); c != "" {
		n, err := strconv.Atoi(strings.TrimPrefix(c, "p"))
		if err != nil || !strings.HasPrefix(c, "p") || n < 0 {
			f.mu.Unlock()
			writeBody(w, http.StatusBadRequest, jsonHeaders(nil), []byte(`{"code":400,"message":"BAD_CURSOR"}`))
			return true
		}
		k = n
	}
	status, fail := ft.fail[k]
	delete(ft.fail, k)
	// count is ignored: a page is always perPage posts, so a cursor
	// means the same page whoever asks.
	from := min(k*ft.perPage, len(ft.statuses))
	results := ft.statuses[from:min(from+ft.perPage, len(ft.statuses))]
	hold := ft.hold
	ft.hold = nil
	f.mu.Unlock()
	if hold != nil {
		close(hold.Started)
		select {
		case <-hold.release:
		case <-r.Context().Done():
			return true
		}
	}
	if fail {
		writeBody(w, status, jsonHeaders(nil), []byte(fmt.Sprintf(`{"code":%d,"message":"FAILED"}`, status)))
		return true
	}
	next := k
	if len(results) > 0 {
		next = k + 1
	}
	body, err := json.Marshal(map[string]any{
		"code": 200, "results": results,
		"cursor": map[string]any{"top": "p0", "bottom": "p" + strconv.Itoa(next)},
	})
	if err != nil {
		writeBody(w, http.StatusInternalServerError, jsonHeaders(nil), nil)
		return true
	}
	writeBody(w, http.StatusOK, jsonHeaders(nil), body)
	return true
}
