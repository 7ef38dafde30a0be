package main

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/monitorhq/monitor/internal/testkit"
)

func TestStorageInit(t *testing.T) {
	t.Parallel()
	s3 := testkit.StartS3(t)
	bucket := testkit.BucketName(t.Name())
	env := map[string]string{
		"MONITOR_DATA_DIR":             t.TempDir(),
		"MONITOR_BLOB_URL":             "s3://" + bucket + "?endpoint=" + s3.Endpoint,
		"MONITOR_S3_ACCESS_KEY_ID":     s3.AccessKeyID,
		"MONITOR_S3_SECRET_ACCESS_KEY": s3.SecretAccessKey,
	}
	out, errOut, code := cli(t, env, "storage-init")
	require.Equal(t, 0, code, errOut)
	require.Equal(t, `S3 bucket "`+bucket+`" at `+s3.Endpoint+" was created and works (probe written, read and deleted)\n", out)
	out, _, code = cli(t, env, "storage-init")
	require.Equal(t, 0, code)
	require.Contains(t, out, " exists and works")

	// serve checks the bucket at start.
	missing := map[string]string{}
	for k, v := range env {
		missing[k] = v
	}
	missing["MONITOR_BLOB_URL"] = "s3://no-such-bucket-here?endpoint=" + s3.Endpoint
	_, errOut, code = cli(t, missing, "serve", "--http-addr", "127.0.0.1:0")
	require.Equal(t, 1, code)
	require.Equal(t, `monitor: blob: S3 bucket "no-such-bucket-here" does not exist at `+s3.Endpoint+"; create it with monitor storage-init\n", errOut)

	wrong := map[string]string{}
	for k, v := range env {
		wrong[k] = v
	}
	wrong["MONITOR_S3_SECRET_ACCESS_KEY"] = "not-the-secret"
	_, errOut, code = cli(t, wrong, "storage-init")
	require.Equal(t, 1, code)
	require.Contains(t, errOut, "credentials were refused")
	require.Contains(t, errOut, "check MONITOR_S3_ACCESS_KEY_ID and MONITOR_S3_SECRET_ACCESS_KEY")
	require.NotContains(t, errOut, "not-the-secret")

	unreachable := map[string]string{}
	for k, v := range env {
		unreachable[k] = v
	}
	unreachable["MONITOR_BLOB_URL"] = "s3://" + bucket + "?endpoint=http://127.0.0.1:1"
	_, errOut, code = cli(t, unreachable, "serve", "--http-addr", "127.0.0.1:0")
	require.Equal(t, 1, code)
	require.Contains(t, errOut, "cannot reach S3 endpoint http://127.0.0.1:1")
	require.Equal(t, 1, strings.Count(errOut, "\n"))

	// The embedded default: the objects directory.
	out, errOut, code = cli(t, map[string]string{"MONITOR_DATA_DIR": t.TempDir()}, "storage-init")
	require.Equal(t, 0, code, errOut)
	require.Contains(t, out, "objects directory ")
}
