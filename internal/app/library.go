package app

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"strings"
	"time"

	"github.com/google/uuid"

	"github.com/monitorhq/monitor/internal/store"
)

// LibraryQuery asks for one page of a tenant's library.
type LibraryQuery struct {
	// Cursor continues a previous page ("" : from the newest save).
	Cursor string
	// Limit is the page size, 1 to 100 (0: DefaultLibraryLimit).
	Limit int
	// Platform, Visibility, Author and MediaKind filter ("" : any).
	Platform   string
	Visibility string
	Author     string
	MediaKind  string
	// Words keep what contains every word of it (separated by spaces) in
	// its text, summary or author name, case-insensitive.
	Words string
	// SavedFrom and SavedBefore bound the save time (zero: open); from is
	// inclusive, before exclusive.
	SavedFrom, SavedBefore time.Time
}

// DefaultLibraryLimit is a library page's size when the query gives none.
const DefaultLibraryLimit = 24

// maxLibraryWords is how many words one library search may have.
const maxLibraryWords = 8

// LibraryCardMedia is how many media a card shows; the rest is a count.
const LibraryCardMedia = 4

// LibraryPage is one page of a tenant's library, newest save first.
type LibraryPage struct {
	Items []LibraryCard
	// NextCursor continues with older saves ("" : this is the last page).
	NextCursor string
}

// LibraryCard is one saved collection as the library shows it.
type LibraryCard struct {
	ID         uuid.UUID
	Platform   string
	EntityType string
	Visibility string
	SourceURL  string
	SavedAt    time.Time
	// RevisionID is nil until a capture completed; the content fields are
	// then empty.
	RevisionID  *uuid.UUID
	Text        string
	TextKind    string
	Summary     string
	AuthorName  string
	PublishedAt *time.Time
	// AuthorHandle is the author's handle or username from the graph.
	AuthorHandle string
	// AuthorAvatar is the sha256 of the author's archived avatar ("" :
	// none archived).
	AuthorAvatar string
	// Media are the first LibraryCardMedia display media; MediaCount is
	// how many the revision has.
	Media      []MediaView
	MediaCount int
	// Counts are the root entity's counts when the graph has them.
	Counts Counts
	// Capture is the latest capture someone asked for (nil: none, such as
	// imported content).
	Capture *CardCapture
}

// Counts are a post's engagement numbers at capture time; nil is unknown.
type Counts struct {
	Likes, Reposts, Replies, Views *int64
}

// CardCapture is the state of a card's latest capture.
type CardCapture struct {
	ID        uuid.UUID
	State     string
	Error     string
	ErrorCode string
}

// InFlight reports whether the capture is still running.
func (c *CardCapture) InFlight() bool {
	return c != nil && (c.State == StateQueued || c.State == StateDownloading)
}

var platformPattern = regexp.MustCompile(`^[a-z][a-z0-9_.-]{0,31}$`)

// Library lists one page of the tenant's saved collections, newest save
// first, filtered, with what a card shows. It reads the page in one query
// however long the library is.
func (a *App) Library(ctx context.Context, tenantID uuid.UUID, q LibraryQuery) (LibraryPage, error) {
	ctx = store.WithTenant(ctx, tenantID)
	if q.Limit == 0 {
		q.Limit = DefaultLibraryLimit
	}
	if q.Limit < 1 || q.Limit > 100 {
		return LibraryPage{}, errorf(ErrInvalid, "limit must be from 1 to 100")
	}
	f := store.LibraryFilter{Platform: q.Platform, Visibility: q.Visibility, Author: q.Author, MediaKind: q.MediaKind}
	if q.Platform != "" && !platformPattern.MatchString(q.Platform) {
		return LibraryPage{}, errorf(ErrInvalid, "platform %q is not a platform name such as x or telegram", q.Platform)
	}
	switch q.Visibility {
	case "", store.Public, store.Private:
	default:
		return LibraryPage{}, errorf(ErrInvalid, "visibility must be public or private, not %q", q.Visibility)
	}
	switch q.MediaKind {
	case "", "image", "video", "gif", "audio", "document":
	default:
		return LibraryPage{}, errorf(ErrInvalid, "media kind must be image, video, gif, audio or document, not %q", q.MediaKind)
	}
	if len([]rune(q.Words)) > 200 {
		return LibraryPage{}, errorf(ErrInvalid, "the search is longer than 200 characters")
	}
	f.Words = strings.Fields(q.Words)
	if len(f.Words) > maxLibraryWords {
		return LibraryPage{}, errorf(ErrInvalid, "search for at most %d words at once", maxLibraryWords)
	}
	if len([]rune(q.Author)) > 200 {
		return LibraryPage{}, errorf(ErrInvalid, "the author filter is longer than 200 characters")
	}
	if !q.SavedFrom.IsZero() {
		f.SavedFrom = &q.SavedFrom
	}
	if !q.SavedBefore.IsZero() {
		f.SavedBefore = &q.SavedBefore
	}
	if f.SavedFrom != nil && f.SavedBefore != nil && !f.SavedFrom.Before(*f.SavedBefore) {
		return LibraryPage{}, errorf(ErrInvalid, "the saved date range ends before it starts")
	}
	after, err := decodeCursor(q.Cursor)
	if err != nil {
		return LibraryPage{}, err
	}
	rows, err := a.store.LibraryList(ctx, tenantID, f, after, q.Limit+1)
	if err != nil {
		return LibraryPage{}, err
	}
	page := LibraryPage{Items: make([]LibraryCard, 0, min(len(rows), q.Limit))}
	if len(rows) > q.Limit {
		last := rows[q.Limit-1]
		page.NextCursor = encodeCursor(store.SavedCursor{SavedAt: last.SavedAt, CollectionID: last.ID})
		rows = rows[:q.Limit]
	}
	for _, r := range rows {
		c, err := libraryCard(r)
		if err != nil {
			return LibraryPage{}, err
		}
		page.Items = append(page.Items, c)
	}
	return page, nil
}

// libraryCard reads a card's fields from its row and revision content.
func libraryCard(r store.LibraryRow) (LibraryCard, error) {
	c := LibraryCard{ID: r.ID, Platform: r.Platform, EntityType: r.EntityType, Visibility: r.Visibility, SourceURL: r.SourceURL,
		SavedAt: r.SavedAt, RevisionID: r.RevisionID}
	if r.CaptureID != nil {
		c.Capture = &CardCapture{ID: *r.CaptureID, State: r.CaptureState, Error: r.CaptureError, ErrorCode: r.CaptureErrorCode}
	}
	if r.Content == nil {
		return c, nil
	}
	var doc contentDoc
	if err := json.Unmarshal(r.Content, &doc); err != nil {
		return c, fmt.Errorf("app: revision %s: %w", r.RevisionID, err)
	}
	c.Text, c.TextKind, c.Summary, c.AuthorName, c.PublishedAt = doc.Text, doc.TextKind, doc.Summary, doc.AuthorName, doc.PublishedAt
	if doc.SourceURL != "" && c.SourceURL == "" {
		c.SourceURL = doc.SourceURL
	}
	c.MediaCount = len(doc.Media)
	for i, m := range doc.Media {
		if i == LibraryCardMedia {
			break
		}
		c.Media = append(c.Media, MediaView{SHA256: m.SHA256, Kind: m.Kind, Mime: m.Mime, Size: m.Size, Width: m.Width,
			Height: m.Height, DurationMS: m.DurationMS, Alt: m.Alt, Sensitive: m.Sensitive})
	}
	cardGraph(&c, doc.Graph)
	return c, nil
}

// cardGraph takes the counts from the graph's root and the handle and
// avatar from its author: the entity the root is authored by or posted in,
// or the root itself when it is a profile or channel.
func cardGraph(c *LibraryCard, g contentGraph) {
	byKey := map[string]*contentEntity{}
	for i := range g.Entities {
		byKey[g.Entities[i].Key] = &g.Entities[i]
	}
	root := byKey[g.Root]
	if root == nil {
		return
	}
	var counts struct {
		Likes   *int64 `json:"likes"`
		Reposts *int64 `json:"reposts"`
		Replies *int64 `json:"replies"`
		Views   *int64 `json:"views"`
	}
	if json.Unmarshal(root.Data, &counts) == nil {
		c.Counts = Counts{Likes: counts.Likes, Reposts: counts.Reposts, Replies: counts.Replies, Views: counts.Views}
	}
	author := root
	for _, rel := range g.Relations {
		if rel.From == g.Root && (rel.Relation == "authored_by" || rel.Relation == "posted_in") && byKey[rel.To] != nil {
			author = byKey[rel.To]
			break
		}
	}
	var who struct {
		Handle   string `json:"handle"`
		Username string `json:"username"`
	}
	if json.Unmarshal(author.Data, &who) == nil {
		c.AuthorHandle = who.Handle
		if c.AuthorHandle == "" {
			c.AuthorHandle = who.Username
		}
	}
	for _, res := range author.Resources {
		if res.Purpose == "avatar" && res.SHA256 != "" {
			c.AuthorAvatar = res.SHA256
			break
		}
	}
}

// RemoveFromLibrary removes the tenant's reference to a collection, as
// DeleteCollection does, and returns the save time it had, so that an
// undo (RestoreCollection) can put it back in its place.
func (a *App) RemoveFromLibrary(ctx context.Context, tenantID, id uuid.UUID) (savedAt time.Time, err error) {
	sc, err := a.store.SavedCollectionGet(store.WithTenant(ctx, tenantID), tenantID, id)
	if isNotFound(err) {
		return time.Time{}, errorf(ErrNotFound, "no saved collection with id %s", id)
	}
	if err != nil {
		return time.Time{}, err
	}
	return sc.SavedAt, a.DeleteCollection(ctx, tenantID, id)
}

// RestoreCollection saves a collection the tenant removed again, at
// savedAt (zero or in the future: now), while its content is still in the
// archive: an undo of a delete. The quota is checked as for a new save.
// A collection that is gone, has no content or is another tenant's private
// one is ErrNotFound; saved already is no error.
func (a *App) RestoreCollection(ctx context.Context, tenantID, id uuid.UUID, savedAt time.Time) error {
	ctx = store.WithTenant(ctx, tenantID)
	gone := errorf(ErrNotFound, "this post is no longer in the archive; send its link to archive it again")
	return a.store.InTx(ctx, func(tx *store.Tx) error {
		if err := tx.CollectionLock(ctx, id); isNotFound(err) {
			return gone
		} else if err != nil {
			return err
		}
		if err := tx.TenantLock(ctx, tenantID); err != nil {
			return err
		}
		t, err := tx.TenantGetByID(ctx, tenantID)
		if err != nil {
			return err
		}
		if t.Status != store.TenantEnabled {
			return fmt.Errorf("%w: %s", ErrTenantNotActive, statusRefusal(t.Status))
		}
		c, err := tx.CollectionGet(ctx, id)
		if isNotFound(err) || (err == nil && (c.CurrentRevisionID == nil ||
			(c.DataScope != store.PublicScope && c.DataScope != tenantID))) {
			return gone
		}
		if err != nil {
			return err
		}
		saved, err := tx.TenantCollectionExists(ctx, tenantID, id)
		if err != nil || saved {
			return err
		}
		if err := checkQuota(ctx, tx, t, id); err != nil {
			return err
		}
		if now := a.now(); savedAt.IsZero() || savedAt.After(now) {
			savedAt = now
		}
		_, err = tx.TenantCollectionRestore(ctx, tenantID, id, savedAt)
		if isNotFound(err) {
			return gone
		}
		return err
	})
}

// TenantTokens lists the REST tokens of a tenant, for its own pages.
func (a *App) TenantTokens(ctx context.Context, tenantID uuid.UUID) ([]TokenView, error) {
	t, err := a.store.TenantGetByID(store.WithTenant(ctx, tenantID), tenantID)
	if err != nil {
		return nil, err
	}
	return a.Tokens(ctx, t.Name)
}

// CreateTenantToken issues a REST token (never an admin one) for the
// tenant itself and returns the secret, shown once.
func (a *App) CreateTenantToken(ctx context.Context, tenantID uuid.UUID, name string) (string, TokenView, error) {
	t, err := a.store.TenantGetByID(store.WithTenant(ctx, tenantID), tenantID)
	if err != nil {
		return "", TokenView{}, err
	}
	return a.CreateToken(ctx, "web:"+t.Name, t.Name, name, false)
}

// RevokeTenantToken revokes one of the tenant's own tokens.
func (a *App) RevokeTenantToken(ctx context.Context, tenantID, id uuid.UUID) error {
	t, err := a.store.TenantGetByID(store.WithTenant(ctx, tenantID), tenantID)
	if err != nil {
		return err
	}
	err = a.RevokeToken(ctx, "web:"+t.Name, t.Name, id)
	var ue *userError
	if errors.As(err, &ue) && errors.Is(err, ErrNotFound) {
		return errorf(ErrNotFound, "you have no active token %s", id)
	}
	return err
}
