package channelserver

import (
	"context"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/google/uuid"

	"github.com/monitorhq/monitor/internal/app"
	"github.com/monitorhq/monitor/internal/channelapi"
	"github.com/monitorhq/monitor/internal/mediatype"
)

// Service is what the channel API needs from core's business layer;
// *app.App implements it. Methods named for a work item act for that
// item's tenant and first check that owner holds its lease.
//
// Errors are the app package's (app.ErrInvalid, app.ErrLeaseLost, …,
// *app.QuotaError, *app.LimitError, *adapterapi.Error); wireError maps them
// to the answers of the protocol. Any other error is answered as
// channelapi.CodeInternal (and logged), a cancelled request not at all.
type Service interface {
	ChannelHello(ctx context.Context, h app.ChannelInstance) (app.ChannelHelloReply, error)
	// ChannelPollLease takes, renews or releases the channel's poll lease.
	ChannelPollLease(ctx context.Context, req app.ChannelPollLeaseRequest) (app.ChannelPollLeaseReply, error)
	// ChannelAcceptUpdates is an app.ErrLeaseLost unless req.Owner holds the
	// poll lease.
	ChannelAcceptUpdates(ctx context.Context, req app.ChannelUpdatesRequest) (app.ChannelUpdatesReply, error)
	ChannelClaim(ctx context.Context, req app.ChannelClaimRequest) ([]app.ChannelWork, error)
	ChannelRenew(ctx context.Context, id uuid.UUID, owner string) (time.Time, error)
	ChannelProgress(ctx context.Context, id uuid.UUID, owner string, progress json.RawMessage) error
	ChannelDone(ctx context.Context, id uuid.UUID, owner string) error
	ChannelDefer(ctx context.Context, id uuid.UUID, owner string, afterSeconds int, reason string) error
	ChannelFail(ctx context.Context, id uuid.UUID, owner, reason string) error
	ChannelMessages(ctx context.Context, id uuid.UUID, owner string, chatID int64, messageIDs []int64) error
	ChannelCapture(ctx context.Context, id uuid.UUID, req app.ChannelCaptureRequest) (app.SubmitResult, error)
	ChannelList(ctx context.Context, id uuid.UUID, owner string, after *uuid.UUID, limit int) (app.ChannelPage, error)
	// ChannelSearch is an *app.QueryError for a query it cannot read.
	ChannelSearch(ctx context.Context, id uuid.UUID, owner, q string, page int, after *uuid.UUID, limit int) (app.ChannelSearchPage, error)
	ChannelGet(ctx context.Context, id uuid.UUID, owner, ref string) (app.CollectionView, error)
	ChannelDelete(ctx context.Context, id uuid.UUID, owner, ref string) (uuid.UUID, error)
	ChannelSave(ctx context.Context, id uuid.UUID, owner, ref string) (app.SaveReply, error)
	ChannelUsage(ctx context.Context, id uuid.UUID, owner string) (app.ChannelUsageReply, error)
	ChannelToken(ctx context.Context, id uuid.UUID, owner string) (app.ChannelToken, error)
	// ChannelLoginLink is an app.ErrForbidden outside a private chat, and
	// for console from a tenant not marked admin.
	ChannelLoginLink(ctx context.Context, id uuid.UUID, owner string, console bool) (app.ChannelLoginLink, error)
	ChannelDelivery(ctx context.Context, id uuid.UUID, owner string) (app.Delivery, error)
	// ChannelMore and ChannelStop are the buttons of a profile's or
	// channel's progress message: app.ErrForbidden for someone else's,
	// app.ErrConflict when the chain cannot go on now.
	ChannelMore(ctx context.Context, id uuid.UUID, req app.ChannelMoreRequest) (app.ChannelCollection, error)
	ChannelStop(ctx context.Context, id uuid.UUID, owner string, submissionID uuid.UUID) (app.ChannelCollection, error)
	// ChannelWatch, ChannelWatches and ChannelUnwatch are the tenant's
	// watches; ChannelUnwatch's ref is a watch id or its number in the list.
	ChannelWatch(ctx context.Context, id uuid.UUID, owner, url string, intervalSeconds int) (app.WatchView, error)
	ChannelWatches(ctx context.Context, id uuid.UUID, owner string) ([]app.WatchView, error)
	ChannelUnwatch(ctx context.Context, id uuid.UUID, owner, ref string) (app.WatchView, error)
	// ChannelBind, ChannelBindings and ChannelUnbind are the chats the
	// tenant bound (bind: app.ErrConflict when another tenant has the chat,
	// a *app.LimitError over the tenant's channel limit); ChannelCopyGone
	// unbinds a copy item's chat that is gone.
	ChannelBind(ctx context.Context, id uuid.UUID, req app.ChannelBindRequest) (app.ChannelBindResult, error)
	ChannelBindings(ctx context.Context, id uuid.UUID, owner string) ([]app.ChannelBindingView, error)
	ChannelUnbind(ctx context.Context, id uuid.UUID, owner, ref string) (app.ChannelBindingView, error)
	ChannelCopyGone(ctx context.Context, id uuid.UUID, owner, why string) (app.ChannelBindingView, bool, error)
	// ChannelSent records a deliver or copy item's messages; ChannelCancel
	// and ChannelPin find the person's submission a reply or link names
	// (app.ErrNotFound: none; app.ErrConflict: archived already, or not
	// copied yet).
	ChannelSent(ctx context.Context, id uuid.UUID, owner string, chatID int64, messageIDs []int64, kind string) error
	ChannelCancel(ctx context.Context, id uuid.UUID, owner string, replyTo int64, url string) (app.ChannelCancelResult, error)
	ChannelPin(ctx context.Context, id uuid.UUID, owner string, replyTo int64, url string) ([]app.ChannelPinTarget, error)
	// ChannelDownload archives a link and pushes it to a cloud destination
	// (app.ErrForbidden: the tenant may use none).
	ChannelDownload(ctx context.Context, id uuid.UUID, owner, url, destination string) (app.PushView, error)
	// ChannelAccounts, ChannelAccountStart, ChannelAccountCancel and
	// ChannelAccountRemove are the bot's account commands (start is an
	// app.ErrForbidden outside a private chat; cancel an app.ErrNotFound
	// when nothing waits); ChannelAccountFinish ends a dialog item.
	ChannelAccounts(ctx context.Context, id uuid.UUID, owner string) (app.ChannelAccountsView, error)
	ChannelAccountStart(ctx context.Context, id uuid.UUID, owner, adapter string) (app.AccountDialogView, error)
	ChannelAccountCancel(ctx context.Context, id uuid.UUID, owner string) error
	ChannelAccountRemove(ctx context.Context, id uuid.UUID, owner string, connectionID uuid.UUID) (app.ConnectionView, error)
	ChannelAccountFinish(ctx context.Context, id uuid.UUID, owner string) (app.ChannelAccountResult, error)
	// ChannelAccountQR starts a dialog that signs in by QR code;
	// ChannelAccountQRNext is its next step.
	ChannelAccountQR(ctx context.Context, id uuid.UUID, owner, adapter string) (app.AccountDialogView, error)
	ChannelAccountQRNext(ctx context.Context, id uuid.UUID, owner string) (app.SignInStepView, error)
	// ChannelJoin is /join LINK (app.ErrForbidden while joining is off).
	ChannelJoin(ctx context.Context, id uuid.UUID, owner, invite string) (app.JoinRequestView, error)
	// ChannelMedia opens a media file of the item's delivery or of the
	// tenant's saved collections; the caller closes it.
	ChannelMedia(ctx context.Context, id uuid.UUID, owner, sha256 string) (io.ReadCloser, app.MediaFile, error)
	// ChannelCacheGet is an app.ErrNotFound when nothing is cached.
	ChannelCacheGet(ctx context.Context, k app.ChannelCacheKey) (remoteID string, err error)
	ChannelCachePut(ctx context.Context, k app.ChannelCacheKey, remoteID string) error
	ChannelCacheDrop(ctx context.Context, k app.ChannelCacheKey, remoteID string) error
}

// Deps is what the channel API server runs on.
type Deps struct {
	Service Service
	// Secret is MONITOR_CHANNEL_SECRET; an empty one lets nobody in.
	Secret string
	// Log receives server faults; nil discards them.
	Log *slog.Logger
	// StreamWindow is how long one chunk of a media download may take to
	// be written: the media route moves the connection's write deadline
	// this far ahead before each chunk, so a large file outlasts the
	// server's WriteTimeout. Zero leaves the server's deadline alone.
	StreamWindow time.Duration
}

// maxRequestBody bounds a JSON request body.
const maxRequestBody = 1 << 20

// NewServer serves every route of the channel API, all behind the shared
// secret.
func NewServer(d Deps) http.Handler {
	if d.Log == nil {
		d.Log = slog.New(slog.DiscardHandler)
	}
	s := &server{svc: d.Service, log: d.Log, window: d.StreamWindow}
	sum := sha256.Sum256([]byte(d.Secret))
	s.secret = sum[:]
	s.open = d.Secret != ""

	mux := http.NewServeMux()
	s.routes(mux)
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		writeError(w, &channelapi.Error{Status: http.StatusNotFound, Code: channelapi.CodeNotFound, Message: "no channel API route " + r.Method + " " + r.URL.Path})
	})
	return s.authenticate(mux)
}

type server struct {
	svc    Service
	log    *slog.Logger
	secret []byte // SHA-256 of the secret, so comparing takes the same time for any length
	open   bool
	window time.Duration // Deps.StreamWindow
}

// authenticate lets through only requests that carry the secret.
func (s *server) authenticate(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		token, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
		sum := sha256.Sum256([]byte(token))
		if !s.open || !ok || subtle.ConstantTimeCompare(sum[:], s.secret) != 1 {
			// Before any of the body is read, so the body is not read at
			// all: `Connection: close` keeps net/http from reading it
			// before writing this answer, a read deadline in the past from
			// reading it after. Otherwise a caller without the secret that
			// trickles a body would hold the connection until ReadTimeout.
			if r.ContentLength != 0 {
				w.Header().Set("Connection", "close")
				_ = http.NewResponseController(w).SetReadDeadline(time.Now())
			}
			w.Header().Set("WWW-Authenticate", "Bearer")
			writeError(w, &channelapi.Error{Status: http.StatusUnauthorized, Code: channelapi.CodeUnauthorized,
				Message: "send the channel secret (MONITOR_CHANNEL_SECRET) as `Authorization: Bearer <secret>`"})
			return
		}
		next.ServeHTTP(w, r)
	})
}

// call decodes the body into In, calls fn and answers its result. The id is
// uuid.Nil for routes that name no work item.
func call[In, Out any](s *server, fn func(ctx context.Context, id uuid.UUID, in In) (Out, error)) http.HandlerFunc {
	return serve(s, false, fn)
}

// workCall is call for the routes under /work/{id}.
func workCall[In, Out any](s *server, fn func(ctx context.Context, id uuid.UUID, in In) (Out, error)) http.HandlerFunc {
	return serve(s, true, fn)
}

func serve[In, Out any](s *server, work bool, fn func(ctx context.Context, id uuid.UUID, in In) (Out, error)) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		var id uuid.UUID
		if work {
			var err error
			if id, err = workID(r); err != nil {
				s.fail(w, r, err)
				return
			}
		}
		var in In
		if err := decode(w, r, &in); err != nil {
			s.fail(w, r, err)
			return
		}
		out, err := fn(r.Context(), id, in)
		if err != nil {
			s.fail(w, r, err)
			return
		}
		writeJSON(w, http.StatusOK, out)
	}
}

// media streams a media file's bytes: GET /work/{id}/media/{sha256} with
// the lease owner in a header.
func (s *server) media(w http.ResponseWriter, r *http.Request) {
	id, err := workID(r)
	if err != nil {
		s.fail(w, r, err)
		return
	}
	sha := r.PathValue("sha256") // the service checks its form
	owner := r.Header.Get(channelapi.HeaderLeaseOwner)
	if owner == "" {
		s.fail(w, r, invalid("send the lease owner in the %s header", channelapi.HeaderLeaseOwner))
		return
	}
	rc, mf, err := s.svc.ChannelMedia(r.Context(), id, owner, sha)
	if err != nil {
		s.fail(w, r, err)
		return
	}
	defer func() { _ = rc.Close() }()
	mime := mf.Mime
	if mime == "" {
		mime = "application/octet-stream"
	}
	w.Header().Set("Content-Type", mime)
	w.Header().Set("Content-Length", strconv.FormatInt(mf.Size, 10))
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(http.StatusOK)
	if err := mediatype.Stream(w, rc, mf.Size, s.window); err != nil && r.Context().Err() == nil {
		// The status is sent; the short body makes the client see a failed
		// download.
		s.log.WarnContext(r.Context(), "channel media stream stopped", slog.String("sha256", sha), slog.Any("err", err))
	}
}

// workID parses the {id} path value.
func workID(r *http.Request) (uuid.UUID, error) {
	raw := r.PathValue("id")
	id, err := uuid.Parse(raw)
	if err != nil || len(raw) != 36 {
		return uuid.Nil, invalid("work id %q is not a UUID", raw)
	}
	return id, nil
}

func invalid(format string, args ...any) *channelapi.Error {
	return &channelapi.Error{Status: http.StatusBadRequest, Code: channelapi.CodeInvalid, Message: fmt.Sprintf(format, args...)}
}

// decode reads the body as exactly one JSON object into dst, refusing
// unknown fields and bodies over maxRequestBody.
func decode(w http.ResponseWriter, r *http.Request, dst any) error {
	dec := json.NewDecoder(http.MaxBytesReader(w, r.Body, maxRequestBody))
	dec.DisallowUnknownFields()
	err := dec.Decode(dst)
	if err == nil {
		if _, more := dec.Token(); !errors.Is(more, io.EOF) {
			err = errors.New("more after the JSON object")
		}
	}
	var tooLarge *http.MaxBytesError
	switch {
	case err == nil:
		return nil
	case errors.As(err, &tooLarge):
		return invalid("request body is larger than %d bytes", tooLarge.Limit)
	case errors.Is(err, os.ErrDeadlineExceeded):
		// The server's ReadTimeout passed while the body was still arriving.
		return invalid("request body did not arrive in time; send the whole body at once, right after the headers")
	case errors.Is(err, io.EOF):
		return invalid("request body is empty; send a JSON object")
	}
	return invalid("request body: %v", err)
}

// fail answers an error: as wireError maps it, a cancelled request not at
// all, anything else as an internal error whose cause goes to the log.
func (s *server) fail(w http.ResponseWriter, r *http.Request, err error) {
	err = wireError(err)
	var e *channelapi.Error
	switch {
	case errors.As(err, &e):
		if e.Status == 0 {
			e.Status = http.StatusInternalServerError
		}
		if e.Status >= http.StatusInternalServerError {
			s.log.WarnContext(r.Context(), "channel API call failed", slog.String("path", r.URL.Path), slog.String("code", e.Code),
				slog.String("err", e.Message))
		}
		writeError(w, e)
	case errors.Is(err, context.Canceled) && r.Context().Err() != nil:
		// The channel is gone.
	default:
		s.log.ErrorContext(r.Context(), "channel API call failed", slog.String("path", r.URL.Path), slog.Any("err", err))
		writeError(w, &channelapi.Error{Status: http.StatusInternalServerError, Code: channelapi.CodeInternal, Message: "internal error; see core's log"})
	}
}

func writeError(w http.ResponseWriter, e *channelapi.Error) {
	if e.RetryAfterSeconds > 0 {
		w.Header().Set("Retry-After", strconv.Itoa(e.RetryAfterSeconds))
	}
	writeJSON(w, e.Status, e)
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(status)
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(v)
}
