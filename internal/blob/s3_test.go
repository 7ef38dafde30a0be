package blob_test

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"io"
	"math/rand/v2"
	"net"
	"net/http"
	"net/http/httptest"
	"runtime"
	"strconv"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/stretchr/testify/require"

	"github.com/monitorhq/monitor/internal/blob"
	"github.com/monitorhq/monitor/internal/blob/blobtest"
	"github.com/monitorhq/monitor/internal/testkit"
)

// newS3 opens a store on a fresh bucket of srv; edit adjusts the options.
func newS3(t testing.TB, srv testkit.S3Server, edit ...func(*blob.S3Options)) *blob.S3 {
	t.Helper()
	opts := srv.Options(srv.NewBucket(t))
	for _, e := range edit {
		e(&opts)
	}
	s, err := blob.NewS3(t.Context(), opts)
	require.NoError(t, err)
	return s
}

func smallParts(o *blob.S3Options) { o.PartSize = blob.MinPartSize }

func TestS3Conformance(t *testing.T) {
	t.Parallel()
	srv := testkit.StartS3(t)
	blobtest.Run(t, func(t *testing.T) blob.Store { return newS3(t, srv) })
}

// With small parts the suite's large objects go up as multipart uploads.
func TestS3ConformanceMultipart(t *testing.T) {
	t.Parallel()
	srv := testkit.StartS3(t)
	blobtest.Run(t, func(t *testing.T) blob.Store { return newS3(t, srv, smallParts) })
}

func TestS3ConformanceWithPrefix(t *testing.T) {
	t.Parallel()
	srv := testkit.StartS3(t)
	blobtest.Run(t, func(t *testing.T) blob.Store {
		return newS3(t, srv, func(o *blob.S3Options) { o.Prefix = "/deploy-1/media/" })
	})
}

func TestS3PrefixIsInTheBucket(t *testing.T) {
	t.Parallel()
	srv := testkit.StartS3(t)
	s := newS3(t, srv, func(o *blob.S3Options) { o.Prefix = "deploy-1" })
	_, err := s.Put(t.Context(), "t1/objects/a", strings.NewReader("a"))
	require.NoError(t, err)
	require.Equal(t, []string{"deploy-1/t1/objects/a"}, rawKeys(t, srv, s.Bucket()))

	_, err = blob.NewS3(t.Context(), func() blob.S3Options {
		o := srv.Options(s.Bucket())
		o.Prefix = "a/../b"
		return o
	}())
	require.ErrorIs(t, err, blob.ErrInvalidKey)
	require.ErrorContains(t, err, "MONITOR_BLOB_URL")
}

func TestS3MultipartPut(t *testing.T) {
	t.Parallel()
	srv := testkit.StartS3(t)
	for _, size := range []int64{blob.MinPartSize, 2 * blob.MinPartSize, 12<<20 + 123} {
		s := newS3(t, srv, smallParts)
		info, err := s.Put(t.Context(), "t1/objects/big", io.LimitReader(stream(1), size))
		require.NoError(t, err, "size %d", size)
		want := streamSum(t, 1, size)
		require.Equal(t, size, info.Size)
		require.Equal(t, want, info.SHA256)

		rc, ginfo, err := s.Get(t.Context(), "t1/objects/big", nil)
		require.NoError(t, err)
		h := sha256.New()
		n, err := io.Copy(h, rc)
		require.NoError(t, err)
		require.NoError(t, rc.Close())
		require.Equal(t, size, n)
		require.Equal(t, size, ginfo.Size)
		require.Equal(t, want, hex.EncodeToString(h.Sum(nil)))
		require.Empty(t, ginfo.SHA256, "a multipart object's digest is not in its metadata")

		// A range across a part boundary.
		rc, _, err = s.Get(t.Context(), "t1/objects/big", &blob.Range{Offset: blob.MinPartSize - 10, Length: 20})
		require.NoError(t, err)
		got, err := io.ReadAll(rc)
		require.NoError(t, err)
		require.NoError(t, rc.Close())
		require.Equal(t, streamBytes(1, blob.MinPartSize-10, min(20, size-blob.MinPartSize+10)), got)

		head, err := srv.Client().HeadObject(t.Context(), &s3.HeadObjectInput{Bucket: aws.String(s.Bucket()), Key: aws.String("t1/objects/big")})
		require.NoError(t, err)
		parts := (size + blob.MinPartSize - 1) / blob.MinPartSize
		require.True(t, strings.HasSuffix(strings.Trim(*head.ETag, `"`), "-"+strconv.FormatInt(parts, 10)),
			"size %d: want a %d-part upload, ETag %s", size, parts, *head.ETag)
		require.Empty(t, pendingUploads(t, srv, s.Bucket()))
	}
}

func TestS3SinglePutKeepsDigest(t *testing.T) {
	t.Parallel()
	srv := testkit.StartS3(t)
	s := newS3(t, srv)
	data := []byte("small photo")
	info, err := s.Put(t.Context(), "t1/objects/a", bytes.NewReader(data))
	require.NoError(t, err)
	st, err := s.Stat(t.Context(), "t1/objects/a")
	require.NoError(t, err)
	require.Equal(t, info.SHA256, st.SHA256)
	rc, ginfo, err := s.Get(t.Context(), "t1/objects/a", &blob.Range{Offset: 1, Length: 2})
	require.NoError(t, err)
	require.NoError(t, rc.Close())
	require.Equal(t, info.SHA256, ginfo.SHA256)
	require.Equal(t, int64(len(data)), ginfo.Size)

	head, err := srv.Client().HeadObject(t.Context(), &s3.HeadObjectInput{Bucket: aws.String(s.Bucket()), Key: aws.String("t1/objects/a")})
	require.NoError(t, err)
	require.Equal(t, info.SHA256, head.Metadata["sha256"], "kept as x-amz-meta-sha256")
}

// A multipart Put that fails after some parts went up leaves neither an
// object nor an unfinished upload, and keeps the previous object.
func TestS3PutAbortedMidway(t *testing.T) {
	t.Parallel()
	srv := testkit.StartS3(t)
	s := newS3(t, srv, smallParts)
	old := []byte("previous version")
	_, err := s.Put(t.Context(), "t1/objects/a", bytes.NewReader(old))
	require.NoError(t, err)

	errBroken := errors.New("upstream connection reset")
	for _, key := range []string{"t1/objects/a", "t1/objects/new"} {
		// Two whole parts are uploaded before the reader fails.
		r := io.MultiReader(io.LimitReader(stream(2), 12<<20), failing{errBroken})
		_, err := s.Put(t.Context(), key, r)
		require.ErrorIs(t, err, errBroken, key)
		require.ErrorContains(t, err, "blob: put "+key+": ")

		ctx, cancel := context.WithCancel(t.Context())
		cr := &cancelAfter{r: io.LimitReader(stream(3), 40<<20), after: 11 << 20, cancel: cancel}
		_, err = s.Put(ctx, key, cr)
		cancel()
		require.ErrorIs(t, err, context.Canceled, key)
		require.Less(t, cr.read, int64(20<<20), "Put kept reading after cancel")
	}
	require.Empty(t, pendingUploads(t, srv, s.Bucket()), "failed uploads must be aborted")
	_, err = s.Stat(t.Context(), "t1/objects/new")
	require.ErrorIs(t, err, blob.ErrNotFound)
	rc, _, err := s.Get(t.Context(), "t1/objects/a", nil)
	require.NoError(t, err)
	got, err := io.ReadAll(rc)
	require.NoError(t, err)
	require.NoError(t, rc.Close())
	require.Equal(t, old, got)
	require.Equal(t, []string{"t1/objects/a"}, rawKeys(t, srv, s.Bucket()))
}

// Put holds one part in memory, not the object. Not parallel, so other
// tests' allocations stay out of the count.
func TestS3PutMemoryBounded(t *testing.T) {
	srv := testkit.StartS3(t)
	s := newS3(t, srv, smallParts)
	const size = 64 << 20
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	_, err := s.Put(t.Context(), "t1/objects/big", io.LimitReader(stream(4), size))
	require.NoError(t, err)
	runtime.ReadMemStats(&after)
	allocated := after.TotalAlloc - before.TotalAlloc
	t.Logf("Put of %d MiB in %d MiB parts allocated %.1f MiB", size>>20, blob.MinPartSize>>20, float64(allocated)/(1<<20))
	require.Less(t, allocated, uint64(4*blob.MinPartSize), "Put allocated more than a few parts")
}

func TestS3RangeOfEmptyObject(t *testing.T) {
	t.Parallel()
	srv := testkit.StartS3(t)
	s := newS3(t, srv)
	_, err := s.Put(t.Context(), "t1/objects/empty", strings.NewReader(""))
	require.NoError(t, err)
	for _, rng := range []blob.Range{{Offset: 0, Length: -1}, {Offset: 0, Length: 10}, {Offset: 0, Length: 0}} {
		rc, info, err := s.Get(t.Context(), "t1/objects/empty", &rng)
		require.NoError(t, err, "%+v", rng)
		got, err := io.ReadAll(rc)
		require.NoError(t, err)
		require.NoError(t, rc.Close())
		require.Empty(t, got)
		require.Equal(t, int64(0), info.Size)
	}
	_, _, err = s.Get(t.Context(), "t1/objects/empty", &blob.Range{Offset: 1, Length: -1})
	require.ErrorIs(t, err, blob.ErrInvalidRange)
}

// A server that ignores Range headers and sends the whole object still
// yields just the range.
func TestS3RangeIgnoredByServer(t *testing.T) {
	t.Parallel()
	data := []byte("0123456789")
	fake := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/media/t1/objects/a" {
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Content-Length", strconv.Itoa(len(data)))
		w.Header().Set("Last-Modified", "Mon, 30 Nov 2026 10:00:00 GMT")
		_, _ = w.Write(data)
	}))
	t.Cleanup(fake.Close)
	s, err := blob.NewS3(t.Context(), blob.S3Options{Endpoint: fake.URL, Bucket: "media", AccessKeyID: "k", SecretAccessKey: "s"})
	require.NoError(t, err)
	for _, tc := range []struct {
		rng  blob.Range
		want string
	}{
		{blob.Range{Offset: 2, Length: 3}, "234"},
		{blob.Range{Offset: 8, Length: -1}, "89"},
		{blob.Range{Offset: 8, Length: 100}, "89"},
		{blob.Range{Offset: 10, Length: -1}, ""},
	} {
		rc, info, err := s.Get(t.Context(), "t1/objects/a", &tc.rng)
		require.NoError(t, err)
		got, err := io.ReadAll(rc)
		require.NoError(t, err)
		require.NoError(t, rc.Close())
		require.Equal(t, tc.want, string(got), "%+v", tc.rng)
		require.Equal(t, int64(len(data)), info.Size)
	}
	_, _, err = s.Get(t.Context(), "t1/objects/a", &blob.Range{Offset: 11, Length: -1})
	require.ErrorIs(t, err, blob.ErrInvalidRange)
}

func TestS3MissingBucket(t *testing.T) {
	t.Parallel()
	srv := testkit.StartS3(t)
	s, err := blob.NewS3(t.Context(), srv.Options("media"))
	require.NoError(t, err)
	want := `S3 bucket "media" does not exist at ` + srv.Endpoint + `; create it with monitor storage-init`

	err = s.CheckBucket(t.Context())
	require.ErrorIs(t, err, blob.ErrBucketMissing)
	require.EqualError(t, err, "blob: "+want)

	_, err = s.Put(t.Context(), "t1/objects/a", strings.NewReader("a"))
	require.ErrorIs(t, err, blob.ErrBucketMissing)
	require.EqualError(t, err, "blob: put t1/objects/a: "+want)
	_, _, err = s.Get(t.Context(), "t1/objects/a", nil)
	require.ErrorIs(t, err, blob.ErrBucketMissing)
	err = s.List(t.Context(), "", func(blob.Info) error { return nil })
	require.ErrorIs(t, err, blob.ErrBucketMissing)
}

func TestS3CredentialsRefused(t *testing.T) {
	t.Parallel()
	srv := testkit.StartS3(t)
	bucket := srv.NewBucket(t)
	for name, edit := range map[string]func(*blob.S3Options){
		"wrong secret": func(o *blob.S3Options) { o.SecretAccessKey += "x" },
		"unknown key":  func(o *blob.S3Options) { o.AccessKeyID = "NOSUCHKEY" },
	} {
		opts := srv.Options(bucket)
		edit(&opts)
		s, err := blob.NewS3(t.Context(), opts)
		require.NoError(t, err)

		err = s.CheckBucket(t.Context())
		require.ErrorIs(t, err, blob.ErrCredentials, name)
		require.Regexp(t, `^blob: S3 credentials were refused by `+srv.Endpoint+` \(.+\); check MONITOR_S3_ACCESS_KEY_ID and MONITOR_S3_SECRET_ACCESS_KEY$`, err.Error())

		_, err = s.Put(t.Context(), "t1/objects/a", strings.NewReader("a"))
		require.ErrorIs(t, err, blob.ErrCredentials, name)
		require.Regexp(t, `^blob: put t1/objects/a: S3 credentials were refused by `, err.Error())
		t.Logf("%s: %v", name, err)
	}
	// HEAD responses have no error code: a wrong secret still shows as
	// 403, but versitygw answers an unknown key with a bare 404, which
	// only the start-up check (CheckBucket) can tell from a missing bucket.
	opts := srv.Options(bucket)
	opts.SecretAccessKey += "x"
	s, err := blob.NewS3(t.Context(), opts)
	require.NoError(t, err)
	_, err = s.Stat(t.Context(), "t1/objects/a")
	require.ErrorIs(t, err, blob.ErrCredentials)
}

func TestS3Unreachable(t *testing.T) {
	t.Parallel()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	endpoint := "http://" + l.Addr().String()
	require.NoError(t, l.Close()) // nothing listens there now

	s, err := blob.NewS3(t.Context(), blob.S3Options{Endpoint: endpoint, Bucket: "media", AccessKeyID: "k", SecretAccessKey: "s"})
	require.NoError(t, err)
	want := "cannot reach S3 endpoint " + endpoint + ": connection refused; check the endpoint in MONITOR_BLOB_URL"
	err = s.CheckBucket(t.Context())
	require.ErrorIs(t, err, blob.ErrUnreachable)
	require.EqualError(t, err, "blob: "+want)
	_, _, err = s.Get(t.Context(), "t1/objects/a", nil)
	require.ErrorIs(t, err, blob.ErrUnreachable)
	require.EqualError(t, err, "blob: get t1/objects/a: "+want)
}

func TestS3EnsureBucketAndProbe(t *testing.T) {
	t.Parallel()
	srv := testkit.StartS3(t)
	bucket := testkit.BucketName(t.Name())
	s, err := blob.NewS3(t.Context(), srv.Options(bucket))
	require.NoError(t, err)
	require.ErrorIs(t, s.CheckBucket(t.Context()), blob.ErrBucketMissing)

	created, err := s.EnsureBucket(t.Context())
	require.NoError(t, err)
	require.True(t, created)
	require.NoError(t, s.CheckBucket(t.Context()))

	created, err = s.EnsureBucket(t.Context())
	require.NoError(t, err)
	require.False(t, created, "the second call finds the bucket")

	require.NoError(t, s.Probe(t.Context()))
	require.Empty(t, rawKeys(t, srv, bucket), "Probe cleans up after itself")

	// A store whose credentials are refused cannot create anything.
	opts := srv.Options(testkit.BucketName(t.Name()))
	opts.SecretAccessKey = "wrong"
	bad, err := blob.NewS3(t.Context(), opts)
	require.NoError(t, err)
	_, err = bad.EnsureBucket(t.Context())
	require.ErrorIs(t, err, blob.ErrCredentials)
	require.ErrorIs(t, bad.Probe(t.Context()), blob.ErrCredentials)
}

func TestNewS3RejectsBadOptions(t *testing.T) {
	t.Parallel()
	good := blob.S3Options{Endpoint: "http://127.0.0.1:7070", Bucket: "media", AccessKeyID: "k", SecretAccessKey: "s"}
	for _, tc := range []struct {
		edit func(*blob.S3Options)
		want string
	}{
		{func(o *blob.S3Options) { o.Bucket = "" }, "blob: S3 bucket name is empty; set it in MONITOR_BLOB_URL (s3://bucket?endpoint=…)"},
		{func(o *blob.S3Options) { o.Endpoint = "" }, `blob: S3 endpoint "" is not an http:// or https:// URL; set endpoint= in MONITOR_BLOB_URL`},
		{func(o *blob.S3Options) { o.Endpoint = "127.0.0.1:7070" }, `blob: S3 endpoint "127.0.0.1:7070" is not an http:// or https:// URL; set endpoint= in MONITOR_BLOB_URL`},
		{func(o *blob.S3Options) { o.SecretAccessKey = "" }, "blob: S3 credentials are not set; set MONITOR_S3_ACCESS_KEY_ID and MONITOR_S3_SECRET_ACCESS_KEY"},
		{func(o *blob.S3Options) { o.AccessKeyID = "" }, "blob: S3 credentials are not set; set MONITOR_S3_ACCESS_KEY_ID and MONITOR_S3_SECRET_ACCESS_KEY"},
		{func(o *blob.S3Options) { o.PartSize = 1 << 20 }, "blob: S3 part size 1048576 is outside 5242880 to 5368709120 bytes"},
	} {
		o := good
		tc.edit(&o)
		_, err := blob.NewS3(context.Background(), o)
		require.EqualError(t, err, tc.want)
	}
	s, err := blob.NewS3(context.Background(), good)
	require.NoError(t, err)
	require.Equal(t, "media", s.Bucket())
	require.Equal(t, "http://127.0.0.1:7070", s.Endpoint())

	// Invalid keys are refused before any request: this endpoint is down.
	for _, key := range blobtest.InvalidKeys() {
		_, err := s.Put(context.Background(), key, strings.NewReader("x"))
		require.ErrorIs(t, err, blob.ErrInvalidKey, key)
	}
}

func BenchmarkS3Put(b *testing.B) {
	srv := testkit.StartS3(b)
	s := newS3(b, srv)
	data := bytes.Repeat([]byte("0123456789abcdef"), (1<<20)/16)
	ctx := context.Background()
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := s.Put(ctx, "t1/objects/bench", bytes.NewReader(data)); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkS3Get(b *testing.B) {
	srv := testkit.StartS3(b)
	s := newS3(b, srv)
	data := bytes.Repeat([]byte("0123456789abcdef"), (1<<20)/16)
	ctx := context.Background()
	if _, err := s.Put(ctx, "t1/objects/bench", bytes.NewReader(data)); err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		rc, _, err := s.Get(ctx, "t1/objects/bench", nil)
		if err != nil {
			b.Fatal(err)
		}
		if _, err := io.Copy(io.Discard, rc); err != nil {
			b.Fatal(err)
		}
		rc.Close()
	}
}

// rawKeys lists a bucket's keys beneath the store.
func rawKeys(t *testing.T, srv testkit.S3Server, bucket string) []string {
	t.Helper()
	out, err := srv.Client().ListObjectsV2(t.Context(), &s3.ListObjectsV2Input{Bucket: &bucket})
	require.NoError(t, err)
	var keys []string
	for _, o := range out.Contents {
		keys = append(keys, *o.Key)
	}
	return keys
}

// pendingUploads lists a bucket's unfinished multipart uploads.
func pendingUploads(t *testing.T, srv testkit.S3Server, bucket string) []string {
	t.Helper()
	out, err := srv.Client().ListMultipartUploads(t.Context(), &s3.ListMultipartUploadsInput{Bucket: &bucket})
	require.NoError(t, err)
	var keys []string
	for _, u := range out.Uploads {
		keys = append(keys, *u.Key+" "+*u.UploadId)
	}
	return keys
}

// stream is an endless deterministic pseudo-random byte stream.
func stream(seed byte) io.Reader { return rand.NewChaCha8([32]byte{seed}) }

func streamSum(t *testing.T, seed byte, size int64) string {
	t.Helper()
	h := sha256.New()
	_, err := io.Copy(h, io.LimitReader(stream(seed), size))
	require.NoError(t, err)
	return hex.EncodeToString(h.Sum(nil))
}

func streamBytes(seed byte, off, n int64) []byte {
	r := stream(seed)
	_, _ = io.CopyN(io.Discard, r, off)
	b := make([]byte, n)
	_, _ = io.ReadFull(r, b)
	return b
}

type failing struct{ err error }

func (f failing) Read([]byte) (int, error) { return 0, f.err }

// cancelAfter cancels once more than after bytes have been read.
type cancelAfter struct {
	r      io.Reader
	after  int64
	cancel context.CancelFunc
	read   int64
}

func (c *cancelAfter) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.read += int64(n)
	if c.read > c.after {
		c.cancel()
	}
	return n, err
}
