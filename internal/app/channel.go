package app

import (
	"encoding/json"
	"time"
	"unicode/utf8"

	"github.com/google/uuid"

	"github.com/monitorhq/monitor/internal/store"
)

// The channel files (channel*.go) hold the business actions behind the
// internal channel protocol, which package channelserver serves and
// package channelapi describes on the wire: registering a channel instance
// and storing its updates (channelinbox.go), leasing work
// (channelwork.go), what a work item may do for its person
// (channelactions.go) and media (channelmedia.go). They know nothing of any
// platform or of HTTP: a channel process renders and sends, and the server
// maps the errors below (ErrInvalid, ErrNotFound, ErrForbidden,
// ErrLeaseLost, ErrTenantNotActive, *QuotaError, *LimitError, adapter
// failures) to the wire.

// ChannelLeaseTTL is how long a claimed work item, or a channel's poll
// lease, stays with its owner without a renewal; then the item returns to
// the pool and the poll lease goes to the next process that asks.
const ChannelLeaseTTL = 90 * time.Second

// Bounds of what a channel may send.
const (
	maxUpdatesPerCall  = 100
	maxClaim           = 50
	maxOwnerLen        = 200
	maxProgressBytes   = 64 << 10
	maxMessagesPerCall = 100
	maxDeferSeconds    = 24 * 60 * 60
	maxWorkErrorLen    = 2000
	maxListLimit       = 20
	defaultListLimit   = 10
	minIDPrefix        = 8
)

// Messages the channel may show as they are.
const (
	msgNotYourButton = "This button belongs to someone else's request, or is too old to use."
	msgTokenPrivate  = "For your safety /token only works in a private chat with me: anyone who sees a token can read and change your archive."
	msgWebPrivate    = "For your safety /web only works in a private chat with me: anyone who sees a sign-in link can open your archive."
	msgConsoleAdmin  = "Only an operator may open the console; an operator marks accounts as operators with `monitor admin tenant set NAME --admin`."
)

// Update kinds.
const (
	ChannelUpdateMessage  = "message"
	ChannelUpdateCallback = "callback"
	// ChannelUpdatePost is a post of a public channel (or supergroup) the
	// bot sits in: it has no sender, and core archives it for the
	// channel's watchers (watchpush.go) instead of answering it.
	ChannelUpdatePost = "channel_post"
)

// Work kinds: the Kind of a ChannelWork.
const (
	// ChannelWorkUpdate handles one stored update (a message or a button press).
	ChannelWorkUpdate = store.WorkUpdate
	// ChannelWorkDeliver sends a submission's result back to where it came from.
	ChannelWorkDeliver = store.WorkDeliver
)

// ChannelInstance names a channel instance (one bot) saying hello.
type ChannelInstance struct {
	Kind       string // "telegram"
	ExternalID string // the bot's user id
	Name       string // the bot's username, without @
}

// ChannelHelloReply identifies the channel instance and where polling
// resumes.
type ChannelHelloReply struct {
	ChannelID  uuid.UUID
	NextOffset int64
}

// ChannelPollLeaseRequest takes or renews the channel's poll lease for
// Owner, or with Release gives it up.
type ChannelPollLeaseRequest struct {
	ChannelID uuid.UUID
	Owner     string // the polling process, stable for its lifetime
	Release   bool
}

// ChannelPollLeaseReply says whether Owner may poll. Granted: the lease is
// Owner's until ExpiresAt and polling resumes from NextOffset. Not granted:
// Holder polls until ExpiresAt unless it renews. A release answers Granted
// false and no holder.
type ChannelPollLeaseReply struct {
	Granted    bool
	Holder     string
	ExpiresAt  time.Time
	NextOffset int64
}

// ChannelUser is the person behind an update.
type ChannelUser struct {
	ID          int64  `json:"id"`
	Username    string `json:"username,omitempty"`
	DisplayName string `json:"display_name,omitempty"`
	Language    string `json:"language,omitempty"`
}

// ChannelEntity is a formatting entity of a message's text (or caption),
// in UTF-16 code units like Telegram's.
type ChannelEntity struct {
	Type   string `json:"type"` // bot_command, mention, url, text_link, ...
	Offset int    `json:"offset"`
	Length int    `json:"length"`
	URL    string `json:"url,omitempty"`
}

// ChannelUpdate is one normalized platform update the channel decided to
// handle. Its JSON form is what the inbox stores, so its field names do
// not change.
type ChannelUpdate struct {
	UpdateID int64       `json:"update_id"`
	Kind     string      `json:"kind"` // ChannelUpdateMessage, ChannelUpdateCallback or ChannelUpdatePost
	From     ChannelUser `json:"from"`
	ChatID   int64       `json:"chat_id"`
	ChatType string      `json:"chat_type"` // private, group, supergroup, channel
	// ChatUsername is the public username of the chat a post came from
	// (ChannelUpdatePost; "" for a private channel).
	ChatUsername string `json:"chat_username,omitempty"`
	// MediaGroupID is the album a post is a part of (ChannelUpdatePost).
	MediaGroupID string `json:"media_group_id,omitempty"`
	// MessageID is the user's message (message) or the bot's message whose
	// button was pressed (callback).
	MessageID int64 `json:"message_id"`
	// Text is the message's text or media caption.
	Text     string          `json:"text,omitempty"`
	Entities []ChannelEntity `json:"entities,omitempty"`
	// ReplyToMessageID is the message the user's message replies to (0 = none).
	ReplyToMessageID int64 `json:"reply_to_message_id,omitempty"`
	// CallbackID and CallbackData describe a button press.
	CallbackID   string `json:"callback_id,omitempty"`
	CallbackData string `json:"callback_data,omitempty"`
	// Staged: the message was the secret of an /account_add; core sealed
	// it, keeps no text of it, and the channel deletes it from the chat.
	Staged bool `json:"staged,omitempty"`
}

// ChannelUpdatesRequest stores updates and advances the channel's offset.
// Owner must hold the channel's poll lease.
type ChannelUpdatesRequest struct {
	ChannelID uuid.UUID
	Owner     string
	Updates   []ChannelUpdate
	// NextOffset is the offset to poll from once these are stored: the
	// highest update id seen (handled or dropped) plus one.
	NextOffset int64
}

// ChannelUpdatesReply confirms the stored updates.
type ChannelUpdatesReply struct {
	// Stored counts updates stored now; an update already in the inbox is
	// not stored twice.
	Stored     int
	NextOffset int64
}

// ChannelClaimRequest asks for up to Max items ready now.
type ChannelClaimRequest struct {
	ChannelID uuid.UUID
	Owner     string // the claiming process, stable for its lifetime
	Max       int
}

// ChannelWork is one claimed item.
type ChannelWork struct {
	ID       uuid.UUID
	Kind     string // ChannelWorkUpdate, ChannelWorkDeliver or ChannelWorkProgress
	Attempts int    // claims so far, this one included
	// Update is the stored update (ChannelWorkUpdate).
	Update *ChannelUpdate
	// SubmissionID is the submission to deliver (ChannelWorkDeliver), or
	// the page a progress item follows (ChannelWorkProgress).
	SubmissionID *uuid.UUID
	// Progress is what the channel last reported for this item ({} at first).
	Progress       json.RawMessage
	LeaseExpiresAt time.Time
	// Tenant describes the account the work acts for.
	Tenant ChannelTenant
	// Language is what the channel speaks to the person the work acts
	// for, LangEnglish or LangChinese: the tenant's preference, else the
	// language the person's client reports (channelLanguage).
	Language string
}

// ChannelTenant is the account a work item acts for.
type ChannelTenant struct {
	ID   uuid.UUID
	Name string
	// Status is enabled, pending, disabled or archived.
	Status string
	// New is true when this update created the account.
	New bool
	// Admin marks an operator (store.Tenant.Admin).
	Admin bool
}

// ChannelCaptureRequest archives a link for the person behind an update.
type ChannelCaptureRequest struct {
	Owner string
	URL   string
	// StatusMessageID is the status message already sent (0 = none).
	StatusMessageID int64
	// ReplyToMessageID is the message every reply should quote (groups).
	ReplyToMessageID int64
}

// ChannelPage is one page of a tenant's saved collections as a channel
// lists them, newest save first.
type ChannelPage struct {
	Items []CollectionView
	// More says a next page exists; it starts after the last item.
	More bool
}

// Save outcomes: the Result of a SaveReply.
const (
	SaveSaved   = "saved"
	SaveAlready = "already_saved"
	SaveRefused = "refused"
)

// SaveReply answers "save too": Result is SaveSaved, SaveAlready or
// SaveRefused with Reason, written for the person who pressed the button.
type SaveReply struct {
	Result string
	Reason string
}

// ChannelUsageReply is the tenant's storage and limits.
type ChannelUsageReply struct {
	UsedBytes      int64
	ReservedBytes  int64
	QuotaBytes     *int64
	Collections    int
	SubmittedToday int
	DailyLimit     int // 0 = none
}

// ChannelToken is a newly created REST token, shown once.
type ChannelToken struct {
	Token string
	Name  string
}

// Delivery states: the State of a Delivery.
const (
	DeliveryPending = "pending" // the capture is still running
	DeliveryReady   = "ready"   // Item holds what to send
	DeliveryFailed  = "failed"  // the capture failed; Error says why
)

// Stages of a running capture: the Stage of a pending Delivery.
const (
	DeliveryStageQueued      = "queued"      // waiting for its turn
	DeliveryStageDownloading = "downloading" // fetching media MediaIndex of MediaTotal
	DeliveryStageSaving      = "saving"      // writing the archived post
)

// ChannelLoginLink is a one-use sign-in link to the web library, for the
// person behind an update.
type ChannelLoginLink struct {
	URL       string
	ExpiresAt time.Time
	// ValidSeconds is how long the link works from when it was made.
	ValidSeconds int
	// Admin says the session it opens may use the operator console.
	Admin bool
}

// Delivery is what a deliver item should send.
type Delivery struct {
	State string
	// Progress describes the running capture in English, e.g.
	// "downloading media 1 of 4"; Stage, MediaIndex and MediaTotal say the
	// same for a channel that words it in the person's language.
	Progress string
	// Stage is DeliveryStageQueued, DeliveryStageDownloading or
	// DeliveryStageSaving while pending.
	Stage string
	// MediaIndex is the media downloading now (from 1) of MediaTotal.
	MediaIndex, MediaTotal int
	SubmissionID           uuid.UUID
	ChatID                 int64
	StatusMessageID        int64
	ReplyToMessageID       int64
	// InputURL is the link exactly as the person sent it.
	InputURL string
	// CaptureState is complete or partial when ready, failed when failed.
	CaptureState string
	Error        string
	// Item is the collection as of the capture's revision (ready only);
	// its State is the capture's.
	Item *CollectionView
	// Public says others may "save too".
	Public bool
	// Collection is set for a profile or channel link, and for a progress
	// item: the progress of its chain of pages (State is DeliveryPending
	// while it runs).
	Collection *ChannelCollection
	// Copy is set for a copy item: ChatID is the bound chat, and the
	// result goes there as a copy (no status message, no buttons).
	Copy *CopyTarget
	// WebURL is the item's page in the web library (ready only; "" when
	// the library's address is not known).
	WebURL string
}

// ChannelCacheKey names a media file as sent through one channel account:
// representation is how it was sent (photo, video, animation, document).
type ChannelCacheKey struct {
	ChannelKind    string
	AccountID      string
	SHA256         string
	Representation string
}

func checkOwner(owner string) error {
	if owner == "" || len(owner) > maxOwnerLen {
		return badRequest("owner must be 1 to %d characters: the claiming process's name", maxOwnerLen)
	}
	return nil
}

// clip shortens s to at most n bytes without splitting a character.
func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	s = s[:n]
	for !utf8.ValidString(s) {
		s = s[:len(s)-1]
	}
	return s
}

// badRequest is an ErrInvalid whose message tells the channel what is
// accepted.
func badRequest(format string, args ...any) error {
	return errorf(ErrInvalid, format, args...)
}

// forbidden is an ErrForbidden the channel may show as it is.
func forbidden(msg string) error {
	return errorf(ErrForbidden, "%s", msg)
}
