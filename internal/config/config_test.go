package config

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/spf13/pflag"
	"github.com/stretchr/testify/require"
)

func envOf(m map[string]string) Env {
	return func(k string) (string, bool) { v, ok := m[k]; return v, ok }
}

func TestDefaults(t *testing.T) {
	t.Parallel()
	c, err := Load(envOf(nil), nil)
	require.NoError(t, err)
	require.Equal(t, "data", c.DataDir)
	require.Equal(t, Database{Driver: "sqlite", URL: "sqlite://data/monitor.db", Path: "data/monitor.db"}, c.Database)
	require.Equal(t, Blob{Kind: "file", URL: "file://data/objects", Dir: "data/objects"}, c.Blob)
	require.Equal(t, "127.0.0.1:8080", c.HTTPAddr)
	require.Equal(t, Queue{CaptureWorkers: 4, DownloadWorkers: 8, ControlWorkers: 4}, c.Queue)
}

func TestDatabaseURLFollowsDataDir(t *testing.T) {
	t.Parallel()
	c, err := Load(envOf(map[string]string{"MONITOR_DATA_DIR": "/srv/monitor"}), nil)
	require.NoError(t, err)
	require.Equal(t, "/srv/monitor/monitor.db", c.Database.Path)
	require.Equal(t, "/srv/monitor/objects", c.Blob.Dir)

	c, err = Load(envOf(map[string]string{"MONITOR_DATABASE_URL": "sqlite:///var/lib/m.db", "MONITOR_BLOB_URL": "s3://media?endpoint=http://127.0.0.1:7070&region=us-east-1"}), nil)
	require.NoError(t, err)
	require.Equal(t, "/var/lib/m.db", c.Database.Path)
	require.Equal(t, "s3", c.Blob.Kind)

	c, err = Load(envOf(map[string]string{"MONITOR_DATABASE_URL": "postgres://monitor_app@127.0.0.1/monitor"}), nil)
	require.NoError(t, err)
	require.Equal(t, "postgres", c.Database.Driver)
}

func TestFlagsWinOverEnv(t *testing.T) {
	t.Parallel()
	fs := pflag.NewFlagSet("serve", pflag.ContinueOnError)
	RegisterFlags(fs)
	require.NoError(t, fs.Parse([]string{"--http-addr", "0.0.0.0:9999"}))
	c, err := Load(envOf(map[string]string{"MONITOR_HTTP_ADDR": "127.0.0.1:1", "MONITOR_LOG_LEVEL": "debug"}), fs)
	require.NoError(t, err)
	require.Equal(t, "0.0.0.0:9999", c.HTTPAddr)
	require.Equal(t, "debug", c.LogLevel, "env applies where no flag was given")
}

func TestSecretFromFile(t *testing.T) {
	t.Parallel()
	p := filepath.Join(t.TempDir(), "secret")
	require.NoError(t, os.WriteFile(p, []byte("s3cr3t\n"), 0o600))
	c, err := Load(envOf(map[string]string{"MONITOR_TELEGRAM_TOKEN_FILE": p}), nil)
	require.NoError(t, err)
	require.Equal(t, "s3cr3t", c.TelegramToken)

	_, err = Load(envOf(map[string]string{"MONITOR_TELEGRAM_TOKEN_FILE": p, "MONITOR_TELEGRAM_TOKEN": "x"}), nil)
	require.EqualError(t, err, "config: both MONITOR_TELEGRAM_TOKEN and MONITOR_TELEGRAM_TOKEN_FILE are set; set only one")

	_, err = Load(envOf(map[string]string{"MONITOR_MASTER_KEY_FILE": p + ".missing"}), nil)
	require.ErrorContains(t, err, "config: MONITOR_MASTER_KEY_FILE: cannot read secret file")
}

func TestInvalidValuesNameTheVariable(t *testing.T) {
	t.Parallel()
	cases := []struct{ env, value, want string }{
		{"MONITOR_DATABASE_URL", "mysql://root:pw@localhost/monitor", `config: MONITOR_DATABASE_URL="mysql://root:xxxxx@localhost/monitor": unsupported scheme "mysql"; use sqlite:///path/to/monitor.db or postgres://user@host:5432/db`},
		{"MONITOR_DATABASE_URL", "sqlite://", `config: MONITOR_DATABASE_URL="sqlite://": no database file path; use sqlite:///path/to/monitor.db or postgres://user@host:5432/db`},
		{"MONITOR_BLOB_URL", "ftp://x/y", `config: MONITOR_BLOB_URL="ftp://x/y": unsupported scheme "ftp"; use file:///path/to/objects or s3://bucket?endpoint=https://host&region=us-east-1`},
		{"MONITOR_HTTP_ADDR", "localhost", `config: MONITOR_HTTP_ADDR="localhost": not a host:port address; use host:port, e.g. 127.0.0.1:8080 or :8080`},
		{"MONITOR_HTTP_ADDR", "127.0.0.1:http", `config: MONITOR_HTTP_ADDR="127.0.0.1:http": port "http" is not a number from 0 to 65535; use host:port, e.g. 127.0.0.1:8080 or :8080`},
		{"MONITOR_HTTP_ADDR", "127.0.0.1:70000", `config: MONITOR_HTTP_ADDR="127.0.0.1:70000": port "70000" is not a number from 0 to 65535; use host:port, e.g. 127.0.0.1:8080 or :8080`},
		{"MONITOR_FXTWITTER_URL", "api.fxtwitter.com", `config: MONITOR_FXTWITTER_URL="api.fxtwitter.com": must be an http:// or https:// URL with a host`},
		{"MONITOR_X_API_URL", "x.com/i/api", `config: MONITOR_X_API_URL="x.com/i/api": must be an http:// or https:// URL with a host`},
		{"MONITOR_CAPTURE_WORKERS", "0", `config: MONITOR_CAPTURE_WORKERS="0": must be a whole number from 1 to 1000`},
		{"MONITOR_LOG_LEVEL", "loud", `config: MONITOR_LOG_LEVEL="loud": must be one of debug, info, warn, error`},
	}
	for _, tc := range cases {
		_, err := Load(envOf(map[string]string{tc.env: tc.value}), nil)
		require.EqualError(t, err, tc.want)
	}

	fs := pflag.NewFlagSet("serve", pflag.ContinueOnError)
	RegisterFlags(fs, "http-addr")
	require.NoError(t, fs.Parse([]string{"--http-addr=nope"}))
	_, err := Load(envOf(nil), fs)
	require.ErrorContains(t, err, `config: --http-addr="nope": not a host:port address`)
}

func TestPrintRedactsSecrets(t *testing.T) {
	t.Parallel()
	c, err := Load(envOf(map[string]string{
		"MONITOR_TELEGRAM_TOKEN": "123:ABC",
		"MONITOR_MASTER_KEY":     "k3y",
		"MONITOR_DATABASE_URL":   "postgres://monitor_app:hunter2@db/monitor",
	}), nil)
	require.NoError(t, err)
	var buf bytes.Buffer
	require.NoError(t, c.PrintTo(&buf))
	out := buf.String()
	require.NotContains(t, out, "123:ABC")
	require.NotContains(t, out, "k3y")
	require.NotContains(t, out, "hunter2")
	require.Contains(t, out, "MONITOR_TELEGRAM_TOKEN=<redacted>\t# env\n")
	require.Contains(t, out, "MONITOR_DATABASE_URL=postgres://monitor_app:xxxxx@db/monitor\t# env\n")
	require.Contains(t, out, "MONITOR_HTTP_ADDR=127.0.0.1:8080\t# default\n")
	require.Contains(t, out, "MONITOR_CHANNEL_SECRET=\t# default\n")
}

func TestAdapters(t *testing.T) {
	t.Parallel()
	c, err := Load(envOf(nil), nil)
	require.NoError(t, err)
	require.Equal(t, Adapters{Builtin: true}, c.Adapters)

	c, err = Load(envOf(map[string]string{"MONITOR_ADAPTERS": "127.0.0.1:7001, unix:///run/monitor/tg.sock"}), nil)
	require.NoError(t, err)
	require.Equal(t, Adapters{Addrs: []string{"127.0.0.1:7001", "unix:///run/monitor/tg.sock"}}, c.Adapters)

	c, err = Load(envOf(map[string]string{"MONITOR_ADAPTERS": "builtin,adapters.internal:7001"}), nil)
	require.NoError(t, err)
	require.Equal(t, Adapters{Builtin: true, Addrs: []string{"adapters.internal:7001"}}, c.Adapters)

	_, err = Load(envOf(map[string]string{"MONITOR_ADAPTERS": "x.example"}), nil)
	require.EqualError(t, err, `config: MONITOR_ADAPTERS="x.example": entry "x.example": not a host:port address; use host:port, e.g. 127.0.0.1:8080 or :8080`)
	_, err = Load(envOf(map[string]string{"MONITOR_ADAPTERS": "builtin,,"}), nil)
	require.ErrorContains(t, err, "has an empty entry")
}

func TestS3BlobURL(t *testing.T) {
	t.Parallel()
	c, err := Load(envOf(map[string]string{
		"MONITOR_BLOB_URL":             "s3://media?endpoint=http://127.0.0.1:7070/&region=eu-central-1&prefix=monitor/prod",
		"MONITOR_S3_ACCESS_KEY_ID":     "AKIDEXAMPLE",
		"MONITOR_S3_SECRET_ACCESS_KEY": "wJalrXUtnFEMI",
	}), nil)
	require.NoError(t, err)
	require.Equal(t, Blob{
		Kind:            "s3",
		URL:             "s3://media?endpoint=http://127.0.0.1:7070/&region=eu-central-1&prefix=monitor/prod",
		Bucket:          "media",
		Endpoint:        "http://127.0.0.1:7070",
		Region:          "eu-central-1",
		Prefix:          "monitor/prod",
		AccessKeyID:     "AKIDEXAMPLE",
		SecretAccessKey: "wJalrXUtnFEMI",
	}, c.Blob)

	c, err = Load(envOf(map[string]string{"MONITOR_BLOB_URL": "s3://media?endpoint=https://s3.example.org"}), nil)
	require.NoError(t, err)
	require.Equal(t, "us-east-1", c.Blob.Region, "default region")
	require.Empty(t, c.Blob.Prefix)
	require.Equal(t, "https://s3.example.org", c.Blob.Endpoint)

	// Credentials set with the file store are kept but unused.
	c, err = Load(envOf(map[string]string{"MONITOR_S3_ACCESS_KEY_ID": "AKIDEXAMPLE"}), nil)
	require.NoError(t, err)
	require.Equal(t, "file", c.Blob.Kind)
	require.Equal(t, "AKIDEXAMPLE", c.Blob.AccessKeyID)
}

func TestS3CredentialsFromFiles(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	id, secret := filepath.Join(dir, "id"), filepath.Join(dir, "secret")
	require.NoError(t, os.WriteFile(id, []byte("AKIDEXAMPLE\n"), 0o600))
	require.NoError(t, os.WriteFile(secret, []byte("wJalrXUtnFEMI\n"), 0o600))
	c, err := Load(envOf(map[string]string{
		"MONITOR_BLOB_URL":                  "s3://media?endpoint=http://127.0.0.1:7070",
		"MONITOR_S3_ACCESS_KEY_ID_FILE":     id,
		"MONITOR_S3_SECRET_ACCESS_KEY_FILE": secret,
	}), nil)
	require.NoError(t, err)
	require.Equal(t, "AKIDEXAMPLE", c.Blob.AccessKeyID)
	require.Equal(t, "wJalrXUtnFEMI", c.Blob.SecretAccessKey)

	var buf bytes.Buffer
	require.NoError(t, c.PrintTo(&buf))
	out := buf.String()
	require.NotContains(t, out, "AKIDEXAMPLE")
	require.NotContains(t, out, "wJalrXUtnFEMI")
	require.Contains(t, out, "MONITOR_S3_ACCESS_KEY_ID=<redacted>\t# file\n")
	require.Contains(t, out, "MONITOR_S3_SECRET_ACCESS_KEY=<redacted>\t# file\n")
	require.Contains(t, out, "MONITOR_BLOB_URL=s3://media?endpoint=http://127.0.0.1:7070\t# env\n")

	// Secrets have no flags.
	fs := pflag.NewFlagSet("serve", pflag.ContinueOnError)
	RegisterFlags(fs)
	require.Nil(t, fs.Lookup("s3-access-key-id"))
	require.Nil(t, fs.Lookup("s3-secret-access-key"))
}

func TestS3BlobURLErrors(t *testing.T) {
	t.Parallel()
	const accepted = "use s3://bucket?endpoint=https://host&region=us-east-1 (optionally &prefix=path)"
	for _, tc := range []struct{ value, want string }{
		{"s3://media", "no endpoint; " + accepted},
		{"s3://media?region=us-east-1", "no endpoint; " + accepted},
		{"s3://media?endpoint=127.0.0.1:7070", `endpoint "127.0.0.1:7070" is not an http:// or https:// URL with a host; ` + accepted},
		{"s3://media?endpoint=http://h&regoin=x", `unknown parameter "regoin" (known: endpoint, region, prefix); ` + accepted},
		{"s3://media/sub?endpoint=http://h", "a path after the bucket is not supported, put a key prefix in prefix=; " + accepted},
		{"s3://Media?endpoint=http://h", `bucket name "Media" is not 3 to 63 lower-case letters, digits, dots and hyphens; ` + accepted},
		{"s3://m?endpoint=http://h", `bucket name "m" is not 3 to 63 lower-case letters, digits, dots and hyphens; ` + accepted},
		{"s3:///?endpoint=http://h", "no bucket name; " + accepted},
	} {
		_, err := Load(envOf(map[string]string{"MONITOR_BLOB_URL": tc.value}), nil)
		require.EqualError(t, err, `config: MONITOR_BLOB_URL="`+tc.value+`": `+tc.want)
	}
}

func TestFormatBytes(t *testing.T) {
	t.Parallel()
	for n, want := range map[int64]string{0: "0 B", 512: "512 B", 1024: "1.0 KiB", 3 << 19: "1.5 MiB", 10 << 30: "10.0 GiB"} {
		require.Equal(t, want, FormatBytes(n), n)
	}
}

// A database URL can hold its password twice (user info and ?password=,
// pgx reads both) and a blob URL an endpoint with user info or secret
// parameters; printing keeps each URL's shape without any of them.
func TestPrintRedactsURLSecrets(t *testing.T) {
	t.Parallel()
	c, err := Load(envOf(map[string]string{
		"MONITOR_DATABASE_URL": "postgres://monitor_app:hunter2@db/monitor?sslmode=disable&password=hunter3&sslpassword=hunter4",
	}), nil)
	require.NoError(t, err)
	var buf bytes.Buffer
	require.NoError(t, c.PrintTo(&buf))
	out := buf.String()
	for _, secret := range []string{"hunter2", "hunter3", "hunter4"} {
		require.NotContains(t, out, secret)
	}
	require.Contains(t, out, "MONITOR_DATABASE_URL=postgres://monitor_app:xxxxx@db/monitor?sslmode=disable&password=xxxxx&sslpassword=xxxxx\t# env\n")

	for in, want := range map[string]string{
		"postgres://db/monitor?password=hunter2":                                  "postgres://db/monitor?password=xxxxx",
		"host=db user=monitor password=hunter2":                                   "<redacted>",
		"s3://media?endpoint=http://AKID:hunter2@127.0.0.1:7070&region=eu":        "s3://media?endpoint=http://xxxxx@127.0.0.1:7070&region=eu",
		"s3://media?endpoint=http://h&secret_key=hunter2&X-Amz-Signature=hunter3": "s3://media?endpoint=http://h&secret_key=xxxxx&X-Amz-Signature=xxxxx",
		"s3://media?endpoint=http://h&region=eu-central-1&prefix=monitor/prod":    "s3://media?endpoint=http://h&region=eu-central-1&prefix=monitor/prod",
		"sqlite:///srv/m/monitor.db":                                              "sqlite:///srv/m/monitor.db",
	} {
		require.Equal(t, want, RedactURL(in), in)
	}
}

// Errors about MONITOR_BLOB_URL and MONITOR_DATABASE_URL show the value
// with its secrets hidden, and credentials in the blob URL are refused with
// what to set instead.
func TestURLErrorsHideSecrets(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ env, value, want string }{
		{"MONITOR_BLOB_URL", "s3://media?endpoint=http://h&secret_key=hunter2",
			`config: MONITOR_BLOB_URL="s3://media?endpoint=http://h&secret_key=xxxxx": unknown parameter "secret_key" (known: endpoint, region, prefix)`},
		{"MONITOR_BLOB_URL", "s3://media?endpoint=http://AKID:hunter2@h",
			`config: MONITOR_BLOB_URL="s3://media?endpoint=http://xxxxx@h": the endpoint carries credentials, which are not read; remove them and set MONITOR_S3_ACCESS_KEY_ID and MONITOR_S3_SECRET_ACCESS_KEY (or their _FILE) instead`},
		{"MONITOR_BLOB_URL", "s3://AKID:hunter2@media?endpoint=http://h",
			`config: MONITOR_BLOB_URL="s3://AKID:xxxxx@media?endpoint=http://h": credentials in the URL are not read; set MONITOR_S3_ACCESS_KEY_ID and MONITOR_S3_SECRET_ACCESS_KEY`},
		{"MONITOR_BLOB_URL", "s3://media?endpoint=AKID:hunter2@h:7070",
			`config: MONITOR_BLOB_URL="s3://media?endpoint=xxxxx": endpoint "xxxxx" is not an http:// or https:// URL with a host`},
		{"MONITOR_BLOB_URL", "ftp://AKID:hunter2@h/x",
			`config: MONITOR_BLOB_URL="ftp://AKID:xxxxx@h/x": unsupported scheme "ftp"`},
		{"MONITOR_DATABASE_URL", "host=db password=hunter2",
			`config: MONITOR_DATABASE_URL="<redacted>": unsupported scheme ""`},
		{"MONITOR_DATABASE_URL", "mysql://root:hunter2@db/monitor?password=hunter2",
			`config: MONITOR_DATABASE_URL="mysql://root:xxxxx@db/monitor?password=xxxxx": unsupported scheme "mysql"`},
	} {
		_, err := Load(envOf(map[string]string{tc.env: tc.value}), nil)
		require.Error(t, err, tc.value)
		require.NotContains(t, err.Error(), "hunter2", tc.value)
		require.Contains(t, err.Error(), tc.want, tc.value)
	}
}
