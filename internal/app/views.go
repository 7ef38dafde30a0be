package app

import (
	"encoding/json"
	"time"

	"github.com/google/uuid"
)

// This file holds what the business layer hands to the surfaces (REST,
// CLI, channels, web): plain values, no database types.

// Capture states.
const (
	StateQueued      = "queued"
	StateDownloading = "downloading"
	StateComplete    = "complete"
	StatePartial     = "partial"
	StateFailed      = "failed"
)

// SubmitRequest asks to archive one link for a tenant.
type SubmitRequest struct {
	TenantID uuid.UUID
	// URL is exactly what the person sent; it is kept as given.
	URL string
	// IdemKey makes a retried submit return the first submission ("" = none).
	IdemKey string
	// Refresh forces a new capture even when the collection is complete.
	Refresh bool
	// NoCopies keeps the result out of the tenant's bound channels: it goes
	// elsewhere (a /download's cloud drive).
	NoCopies bool
	// Limit (profiles and channels) archives up to this many posts in one
	// batch of pages, at most the adapter's max_batch_size (0: one page).
	Limit int
	// Expand asks for more than the target: "thread" archives the
	// author's thread around a post ("": nothing more).
	Expand string
	// ConnectionID captures through one of the tenant's accounts
	// (uuid.Nil: the adapter's public provider); the result is private.
	ConnectionID uuid.UUID

	// ChannelID and IdentityID say which channel user sent the link
	// (uuid.Nil: REST, CLI or web). A channel submission gets a deliver
	// work item that sends the result back to ChatID, as a reply to
	// ReplyToMessageID, replacing StatusMessageID (0: none).
	ChannelID        uuid.UUID
	IdentityID       uuid.UUID
	ChatID           int64
	ReplyToMessageID int64
	StatusMessageID  int64
}

// SubmitResult is what a submit answers: the POST /v1/captures body.
type SubmitResult struct {
	SubmissionID uuid.UUID `json:"submission_id"`
	CaptureID    uuid.UUID `json:"capture_id"`
	CollectionID uuid.UUID `json:"collection_id"`
	State        string    `json:"state"`
}

// CaptureView is one capture as its submitters see it: GET /v1/captures/{id}.
type CaptureView struct {
	ID           uuid.UUID  `json:"id"`
	State        string     `json:"state"`
	Error        string     `json:"error,omitempty"`
	ErrorCode    string     `json:"error_code,omitempty"`
	RevisionID   *uuid.UUID `json:"revision_id,omitempty"`
	CollectionID uuid.UUID  `json:"collection_id"`
	CreatedAt    time.Time  `json:"created_at"`
	FinishedAt   *time.Time `json:"finished_at,omitempty"`
	// Provider, ConnectionID and CredentialRevision are what the capture
	// ran with: the adapter's provider, and the account and its
	// credential's revision when it ran through an account.
	Provider           string     `json:"provider"`
	ConnectionID       *uuid.UUID `json:"connection_id,omitempty"`
	CredentialRevision *int       `json:"credential_revision,omitempty"`
}

// MediaView is one display media of a revision. URL is filled by the
// surface that serves the bytes.
type MediaView struct {
	SHA256     string `json:"sha256"`
	Kind       string `json:"kind"`
	Mime       string `json:"mime"`
	Size       int64  `json:"size"`
	Width      int    `json:"width,omitempty"`
	Height     int    `json:"height,omitempty"`
	DurationMS int    `json:"duration_ms,omitempty"`
	Alt        string `json:"alt,omitempty"`
	Sensitive  bool   `json:"sensitive"`
	URL        string `json:"url,omitempty"`
}

// GraphView is the entity graph of a revision.
type GraphView struct {
	Root      string         `json:"root"`
	Entities  []EntityNode   `json:"entities"`
	Relations []RelationView `json:"relations"`
}

// EntityNode is one entity of a revision's graph, as it was then.
type EntityNode struct {
	Key        string          `json:"key"`
	EntityID   uuid.UUID       `json:"entity_id"`
	Type       string          `json:"type"`
	ExternalID string          `json:"external_id"`
	Data       json.RawMessage `json:"data"`
	// Resources are the entity's media (avatars, quoted media), by sha256.
	Resources []ResourceView `json:"resources,omitempty"`
}

// ResourceView is a media file attached to an entity.
type ResourceView struct {
	Purpose string `json:"purpose"`
	SHA256  string `json:"sha256"`
	Kind    string `json:"kind"`
	Mime    string `json:"mime"`
	Size    int64  `json:"size"`
	URL     string `json:"url,omitempty"`
}

// RelationView is one edge of a graph.
type RelationView struct {
	From     string `json:"from"`
	Relation string `json:"relation"`
	To       string `json:"to"`
}

// RevisionView is one content version of a collection.
type RevisionView struct {
	ID           uuid.UUID   `json:"id"`
	CollectionID uuid.UUID   `json:"collection_id"`
	CaptureID    uuid.UUID   `json:"capture_id"`
	Text         string      `json:"text"`
	TextKind     string      `json:"text_kind"`
	Summary      string      `json:"summary"`
	AuthorName   string      `json:"author_name"`
	PublishedAt  *time.Time  `json:"published_at,omitempty"`
	Media        []MediaView `json:"media"`
	Graph        GraphView   `json:"graph"`
	ContentBytes int64       `json:"content_bytes"`
	CreatedAt    time.Time   `json:"created_at"`
	ObservedAt   time.Time   `json:"observed_at"`
	// ContentHash is the revision's content hash (hex SHA-256), for the web's
	// revision timeline; REST does not show it.
	ContentHash string `json:"-"`
}

// CollectionView is a saved collection with its current revision:
// GET /v1/collections/{id} and the items of GET /v1/collections.
type CollectionView struct {
	ID          uuid.UUID   `json:"id"`
	Platform    string      `json:"platform"`
	EntityType  string      `json:"entity_type"`
	ExternalID  string      `json:"external_id"`
	SourceURL   string      `json:"source_url"`
	Visibility  string      `json:"visibility"`
	SavedAt     time.Time   `json:"saved_at"`
	RevisionID  *uuid.UUID  `json:"revision_id"`
	Text        string      `json:"text"`
	TextKind    string      `json:"text_kind,omitempty"`
	Summary     string      `json:"summary"`
	AuthorName  string      `json:"author_name"`
	PublishedAt *time.Time  `json:"published_at,omitempty"`
	Media       []MediaView `json:"media"`
	Graph       *GraphView  `json:"graph"`
	// State is the latest capture's state ("" when none is visible).
	State string `json:"state,omitempty"`
}

// CollectionPage is one page of a tenant's collections, newest save first.
type CollectionPage struct {
	Items      []CollectionView `json:"items"`
	NextCursor string           `json:"next_cursor"`
}

// EntityView is the latest snapshot of an entity among the tenant's saved
// collections: GET /v1/entities/{id}.
type EntityView struct {
	ID         uuid.UUID       `json:"id"`
	Platform   string          `json:"platform"`
	Type       string          `json:"type"`
	ExternalID string          `json:"external_id"`
	Visibility string          `json:"visibility"`
	Data       json.RawMessage `json:"data"`
	VersionID  uuid.UUID       `json:"version_id"`
	UpdatedAt  time.Time       `json:"updated_at"`
}

// Usage is a tenant's storage accounting: GET /v1/usage.
type Usage struct {
	UsedBytes     int64  `json:"used_bytes"`
	ReservedBytes int64  `json:"reserved_bytes"`
	QuotaBytes    *int64 `json:"quota_bytes"`
}

// MediaFile describes stored media bytes for serving.
type MediaFile struct {
	SHA256 string
	Mime   string
	Size   int64
}

// AdapterView is one configured adapter: GET /v1/adapters.
type AdapterView struct {
	ID          string         `json:"id"`
	DisplayName string         `json:"display_name"`
	Version     string         `json:"version"`
	Online      bool           `json:"online"`
	Hosts       []string       `json:"hosts"`
	Providers   []ProviderView `json:"providers"`
	EntityTypes []string       `json:"entity_types"`
}

// ProviderView is one provider of an adapter.
type ProviderView struct {
	ID           string   `json:"id"`
	AuthMode     string   `json:"auth_mode"`
	Default      bool     `json:"default"`
	Capabilities []string `json:"capabilities"`
}

// IsSHA256 reports whether s is a SHA-256 in lowercase hex, as media files
// are named.
func IsSHA256(s string) bool {
	if len(s) != 64 {
		return false
	}
	for i := 0; i < len(s); i++ {
		if !('0' <= s[i] && s[i] <= '9' || 'a' <= s[i] && s[i] <= 'f') {
			return false
		}
	}
	return true
}
