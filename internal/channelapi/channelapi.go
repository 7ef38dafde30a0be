// Package channelapi is the internal protocol between core and a channel
// process such as the Telegram bot: HTTP with JSON bodies on
// MONITOR_CHANNEL_ADDR, every request carrying
// "Authorization: Bearer <MONITOR_CHANNEL_SECRET>".
//
// The channel owns everything about its platform (polling, commands,
// rendering, sending); core owns tenants, collections, quotas and the
// durable state of the conversation: the inbox of updates, the leased
// work, delivery progress and the channel's media cache.
//
// The life of an update:
//
//  1. Hello registers the channel instance and returns its persisted
//     offset.
//  2. Several processes may run the same channel instance (replicas of
//     core, or a second bot process), but only one may poll its platform:
//     the one holding the channel's poll lease (PollLease), which it renews
//     every LeaseRenew like a work lease and releases when it stops. The
//     others only claim work, asking for the lease every few seconds, so
//     one of them takes over when the poller stops or its lease expires.
//  3. The poller polls its platform from the offset, drops what is not
//     addressed to it, and posts the rest with PostUpdates together with the
//     next offset and its owner name. Core refuses the post with
//     CodeLeaseLost unless that owner holds the poll lease, so a poller
//     that lost it never moves the offset; it stops polling, and the updates
//     it held, never confirmed to the platform, go to the next poller.
//     Core stores each update, in order and each in its own transaction, in
//     the inbox (unique per channel and update id), resolves the sender to
//     a tenant and queues one "update" work item; once all are stored it
//     advances the offset. Only then does the channel poll again, so an
//     update is never confirmed to the platform before it is stored.
//     A post of a public channel the bot is an admin of (UpdatePost) has
//     no sender and is not answered: core keeps it, with the job that
//     archives it for the channel's watchers, in one transaction, and
//     ignores the posts of channels no one watches.
//  4. Every process claims work (Claim), renews leases every 25 s (a lease
//     expires after 90 s and the work goes back to the pool), calls the
//     actions the work needs, reports progress, and ends the work with
//     Done, Defer or Fail.
//  5. A capture started by an update queues a "deliver" work item for its
//     submission; the channel claims it, reads Delivery until the capture
//     has ended, sends the result and records progress after every
//     confirmed message so that a retry never sends confirmed media again.
//  6. A profile or channel link makes a chain of pages. Its deliver item
//     shows one progress message: it reads Delivery (Collection set) every
//     few seconds while the chain runs, edits the message when the counts
//     changed, and ends with the final counts and the buttons. "Fetch
//     more" (PathMore) makes the next page and a "progress" item that
//     follows it the same way; "stop" (PathStop) ends the chain.
//
// This package is the protocol's wire types and its client, all a channel
// process needs; it imports nothing else of Monitor's. Core serves it with
// package channelserver.
package channelapi

import (
	"encoding/json"
	"time"

	"github.com/google/uuid"
)

// Routes, relative to the channel API's base URL. {id} is a work id;
// {sha256} is a media file's hex digest.
const (
	PathHello     = "/channel/v1/hello"                    // POST Hello → HelloReply
	PathPollLease = "/channel/v1/poll-lease"               // POST PollLeaseRequest → PollLeaseReply
	PathUpdates   = "/channel/v1/updates"                  // POST UpdatesRequest → UpdatesReply
	PathClaim     = "/channel/v1/work/claim"               // POST ClaimRequest → ClaimReply
	PathRenew     = "/channel/v1/work/{id}/renew"          // POST Lease → LeaseReply
	PathProgress  = "/channel/v1/work/{id}/progress"       // POST ProgressRequest → Empty
	PathDone      = "/channel/v1/work/{id}/done"           // POST Lease → Empty
	PathDefer     = "/channel/v1/work/{id}/defer"          // POST DeferRequest → Empty
	PathFail      = "/channel/v1/work/{id}/fail"           // POST FailRequest → Empty
	PathMessages  = "/channel/v1/work/{id}/messages"       // POST MessagesRequest → Empty
	PathCapture   = "/channel/v1/work/{id}/capture"        // POST CaptureRequest → CaptureReply
	PathList      = "/channel/v1/work/{id}/list"           // POST ListRequest → ListReply
	PathSearch    = "/channel/v1/work/{id}/search"         // POST SearchRequest → SearchReply
	PathGet       = "/channel/v1/work/{id}/get"            // POST ItemRequest → Item
	PathDelete    = "/channel/v1/work/{id}/delete"         // POST ItemRequest → DeleteReply
	PathSave      = "/channel/v1/work/{id}/save"           // POST ItemRequest → SaveReply
	PathUsage     = "/channel/v1/work/{id}/usage"          // POST Lease → UsageReply
	PathToken     = "/channel/v1/work/{id}/token"          // POST Lease → TokenReply
	PathLoginLink = "/channel/v1/work/{id}/login-link"     // POST LoginLinkRequest → LoginLinkReply
	PathDelivery  = "/channel/v1/work/{id}/delivery"       // POST Lease → Delivery
	PathMore      = "/channel/v1/work/{id}/more"           // POST MoreRequest → Collection
	PathStop      = "/channel/v1/work/{id}/stop"           // POST StopRequest → Collection
	PathWatch     = "/channel/v1/work/{id}/watch"          // POST WatchRequest → Watch
	PathWatches   = "/channel/v1/work/{id}/watches"        // POST Lease → WatchesReply
	PathUnwatch   = "/channel/v1/work/{id}/unwatch"        // POST UnwatchRequest → Watch
	PathMedia     = "/channel/v1/work/{id}/media/{sha256}" // GET (header X-Lease-Owner) → bytes
	// The chats the item's tenant bound (/bind, /unbind, /channels), and
	// the end of a copy item whose chat is gone.
	PathBind     = "/channel/v1/work/{id}/bind"      // POST BindRequest → BindReply
	PathBindings = "/channel/v1/work/{id}/bindings"  // POST Lease → BindingsReply
	PathUnbind   = "/channel/v1/work/{id}/unbind"    // POST UnbindRequest → Binding
	PathCopyGone = "/channel/v1/work/{id}/copy-gone" // POST CopyGoneRequest → CopyGoneReply
	// The bot's messages about a submission (recorded by deliver and copy
	// items), and the commands that reply to them.
	PathSent   = "/channel/v1/work/{id}/sent"   // POST SentRequest → Empty
	PathCancel = "/channel/v1/work/{id}/cancel" // POST ReplyRequest → CancelReply
	PathPin    = "/channel/v1/work/{id}/pin"    // POST ReplyRequest → PinReply
	// /download: archive a link and upload it to a cloud destination.
	PathDownload = "/channel/v1/work/{id}/download" // POST DownloadRequest → Push
	// The accounts of the item's tenant (/accounts, /account_add,
	// /account_remove, /cancel) and the end of an account dialog item.
	PathAccounts      = "/channel/v1/work/{id}/accounts"       // POST Lease → AccountsReply
	PathAccountStart  = "/channel/v1/work/{id}/account-start"  // POST AccountStartRequest → AccountDialog
	PathAccountCancel = "/channel/v1/work/{id}/account-cancel" // POST Lease → Empty (404: none waiting)
	PathAccountRemove = "/channel/v1/work/{id}/account-remove" // POST AccountRemoveRequest → Connection
	PathAccountFinish = "/channel/v1/work/{id}/account-finish" // POST Lease → AccountResult
	// /account_add by QR code: start the dialog, then its steps one by one.
	PathAccountQR     = "/channel/v1/work/{id}/account-qr"      // POST AccountStartRequest → AccountDialog
	PathAccountQRNext = "/channel/v1/work/{id}/account-qr-next" // POST Lease → AccountQRStep
	// /join LINK: a request that the tenant's account join a channel.
	PathJoin      = "/channel/v1/work/{id}/join"   // POST JoinRequest → Join
	PathCacheGet  = "/channel/v1/media-cache/get"  // POST CacheKey → CacheEntry (404 when absent)
	PathCachePut  = "/channel/v1/media-cache/put"  // POST CacheEntry → Empty
	PathCacheDrop = "/channel/v1/media-cache/drop" // POST CacheEntry → Empty (drops only if remote_id matches)
)

// Lease timing: the channel renews a claimed item, and the poll lease it
// holds, every LeaseRenew; an item not renewed for LeaseTTL returns to the
// pool, and a poll lease not renewed for LeaseTTL goes to the next process
// that asks.
const (
	LeaseRenew = 25 * time.Second
	LeaseTTL   = 90 * time.Second
)

// Work kinds.
const (
	// WorkUpdate handles one stored update (a message or a button press).
	WorkUpdate = "update"
	// WorkDeliver sends a submission's result back to where it came from.
	// For a profile or channel the result is one progress message, which
	// the deliver item keeps up to date (Delivery.Collection) until the
	// chain of pages has ended.
	WorkDeliver = "deliver"
	// WorkProgress keeps a profile's or channel's progress message up to
	// date again after "fetch more" made a new page (MoreRequest): its
	// SubmissionID is that page and its Delivery is the whole chain's.
	WorkProgress = "progress"
	// WorkWatch tells a watcher about a run of its watch: the new posts in
	// one message (notify digest), or what went wrong (a watch that paused
	// itself). Its Progress starts as {"notice": WatchNotice}. (In notify
	// deliver each new post comes as its own WorkDeliver item.)
	WorkWatch = "watch"
	// WorkApproval tells a person who applied through the channel that an
	// operator approved or rejected their account. Its Progress starts as
	// {"notice": ApprovalNotice}.
	WorkApproval = "approval"
	// WorkCopy copies a submission's result to a chat its tenant bound
	// (/bind): its Delivery has Copy set and ChatID is the bound chat. It
	// sends the media first, then the text with a footer linking the
	// original, and records progress like a deliver item. When the chat
	// is gone or the bot may no longer post there, the channel reports it
	// (PathCopyGone) and tells the person in Copy.OwnerChatID.
	WorkCopy = "copy"
	// WorkPush tells the person who sent /download how the upload to the
	// cloud destination ended. Its Progress starts as {"notice": PushNotice}.
	WorkPush = "push"
	// WorkAccount is a person's /account_add dialog: it is claimable once
	// their secret arrived (core sealed it; the update that carried it
	// comes with Staged set and no text) or once the dialog expired. The
	// channel asks AccountFinish and tells the person in Progress's
	// chat_id.
	WorkAccount = "account"
)

// Approval decisions of an ApprovalNotice.
const (
	ApprovalApproved = "approved"
	ApprovalRejected = "rejected"
)

// DownloadRequest archives URL for the update's person and uploads it to
// the cloud destination Destination ("" = the tenant's default) once
// archived. CodeForbidden: the tenant may use no destination; CodeNotFound:
// not that one.
type DownloadRequest struct {
	Owner       string `json:"owner"`
	URL         string `json:"url"`
	Destination string `json:"destination,omitempty"`
}

// Push is an upload to a cloud destination.
type Push struct {
	ID          uuid.UUID `json:"id"`
	Destination string    `json:"destination"`
	State       string    `json:"state"`
}

// PushNotice is what a WorkPush item tells, in the private chat ChatID:
// State succeeded (Files files, Bytes bytes, in RemoteDir of Destination)
// or failed (Error, in English).
type PushNotice struct {
	ChatID      int64  `json:"chat_id"`
	URL         string `json:"url"`
	Destination string `json:"destination"`
	State       string `json:"state"`
	RemoteDir   string `json:"remote_dir,omitempty"`
	Files       int    `json:"files"`
	Bytes       int64  `json:"bytes"`
	Error       string `json:"error,omitempty"`
}

// ApprovalNotice is what a WorkApproval item tells, in the private chat
// ChatID.
type ApprovalNotice struct {
	ChatID   int64  `json:"chat_id"`
	Decision string `json:"decision"`
}

// WatchNotice is what a WorkWatch item tells, in the private chat ChatID.
type WatchNotice struct {
	ChatID    int64  `json:"chat_id"`
	SourceURL string `json:"source_url"`
	Notify    string `json:"notify"`
	// Posts are the links of the run's new posts, oldest first.
	Posts []string `json:"posts,omitempty"`
	// Error is what went wrong, in English, e.g. why the watch paused.
	Error string `json:"error,omitempty"`
}

// Update kinds.
const (
	UpdateMessage  = "message"
	UpdateCallback = "callback"
	// UpdatePost is a post of a public channel the bot is an admin of (or
	// a message of a public supergroup it reads with privacy off): no
	// sender, no answer; core archives it for the channel's watchers.
	// ChatUsername names the channel, MediaGroupID the album of a part.
	UpdatePost = "channel_post"
)

// Error codes: the Code of an Error answer. Message is written for the
// person who sent the update and may be shown as is.
const (
	CodeInvalid         = "invalid"           // 400: the request or its argument is wrong
	CodeUnauthorized    = "unauthorized"      // 401: wrong or missing channel secret
	CodeNotFound        = "not_found"         // 404: no such item for this tenant (or cache entry)
	CodeForbidden       = "forbidden"         // 403: e.g. a button pressed by someone other than its requester
	CodeLeaseLost       = "lease_lost"        // 409: the work (or the poll lease) is not leased to this owner (expired or done)
	CodeConflict        = "conflict"          // 409: not now, e.g. "fetch more" on a stopped collection or a page still running
	CodeQuota           = "quota"             // 403: the storage quota does not allow the save
	CodeLimit           = "limit"             // 429: a tenant limit; RetryAfterSeconds says when it lifts
	CodeTenantNotActive = "tenant_not_active" // 403: the account awaits approval, is disabled or archived
	CodeUnsupported     = "unsupported_link"  // 422: no adapter can archive the link
	CodeUnavailable     = "unavailable"       // 503: try again later
	CodeInternal        = "internal"          // 500
)

// Error is the body of every non-2xx answer.
type Error struct {
	Status            int    `json:"status"`
	Code              string `json:"code"`
	Message           string `json:"message"`
	RetryAfterSeconds int    `json:"retry_after_seconds,omitempty"`
	// Query says where a search query is wrong (CodeInvalid answers to
	// PathSearch only).
	Query *QueryProblem `json:"query,omitempty"`
}

// QueryProblem is what is wrong with a search query, in English and in
// Simplified Chinese, for the channel to show in the person's language.
type QueryProblem struct {
	// Position is the 0-based offset, in characters (Unicode code points),
	// of the problem in the query as sent; it may equal the query's length
	// (something missing at its end).
	Position   int    `json:"position"`
	Message    string `json:"message"`
	Expected   string `json:"expected"`
	MessageZH  string `json:"message_zh"`
	ExpectedZH string `json:"expected_zh"`
}

func (e *Error) Error() string { return e.Message }

// Empty is the body of answers that carry nothing.
type Empty struct{}

// Hello registers a channel instance.
type Hello struct {
	Kind       string `json:"kind"`        // "telegram"
	ExternalID string `json:"external_id"` // the bot's user id
	Name       string `json:"name"`        // the bot's username, without @
}

// HelloReply identifies the channel instance and where polling resumes.
type HelloReply struct {
	ChannelID  uuid.UUID `json:"channel_id"`
	NextOffset int64     `json:"next_offset"`
}

// User is the person behind an update.
type User struct {
	ID          int64  `json:"id"`
	Username    string `json:"username,omitempty"`
	DisplayName string `json:"display_name,omitempty"`
	Language    string `json:"language,omitempty"`
}

// Entity is a formatting entity of a message's text (or caption), in
// UTF-16 code units like Telegram's.
type Entity struct {
	Type   string `json:"type"` // bot_command, mention, url, text_link, ...
	Offset int    `json:"offset"`
	Length int    `json:"length"`
	URL    string `json:"url,omitempty"`
}

// Update is one normalized platform update the channel decided to handle.
type Update struct {
	UpdateID int64  `json:"update_id"`
	Kind     string `json:"kind"` // UpdateMessage, UpdateCallback or UpdatePost
	From     User   `json:"from"`
	ChatID   int64  `json:"chat_id"`
	ChatType string `json:"chat_type"` // private, group, supergroup, channel
	// ChatUsername is the public username of the chat a post came from
	// (UpdatePost).
	ChatUsername string `json:"chat_username,omitempty"`
	// MediaGroupID is the album a post is a part of (UpdatePost).
	MediaGroupID string `json:"media_group_id,omitempty"`
	// MessageID is the user's message (message) or the bot's message whose
	// button was pressed (callback).
	MessageID int64 `json:"message_id"`
	// Text is the message's text or media caption; for a callback, the
	// text of the bot's message whose button was pressed, when the
	// platform still sends it (a channel may keep a button's state there,
	// as /search keeps its query).
	Text     string   `json:"text,omitempty"`
	Entities []Entity `json:"entities,omitempty"`
	// ReplyToMessageID is the message the user's message replies to (0 = none).
	ReplyToMessageID int64 `json:"reply_to_message_id,omitempty"`
	// CallbackID and CallbackData describe a button press.
	CallbackID   string `json:"callback_id,omitempty"`
	CallbackData string `json:"callback_data,omitempty"`
	// Staged (set by core only): the message was the secret of the
	// person's /account_add. Core sealed it and kept no text; the channel
	// deletes the message from the chat.
	Staged bool `json:"staged,omitempty"`
}

// PollLeaseRequest takes or renews the channel's poll lease for Owner, or
// with Release gives it up.
type PollLeaseRequest struct {
	ChannelID uuid.UUID `json:"channel_id"`
	Owner     string    `json:"owner"` // the polling process, stable for its lifetime
	Release   bool      `json:"release,omitempty"`
}

// PollLeaseReply says whether Owner may poll. Granted: the lease is Owner's
// until ExpiresAt and polling resumes from NextOffset. Not granted: Holder
// polls until ExpiresAt unless it renews. A release answers Granted false
// and no holder.
type PollLeaseReply struct {
	Granted    bool      `json:"granted"`
	Holder     string    `json:"holder,omitempty"`
	ExpiresAt  time.Time `json:"expires_at,omitzero"`
	NextOffset int64     `json:"next_offset"`
}

// UpdatesRequest stores updates and advances the channel's offset. Owner
// must hold the channel's poll lease.
type UpdatesRequest struct {
	ChannelID uuid.UUID `json:"channel_id"`
	Owner     string    `json:"owner"`
	Updates   []Update  `json:"updates"`
	// NextOffset is the offset to poll from once these are stored: the
	// highest update id seen (handled or dropped) plus one.
	NextOffset int64 `json:"next_offset"`
}

// UpdatesReply confirms the stored updates.
type UpdatesReply struct {
	// Stored counts updates stored now; an update already in the inbox is
	// not stored twice.
	Stored     int   `json:"stored"`
	NextOffset int64 `json:"next_offset"`
}

// ClaimRequest asks for up to Max items ready now.
type ClaimRequest struct {
	ChannelID uuid.UUID `json:"channel_id"`
	Owner     string    `json:"owner"` // the claiming process, stable for its lifetime
	Max       int       `json:"max"`
}

// Work is one claimed item.
type Work struct {
	ID       uuid.UUID `json:"id"`
	Kind     string    `json:"kind"`     // WorkUpdate, WorkDeliver or WorkProgress
	Attempts int       `json:"attempts"` // claims so far, this one included
	// Update is the stored update (WorkUpdate).
	Update *Update `json:"update,omitempty"`
	// SubmissionID is the submission to deliver (WorkDeliver), or the page
	// a progress item follows (WorkProgress).
	SubmissionID *uuid.UUID `json:"submission_id,omitempty"`
	// Progress is what the channel last reported for this item ({} at first).
	Progress       json.RawMessage `json:"progress"`
	LeaseExpiresAt time.Time       `json:"lease_expires_at"`
	// Tenant describes the account the work acts for.
	Tenant Tenant `json:"tenant"`
	// Language is what to speak to the person the work acts for,
	// LangEnglish or LangChinese: their setting in Monitor, else the
	// language their client reports. Summaries core sends for the work
	// have their media markers in it.
	Language string `json:"language"`
}

// Languages a work item's Language names.
const (
	LangEnglish = "en"
	LangChinese = "zh-CN"
)

// Tenant is the account a work item acts for.
type Tenant struct {
	ID   uuid.UUID `json:"id"`
	Name string    `json:"name"`
	// Status is enabled, pending, disabled or archived.
	Status string `json:"status"`
	// New is true when this update created the account.
	New bool `json:"new,omitempty"`
	// Admin marks an operator, who may ask for a console sign-in link.
	Admin bool `json:"admin,omitempty"`
}

// ClaimReply lists the claimed items (none when nothing is ready).
type ClaimReply struct {
	Work []Work `json:"work"`
}

// Lease names the owner of a claimed item; every per-work call carries it.
type Lease struct {
	Owner string `json:"owner"`
}

// LeaseReply tells when the renewed lease expires.
type LeaseReply struct {
	LeaseExpiresAt time.Time `json:"lease_expires_at"`
}

// ProgressRequest replaces the item's progress document. For deliver work
// it is also the submission's delivery progress.
type ProgressRequest struct {
	Owner    string          `json:"owner"`
	Progress json.RawMessage `json:"progress"`
}

// DeferRequest returns the item to the pool, to be claimed again no
// earlier than AfterSeconds from now (0 = at once).
type DeferRequest struct {
	Owner        string `json:"owner"`
	AfterSeconds int    `json:"after_seconds"`
	Error        string `json:"error,omitempty"` // why, for the operator
}

// FailRequest ends the item for good.
type FailRequest struct {
	Owner string `json:"owner"`
	Error string `json:"error"`
}

// MessagesRequest records messages the channel sent for the item that
// carry buttons: a later button press on them is allowed only to the
// person the item acted for.
type MessagesRequest struct {
	Owner      string  `json:"owner"`
	ChatID     int64   `json:"chat_id"`
	MessageIDs []int64 `json:"message_ids"`
}

// CaptureRequest archives a link for the person behind an update.
type CaptureRequest struct {
	Owner string `json:"owner"`
	URL   string `json:"url"`
	// StatusMessageID is the status message already sent (0 = none).
	StatusMessageID int64 `json:"status_message_id,omitempty"`
	// ReplyToMessageID is the message every reply should quote (groups).
	ReplyToMessageID int64 `json:"reply_to_message_id,omitempty"`
}

// CaptureReply is the submission made; a deliver item follows it.
type CaptureReply struct {
	SubmissionID uuid.UUID `json:"submission_id"`
	CollectionID uuid.UUID `json:"collection_id"`
	State        string    `json:"state"`
}

// ListRequest reads a page of the tenant's collections, newest save first.
type ListRequest struct {
	Owner string `json:"owner"`
	// After is the id of the last collection of the previous page (nil =
	// first page).
	After *uuid.UUID `json:"after,omitempty"`
	Limit int        `json:"limit"` // 1..20
}

// ListReply is one page.
type ListReply struct {
	Items []Item `json:"items"`
	// More says a next page exists; its After is the last item's id.
	More bool `json:"more"`
}

// SearchRequest finds the tenant's saved collections that match Query
// (Monitor's search language: words, "phrases", -exclusions, OR, ( ),
// from:, has:, #tag, after:, …), newest save first. Pages are counted
// from 1 and hold Limit items each, so that a channel can keep no more
// than the query and the page number (page buttons); a bad query is a
// CodeInvalid Error with Query set.
type SearchRequest struct {
	Owner string `json:"owner"`
	Query string `json:"query"`
	Page  int    `json:"page"` // 1..MaxSearchPage
	// After, when set, is the last result of the page before: core then
	// starts the page right after it instead of reading past every earlier
	// page (a result no longer saved falls back to counting pages).
	After *uuid.UUID `json:"after,omitempty"`
	Limit int        `json:"limit"` // 1..20
}

// MaxSearchPage is the deepest page SearchRequest reads.
const MaxSearchPage = 50

// SearchReply is one page of results.
type SearchReply struct {
	Items []SearchItem `json:"items"`
	// More says a next page exists.
	More bool `json:"more"`
}

// SearchItem is a result: the item as a list shows it plus the part of
// its text that matched, each match between « and ».
type SearchItem struct {
	Item
	Snippet string `json:"snippet"`
}

// Snippet markers around each match in a SearchItem's Snippet.
const (
	SnippetOpen  = "«"
	SnippetClose = "»"
)

// ItemRequest names a collection by id or by an unambiguous prefix of at
// least 8 hex digits of its id.
type ItemRequest struct {
	Owner string `json:"owner"`
	ID    string `json:"id"`
}

// Item is a saved collection as a channel shows it.
type Item struct {
	ID          uuid.UUID  `json:"id"`
	SourceURL   string     `json:"source_url"`
	Platform    string     `json:"platform"`
	Visibility  string     `json:"visibility"`
	AuthorName  string     `json:"author_name,omitempty"`
	Summary     string     `json:"summary,omitempty"`
	Text        string     `json:"text,omitempty"`
	PublishedAt *time.Time `json:"published_at,omitempty"`
	SavedAt     time.Time  `json:"saved_at"`
	Media       []Media    `json:"media"`
	State       string     `json:"state,omitempty"`
}

// Media is one display media of an item, fetched with PathMedia.
type Media struct {
	SHA256    string `json:"sha256"`
	Kind      string `json:"kind"` // image, video, gif, audio, document
	Mime      string `json:"mime"`
	Size      int64  `json:"size"`
	Width     int    `json:"width,omitempty"`
	Height    int    `json:"height,omitempty"`
	Duration  int    `json:"duration_seconds,omitempty"`
	Alt       string `json:"alt,omitempty"`
	Sensitive bool   `json:"sensitive"`
}

// DeleteReply confirms a removed reference.
type DeleteReply struct {
	ID uuid.UUID `json:"id"`
}

// Save outcomes.
const (
	SaveSaved   = "saved"
	SaveAlready = "already_saved"
	SaveRefused = "refused"
)

// SaveReply answers "save too": Result is SaveSaved, SaveAlready or
// SaveRefused with Reason.
type SaveReply struct {
	Result string `json:"result"`
	Reason string `json:"reason,omitempty"`
}

// UsageReply is the tenant's storage and limits.
type UsageReply struct {
	UsedBytes      int64  `json:"used_bytes"`
	ReservedBytes  int64  `json:"reserved_bytes"`
	QuotaBytes     *int64 `json:"quota_bytes"`
	Collections    int    `json:"collections"`
	SubmittedToday int    `json:"submitted_today"`
	DailyLimit     int    `json:"daily_limit"` // 0 = none
}

// WatchRequest watches a profile or channel for the tenant.
type WatchRequest struct {
	Owner string `json:"owner"`
	URL   string `json:"url"`
	// IntervalSeconds is 0 for the default (15 minutes).
	IntervalSeconds int `json:"interval_seconds,omitempty"`
}

// UnwatchRequest removes a watch: Ref is its id or its number (from 1)
// in the WatchesReply list.
type UnwatchRequest struct {
	Owner string `json:"owner"`
	Ref   string `json:"ref"`
}

// WatchesReply lists the tenant's watches, oldest first.
type WatchesReply struct {
	Watches []Watch `json:"watches"`
}

// Watch is one watch of the tenant.
type Watch struct {
	ID        uuid.UUID `json:"id"`
	URL       string    `json:"url"`
	SourceURL string    `json:"source_url"`
	// State is active, pending (waits for an admin), paused or rejected.
	State           string     `json:"state"`
	PausedReason    string     `json:"paused_reason,omitempty"`
	IntervalSeconds int        `json:"interval_seconds"`
	Notify          string     `json:"notify"`
	LastRunAt       *time.Time `json:"last_run_at,omitempty"`
	NextRunAt       *time.Time `json:"next_run_at,omitempty"`
	NewPosts        int        `json:"new_posts"`
	LastError       string     `json:"last_error,omitempty"`
}

// TokenReply carries a newly created REST token, shown once.
type TokenReply struct {
	Token string `json:"token"`
	Name  string `json:"name"`
}

// LoginLinkRequest asks for a one-use sign-in link: to the web library
// (/web), or with Console to the operator console (/admin), which only a
// tenant marked admin gets (else CodeForbidden). An admin's link always
// carries admin rights.
type LoginLinkRequest struct {
	Owner   string `json:"owner"`
	Console bool   `json:"console,omitempty"`
}

// LoginLinkReply carries a one-use sign-in link to the web library, shown
// only in a private chat.
type LoginLinkReply struct {
	URL       string    `json:"url"`
	ExpiresAt time.Time `json:"expires_at"`
	// ValidSeconds is how long the link works from when it was made.
	ValidSeconds int `json:"valid_seconds"`
	// Admin says the session it opens may use the operator console.
	Admin bool `json:"admin,omitempty"`
}

// Delivery states.
const (
	DeliveryPending = "pending" // the capture is still running
	DeliveryReady   = "ready"   // Item holds what to send
	DeliveryFailed  = "failed"  // the capture failed; Error says why
	// DeliveryCancelled: the person cancelled the submission (/cancel);
	// the status message says so and nothing more is sent.
	DeliveryCancelled = "cancelled"
)

// Stages of a running capture: the Stage of a pending Delivery.
const (
	StageQueued      = "queued"      // waiting for its turn
	StageDownloading = "downloading" // fetching media MediaIndex of MediaTotal
	StageSaving      = "saving"      // writing the archived post
)

// Delivery is what a deliver item should send.
type Delivery struct {
	State string `json:"state"`
	// Progress describes the running capture in English, e.g.
	// "downloading media 1 of 4"; Stage, MediaIndex and MediaTotal say the
	// same for a channel that words it in the person's language.
	Progress string `json:"progress,omitempty"`
	// Stage is StageQueued, StageDownloading or StageSaving while pending.
	Stage string `json:"stage,omitempty"`
	// MediaIndex is the media downloading now (from 1) of MediaTotal.
	MediaIndex       int       `json:"media_index,omitempty"`
	MediaTotal       int       `json:"media_total,omitempty"`
	SubmissionID     uuid.UUID `json:"submission_id"`
	ChatID           int64     `json:"chat_id"`
	StatusMessageID  int64     `json:"status_message_id,omitempty"`
	ReplyToMessageID int64     `json:"reply_to_message_id,omitempty"`
	// InputURL is the link exactly as the person sent it.
	InputURL string `json:"input_url"`
	// CaptureState is complete or partial when ready, failed when failed.
	CaptureState string `json:"capture_state,omitempty"`
	Error        string `json:"error,omitempty"`
	// Item is the collection as of the capture's revision (ready only).
	Item *Item `json:"item,omitempty"`
	// Public says others may "save too".
	Public bool `json:"public"`
	// Collection is set for a profile or channel link: then the delivery
	// is a progress message over the whole chain of pages, not a post, and
	// State is DeliveryPending while Collection.Running.
	Collection *Collection `json:"collection,omitempty"`
	// Copy is set for a WorkCopy item: the bound chat it copies to.
	Copy *Binding `json:"copy,omitempty"`
	// WebURL is the item's page in the web library (ready only; "" when
	// core does not know the library's address), which a channel links
	// for media it cannot send.
	WebURL string `json:"web_url,omitempty"`
}

// Binding states and unbind reasons.
const (
	BindingActive     = "active"
	BindingUnbound    = "unbound"
	UnbindManual      = "manual"
	UnbindChannelGone = "channel_gone"
)

// BindRequest binds a channel or supergroup for the tenant of an update
// from a private chat. The channel checked first that the bot may post in
// the chat and that the person administers it. CodeConflict: another
// account has it bound; CodeLimit: the tenant has bound as many as it may.
type BindRequest struct {
	Owner    string `json:"owner"`
	ChatID   int64  `json:"chat_id"`
	ChatType string `json:"chat_type"` // channel or supergroup
	Username string `json:"username,omitempty"`
	Title    string `json:"title,omitempty"`
}

// BindReply is the binding made, or the one the tenant had (Already).
type BindReply struct {
	Binding Binding `json:"binding"`
	Already bool    `json:"already,omitempty"`
	// Limit is how many chats the tenant may bind.
	Limit int `json:"limit"`
}

// Binding is a chat the tenant bound.
type Binding struct {
	ID       uuid.UUID `json:"id"`
	ChatID   int64     `json:"chat_id"`
	ChatType string    `json:"chat_type"`
	Username string    `json:"username,omitempty"`
	Title    string    `json:"title,omitempty"`
	// State is BindingActive or BindingUnbound (UnbindReason says why).
	State        string    `json:"state"`
	UnbindReason string    `json:"unbind_reason,omitempty"`
	BoundAt      time.Time `json:"bound_at"`
	// OwnerChatID is the private chat of the person who bound it (copy
	// items only).
	OwnerChatID int64 `json:"owner_chat_id,omitempty"`
}

// BindingsReply lists the tenant's active bindings, oldest first: the
// numbers UnbindRequest counts by.
type BindingsReply struct {
	Bindings []Binding `json:"bindings"`
}

// UnbindRequest unbinds one of the tenant's chats: Ref is its number
// (from 1) in BindingsReply, its chat id or its @username ("" = the only
// one).
type UnbindRequest struct {
	Owner string `json:"owner"`
	Ref   string `json:"ref"`
}

// Kinds of SentRequest.
const (
	SentResult      = "result"       // a deliver item's messages in the person's chat
	SentChannelCopy = "channel_copy" // a copy item's first message in its bound chat
)

// SentRequest records messages the item sent about its submission, so
// that a reply to one of them (/cancel, /pin) finds it; the status message
// is recorded by core when the link is submitted.
type SentRequest struct {
	Owner      string  `json:"owner"`
	ChatID     int64   `json:"chat_id"`
	MessageIDs []int64 `json:"message_ids"`
	Kind       string  `json:"kind"`
}

// ReplyRequest names a submission of the update's person for /cancel or
// /pin: by ReplyToMessageID, the bot's message the command replies to, or
// else by URL, the link.
type ReplyRequest struct {
	Owner            string `json:"owner"`
	ReplyToMessageID int64  `json:"reply_to_message_id,omitempty"`
	URL              string `json:"url,omitempty"`
}

// CancelReply says how many of the person's unfinished submissions of the
// link were cancelled (CodeNotFound: none runs; CodeConflict: archived
// already).
type CancelReply struct {
	Cancelled int    `json:"cancelled"`
	URL       string `json:"url"`
}

// PinReply lists where the result was copied: the first message of each
// copy in a bound chat, which the channel pins (CodeNotFound: no such
// result or no chat bound; CodeConflict: not copied yet).
type PinReply struct {
	Targets []PinTarget `json:"targets"`
}

// PinTarget is one copy to pin.
type PinTarget struct {
	Binding   Binding `json:"binding"`
	MessageID int64   `json:"message_id"`
}

// CopyGoneRequest says the chat of a copy item is gone or no longer takes
// the bot's posts; core unbinds it with reason UnbindChannelGone.
type CopyGoneRequest struct {
	Owner string `json:"owner"`
	Error string `json:"error"`
}

// CopyGoneReply is the binding as unbound; Changed is false when it was
// unbound already, so that only one copy item tells the person.
type CopyGoneReply struct {
	Binding Binding `json:"binding"`
	Changed bool    `json:"changed"`
}

// Collection is the progress of a profile, channel or thread: of every
// page from the first, by the state of the posts (children) they made.
type Collection struct {
	// Kind is profile, channel or thread.
	Kind string `json:"kind"`
	// Title is the profile's or channel's name ("" until its first page is
	// read); InputURL is the link as the person sent it.
	Title    string `json:"title,omitempty"`
	InputURL string `json:"input_url"`
	// State is queued, downloading, complete, partial or failed, as GET
	// /v1/submissions/{id} says; Running while queued or downloading.
	State   string `json:"state"`
	Running bool   `json:"running"`
	// Total counts the posts made so far; Archived those complete or
	// partial; Failed those that failed; Queued those not ended yet.
	Total    int `json:"total"`
	Archived int `json:"archived"`
	Queued   int `json:"queued"`
	Failed   int `json:"failed"`
	// HasMore: once ended, a next page exists ("fetch more").
	HasMore bool `json:"has_more"`
	// Stopped: the person stopped the chain; nothing more is made.
	Stopped bool `json:"stopped"`
	// MoreFrom is the page a MoreRequest continues after: the chain's last.
	MoreFrom uuid.UUID `json:"more_from"`
	// Root is the chain's first page (the submission the link made).
	Root uuid.UUID `json:"root"`
	// BatchSize is the most posts one MoreRequest with Batch asks for (the
	// adapter's max_batch_size; 0 = the adapter takes one page at a time).
	BatchSize int `json:"batch_size,omitempty"`
	// Error says what went wrong with a page, in English.
	Error string `json:"error,omitempty"`
}

// MoreRequest asks for the page after SubmissionID, a page of a chain
// (Collection.MoreFrom), on a button press: asking twice for the page
// after the same one is one page. With Batch it asks for up to
// Collection.BatchSize posts, over as many pages as that takes. Progress
// is the first progress document of the WorkProgress item that follows
// the new page ({} when empty); a repeated request keeps the first one's.
// The answer is the chain's progress once the page is made.
type MoreRequest struct {
	Owner        string          `json:"owner"`
	SubmissionID uuid.UUID       `json:"submission_id"`
	Batch        bool            `json:"batch,omitempty"`
	Progress     json.RawMessage `json:"progress,omitempty"`
}

// StopRequest stops the chain SubmissionID belongs to, on a button press:
// no post or page is made after it; posts already being archived finish.
// The answer is the chain's progress.
type StopRequest struct {
	Owner        string    `json:"owner"`
	SubmissionID uuid.UUID `json:"submission_id"`
}

// CacheKey names a media file as sent through one channel account:
// representation is how it was sent (photo, video, animation, document).
type CacheKey struct {
	ChannelKind    string `json:"channel_kind"`
	AccountID      string `json:"account_id"`
	SHA256         string `json:"sha256"`
	Representation string `json:"representation"`
}

// CacheEntry is a remote reference to a sent media file (Telegram file_id).
type CacheEntry struct {
	CacheKey
	RemoteID string `json:"remote_id"`
}

// AccountAdapter is a platform whose accounts a tenant may connect.
type AccountAdapter struct {
	ID   string `json:"id"`
	Name string `json:"name"`
	// Help says what to paste as the secret.
	Help string `json:"help"`
	// QR: the account may sign in by a QR code instead (AccountQR).
	QR bool `json:"qr,omitempty"`
}

// Connection is one of the tenant's connected accounts, never with its
// credential.
type Connection struct {
	ID        uuid.UUID `json:"id"`
	Adapter   string    `json:"adapter"`
	Provider  string    `json:"provider"`
	AccountID string    `json:"account_id"`
	Handle    string    `json:"handle"`
	// Status is active, reauth_required or revoked.
	Status             string     `json:"status"`
	CredentialRevision int        `json:"credential_revision"`
	CheckedAt          *time.Time `json:"checked_at,omitempty"`
}

// AccountsReply lists the tenant's connections and the platforms that
// take accounts.
type AccountsReply struct {
	Adapters    []AccountAdapter `json:"adapters"`
	Connections []Connection     `json:"connections"`
}

// AccountStartRequest starts an /account_add dialog for Adapter in the
// item's private chat.
type AccountStartRequest struct {
	Owner   string `json:"owner"`
	Adapter string `json:"adapter"`
}

// AccountDialog is a waiting /account_add.
type AccountDialog struct {
	Adapter   AccountAdapter `json:"adapter"`
	ChatID    int64          `json:"chat_id"`
	ExpiresAt time.Time      `json:"expires_at"`
}

// JoinRequest asks that the tenant's default account of the invite's
// platform join the channel of an invite link, pending an operator.
type JoinRequest struct {
	Owner  string `json:"owner"`
	Invite string `json:"invite"`
}

// Join is a request to join a channel: pending, or joined at once when
// the account is a member already (ChannelURL set).
type Join struct {
	ID         uuid.UUID `json:"id"`
	Title      string    `json:"title"`
	State      string    `json:"state"`
	ChannelURL string    `json:"channel_url,omitempty"`
}

// AccountRemoveRequest revokes one of the tenant's connections.
type AccountRemoveRequest struct {
	Owner        string    `json:"owner"`
	ConnectionID uuid.UUID `json:"connection_id"`
}

// AccountResult is how an account dialog ended: Expired (no secret came),
// a Problem for the person, or the Connection added (Replaced: it was
// connected already and got the new credential).
type AccountResult struct {
	Dialog     AccountDialog `json:"dialog"`
	Expired    bool          `json:"expired,omitempty"`
	Problem    string        `json:"problem,omitempty"`
	Connection *Connection   `json:"connection,omitempty"`
	Replaced   bool          `json:"replaced,omitempty"`
	// NotScanned: a QR sign-in's wait ended with no code scanned.
	NotScanned bool `json:"not_scanned,omitempty"`
}

// Kinds of AccountQRStep.
const (
	QRStepCode     = "qr"       // PNG is a login code to send, until ExpiresAt
	QRStepPassword = "password" // the next message is the 2FA password
	QRStepEnd      = "end"      // the sign-in ended; the dialog item tells how
	QRStepWait     = "wait"     // nothing new yet; ask again
)

// AccountQRStep is the next step of a QR sign-in.
type AccountQRStep struct {
	Kind      string    `json:"kind"`
	PNG       []byte    `json:"png,omitempty"`
	ExpiresAt time.Time `json:"expires_at,omitzero"`
	Hint      string    `json:"hint,omitempty"`
}
