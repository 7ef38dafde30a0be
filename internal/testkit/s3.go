package testkit

import (
	"context"
	"crypto/rand"
	"fmt"
	"go/build"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"

	"github.com/monitorhq/monitor/internal/blob"
)

// VersityGWInstall is the command that installs the S3 server StartS3 runs.
// scripts/test runs it when the binary is missing.
const VersityGWInstall = "go install github.com/versity/versitygw/cmd/versitygw@v1.8.0"

// RequireS3Env names the environment variable that, set to 1, turns a
// missing versitygw from a skipped test into a failed one. scripts/test
// sets it, so CI cannot pass without having run the S3 tests.
const RequireS3Env = "MONITOR_REQUIRE_S3"

const (
	// s3StartTimeout bounds how long StartS3 waits for the server to answer.
	s3StartTimeout = 20 * time.Second
	// s3StopTimeout is how long a stopping server may take before it is killed.
	s3StopTimeout = 5 * time.Second
	// s3StartAttempts covers losing the free port to another process
	// between finding it and the server binding it.
	s3StartAttempts = 3
)

// S3Server is a running S3-compatible server for tests: versitygw with its
// posix backend, serving a temporary directory on a loopback port, with
// credentials of its own.
type S3Server struct {
	// Endpoint is the server's base URL, http://127.0.0.1:PORT.
	Endpoint string
	// AccessKeyID and SecretAccessKey are the root user's credentials.
	AccessKeyID     string
	SecretAccessKey string
	// Region is the region the server signs for.
	Region string
}

// StartS3 starts a versitygw server for the test and stops it when the test
// ends. It looks for the binary on PATH, then in $GOPATH/bin. Without one
// the test is skipped, or fails when RequireS3Env is 1; either way the
// message gives the install command.
func StartS3(t testing.TB) S3Server {
	t.Helper()
	bin, err := findVersityGW()
	if err != nil {
		msg := fmt.Sprintf("testkit: the S3 test server is not installed (%v); install it with `%s` (./scripts/test does this)", err, VersityGWInstall)
		if os.Getenv(RequireS3Env) == "1" {
			t.Fatal(msg + "; " + RequireS3Env + "=1 forbids skipping the S3 tests")
		}
		t.Skip(msg)
	}
	srv := S3Server{
		AccessKeyID:     "MONITORTEST" + rand.Text()[:9],
		SecretAccessKey: rand.Text() + rand.Text()[:14],
		Region:          blob.DefaultS3Region,
	}
	root, logDir := t.TempDir(), t.TempDir()
	for attempt := 1; ; attempt++ {
		srv.Endpoint, err = srv.start(t, bin, root, filepath.Join(logDir, "versitygw-"+strconv.Itoa(attempt)+".log"))
		if err == nil {
			return srv
		}
		if attempt == s3StartAttempts {
			t.Fatalf("testkit: start versitygw: %v", err)
		}
	}
}

// start runs the server on a free port and waits until it answers HTTP.
func (s S3Server) start(t testing.TB, bin, root, logPath string) (endpoint string, err error) {
	addr, err := freeLoopbackAddr()
	if err != nil {
		return "", err
	}
	logFile, err := os.Create(logPath)
	if err != nil {
		return "", err
	}
	defer logFile.Close() // the child keeps its own descriptor
	cmd := exec.Command(bin,
		"--access", s.AccessKeyID,
		"--secret", s.SecretAccessKey,
		"--region", s.Region,
		"--port", addr,
		"--keep-alive",
		"--quiet",
		"posix", root)
	cmd.Env = serverEnv()
	cmd.Stdout, cmd.Stderr = logFile, logFile
	setParentDeathSignal(cmd)
	if err := cmd.Start(); err != nil {
		return "", err
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	stop := func() {
		_ = cmd.Process.Signal(syscall.SIGTERM)
		select {
		case <-exited:
		case <-time.After(s3StopTimeout):
			_ = cmd.Process.Kill()
			<-exited
		}
	}

	endpoint = "http://" + addr
	client := &http.Client{Timeout: time.Second}
	deadline := time.Now().Add(s3StartTimeout)
	for {
		// Any HTTP answer (an unsigned request gets 403) means it is serving.
		resp, err := client.Get(endpoint + "/")
		if err == nil {
			_ = resp.Body.Close()
			t.Cleanup(stop)
			return endpoint, nil
		}
		if time.Now().After(deadline) {
			stop()
			return "", fmt.Errorf("no answer on %s after %s: %v%s", addr, s3StartTimeout, err, logTail(logPath))
		}
		select {
		case werr := <-exited:
			return "", fmt.Errorf("versitygw exited before serving (%v)%s", werr, logTail(logPath))
		case <-time.After(20 * time.Millisecond): // poll interval
		}
	}
}

// Options returns blob.S3Options for a bucket on this server.
func (s S3Server) Options(bucket string) blob.S3Options {
	return blob.S3Options{
		Endpoint:        s.Endpoint,
		Region:          s.Region,
		Bucket:          bucket,
		AccessKeyID:     s.AccessKeyID,
		SecretAccessKey: s.SecretAccessKey,
	}
}

// Client returns a plain SDK client for the server, for what tests check
// beneath the blob.Store interface (pending multipart uploads, raw objects).
func (s S3Server) Client() *s3.Client {
	return s3.New(s3.Options{
		BaseEndpoint: aws.String(s.Endpoint),
		Region:       s.Region,
		UsePathStyle: true,
		Credentials: aws.CredentialsProviderFunc(func(context.Context) (aws.Credentials, error) {
			return aws.Credentials{AccessKeyID: s.AccessKeyID, SecretAccessKey: s.SecretAccessKey}, nil
		}),
		RequestChecksumCalculation: aws.RequestChecksumCalculationWhenRequired,
		ResponseChecksumValidation: aws.ResponseChecksumValidationWhenRequired,
	})
}

// NewBucket creates an empty bucket named after the test, with a random
// suffix, and returns its name.
func (s S3Server) NewBucket(t testing.TB) string {
	t.Helper()
	name := BucketName(t.Name())
	if _, err := s.Client().CreateBucket(t.Context(), &s3.CreateBucketInput{Bucket: &name}); err != nil {
		t.Fatalf("testkit: create bucket %s: %v", name, err)
	}
	return name
}

// BucketName turns a test name into a valid, unique S3 bucket name: lower
// case letters, digits and hyphens, at most 63 characters, ending in a
// random suffix.
func BucketName(testName string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(testName) {
		switch {
		case 'a' <= r && r <= 'z' || '0' <= r && r <= '9':
			b.WriteRune(r)
		case b.Len() > 0 && !strings.HasSuffix(b.String(), "-"):
			b.WriteByte('-')
		}
	}
	base := strings.Trim(b.String(), "-")
	if len(base) > 40 {
		base = strings.TrimRight(base[:40], "-")
	}
	if base == "" {
		base = "test"
	}
	return base + "-" + strings.ToLower(rand.Text()[:10])
}

// findVersityGW looks for the server binary on PATH, then in every
// GOPATH's bin directory, where go install puts it.
func findVersityGW() (string, error) {
	if p, err := exec.LookPath("versitygw"); err == nil {
		return p, nil
	}
	var tried []string
	for _, dir := range filepath.SplitList(build.Default.GOPATH) {
		p := filepath.Join(dir, "bin", "versitygw")
		if st, err := os.Stat(p); err == nil && st.Mode().IsRegular() && st.Mode()&0o111 != 0 {
			return p, nil
		}
		tried = append(tried, p)
	}
	return "", fmt.Errorf("versitygw is neither on PATH nor at %s", strings.Join(tried, " or "))
}

// freeLoopbackAddr finds a port on 127.0.0.1 that is free right now.
func freeLoopbackAddr() (string, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", err
	}
	addr := l.Addr().String()
	return addr, l.Close()
}

// serverEnv is the test process's environment without the variables
// versitygw reads its settings from, so only the flags configure it.
func serverEnv() []string {
	var env []string
	for _, kv := range os.Environ() {
		name, _, _ := strings.Cut(kv, "=")
		if strings.HasPrefix(name, "VGW_") || strings.HasPrefix(name, "ROOT_") || name == "LOGFILE" || name == "WEBHOOK" {
			continue
		}
		env = append(env, kv)
	}
	return env
}

// logTail returns the end of the server's log for an error message.
func logTail(path string) string {
	b, err := os.ReadFile(path)
	if err != nil || len(b) == 0 {
		return ""
	}
	if len(b) > 2000 {
		b = b[len(b)-2000:]
	}
	return "; versitygw said:\n" + string(b)
}
