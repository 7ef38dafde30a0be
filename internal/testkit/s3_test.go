package testkit_test

import (
	"context"
	"io"
	"net/http"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/stretchr/testify/require"

	"github.com/monitorhq/monitor/internal/testkit"
)

func TestStartS3(t *testing.T) {
	t.Parallel()
	var endpoint string
	ok := t.Run("server", func(t *testing.T) {
		srv := testkit.StartS3(t)
		endpoint = srv.Endpoint
		require.Regexp(t, `^http://127\.0\.0\.1:\d+$`, srv.Endpoint)
		require.NotEmpty(t, srv.AccessKeyID)
		require.NotEmpty(t, srv.SecretAccessKey)
		require.Equal(t, "us-east-1", srv.Region)

		// Signed requests work; each bucket is new and empty.
		c := srv.Client()
		a, b := srv.NewBucket(t), srv.NewBucket(t)
		require.NotEqual(t, a, b)
		_, err := c.PutObject(t.Context(), &s3.PutObjectInput{Bucket: &a, Key: aws.String("k"), Body: strings.NewReader("v")})
		require.NoError(t, err)
		out, err := c.GetObject(t.Context(), &s3.GetObjectInput{Bucket: &a, Key: aws.String("k")})
		require.NoError(t, err)
		body, err := io.ReadAll(out.Body)
		require.NoError(t, err)
		require.NoError(t, out.Body.Close())
		require.Equal(t, "v", string(body))
		list, err := c.ListObjectsV2(t.Context(), &s3.ListObjectsV2Input{Bucket: &b})
		require.NoError(t, err)
		require.Empty(t, list.Contents)

		// Other credentials are refused: the server really checks signatures.
		wrong := srv
		wrong.SecretAccessKey += "x"
		_, err = wrong.Client().ListObjectsV2(t.Context(), &s3.ListObjectsV2Input{Bucket: &a})
		require.ErrorContains(t, err, "SignatureDoesNotMatch")
	})
	if !ok || endpoint == "" {
		return // failed, or skipped for want of versitygw
	}

	// The server is gone once its test has ended.
	ctx, cancel := context.WithTimeout(t.Context(), 5*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, endpoint+"/", nil)
	require.NoError(t, err)
	resp, err := http.DefaultClient.Do(req)
	if err == nil {
		resp.Body.Close()
	}
	require.Error(t, err, "versitygw still answers after its test ended")
}

func TestBucketName(t *testing.T) {
	t.Parallel()
	valid := regexp.MustCompile(`^[a-z0-9][a-z0-9-]{1,61}[a-z0-9]$`)
	for _, tc := range []struct{ name, prefix string }{
		{"TestS3Conformance/PutGet", "tests3conformance-putget-"},
		{"Test_Weird__Name/with spaces/#01", "test-weird-name-with-spaces-01-"},
		{"/--/", "test-"},
		{strings.Repeat("VeryLongName", 10), "verylongnameverylongnameverylongnamevery-"},
	} {
		got := testkit.BucketName(tc.name)
		require.True(t, strings.HasPrefix(got, tc.prefix), "%q → %q", tc.name, got)
		require.Regexp(t, valid, got)
		require.NotContains(t, got, "--")
		require.NotEqual(t, got, testkit.BucketName(tc.name), "names are unique")
	}
}
