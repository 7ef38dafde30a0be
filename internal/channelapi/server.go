package channelapi

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
)

// Service is what the channel API needs from core's business layer;
// *app.App implements it. Methods named for a work item act for that
// item's tenant and first check that owner holds its lease.
//
// Errors meant for the channel are *Error values, whose Code and Message
// are answered as they are; any other error is answered as CodeInternal
// (and logged), a cancelled request not at all.
type Service interface {
	ChannelHello(ctx context.Context, h Hello) (HelloReply, error)
	// ChannelPollLease takes, renews or releases the channel's poll lease.
	ChannelPollLease(ctx context.Context, req PollLeaseRequest) (PollLeaseReply, error)
	// ChannelAcceptUpdates is an *Error with CodeLeaseLost unless req.Owner
	// holds the poll lease.
	ChannelAcceptUpdates(ctx context.Context, req UpdatesRequest) (UpdatesReply, error)
	ChannelClaim(ctx context.Context, req ClaimRequest) ([]Work, error)
	ChannelRenew(ctx context.Context, id uuid.UUID, owner string) (LeaseReply, error)
	ChannelProgress(ctx context.Context, id uuid.UUID, req ProgressRequest) error
	ChannelDone(ctx context.Context, id uuid.UUID, owner string) error
	ChannelDefer(ctx context.Context, id uuid.UUID, req DeferRequest) error
	ChannelFail(ctx context.Context, id uuid.UUID, req FailRequest) error
	ChannelMessages(ctx context.Context, id uuid.UUID, req MessagesRequest) error
	ChannelCapture(ctx context.Context, id uuid.UUID, req CaptureRequest) (CaptureReply, error)
	ChannelList(ctx context.Context, id uuid.UUID, req ListRequest) (ListReply, error)
	ChannelGet(ctx context.Context, id uuid.UUID, req ItemRequest) (Item, error)
	ChannelDelete(ctx context.Context, id uuid.UUID, req ItemRequest) (DeleteReply, error)
	ChannelSave(ctx context.Context, id uuid.UUID, req ItemRequest) (SaveReply, error)
	ChannelUsage(ctx context.Context, id uuid.UUID, owner string) (UsageReply, error)
	ChannelToken(ctx context.Context, id uuid.UUID, owner string) (TokenReply, error)
	ChannelDelivery(ctx context.Context, id uuid.UUID, owner string) (Delivery, error)
	// ChannelMedia opens a media file of the item's delivery or of the
	// tenant's saved collections; the caller closes it.
	ChannelMedia(ctx context.Context, id uuid.UUID, owner, sha256 string) (io.ReadCloser, MediaFile, error)
	// ChannelCacheGet is an *Error with CodeNotFound when nothing is cached.
	ChannelCacheGet(ctx context.Context, k CacheKey) (CacheEntry, error)
	ChannelCachePut(ctx context.Context, e CacheEntry) error
	ChannelCacheDrop(ctx context.Context, e CacheEntry) error
}

// MediaFile describes the bytes ChannelMedia opened.
type MediaFile struct {
	Mime string
	Size int64
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
	post := func(path string, h http.HandlerFunc) { mux.HandleFunc("POST "+path, h) }

	post(PathHello, call(s, func(ctx context.Context, _ uuid.UUID, in Hello) (HelloReply, error) {
		return s.svc.ChannelHello(ctx, in)
	}))
	post(PathPollLease, call(s, func(ctx context.Context, _ uuid.UUID, in PollLeaseRequest) (PollLeaseReply, error) {
		return s.svc.ChannelPollLease(ctx, in)
	}))
	post(PathUpdates, call(s, func(ctx context.Context, _ uuid.UUID, in UpdatesRequest) (UpdatesReply, error) {
		return s.svc.ChannelAcceptUpdates(ctx, in)
	}))
	post(PathClaim, call(s, func(ctx context.Context, _ uuid.UUID, in ClaimRequest) (ClaimReply, error) {
		w, err := s.svc.ChannelClaim(ctx, in)
		if w == nil {
			w = []Work{}
		}
		return ClaimReply{Work: w}, err
	}))
	post(PathRenew, workCall(s, func(ctx context.Context, id uuid.UUID, in Lease) (LeaseReply, error) {
		return s.svc.ChannelRenew(ctx, id, in.Owner)
	}))
	post(PathProgress, workCall(s, func(ctx context.Context, id uuid.UUID, in ProgressRequest) (Empty, error) {
		return Empty{}, s.svc.ChannelProgress(ctx, id, in)
	}))
	post(PathDone, workCall(s, func(ctx context.Context, id uuid.UUID, in Lease) (Empty, error) {
		return Empty{}, s.svc.ChannelDone(ctx, id, in.Owner)
	}))
	post(PathDefer, workCall(s, func(ctx context.Context, id uuid.UUID, in DeferRequest) (Empty, error) {
		return Empty{}, s.svc.ChannelDefer(ctx, id, in)
	}))
	post(PathFail, workCall(s, func(ctx context.Context, id uuid.UUID, in FailRequest) (Empty, error) {
		return Empty{}, s.svc.ChannelFail(ctx, id, in)
	}))
	post(PathMessages, workCall(s, func(ctx context.Context, id uuid.UUID, in MessagesRequest) (Empty, error) {
		return Empty{}, s.svc.ChannelMessages(ctx, id, in)
	}))
	post(PathCapture, workCall(s, s.svc.ChannelCapture))
	post(PathList, workCall(s, s.svc.ChannelList))
	post(PathGet, workCall(s, s.svc.ChannelGet))
	post(PathDelete, workCall(s, s.svc.ChannelDelete))
	post(PathSave, workCall(s, s.svc.ChannelSave))
	post(PathUsage, workCall(s, func(ctx context.Context, id uuid.UUID, in Lease) (UsageReply, error) {
		return s.svc.ChannelUsage(ctx, id, in.Owner)
	}))
	post(PathToken, workCall(s, func(ctx context.Context, id uuid.UUID, in Lease) (TokenReply, error) {
		return s.svc.ChannelToken(ctx, id, in.Owner)
	}))
	post(PathDelivery, workCall(s, func(ctx context.Context, id uuid.UUID, in Lease) (Delivery, error) {
		return s.svc.ChannelDelivery(ctx, id, in.Owner)
	}))
	mux.HandleFunc("GET "+PathMedia, s.media)
	post(PathCacheGet, call(s, func(ctx context.Context, _ uuid.UUID, in CacheKey) (CacheEntry, error) {
		return s.svc.ChannelCacheGet(ctx, in)
	}))
	post(PathCachePut, call(s, func(ctx context.Context, _ uuid.UUID, in CacheEntry) (Empty, error) {
		return Empty{}, s.svc.ChannelCachePut(ctx, in)
	}))
	post(PathCacheDrop, call(s, func(ctx context.Context, _ uuid.UUID, in CacheEntry) (Empty, error) {
		return Empty{}, s.svc.ChannelCacheDrop(ctx, in)
	}))
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		writeError(w, &Error{Status: http.StatusNotFound, Code: CodeNotFound, Message: "no channel API route " + r.Method + " " + r.URL.Path})
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
			writeError(w, &Error{Status: http.StatusUnauthorized, Code: CodeUnauthorized,
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
	owner := r.Header.Get(HeaderLeaseOwner)
	if owner == "" {
		s.fail(w, r, invalid("send the lease owner in the %s header", HeaderLeaseOwner))
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
	if err := s.stream(w, rc, mf.Size); err != nil && r.Context().Err() == nil {
		// The status is sent; the short body makes the client see a failed
		// download.
		s.log.WarnContext(r.Context(), "channel media stream stopped", slog.String("sha256", sha), slog.Any("err", err))
	}
}

// streamChunk is how much of a media file is written per write deadline.
const streamChunk = 64 << 10

// stream copies n bytes of src to w, moving the connection's write
// deadline s.window ahead before each chunk (when set), so a large file
// streams for as long as the channel keeps reading.
func (s *server) stream(w http.ResponseWriter, src io.Reader, n int64) error {
	if s.window <= 0 {
		_, err := io.CopyN(w, src, n)
		return err
	}
	rc := http.NewResponseController(w)
	buf := make([]byte, streamChunk)
	for n > 0 {
		if err := rc.SetWriteDeadline(time.Now().Add(s.window)); err != nil && !errors.Is(err, http.ErrNotSupported) {
			return fmt.Errorf("channelapi: extend the write deadline: %w", err)
		}
		k, err := io.ReadFull(src, buf[:min(int64(len(buf)), n)])
		if k > 0 {
			if _, werr := w.Write(buf[:k]); werr != nil {
				return werr
			}
			n -= int64(k)
		}
		if errors.Is(err, io.EOF) {
			return io.ErrUnexpectedEOF
		}
		if err != nil {
			return err
		}
	}
	return nil
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

func invalid(format string, args ...any) *Error {
	return &Error{Status: http.StatusBadRequest, Code: CodeInvalid, Message: fmt.Sprintf(format, args...)}
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

// fail answers an error: an *Error as it is, a cancelled request not at
// all, anything else as an internal error whose cause goes to the log.
func (s *server) fail(w http.ResponseWriter, r *http.Request, err error) {
	var e *Error
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
		writeError(w, &Error{Status: http.StatusInternalServerError, Code: CodeInternal, Message: "internal error; see core's log"})
	}
}

func writeError(w http.ResponseWriter, e *Error) {
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
