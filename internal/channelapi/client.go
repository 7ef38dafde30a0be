package channelapi

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"

	"github.com/google/uuid"
)

// maxAnswer bounds a JSON answer read from core.
const maxAnswer = 8 << 20

// Client calls core's channel API.
type Client struct {
	base   string
	secret string
	http   *http.Client
}

// NewClient returns a client of the channel API at base (http://host:port).
func NewClient(base, secret string, hc *http.Client) *Client {
	if hc == nil {
		hc = http.DefaultClient
	}
	return &Client{base: strings.TrimRight(base, "/"), secret: secret, http: hc}
}

func workPath(tmpl string, id uuid.UUID) string {
	return strings.Replace(tmpl, "{id}", id.String(), 1)
}

// call posts in as JSON to path and decodes the answer into out.
func (c *Client) call(ctx context.Context, path string, in, out any) error {
	body, err := json.Marshal(in)
	if err != nil {
		return err
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, c.base+path, bytes.NewReader(body))
	if err != nil {
		return err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Authorization", "Bearer "+c.secret)
	resp, err := c.http.Do(req)
	if err != nil {
		return fmt.Errorf("channel API: %w", err)
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(io.LimitReader(resp.Body, maxAnswer))
	if err != nil {
		return fmt.Errorf("channel API: reading the answer to %s: %w", path, err)
	}
	if resp.StatusCode/100 != 2 {
		return decodeError(resp.StatusCode, data)
	}
	if out == nil {
		return nil
	}
	if err := json.Unmarshal(data, out); err != nil {
		return fmt.Errorf("channel API: decoding the answer to %s: %w", path, err)
	}
	return nil
}

func decodeError(status int, data []byte) error {
	e := &Error{}
	if err := json.Unmarshal(data, e); err != nil || e.Code == "" {
		return &Error{Status: status, Code: CodeInternal, Message: fmt.Sprintf("channel API answered %d: %.200s", status, data)}
	}
	e.Status = status
	return e
}

// Hello registers the channel instance.
func (c *Client) Hello(ctx context.Context, h Hello) (HelloReply, error) {
	var r HelloReply
	return r, c.call(ctx, PathHello, h, &r)
}

// PollLease takes, renews or (req.Release) gives up the channel's poll
// lease.
func (c *Client) PollLease(ctx context.Context, req PollLeaseRequest) (PollLeaseReply, error) {
	var r PollLeaseReply
	return r, c.call(ctx, PathPollLease, req, &r)
}

// PostUpdates stores updates and advances the offset; core refuses it with
// CodeLeaseLost unless req.Owner holds the poll lease.
func (c *Client) PostUpdates(ctx context.Context, req UpdatesRequest) (UpdatesReply, error) {
	var r UpdatesReply
	return r, c.call(ctx, PathUpdates, req, &r)
}

// Claim leases up to req.Max ready items.
func (c *Client) Claim(ctx context.Context, req ClaimRequest) ([]Work, error) {
	var r ClaimReply
	return r.Work, c.call(ctx, PathClaim, req, &r)
}

// Renew extends a lease by LeaseTTL.
func (c *Client) Renew(ctx context.Context, id uuid.UUID, owner string) (LeaseReply, error) {
	var r LeaseReply
	return r, c.call(ctx, workPath(PathRenew, id), Lease{Owner: owner}, &r)
}

// Progress replaces the item's progress document.
func (c *Client) Progress(ctx context.Context, id uuid.UUID, owner string, progress any) error {
	raw, err := json.Marshal(progress)
	if err != nil {
		return err
	}
	return c.call(ctx, workPath(PathProgress, id), ProgressRequest{Owner: owner, Progress: raw}, nil)
}

// Done ends the item successfully.
func (c *Client) Done(ctx context.Context, id uuid.UUID, owner string) error {
	return c.call(ctx, workPath(PathDone, id), Lease{Owner: owner}, nil)
}

// Defer returns the item to the pool for later.
func (c *Client) Defer(ctx context.Context, id uuid.UUID, req DeferRequest) error {
	return c.call(ctx, workPath(PathDefer, id), req, nil)
}

// Fail ends the item for good.
func (c *Client) Fail(ctx context.Context, id uuid.UUID, owner, reason string) error {
	return c.call(ctx, workPath(PathFail, id), FailRequest{Owner: owner, Error: reason}, nil)
}

// Messages records sent messages that carry buttons.
func (c *Client) Messages(ctx context.Context, id uuid.UUID, req MessagesRequest) error {
	return c.call(ctx, workPath(PathMessages, id), req, nil)
}

// Capture archives a link for the item's tenant.
func (c *Client) Capture(ctx context.Context, id uuid.UUID, req CaptureRequest) (CaptureReply, error) {
	var r CaptureReply
	return r, c.call(ctx, workPath(PathCapture, id), req, &r)
}

// List reads a page of the tenant's collections.
func (c *Client) List(ctx context.Context, id uuid.UUID, req ListRequest) (ListReply, error) {
	var r ListReply
	return r, c.call(ctx, workPath(PathList, id), req, &r)
}

// Search reads a page of the tenant's saved collections that match a
// query.
func (c *Client) Search(ctx context.Context, id uuid.UUID, req SearchRequest) (SearchReply, error) {
	var r SearchReply
	return r, c.call(ctx, workPath(PathSearch, id), req, &r)
}

// Get reads one saved collection.
func (c *Client) Get(ctx context.Context, id uuid.UUID, req ItemRequest) (Item, error) {
	var r Item
	return r, c.call(ctx, workPath(PathGet, id), req, &r)
}

// Delete removes the tenant's reference to a collection.
func (c *Client) Delete(ctx context.Context, id uuid.UUID, req ItemRequest) (DeleteReply, error) {
	var r DeleteReply
	return r, c.call(ctx, workPath(PathDelete, id), req, &r)
}

// Save adds the presser's reference to a public collection ("save too").
func (c *Client) Save(ctx context.Context, id uuid.UUID, req ItemRequest) (SaveReply, error) {
	var r SaveReply
	return r, c.call(ctx, workPath(PathSave, id), req, &r)
}

// Usage reads the tenant's storage and limits.
func (c *Client) Usage(ctx context.Context, id uuid.UUID, owner string) (UsageReply, error) {
	var r UsageReply
	return r, c.call(ctx, workPath(PathUsage, id), Lease{Owner: owner}, &r)
}

// Watch watches a profile or channel for the tenant.
func (c *Client) Watch(ctx context.Context, id uuid.UUID, req WatchRequest) (Watch, error) {
	var r Watch
	return r, c.call(ctx, workPath(PathWatch, id), req, &r)
}

// Watches lists the tenant's watches.
func (c *Client) Watches(ctx context.Context, id uuid.UUID, owner string) (WatchesReply, error) {
	var r WatchesReply
	return r, c.call(ctx, workPath(PathWatches, id), Lease{Owner: owner}, &r)
}

// Unwatch removes one of the tenant's watches and answers it.
func (c *Client) Unwatch(ctx context.Context, id uuid.UUID, req UnwatchRequest) (Watch, error) {
	var r Watch
	return r, c.call(ctx, workPath(PathUnwatch, id), req, &r)
}

// Bind binds a channel or supergroup for the tenant.
func (c *Client) Bind(ctx context.Context, id uuid.UUID, req BindRequest) (BindReply, error) {
	var r BindReply
	return r, c.call(ctx, workPath(PathBind, id), req, &r)
}

// Bindings lists the tenant's active bindings.
func (c *Client) Bindings(ctx context.Context, id uuid.UUID, owner string) (BindingsReply, error) {
	var r BindingsReply
	return r, c.call(ctx, workPath(PathBindings, id), Lease{Owner: owner}, &r)
}

// Unbind unbinds one of the tenant's chats and answers it.
func (c *Client) Unbind(ctx context.Context, id uuid.UUID, req UnbindRequest) (Binding, error) {
	var r Binding
	return r, c.call(ctx, workPath(PathUnbind, id), req, &r)
}

// CopyGone reports that a copy item's chat is gone.
func (c *Client) CopyGone(ctx context.Context, id uuid.UUID, req CopyGoneRequest) (CopyGoneReply, error) {
	var r CopyGoneReply
	return r, c.call(ctx, workPath(PathCopyGone, id), req, &r)
}

// Sent records messages the item sent about its submission.
func (c *Client) Sent(ctx context.Context, id uuid.UUID, req SentRequest) error {
	return c.call(ctx, workPath(PathSent, id), req, &Empty{})
}

// Cancel cancels the person's unfinished submission a reply or link names.
func (c *Client) Cancel(ctx context.Context, id uuid.UUID, req ReplyRequest) (CancelReply, error) {
	var r CancelReply
	return r, c.call(ctx, workPath(PathCancel, id), req, &r)
}

// Pin finds where the result a reply or link names was copied.
func (c *Client) Pin(ctx context.Context, id uuid.UUID, req ReplyRequest) (PinReply, error) {
	var r PinReply
	return r, c.call(ctx, workPath(PathPin, id), req, &r)
}

// Download archives a link and uploads it to a cloud destination.
func (c *Client) Download(ctx context.Context, id uuid.UUID, req DownloadRequest) (Push, error) {
	var r Push
	return r, c.call(ctx, workPath(PathDownload, id), req, &r)
}

// Token creates a REST token for the tenant.
func (c *Client) Token(ctx context.Context, id uuid.UUID, owner string) (TokenReply, error) {
	var r TokenReply
	return r, c.call(ctx, workPath(PathToken, id), Lease{Owner: owner}, &r)
}

// LoginLink makes a one-use sign-in link to the web library, or the
// operator console, for the item's person (update items from a private
// chat only).
func (c *Client) LoginLink(ctx context.Context, id uuid.UUID, req LoginLinkRequest) (LoginLinkReply, error) {
	var r LoginLinkReply
	return r, c.call(ctx, workPath(PathLoginLink, id), req, &r)
}

// Delivery reads what a deliver (or progress) item should send.
func (c *Client) Delivery(ctx context.Context, id uuid.UUID, owner string) (Delivery, error) {
	var r Delivery
	return r, c.call(ctx, workPath(PathDelivery, id), Lease{Owner: owner}, &r)
}

// More asks for the next page (or a batch) of a profile or channel.
func (c *Client) More(ctx context.Context, id uuid.UUID, req MoreRequest) (Collection, error) {
	var r Collection
	return r, c.call(ctx, workPath(PathMore, id), req, &r)
}

// Stop stops a profile's or channel's chain of pages.
func (c *Client) Stop(ctx context.Context, id uuid.UUID, req StopRequest) (Collection, error) {
	var r Collection
	return r, c.call(ctx, workPath(PathStop, id), req, &r)
}

// Media opens a media file of the item's delivery or collection; the
// caller closes it.
func (c *Client) Media(ctx context.Context, id uuid.UUID, owner, sha256 string) (io.ReadCloser, int64, error) {
	path := strings.Replace(workPath(PathMedia, id), "{sha256}", sha256, 1)
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, c.base+path, nil)
	if err != nil {
		return nil, 0, err
	}
	req.Header.Set("Authorization", "Bearer "+c.secret)
	req.Header.Set(HeaderLeaseOwner, owner)
	resp, err := c.http.Do(req)
	if err != nil {
		return nil, 0, fmt.Errorf("channel API: %w", err)
	}
	if resp.StatusCode != http.StatusOK {
		defer resp.Body.Close()
		data, _ := io.ReadAll(io.LimitReader(resp.Body, maxAnswer))
		return nil, 0, decodeError(resp.StatusCode, data)
	}
	return resp.Body, resp.ContentLength, nil
}

// HeaderLeaseOwner carries the lease owner on GET requests.
const HeaderLeaseOwner = "X-Lease-Owner"

// CacheGet looks up a remote media reference; a miss is an *Error with
// CodeNotFound.
func (c *Client) CacheGet(ctx context.Context, k CacheKey) (CacheEntry, error) {
	var r CacheEntry
	return r, c.call(ctx, PathCacheGet, k, &r)
}

// CachePut stores a remote media reference.
func (c *Client) CachePut(ctx context.Context, e CacheEntry) error {
	return c.call(ctx, PathCachePut, e, nil)
}

// CacheDrop removes a remote media reference if it is still e.RemoteID.
func (c *Client) CacheDrop(ctx context.Context, e CacheEntry) error {
	return c.call(ctx, PathCacheDrop, e, nil)
}

// IsCode reports whether err is an API error with the code.
func IsCode(err error, code string) bool {
	var e *Error
	return errors.As(err, &e) && e.Code == code
}

// Accounts lists the item's tenant's connections and the platforms that
// take accounts.
func (c *Client) Accounts(ctx context.Context, id uuid.UUID, owner string) (AccountsReply, error) {
	var r AccountsReply
	return r, c.call(ctx, workPath(PathAccounts, id), Lease{Owner: owner}, &r)
}

// AccountStart starts an /account_add dialog in the item's private chat.
func (c *Client) AccountStart(ctx context.Context, id uuid.UUID, req AccountStartRequest) (AccountDialog, error) {
	var r AccountDialog
	return r, c.call(ctx, workPath(PathAccountStart, id), req, &r)
}

// AccountCancel ends the person's waiting dialog (CodeNotFound: none).
func (c *Client) AccountCancel(ctx context.Context, id uuid.UUID, owner string) error {
	return c.call(ctx, workPath(PathAccountCancel, id), Lease{Owner: owner}, &Empty{})
}

// Join asks that the tenant's account join a channel by invite link.
func (c *Client) Join(ctx context.Context, id uuid.UUID, req JoinRequest) (Join, error) {
	var r Join
	return r, c.call(ctx, workPath(PathJoin, id), req, &r)
}

// AccountRemove revokes one of the tenant's connections.
func (c *Client) AccountRemove(ctx context.Context, id uuid.UUID, req AccountRemoveRequest) (Connection, error) {
	var r Connection
	return r, c.call(ctx, workPath(PathAccountRemove, id), req, &r)
}

// AccountQR starts an /account_add dialog that signs in by QR code.
func (c *Client) AccountQR(ctx context.Context, id uuid.UUID, req AccountStartRequest) (AccountDialog, error) {
	var r AccountDialog
	return r, c.call(ctx, workPath(PathAccountQR, id), req, &r)
}

// AccountQRNext is the next step of the person's QR sign-in; core waits
// a little for one (QRStepWait: none yet).
func (c *Client) AccountQRNext(ctx context.Context, id uuid.UUID, owner string) (AccountQRStep, error) {
	var r AccountQRStep
	return r, c.call(ctx, workPath(PathAccountQRNext, id), Lease{Owner: owner}, &r)
}

// AccountFinish ends a claimed account dialog item.
func (c *Client) AccountFinish(ctx context.Context, id uuid.UUID, owner string) (AccountResult, error) {
	var r AccountResult
	return r, c.call(ctx, workPath(PathAccountFinish, id), Lease{Owner: owner}, &r)
}
