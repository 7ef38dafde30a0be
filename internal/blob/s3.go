package blob

import (
	"bytes"
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"math"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	awshttp "github.com/aws/aws-sdk-go-v2/aws/transport/http"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/aws/aws-sdk-go-v2/service/s3/types"
	"github.com/aws/smithy-go"
	smithyhttp "github.com/aws/smithy-go/transport/http"
)

const (
	// DefaultPartSize is the multipart part size when S3Options.PartSize is
	// zero: the most memory one Put holds.
	DefaultPartSize = 16 << 20
	// MinPartSize is the smallest part S3 accepts (except for the last one).
	MinPartSize = 5 << 20
	// maxPartSize and maxParts are S3's limits on one multipart upload.
	maxPartSize = 5 << 30
	maxParts    = 10_000

	// DefaultS3Region is the region used when S3Options.Region is empty.
	DefaultS3Region = "us-east-1"

	// sha256Meta is the user metadata (x-amz-meta-sha256) holding an
	// object's digest.
	sha256Meta = "sha256"
	// firstChunk is how much a Put buffers before growing its buffer toward
	// the part size, so small objects cost little memory.
	firstChunk = 64 << 10
	// s3DialTimeout bounds connecting; s3ReadTimeout bounds every wait for
	// the server to send something, including inside a streamed body.
	s3DialTimeout = 10 * time.Second
	s3ReadTimeout = 2 * time.Minute
	// abortTimeout bounds the clean-up of a failed multipart upload, which
	// runs even when the caller's context is already cancelled.
	abortTimeout = 30 * time.Second
	// probeDir is where Probe writes its test object.
	probeDir = "_probe/"
)

// Errors about the S3 store's setup rather than one object. They come
// wrapped in a message saying what to fix; compare with errors.Is.
var (
	// ErrBucketMissing means the configured bucket does not exist.
	ErrBucketMissing = errors.New("S3 bucket does not exist")
	// ErrCredentials means the server refused the access key, the secret,
	// or the key's rights on the bucket.
	ErrCredentials = errors.New("S3 credentials refused")
	// ErrUnreachable means no connection to the S3 endpoint could be made.
	ErrUnreachable = errors.New("S3 endpoint unreachable")
)

// S3Options configure NewS3.
type S3Options struct {
	// Endpoint is the server's base URL, e.g. http://127.0.0.1:7070.
	Endpoint string
	// Region is the signing region; empty means DefaultS3Region.
	Region string
	// Bucket holds the objects.
	Bucket string
	// AccessKeyID and SecretAccessKey are static credentials.
	AccessKeyID     string
	SecretAccessKey string
	// Prefix, when set, is prepended (with a slash) to every key, so several
	// deployments can share a bucket. It must be a valid key.
	Prefix string
	// PartSize is the multipart part size and so the buffer one Put holds;
	// zero means DefaultPartSize. It must be from MinPartSize to 5 GiB.
	PartSize int64
	// HTTPClient replaces the default client (which has connect and read
	// timeouts).
	HTTPClient *http.Client
}

// S3 is a Store in a bucket of an S3-compatible server (SeaweedFS, MinIO,
// versitygw, AWS): the object at key "a/b" is "<prefix>/a/b". It is the
// scale-mode store, safe for concurrent use by many processes.
//
// Put streams in parts of PartSize, so it never holds more than one part in
// memory. The SHA-256 of an object written with a single request (one no
// larger than PartSize) is kept as metadata and returned by Get and Stat;
// a multipart object's digest is known only after its parts are sent, too
// late for its metadata, so Get and Stat return it empty (Put always
// returns it). An interrupted multipart upload is aborted; one left behind
// by a crash is removed by a bucket lifecycle rule
// (AbortIncompleteMultipartUpload), if the server has one.
type S3 struct {
	client   *s3.Client
	bucket   string
	endpoint string // as configured, for messages
	region   string
	prefix   string // "" or ending in "/"
	partSize int64
}

var _ Store = (*S3)(nil)

// NewS3 configures the store. It makes no request (ctx is for symmetry
// with the other openers), so a store whose bucket does not exist yet can
// still create it with EnsureBucket; CheckBucket verifies the setup.
// Nothing is read from ~/.aws, the environment or an instance metadata
// service: the options are the whole configuration.
func NewS3(ctx context.Context, o S3Options) (*S3, error) {
	if o.Bucket == "" {
		return nil, errors.New("blob: S3 bucket name is empty; set it in MONITOR_BLOB_URL (s3://bucket?endpoint=…)")
	}
	u, err := url.Parse(o.Endpoint)
	if o.Endpoint == "" || err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, fmt.Errorf("blob: S3 endpoint %q is not an http:// or https:// URL; set endpoint= in MONITOR_BLOB_URL", o.Endpoint)
	}
	if o.AccessKeyID == "" || o.SecretAccessKey == "" {
		return nil, errors.New("blob: S3 credentials are not set; set MONITOR_S3_ACCESS_KEY_ID and MONITOR_S3_SECRET_ACCESS_KEY")
	}
	s := &S3{bucket: o.Bucket, endpoint: o.Endpoint, region: o.Region, partSize: o.PartSize}
	if s.region == "" {
		s.region = DefaultS3Region
	}
	if p := strings.Trim(o.Prefix, "/"); p != "" {
		if err := checkKey(p); err != nil {
			return nil, fmt.Errorf("blob: S3 key prefix: %w; fix prefix= in MONITOR_BLOB_URL", err)
		}
		s.prefix = p + "/"
	}
	if s.partSize == 0 {
		s.partSize = DefaultPartSize
	}
	if s.partSize < MinPartSize || s.partSize > maxPartSize {
		return nil, fmt.Errorf("blob: S3 part size %d is outside %d to %d bytes", s.partSize, MinPartSize, int64(maxPartSize))
	}

	var hc aws.HTTPClient = awshttp.NewBuildableClient().
		WithDialerOptions(func(d *net.Dialer) { d.Timeout = s3DialTimeout }).
		WithReadTimeout(s3ReadTimeout)
	if o.HTTPClient != nil {
		hc = o.HTTPClient
	}
	id, secret := o.AccessKeyID, o.SecretAccessKey
	cfg := aws.Config{
		Region:     s.region,
		HTTPClient: hc,
		Credentials: aws.CredentialsProviderFunc(func(context.Context) (aws.Credentials, error) {
			return aws.Credentials{AccessKeyID: id, SecretAccessKey: secret, Source: "monitor config"}, nil
		}),
		// Third-party servers do not all speak the newer checksum
		// headers; send and check them only where S3 requires them.
		RequestChecksumCalculation: aws.RequestChecksumCalculationWhenRequired,
		ResponseChecksumValidation: aws.ResponseChecksumValidationWhenRequired,
	}
	s.client = s3.NewFromConfig(cfg, func(so *s3.Options) {
		so.BaseEndpoint = aws.String(o.Endpoint)
		so.UsePathStyle = true // bucket in the path: no wildcard DNS needed
		so.DisableLogOutputChecksumValidationSkipped = true
	})
	return s, nil
}

// Bucket returns the bucket's name.
func (s *S3) Bucket() string { return s.bucket }

// Endpoint returns the server's URL as configured.
func (s *S3) Endpoint() string { return s.endpoint }

// Put implements Store. An object that fits in one part goes up in a single
// PutObject; a larger one as a multipart upload, one part buffer at a time,
// aborted on any failure. Either way the object appears only when the last
// request succeeds, so a failed Put leaves an older object intact.
func (s *S3) Put(ctx context.Context, key string, r io.Reader) (info Info, err error) {
	name, err := s.name(key)
	if err != nil {
		return Info{}, fmt.Errorf("blob: put: %w", err)
	}
	defer func() {
		if err != nil {
			err = fmt.Errorf("blob: put %s: %w", key, err)
		}
	}()
	if err := ctx.Err(); err != nil {
		return Info{}, err
	}
	h := sha256.New()
	src := io.TeeReader(ctxReader{ctx: ctx, r: r}, h)
	chunk, eof, err := readChunk(src, nil, s.partSize)
	if err != nil {
		return Info{}, err
	}
	var size int64
	if eof {
		size, err = s.putSingle(ctx, name, chunk, hex.EncodeToString(h.Sum(nil)))
	} else {
		size, err = s.putMultipart(ctx, name, src, chunk)
	}
	if err != nil {
		return Info{}, err
	}
	// S3 does not return Last-Modified on writes; the server's clock and
	// ours agree closely enough for a ModTime.
	return Info{Key: key, Size: size, SHA256: hex.EncodeToString(h.Sum(nil)), ModTime: time.Now()}, nil
}

func (s *S3) putSingle(ctx context.Context, name string, data []byte, sum string) (int64, error) {
	_, err := s.client.PutObject(ctx, &s3.PutObjectInput{
		Bucket:        &s.bucket,
		Key:           &name,
		Body:          bytes.NewReader(data),
		ContentLength: aws.Int64(int64(len(data))),
		ContentType:   aws.String("application/octet-stream"),
		Metadata:      map[string]string{sha256Meta: sum},
	})
	if err != nil {
		return 0, s.classify(err)
	}
	return int64(len(data)), nil
}

// putMultipart uploads first and the rest of src as parts, reusing first's
// buffer for every following part.
func (s *S3) putMultipart(ctx context.Context, name string, src io.Reader, first []byte) (size int64, err error) {
	created, err := s.client.CreateMultipartUpload(ctx, &s3.CreateMultipartUploadInput{
		Bucket:      &s.bucket,
		Key:         &name,
		ContentType: aws.String("application/octet-stream"),
	})
	if err != nil {
		return 0, s.classify(err)
	}
	uploadID := created.UploadId
	defer func() {
		if err != nil {
			s.abort(ctx, name, uploadID)
		}
	}()

	var parts []types.CompletedPart
	chunk, eof := first, false
	for num := int32(1); ; num++ {
		if len(chunk) > 0 {
			if num > maxParts {
				return 0, fmt.Errorf("object is larger than %d parts of %d bytes", maxParts, s.partSize)
			}
			out, err := s.client.UploadPart(ctx, &s3.UploadPartInput{
				Bucket:        &s.bucket,
				Key:           &name,
				UploadId:      uploadID,
				PartNumber:    aws.Int32(num),
				Body:          bytes.NewReader(chunk),
				ContentLength: aws.Int64(int64(len(chunk))),
			})
			if err != nil {
				return 0, s.classify(err)
			}
			parts = append(parts, types.CompletedPart{ETag: out.ETag, PartNumber: aws.Int32(num)})
			size += int64(len(chunk))
		}
		if eof {
			break
		}
		if chunk, eof, err = readChunk(src, chunk, s.partSize); err != nil {
			return 0, err
		}
	}
	// Last chance to honour a cancel before the object becomes visible.
	if err := ctx.Err(); err != nil {
		return 0, err
	}
	_, err = s.client.CompleteMultipartUpload(ctx, &s3.CompleteMultipartUploadInput{
		Bucket:          &s.bucket,
		Key:             &name,
		UploadId:        uploadID,
		MultipartUpload: &types.CompletedMultipartUpload{Parts: parts},
	})
	if err != nil {
		return 0, s.classify(err)
	}
	return size, nil
}

// abort discards a multipart upload's parts, even when ctx is cancelled.
// Best effort: a lifecycle rule catches what it misses.
func (s *S3) abort(ctx context.Context, name string, uploadID *string) {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), abortTimeout)
	defer cancel()
	_, _ = s.client.AbortMultipartUpload(ctx, &s3.AbortMultipartUploadInput{
		Bucket:   &s.bucket,
		Key:      &name,
		UploadId: uploadID,
	})
}

// Get implements Store. A range is sent as an HTTP Range header; only a
// range the server cannot satisfy (416) or an empty one costs a HeadObject
// to tell an offset at the end (empty read) from one past it.
func (s *S3) Get(ctx context.Context, key string, rng *Range) (io.ReadCloser, Info, error) {
	name, err := s.name(key)
	if err != nil {
		return nil, Info{}, fmt.Errorf("blob: get: %w", err)
	}
	rc, info, err := s.get(ctx, key, name, rng)
	if err != nil {
		return nil, Info{}, fmt.Errorf("blob: get %s: %w", key, err)
	}
	return rc, info, nil
}

func (s *S3) get(ctx context.Context, key, name string, rng *Range) (io.ReadCloser, Info, error) {
	if rng != nil && rng.Offset < 0 {
		return nil, Info{}, fmt.Errorf("%w: negative offset %d", ErrInvalidRange, rng.Offset)
	}
	// emptyRead answers a range that selects nothing, once it is known to
	// fit the object.
	emptyRead := func() (io.ReadCloser, Info, error) {
		info, err := s.stat(ctx, key, name)
		if err != nil {
			return nil, Info{}, err
		}
		if _, _, err := rng.bounds(info.Size); err != nil {
			return nil, Info{}, err
		}
		return http.NoBody, info, nil
	}
	if rng != nil && rng.Length == 0 {
		return emptyRead()
	}
	in := &s3.GetObjectInput{Bucket: &s.bucket, Key: &name}
	if rng != nil {
		in.Range = aws.String(httpRange(rng))
	}
	out, err := s.client.GetObject(ctx, in)
	if err != nil {
		if rng != nil && httpStatus(err) == http.StatusRequestedRangeNotSatisfiable {
			return emptyRead()
		}
		return nil, Info{}, s.classify(err)
	}
	info := Info{
		Key:     key,
		Size:    aws.ToInt64(out.ContentLength),
		SHA256:  metaSHA256(out.Metadata),
		ModTime: aws.ToTime(out.LastModified),
	}
	if rng == nil {
		return out.Body, info, nil
	}
	if total, ok := contentRangeTotal(aws.ToString(out.ContentRange)); ok {
		info.Size = total
		return out.Body, info, nil
	}
	// The server ignored the Range header and sent the whole object: cut
	// the range out here.
	off, n, err := rng.bounds(info.Size)
	if err == nil {
		_, err = io.CopyN(io.Discard, out.Body, off)
	}
	if err != nil {
		_ = out.Body.Close()
		return nil, Info{}, err
	}
	return limitedReadCloser{io.LimitReader(out.Body, n), out.Body}, info, nil
}

// Stat implements Store with a HeadObject request.
func (s *S3) Stat(ctx context.Context, key string) (Info, error) {
	name, err := s.name(key)
	if err != nil {
		return Info{}, fmt.Errorf("blob: stat: %w", err)
	}
	info, err := s.stat(ctx, key, name)
	if err != nil {
		return Info{}, fmt.Errorf("blob: stat %s: %w", key, err)
	}
	return info, nil
}

func (s *S3) stat(ctx context.Context, key, name string) (Info, error) {
	out, err := s.client.HeadObject(ctx, &s3.HeadObjectInput{Bucket: &s.bucket, Key: &name})
	if err != nil {
		return Info{}, s.classify(err)
	}
	return Info{
		Key:     key,
		Size:    aws.ToInt64(out.ContentLength),
		SHA256:  metaSHA256(out.Metadata),
		ModTime: aws.ToTime(out.LastModified),
	}, nil
}

// Delete implements Store. S3 already treats deleting a missing key as
// success; a "not found" from a stricter server is forgiven too.
func (s *S3) Delete(ctx context.Context, key string) error {
	name, err := s.name(key)
	if err != nil {
		return fmt.Errorf("blob: delete: %w", err)
	}
	_, err = s.client.DeleteObject(ctx, &s3.DeleteObjectInput{Bucket: &s.bucket, Key: &name})
	if err != nil {
		if err = s.classify(err); errors.Is(err, ErrNotFound) {
			return nil
		}
		return fmt.Errorf("blob: delete %s: %w", key, err)
	}
	return nil
}

// List implements Store with paginated ListObjectsV2 requests; S3 returns
// keys in byte-wise order, which is the order List promises.
func (s *S3) List(ctx context.Context, prefix string, fn func(Info) error) error {
	if err := checkPrefix(prefix); err != nil {
		return fmt.Errorf("blob: list: %w", err)
	}
	pages := s3.NewListObjectsV2Paginator(s.client, &s3.ListObjectsV2Input{
		Bucket: &s.bucket,
		Prefix: aws.String(s.prefix + prefix),
	})
	for pages.HasMorePages() {
		page, err := pages.NextPage(ctx)
		if err != nil {
			return fmt.Errorf("blob: list %q: %w", prefix, s.classify(err))
		}
		for _, o := range page.Contents {
			key, ok := strings.CutPrefix(aws.ToString(o.Key), s.prefix)
			if !ok || !strings.HasPrefix(key, prefix) {
				continue
			}
			info := Info{Key: key, Size: aws.ToInt64(o.Size), ModTime: aws.ToTime(o.LastModified)}
			if err := fn(info); err != nil {
				return fmt.Errorf("blob: list %q: %w", prefix, err)
			}
		}
	}
	return nil
}

// CheckBucket verifies with a HeadBucket request (and, after a 404, a
// one-key listing that says why) that the endpoint answers, the
// credentials are accepted and the bucket exists, returning an error that
// says what to fix otherwise. OpenBlob runs it at start.
func (s *S3) CheckBucket(ctx context.Context) error {
	_, err := s.client.HeadBucket(ctx, &s3.HeadBucketInput{Bucket: &s.bucket})
	if httpStatus(err) == http.StatusNotFound {
		// A HEAD response has no body to carry an error code, and some
		// servers (versitygw) answer an unknown access key with 404: a
		// GET tells a missing bucket from refused credentials.
		_, err = s.client.ListObjectsV2(ctx, &s3.ListObjectsV2Input{Bucket: &s.bucket, MaxKeys: aws.Int32(1)})
		if code := apiCode(err); httpStatus(err) == http.StatusNotFound && (code == "" || code == "NotFound") {
			return fmt.Errorf("blob: %w", s.bucketMissing(err))
		}
	}
	if err != nil {
		return fmt.Errorf("blob: %w", s.classify(err))
	}
	return nil
}

// EnsureBucket creates the bucket unless it exists, reporting whether it
// did. It is what `monitor storage-init` runs.
func (s *S3) EnsureBucket(ctx context.Context) (created bool, err error) {
	err = s.CheckBucket(ctx)
	if !errors.Is(err, ErrBucketMissing) {
		return false, err
	}
	in := &s3.CreateBucketInput{Bucket: &s.bucket}
	if s.region != DefaultS3Region {
		// us-east-1 is the one region that refuses an explicit location.
		in.CreateBucketConfiguration = &types.CreateBucketConfiguration{
			LocationConstraint: types.BucketLocationConstraint(s.region),
		}
	}
	_, err = s.client.CreateBucket(ctx, in)
	switch code := apiCode(err); {
	case err == nil:
		return true, nil
	case code == "BucketAlreadyOwnedByYou":
		return false, nil // created meanwhile by another storage-init
	case code == "BucketAlreadyExists":
		return false, fmt.Errorf("blob: S3 bucket name %q at %s belongs to someone else; choose another bucket in MONITOR_BLOB_URL", s.bucket, s.endpoint)
	}
	return false, fmt.Errorf("blob: create S3 bucket %q at %s: %w", s.bucket, s.endpoint, s.classify(err))
}

// Probe writes, reads back and deletes a small object under "_probe/",
// proving the bucket serves Monitor's requests end to end.
func (s *S3) Probe(ctx context.Context) (err error) {
	key := probeDir + rand.Text()
	data := []byte("monitor storage probe " + key + "\n")
	put, err := s.Put(ctx, key, bytes.NewReader(data))
	if err != nil {
		return err
	}
	defer func() {
		if derr := s.Delete(ctx, key); err == nil {
			err = derr
		}
	}()
	rc, info, err := s.Get(ctx, key, nil)
	if err != nil {
		return err
	}
	got, err := io.ReadAll(io.LimitReader(rc, int64(len(data))+1))
	if cerr := rc.Close(); err == nil {
		err = cerr
	}
	switch {
	case err != nil:
		return fmt.Errorf("blob: probe: read %s back: %w", key, err)
	case !bytes.Equal(got, data) || (info.SHA256 != "" && info.SHA256 != put.SHA256):
		return fmt.Errorf("blob: probe: S3 at %s returned different bytes for %s than were written", s.endpoint, key)
	}
	return nil
}

// name maps a key to its S3 object name, refusing invalid keys.
func (s *S3) name(key string) (string, error) {
	if err := checkKey(key); err != nil {
		return "", err
	}
	return s.prefix + key, nil
}

// setupError is a problem with the store's configuration or surroundings
// rather than with one object: its message says what to fix, errors.Is
// matches its kind, and errors.As still reaches the SDK's error.
type setupError struct {
	kind error
	msg  string
	err  error
}

func (e *setupError) Error() string        { return e.msg }
func (e *setupError) Is(target error) bool { return target == e.kind }
func (e *setupError) Unwrap() error        { return e.err }

func (s *S3) bucketMissing(err error) error {
	return &setupError{ErrBucketMissing,
		fmt.Sprintf("S3 bucket %q does not exist at %s; create it with monitor storage-init", s.bucket, s.endpoint), err}
}

func (s *S3) credentialsRefused(reason string, err error) error {
	return &setupError{ErrCredentials,
		fmt.Sprintf("S3 credentials were refused by %s (%s); check MONITOR_S3_ACCESS_KEY_ID and MONITOR_S3_SECRET_ACCESS_KEY", s.endpoint, reason), err}
}

// classify maps an SDK error onto this package's errors: a missing object
// to ErrNotFound, and the setup problems an operator must fix to messages
// saying how. Anything else is returned as it is.
func (s *S3) classify(err error) error {
	if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return err
	}
	code, status := apiCode(err), httpStatus(err)
	switch {
	case code == "NoSuchKey" || status == http.StatusNotFound && (code == "NotFound" || code == ""):
		return ErrNotFound
	case code == "NoSuchBucket":
		return s.bucketMissing(err)
	case code == "InvalidAccessKeyId" || code == "SignatureDoesNotMatch" ||
		code == "XAdminUserNotFound": // versitygw's InvalidAccessKeyId, sent with 404
		return s.credentialsRefused(code, err)
	case code == "AccessDenied" || code == "AllAccessDisabled":
		return &setupError{ErrCredentials, fmt.Sprintf("S3 at %s denied access to bucket %q (%s); give the key in MONITOR_S3_ACCESS_KEY_ID read and write rights on it", s.endpoint, s.bucket, code), err}
	case code == "RequestTimeTooSkewed":
		return &setupError{ErrCredentials, fmt.Sprintf("S3 at %s refused the request signature because this machine's clock is off; synchronise the clock", s.endpoint), err}
	case status == http.StatusForbidden:
		// HEAD responses carry no code; a 403 to one is most often a
		// wrong secret.
		if code == "" || code == "Forbidden" {
			code = "403 Forbidden"
		}
		return s.credentialsRefused(code, err)
	}
	var send *smithyhttp.RequestSendError
	if errors.As(err, &send) {
		return &setupError{ErrUnreachable, fmt.Sprintf("cannot reach S3 endpoint %s: %s; check the endpoint in MONITOR_BLOB_URL", s.endpoint, reachReason(send)), err}
	}
	return err
}

// reachReason says in a few words why a request could not be sent.
func reachReason(send *smithyhttp.RequestSendError) string {
	var (
		errno syscall.Errno
		dns   *net.DNSError
		ne    net.Error
		ue    *url.Error
	)
	switch {
	case errors.As(send, &errno):
		return errno.Error()
	case errors.As(send, &dns):
		return dns.Error()
	case errors.As(send, &ne) && ne.Timeout():
		return "timed out"
	case errors.As(send, &ue):
		return ue.Err.Error()
	}
	return send.Err.Error()
}

func apiCode(err error) string {
	var ae smithy.APIError
	if errors.As(err, &ae) {
		return ae.ErrorCode()
	}
	return ""
}

func httpStatus(err error) int {
	var re interface{ HTTPStatusCode() int }
	if errors.As(err, &re) {
		return re.HTTPStatusCode()
	}
	return 0
}

// readChunk reads from r until it has size bytes or r ends, reusing buf's
// storage. A new buffer starts small and doubles up to size, so a small
// object costs about its own size and a large one exactly one part. eof
// reports that r ended.
func readChunk(r io.Reader, buf []byte, size int64) (_ []byte, eof bool, err error) {
	buf = buf[:0]
	for int64(len(buf)) < size {
		if len(buf) == cap(buf) {
			if buf, err = growChunk(r, buf, size); err != nil || len(buf) == cap(buf) {
				return buf, err == io.EOF, ignoreEOF(err)
			}
		}
		n, err := r.Read(buf[len(buf):min(cap(buf), int(size))])
		buf = buf[:len(buf)+n]
		if err != nil {
			return buf, err == io.EOF, ignoreEOF(err)
		}
	}
	return buf, false, nil
}

// growChunk doubles a full buffer (up to size), but first reads one more
// byte: an object that exactly fills the buffer then needs no larger one.
// It returns io.EOF, with buf unchanged, when r has ended.
func growChunk(r io.Reader, buf []byte, size int64) ([]byte, error) {
	if cap(buf) == 0 {
		return make([]byte, 0, min(firstChunk, size)), nil
	}
	var next [1]byte
	if _, err := io.ReadFull(r, next[:]); err != nil {
		return buf, err
	}
	grown := make([]byte, len(buf), min(2*int64(cap(buf)), size))
	copy(grown, buf)
	return append(grown, next[0]), nil
}

func ignoreEOF(err error) error {
	if err == io.EOF {
		return nil
	}
	return err
}

// httpRange renders rng (Offset ≥ 0, Length ≠ 0) as an HTTP Range header.
func httpRange(rng *Range) string {
	if rng.Length < 0 || rng.Length > math.MaxInt64-rng.Offset {
		return fmt.Sprintf("bytes=%d-", rng.Offset)
	}
	return fmt.Sprintf("bytes=%d-%d", rng.Offset, rng.Offset+rng.Length-1)
}

// contentRangeTotal reads the whole size from "bytes 10-29/1000".
func contentRangeTotal(v string) (int64, bool) {
	_, total, ok := strings.Cut(v, "/")
	if !ok || !strings.HasPrefix(v, "bytes ") {
		return 0, false
	}
	n, err := strconv.ParseInt(total, 10, 64)
	return n, err == nil && n >= 0
}

// metaSHA256 returns the digest kept in an object's metadata, if it looks
// like one. Servers differ in the case of metadata names.
func metaSHA256(meta map[string]string) string {
	for k, v := range meta {
		if strings.EqualFold(k, sha256Meta) && len(v) == sha256.Size*2 {
			if _, err := hex.DecodeString(v); err == nil {
				return strings.ToLower(v)
			}
		}
	}
	return ""
}

// limitedReadCloser reads part of a body and closes the whole body.
type limitedReadCloser struct {
	io.Reader
	io.Closer
}
