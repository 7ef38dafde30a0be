package httpapi

import (
	"errors"
	"log/slog"
	"math"
	"net/http"
	"strconv"
	"strings"

	"github.com/google/uuid"
	"github.com/monitorhq/monitor/internal/app"
	"github.com/monitorhq/monitor/internal/blob"
	"github.com/monitorhq/monitor/internal/mediatype"
)

// mediaCacheControl: media bytes are named by their hash, so they never
// change; private because they sit behind the tenant's token.
const mediaCacheControl = "private, max-age=31536000, immutable"

// media streams the bytes of a media file the tenant saved:
// GET /v1/media/{sha256}, with conditional (If-None-Match) and single-range
// (Range, If-Range) requests. HEAD answers the same headers without a body.
func (d Deps) media(w http.ResponseWriter, r *http.Request) {
	sha := r.PathValue("sha256")
	if !app.IsSHA256(sha) {
		d.writeError(w, r, requestErrorf(app.ErrNotFound, "no media with sha256 %q; expected 64 lowercase hex digits", sha))
		return
	}
	ctx, tenant, etag := r.Context(), principal(r).TenantID, `"`+sha+`"`

	if etagMatches(r.Header.Get("If-None-Match"), etag) {
		// Opened all the same: only a tenant that saved the media may learn
		// that it is here.
		rc, _, err := d.App.OpenMedia(ctx, tenant, sha, nil)
		if err != nil {
			d.writeError(w, r, err)
			return
		}
		_ = rc.Close()
		setMediaHeaders(w, etag)
		w.WriteHeader(http.StatusNotModified)
		return
	}

	spec, ranged := parseRange(rangeHeader(r, etag))
	var rng *blob.Range
	if ranged && !spec.suffix {
		rng = &blob.Range{Offset: spec.first, Length: spec.length()}
	}
	rc, mf, err := d.App.OpenMedia(ctx, tenant, sha, rng)
	if errors.Is(err, blob.ErrInvalidRange) {
		d.unsatisfiable(w, r, tenant, sha, mf)
		return
	}
	if err != nil {
		d.writeError(w, r, err)
		return
	}
	defer func() { _ = rc.Close() }()

	off, n, status := int64(0), mf.Size, http.StatusOK
	if ranged {
		var ok bool
		if off, n, ok = spec.resolve(mf.Size); !ok {
			writeUnsatisfiable(w, mf.Size, "the range selects no byte of the "+strconv.FormatInt(mf.Size, 10)+"-byte file")
			return
		}
		if spec.suffix { // the offset needed the size: open again at it
			tail, tailFile, err := d.App.OpenMedia(ctx, tenant, sha, &blob.Range{Offset: off, Length: n})
			if err != nil {
				d.writeError(w, r, err)
				return
			}
			_ = rc.Close()
			rc, mf = tail, tailFile
		}
		status = http.StatusPartialContent
		w.Header().Set("Content-Range", "bytes "+strconv.FormatInt(off, 10)+"-"+strconv.FormatInt(off+n-1, 10)+"/"+strconv.FormatInt(mf.Size, 10))
	}

	setMediaHeaders(w, etag)
	setMediaType(w, sha, mf.Mime)
	w.Header().Set("Content-Length", strconv.FormatInt(n, 10))
	w.WriteHeader(status)
	if r.Method == http.MethodHead {
		return
	}
	if err := mediatype.Stream(w, rc, n, d.StreamWindow); err != nil && ctx.Err() == nil {
		// The status is sent; the short body makes the server drop the
		// connection, which the client sees as a failed download.
		d.Log.WarnContext(ctx, "media stream stopped", slog.String("sha256", sha), slog.Any("err", err))
	}
}

// unsatisfiable answers a range the store refused (it starts past the
// end). Content-Range needs the size: mf has it when the business layer
// filled it in, else it is looked up.
func (d Deps) unsatisfiable(w http.ResponseWriter, r *http.Request, tenant uuid.UUID, sha string, mf app.MediaFile) {
	if mf.SHA256 == "" {
		rc, whole, err := d.App.OpenMedia(r.Context(), tenant, sha, nil)
		if err != nil {
			d.writeError(w, r, err)
			return
		}
		_ = rc.Close()
		mf = whole
	}
	writeUnsatisfiable(w, mf.Size, "the range starts after the end of the "+strconv.FormatInt(mf.Size, 10)+"-byte file")
}

func writeUnsatisfiable(w http.ResponseWriter, size int64, detail string) {
	w.Header().Set("Content-Range", "bytes */"+strconv.FormatInt(size, 10))
	w.Header().Set("Accept-Ranges", "bytes")
	setActiveContentGuards(w)
	writeProblem(w, Problem{Type: ProblemRangeNotSatisfiable, Title: "Range not satisfiable",
		Status: http.StatusRequestedRangeNotSatisfiable, Detail: detail})
}

func setMediaHeaders(w http.ResponseWriter, etag string) {
	w.Header().Set("ETag", etag)
	w.Header().Set("Cache-Control", mediaCacheControl)
	w.Header().Set("Accept-Ranges", "bytes")
	setActiveContentGuards(w)
}

// mediaCSP keeps an archived file from doing anything if a browser renders
// it after all: no scripts, no plugins, no loads, an origin of its own.
const mediaCSP = "sandbox; default-src 'none'"

// setActiveContentGuards are the headers of every media answer: the browser
// must take the Content-Type as given (no sniffing a JPEG into HTML) and
// may run nothing in it.
func setActiveContentGuards(w http.ResponseWriter) {
	w.Header().Set("X-Content-Type-Options", "nosniff")
	w.Header().Set("Content-Security-Policy", mediaCSP)
}

// setMediaType sets the type a media file is served as. Archived files
// carry the type their upstream host claimed, which may be active content
// (text/html, image/svg+xml) that would run from our origin: only raster
// images, video and audio are served inline with their type, everything
// else as a download.
func setMediaType(w http.ResponseWriter, sha, mime string) {
	w.Header().Set("Content-Type", mediatype.ServeAs(mime))
	if !mediatype.Inline(mime) {
		w.Header().Set("Content-Disposition", mediatype.Attachment(sha, mime))
	}
}

// etagMatches reports whether an If-None-Match header names etag, by the
// weak comparison RFC 9110 §13.1.2 prescribes.
func etagMatches(header, etag string) bool {
	if header == "" {
		return false
	}
	if strings.TrimSpace(header) == "*" {
		return true
	}
	for tag := range strings.SplitSeq(header, ",") {
		if strings.TrimPrefix(strings.TrimSpace(tag), "W/") == etag {
			return true
		}
	}
	return false
}

// rangeHeader is the Range header to honour: none when an If-Range names
// another version (only our strong ETag counts; a date never matches).
func rangeHeader(r *http.Request, etag string) string {
	if ir := r.Header.Get("If-Range"); ir != "" && ir != etag {
		return ""
	}
	return r.Header.Get("Range")
}

// byteRange is one byte-range-spec of a Range header (RFC 9110 §14.1.2):
// first-last, first- (last < 0) or the suffix -n.
type byteRange struct {
	first, last int64
	suffix      bool
	// n is the suffix length.
	n int64
}

// length is how many bytes first-last asks for; -1 means to the end.
func (b byteRange) length() int64 {
	if b.last < 0 || b.last == math.MaxInt64 {
		return -1
	}
	return b.last - b.first + 1
}

// resolve fits the range to a file of size bytes: the offset and length to
// send, or ok false when no byte of the file is selected (416).
func (b byteRange) resolve(size int64) (off, n int64, ok bool) {
	if b.suffix {
		if b.n == 0 || size == 0 {
			return 0, 0, false
		}
		n = min(b.n, size)
		return size - n, n, true
	}
	if b.first >= size {
		return 0, 0, false
	}
	end := size - 1
	if b.last >= 0 && b.last < end {
		end = b.last
	}
	return b.first, end - b.first + 1, true
}

// parseRange reads a Range header. ok is false when the header is to be
// ignored and the whole file served: absent, another unit, malformed, or
// several ranges (which RFC 9110 lets a server answer with the whole file).
func parseRange(h string) (b byteRange, ok bool) {
	unit, set, found := strings.Cut(h, "=")
	if !found || !strings.EqualFold(strings.TrimSpace(unit), "bytes") || strings.Contains(set, ",") {
		return byteRange{}, false
	}
	first, last, found := strings.Cut(strings.TrimSpace(set), "-")
	if !found {
		return byteRange{}, false
	}
	if first == "" {
		n, ok := parseDigits(last)
		return byteRange{suffix: true, n: n}, ok
	}
	b.first, ok = parseDigits(first)
	if !ok {
		return byteRange{}, false
	}
	b.last = -1
	if last != "" {
		if b.last, ok = parseDigits(last); !ok || b.last < b.first {
			return byteRange{}, false
		}
	}
	return b, true
}

// parseDigits reads a non-empty run of decimal digits; a number too large
// for int64 saturates, since no file is that long.
func parseDigits(s string) (int64, bool) {
	if s == "" {
		return 0, false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return 0, false
		}
	}
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil {
		return math.MaxInt64, true
	}
	return n, true
}
