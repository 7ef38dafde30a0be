// Package config builds Monitor's typed configuration from the environment
// contract (MONITOR_*), secret files (*_FILE) and command-line flags.
//
// Every option is declared once, in options below, with its environment
// variable, its flag, its default and its validation. Flags win over the
// environment, the environment over defaults. The resulting Config value is
// passed down explicitly; nothing here is global.
package config

import (
	"errors"
	"fmt"
	"net"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/pflag"
)

// Config is the effective configuration of one Monitor process.
type Config struct {
	// DataDir holds the embedded database, media objects and other local state.
	DataDir string
	// Database selects the store: SQLite in the data dir by default.
	Database Database
	// Blob selects where media bytes live: files in the data dir by default.
	Blob Blob
	// HTTPAddr is where the REST API, health and metrics endpoints listen.
	HTTPAddr string
	// ChannelAddr is where the internal channel API listens (empty: off).
	ChannelAddr string
	// HTTP bounds how long a client may hold a connection of the REST and
	// channel API servers. Load sets DefaultHTTPLimits; tests shorten them.
	HTTP HTTPLimits
	// ChannelSecret authenticates channel processes to core.
	ChannelSecret string
	// FxTwitterURL is the base URL of the FxTwitter API.
	FxTwitterURL string
	// XAPIURL is the base URL of X's web API, which the x-session
	// provider asks with a tenant's session.
	XAPIURL string
	// TmeURL is the base URL of Telegram's public web preview.
	TmeURL string
	// TelegramToken is the Bot API token; when set, serve runs the bot in-process.
	TelegramToken string
	// TelegramAPIURL is the base URL of the Bot API.
	TelegramAPIURL string
	// TelegramAppID and TelegramAppHash are the instance's Telegram app
	// credentials (my.telegram.org), which the mtproto provider (a
	// tenant's Telegram session) needs; without them it refuses.
	TelegramAppID   int
	TelegramAppHash string
	// TelegramDCAddr (host:port) and TelegramDCKeys (a PEM file of RSA
	// public keys) point the mtproto provider and the sign-in at another
	// Telegram data center than Telegram's own, e.g. a test server; both
	// or neither.
	TelegramDCAddr string
	TelegramDCKeys string
	// MasterKey encrypts account credentials and secret settings.
	MasterKey string
	// SigningKey is the instance's Ed25519 key (PEM PKCS #8, or base64 of
	// its 32-byte seed) that signs exports and proofs; "" means the key
	// file in the data dir, made at first start (runtime.InstanceKey).
	SigningKey string
	// AppPassword is the password `monitor migrate` gives the PostgreSQL
	// role monitor_app.
	AppPassword string
	// Adapters says which source adapters core talks to.
	Adapters Adapters
	// Queue sizes the River worker pools.
	Queue Queue
	// Capture bounds the capture pipeline.
	Capture Capture
	// LogLevel is the minimum level of structured logs.
	LogLevel string

	// values and sources record each option's effective text and where it
	// came from (flag, env, file, default), for PrintTo.
	values, sources map[string]string
}

// Database is the parsed MONITOR_DATABASE_URL.
type Database struct {
	// Driver is "sqlite" or "postgres".
	Driver string
	// URL is the value as given (for PostgreSQL, the connection string).
	URL string
	// Path is the SQLite database file.
	Path string
}

// Blob is the parsed MONITOR_BLOB_URL.
type Blob struct {
	// Kind is "file" or "s3".
	Kind string
	// URL is the value as given.
	URL string
	// Dir is the root directory of the file store.
	Dir string

	// Bucket is the S3 bucket (the URL's host).
	Bucket string
	// Endpoint is the S3 server's base URL (endpoint=).
	Endpoint string
	// Region is the S3 signing region (region=, default us-east-1).
	Region string
	// Prefix is prepended to every object key (prefix=, optional).
	Prefix string
	// AccessKeyID and SecretAccessKey are the S3 credentials
	// (MONITOR_S3_ACCESS_KEY_ID, MONITOR_S3_SECRET_ACCESS_KEY).
	AccessKeyID     string
	SecretAccessKey string
}

// Adapters is the parsed MONITOR_ADAPTERS.
type Adapters struct {
	// Builtin: serve runs the built-in adapters (x, telegram) in-process on
	// a private loopback listener and reaches them over gRPC.
	Builtin bool
	// Addrs are external adapters: gRPC targets (host:port or unix:///path).
	Addrs []string
}

// Queue holds the worker counts of River's queues.
type Queue struct {
	CaptureWorkers  int
	DownloadWorkers int
	ControlWorkers  int
}

// Capture holds the limits of the capture pipeline.
type Capture struct {
	// MaxMediaBytes is the largest media file stored; larger ones fail.
	MaxMediaBytes int64
	// TenantConcurrency is how many captures of one tenant fetch at once.
	TenantConcurrency int
	// ConnectionConcurrency is how many captures of one account connection
	// fetch at once.
	ConnectionConcurrency int
}

// HTTPLimits are the time and size limits of core's HTTP servers (the REST
// API and the channel API), kept in one place so that every listener gets
// the same ones. They stop a client from holding a connection open by
// sending headers or a body slowly, by never reading the answer, or by
// idling on a keep-alive connection. Media downloads move their own write
// deadline forward while bytes flow, so WriteTimeout bounds each chunk of
// a large file rather than the whole transfer.
type HTTPLimits struct {
	// ReadHeaderTimeout is how long a client has to send a request's headers.
	ReadHeaderTimeout time.Duration
	// ReadTimeout is how long a client has to send a whole request, body
	// included; a body still arriving then is cut off.
	ReadTimeout time.Duration
	// WriteTimeout is how long an answer may take to be written, counted
	// from the end of the request's headers; media streams renew it for
	// every chunk they write. Keep it above ReadTimeout, so that a body cut
	// off still gets its answer.
	WriteTimeout time.Duration
	// IdleTimeout is how long a keep-alive connection may wait for its next
	// request before it is closed.
	IdleTimeout time.Duration
	// MaxHeaderBytes bounds the size of a request's headers (431 beyond).
	MaxHeaderBytes int
}

// DefaultHTTPLimits are the limits `monitor serve` runs with. REST and
// channel API bodies are small JSON documents, so 30 s is plenty to send
// one; a slow reader of a large media file is cut only when one chunk
// takes longer than WriteTimeout.
func DefaultHTTPLimits() HTTPLimits {
	return HTTPLimits{
		ReadHeaderTimeout: 10 * time.Second,
		ReadTimeout:       30 * time.Second,
		WriteTimeout:      60 * time.Second,
		IdleTimeout:       90 * time.Second,
		MaxHeaderBytes:    64 << 10,
	}
}

// Env reads one environment variable; os.LookupEnv fits.
type Env func(key string) (string, bool)

// option declares one setting: where it comes from and how it is applied.
type option struct {
	env    string
	flag   string
	def    string
	usage  string
	secret bool
	// url marks a URL that may carry a password or secret parameters:
	// shown with those hidden rather than redacted whole.
	url bool
	// set parses and stores the value; its error says what form is accepted.
	set func(c *Config, v string) error
}

// DefaultDataDir is the data directory when MONITOR_DATA_DIR is not set.
const DefaultDataDir = "./data"

// options is the single list of Monitor's settings. Order matters only for
// derived defaults: data dir first, since the database and blob store live
// inside it unless told otherwise.
func options() []option {
	return []option{
		{env: "MONITOR_DATA_DIR", flag: "data-dir", def: DefaultDataDir,
			usage: "directory for the embedded database and media files",
			set: func(c *Config, v string) error {
				if strings.TrimSpace(v) == "" {
					return errors.New("must be a directory path")
				}
				c.DataDir = filepath.Clean(v)
				return nil
			}},
		{env: "MONITOR_DATABASE_URL", flag: "database-url", secret: true, url: true,
			usage: "database: sqlite:///path/monitor.db or postgres://user@host/db (default: SQLite in the data dir)",
			set:   func(c *Config, v string) error { return c.setDatabase(v) }},
		{env: "MONITOR_BLOB_URL", flag: "blob-url", url: true,
			usage: "media store: file:///path or s3://bucket?endpoint=…&region=… (default: files in the data dir)",
			set:   func(c *Config, v string) error { return c.setBlob(v) }},
		{env: "MONITOR_S3_ACCESS_KEY_ID", secret: true,
			usage: "access key ID of the S3 media store",
			set:   func(c *Config, v string) error { c.Blob.AccessKeyID = v; return nil }},
		{env: "MONITOR_S3_SECRET_ACCESS_KEY", secret: true,
			usage: "secret access key of the S3 media store",
			set:   func(c *Config, v string) error { c.Blob.SecretAccessKey = v; return nil }},
		{env: "MONITOR_HTTP_ADDR", flag: "http-addr", def: "127.0.0.1:8080",
			usage: "listen address of the HTTP server, host:port",
			set: func(c *Config, v string) error {
				if err := checkAddr(v); err != nil {
					return err
				}
				c.HTTPAddr = v
				return nil
			}},
		{env: "MONITOR_CHANNEL_ADDR", flag: "channel-addr",
			usage: "listen address of the internal channel API, host:port (empty: off)",
			set: func(c *Config, v string) error {
				if v != "" {
					if err := checkAddr(v); err != nil {
						return err
					}
				}
				c.ChannelAddr = v
				return nil
			}},
		{env: "MONITOR_CHANNEL_SECRET", secret: true,
			usage: "shared secret of the internal channel API",
			set:   func(c *Config, v string) error { c.ChannelSecret = v; return nil }},
		{env: "MONITOR_FXTWITTER_URL", flag: "fxtwitter-url", def: "https://api.fxtwitter.com",
			usage: "base URL of the FxTwitter API",
			set:   func(c *Config, v string) error { return setHTTPURL(&c.FxTwitterURL, v) }},
		{env: "MONITOR_X_API_URL", flag: "x-api-url", def: "https://x.com/i/api",
			usage: "base URL of X's web API (the x-session provider, a tenant's X account)",
			set:   func(c *Config, v string) error { return setHTTPURL(&c.XAPIURL, v) }},
		{env: "MONITOR_TME_URL", flag: "tme-url", def: "https://t.me",
			usage: "base URL of Telegram's public web preview",
			set:   func(c *Config, v string) error { return setHTTPURL(&c.TmeURL, v) }},
		{env: "MONITOR_TELEGRAM_TOKEN", secret: true,
			usage: "Telegram Bot API token (serve runs the bot when set)",
			set:   func(c *Config, v string) error { c.TelegramToken = v; return nil }},
		{env: "MONITOR_TELEGRAM_API_URL", flag: "telegram-api-url", def: "https://api.telegram.org",
			usage: "base URL of the Telegram Bot API",
			set:   func(c *Config, v string) error { return setHTTPURL(&c.TelegramAPIURL, v) }},
		{env: "MONITOR_TELEGRAM_APP_ID",
			usage: "Telegram app id from my.telegram.org (the mtproto provider, a tenant's Telegram session)",
			set: func(c *Config, v string) error {
				if v == "" {
					return nil
				}
				n, err := strconv.Atoi(v)
				if err != nil || n <= 0 {
					return fmt.Errorf("MONITOR_TELEGRAM_APP_ID must be the positive number my.telegram.org shows as App api_id, not %q", v)
				}
				c.TelegramAppID = n
				return nil
			}},
		{env: "MONITOR_TELEGRAM_APP_HASH", secret: true,
			usage: "Telegram app hash from my.telegram.org (with MONITOR_TELEGRAM_APP_ID)",
			set:   func(c *Config, v string) error { c.TelegramAppHash = v; return nil }},
		{env: "MONITOR_TELEGRAM_DC_ADDR",
			usage: "host:port of the Telegram data center to use instead of Telegram's own (a test server; with MONITOR_TELEGRAM_DC_KEYS)",
			set: func(c *Config, v string) error {
				if v == "" {
					return nil
				}
				if _, port, err := net.SplitHostPort(v); err != nil || port == "" {
					return fmt.Errorf("MONITOR_TELEGRAM_DC_ADDR must be host:port, not %q", v)
				}
				c.TelegramDCAddr = v
				return nil
			}},
		{env: "MONITOR_TELEGRAM_DC_KEYS",
			usage: "PEM file of that data center's RSA public keys (with MONITOR_TELEGRAM_DC_ADDR)",
			set:   func(c *Config, v string) error { c.TelegramDCKeys = v; return nil }},
		{env: "MONITOR_MASTER_KEY", secret: true,
			usage: "master key for encrypted credentials and settings",
			set:   func(c *Config, v string) error { c.MasterKey = v; return nil }},
		{env: "MONITOR_SIGNING_KEY", secret: true,
			usage: "Ed25519 key that signs exports and proofs (PEM PKCS #8 or base64 seed); default: $MONITOR_DATA_DIR/instance.key, made at first start",
			set:   func(c *Config, v string) error { c.SigningKey = v; return nil }},
		{env: "MONITOR_APP_PASSWORD", secret: true,
			usage: "password monitor migrate sets on the PostgreSQL role monitor_app",
			set:   func(c *Config, v string) error { c.AppPassword = v; return nil }},
		{env: "MONITOR_ADAPTERS", flag: "adapters", def: "builtin",
			usage: "source adapters, comma-separated: builtin (in-process), host:port or unix:///path of an external adapter",
			set:   func(c *Config, v string) error { return c.setAdapters(v) }},
		{env: "MONITOR_CAPTURE_WORKERS", flag: "capture-workers", def: "4",
			usage: "workers of the capture queue",
			set:   func(c *Config, v string) error { return setWorkers(&c.Queue.CaptureWorkers, v) }},
		{env: "MONITOR_DOWNLOAD_WORKERS", flag: "download-workers", def: "8",
			usage: "workers of the download queue",
			set:   func(c *Config, v string) error { return setWorkers(&c.Queue.DownloadWorkers, v) }},
		{env: "MONITOR_CONTROL_WORKERS", flag: "control-workers", def: "4",
			usage: "workers of the control queue",
			set:   func(c *Config, v string) error { return setWorkers(&c.Queue.ControlWorkers, v) }},
		{env: "MONITOR_MAX_MEDIA_SIZE", flag: "max-media-size", def: "2GiB",
			usage: "largest media file stored, in bytes or with a unit (500MiB, 2GiB)",
			set: func(c *Config, v string) error {
				n, err := ParseBytes(v)
				if err != nil {
					return err
				}
				if n < 1 {
					return errors.New("must be at least 1 byte")
				}
				c.Capture.MaxMediaBytes = n
				return nil
			}},
		{env: "MONITOR_TENANT_CAPTURES", flag: "tenant-captures", def: "2",
			usage: "captures of one tenant fetching at once",
			set:   func(c *Config, v string) error { return setWorkers(&c.Capture.TenantConcurrency, v) }},
		{env: "MONITOR_CONNECTION_CAPTURES", flag: "connection-captures", def: "1",
			usage: "captures of one account connection fetching at once",
			set:   func(c *Config, v string) error { return setWorkers(&c.Capture.ConnectionConcurrency, v) }},
		{env: "MONITOR_LOG_LEVEL", flag: "log-level", def: "info",
			usage: "log level: debug, info, warn or error",
			set: func(c *Config, v string) error {
				switch v {
				case "debug", "info", "warn", "error":
					c.LogLevel = v
					return nil
				}
				return errors.New("must be one of debug, info, warn, error")
			}},
	}
}

// RegisterFlags adds the flags named in want (all of them when want is empty)
// to fs. Options without a flag (secrets) are set only through the environment.
func RegisterFlags(fs *pflag.FlagSet, want ...string) {
	for _, o := range options() {
		if o.flag == "" || (len(want) > 0 && !slices.Contains(want, o.flag)) {
			continue
		}
		usage := o.usage + " (env " + o.env + ")"
		fs.String(o.flag, o.def, usage)
	}
}

// Load builds the configuration: for each option a changed flag in fs wins,
// then the environment variable, then NAME_FILE for secrets, then the default.
// fs may be nil. The first invalid value is reported with the variable's name
// and the accepted form.
func Load(env Env, fs *pflag.FlagSet) (*Config, error) {
	c := &Config{HTTP: DefaultHTTPLimits(), values: map[string]string{}, sources: map[string]string{}}
	for _, o := range options() {
		v, src, err := lookup(o, env, fs)
		if err != nil {
			return nil, err
		}
		c.values[o.env], c.sources[o.env] = v, src
		if err := o.set(c, v); err != nil {
			name := o.env
			if src == "flag" {
				name = "--" + o.flag
			}
			return nil, fmt.Errorf("config: %s=%q: %w", name, o.display(v), err)
		}
	}
	// Defaults that derive from the data dir.
	if c.Database.Driver == "" {
		c.Database = Database{Driver: "sqlite", Path: filepath.Join(c.DataDir, "monitor.db")}
		c.Database.URL = "sqlite://" + c.Database.Path
		c.values["MONITOR_DATABASE_URL"] = c.Database.URL
	}
	if c.Blob.Kind == "" {
		// Field by field: the S3 credentials are already in c.Blob.
		c.Blob.Kind, c.Blob.Dir = "file", filepath.Join(c.DataDir, "objects")
		c.Blob.URL = "file://" + c.Blob.Dir
		c.values["MONITOR_BLOB_URL"] = c.Blob.URL
	}
	return c, nil
}

func lookup(o option, env Env, fs *pflag.FlagSet) (value, source string, err error) {
	if fs != nil && o.flag != "" {
		if f := fs.Lookup(o.flag); f != nil && f.Changed {
			return f.Value.String(), "flag", nil
		}
	}
	v, ok := env(o.env)
	if o.secret {
		file, fileOK := env(o.env + "_FILE")
		switch {
		case ok && fileOK && file != "":
			return "", "", fmt.Errorf("config: both %s and %s_FILE are set; set only one", o.env, o.env)
		case fileOK && file != "":
			b, err := os.ReadFile(file)
			if err != nil {
				return "", "", fmt.Errorf("config: %s_FILE: cannot read secret file: %w", o.env, err)
			}
			return strings.TrimRight(string(b), "\r\n"), "file", nil
		}
	}
	if ok {
		return v, "env", nil
	}
	return o.def, "default", nil
}

func (c *Config) setDatabase(v string) error {
	if v == "" {
		return nil // derived from the data dir after all options are read
	}
	const accepted = "use sqlite:///path/to/monitor.db or postgres://user@host:5432/db"
	u, err := url.Parse(v)
	if err != nil {
		return fmt.Errorf("not a URL; %s", accepted)
	}
	switch u.Scheme {
	case "sqlite", "sqlite3":
		p := u.Opaque
		if p == "" {
			p = u.Host + u.Path
		}
		if p == "" {
			return fmt.Errorf("no database file path; %s", accepted)
		}
		c.Database = Database{Driver: "sqlite", URL: v, Path: filepath.Clean(p)}
	case "postgres", "postgresql":
		c.Database = Database{Driver: "postgres", URL: v}
	default:
		return fmt.Errorf("unsupported scheme %q; %s", u.Scheme, accepted)
	}
	return nil
}

func (c *Config) setBlob(v string) error {
	if v == "" {
		return nil
	}
	const accepted = "use file:///path/to/objects or s3://bucket?endpoint=https://host&region=us-east-1"
	u, err := url.Parse(v)
	if err != nil {
		return fmt.Errorf("not a URL; %s", accepted)
	}
	switch u.Scheme {
	case "file":
		p := u.Host + u.Path
		if p == "" {
			return fmt.Errorf("no directory path; %s", accepted)
		}
		c.Blob = Blob{Kind: "file", URL: v, Dir: filepath.Clean(p)}
	case "s3":
		return c.setS3Blob(v, u)
	default:
		return fmt.Errorf("unsupported scheme %q; %s", u.Scheme, accepted)
	}
	return nil
}

// setS3Blob reads s3://bucket?endpoint=URL[&region=R][&prefix=P], keeping
// the credentials that their own options set.
func (c *Config) setS3Blob(v string, u *url.URL) error {
	const accepted = "use s3://bucket?endpoint=https://host&region=us-east-1 (optionally &prefix=path)"
	bucket := u.Host
	switch {
	case bucket == "":
		return fmt.Errorf("no bucket name; %s", accepted)
	case !validBucket(bucket):
		return fmt.Errorf("bucket name %q is not 3 to 63 lower-case letters, digits, dots and hyphens; %s", bucket, accepted)
	case strings.Trim(u.Path, "/") != "":
		return fmt.Errorf("a path after the bucket is not supported, put a key prefix in prefix=; %s", accepted)
	}
	q, err := url.ParseQuery(u.RawQuery)
	if err != nil {
		return fmt.Errorf("cannot read the parameters after '?'; %s", accepted)
	}
	for name := range q {
		if name != "endpoint" && name != "region" && name != "prefix" {
			return fmt.Errorf("unknown parameter %q (known: endpoint, region, prefix); %s", name, accepted)
		}
	}
	if u.User != nil {
		return fmt.Errorf("credentials in the URL are not read; set MONITOR_S3_ACCESS_KEY_ID and MONITOR_S3_SECRET_ACCESS_KEY (or their _FILE) instead; %s", accepted)
	}
	endpoint := q.Get("endpoint")
	if endpoint == "" {
		return fmt.Errorf("no endpoint; %s", accepted)
	}
	e, err := url.Parse(endpoint)
	if err != nil || (e.Scheme != "http" && e.Scheme != "https") || e.Host == "" {
		return fmt.Errorf("endpoint %q is not an http:// or https:// URL with a host; %s", endpointShown(endpoint), accepted)
	}
	if e.User != nil {
		return fmt.Errorf("the endpoint carries credentials, which are not read; remove them and set MONITOR_S3_ACCESS_KEY_ID and MONITOR_S3_SECRET_ACCESS_KEY (or their _FILE) instead; %s", accepted)
	}
	region := q.Get("region")
	if region == "" {
		region = "us-east-1"
	}
	c.Blob.Kind, c.Blob.URL, c.Blob.Dir = "s3", v, ""
	c.Blob.Bucket, c.Blob.Endpoint, c.Blob.Region = bucket, strings.TrimRight(endpoint, "/"), region
	c.Blob.Prefix = q.Get("prefix")
	return nil
}

// endpointShown is an endpoint as an error may show it: without its user
// info.
func endpointShown(v string) string {
	s, _ := redactUserInfo(v)
	return s
}

// validBucket applies S3's bucket naming rules, loosely: 3 to 63
// characters of a-z, 0-9, '.' and '-', starting and ending with a letter or
// digit.
func validBucket(name string) bool {
	if len(name) < 3 || len(name) > 63 {
		return false
	}
	for i := 0; i < len(name); i++ {
		ch := name[i]
		alnum := 'a' <= ch && ch <= 'z' || '0' <= ch && ch <= '9'
		if !alnum && ((ch != '.' && ch != '-') || i == 0 || i == len(name)-1) {
			return false
		}
	}
	return true
}

func (c *Config) setAdapters(v string) error {
	c.Adapters = Adapters{}
	for _, item := range strings.Split(v, ",") {
		item = strings.TrimSpace(item)
		switch {
		case item == "builtin":
			c.Adapters.Builtin = true
		case strings.HasPrefix(item, "unix:///") && len(item) > len("unix:///"):
			c.Adapters.Addrs = append(c.Adapters.Addrs, item)
		case item == "":
			return errors.New("has an empty entry; use builtin, host:port or unix:///path, separated by commas")
		default:
			if err := checkAddr(item); err != nil {
				return fmt.Errorf("entry %q: %w", item, err)
			}
			c.Adapters.Addrs = append(c.Adapters.Addrs, item)
		}
	}
	return nil
}

func checkAddr(v string) error {
	const accepted = "use host:port, e.g. 127.0.0.1:8080 or :8080"
	host, port, err := net.SplitHostPort(v)
	if err != nil {
		return fmt.Errorf("not a host:port address; %s", accepted)
	}
	n, err := strconv.Atoi(port)
	if err != nil || n < 0 || n > 65535 {
		return fmt.Errorf("port %q is not a number from 0 to 65535; %s", port, accepted)
	}
	if strings.ContainsAny(host, " /") {
		return fmt.Errorf("host %q is not a host name or IP address; %s", host, accepted)
	}
	return nil
}

func setHTTPURL(dst *string, v string) error {
	u, err := url.Parse(v)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return errors.New("must be an http:// or https:// URL with a host")
	}
	*dst = strings.TrimRight(v, "/")
	return nil
}

func setWorkers(dst *int, v string) error {
	n, err := strconv.Atoi(v)
	if err != nil || n < 1 || n > 1000 {
		return errors.New("must be a whole number from 1 to 1000")
	}
	*dst = n
	return nil
}

// byteUnits are the suffixes ParseBytes accepts, longest first.
var byteUnits = []struct {
	suffix string
	factor int64
}{
	{"KiB", 1 << 10}, {"MiB", 1 << 20}, {"GiB", 1 << 30}, {"TiB", 1 << 40},
	{"KB", 1e3}, {"MB", 1e6}, {"GB", 1e9}, {"TB", 1e12},
	{"B", 1},
}

// FormatBytes writes a byte count for people, in binary units ("512 B",
// "1.5 MiB").
func FormatBytes(n int64) string {
	const unit = 1024
	if n < unit {
		return fmt.Sprintf("%d B", n)
	}
	div, exp := int64(unit), 0
	for m := n / unit; m >= unit; m /= unit {
		div *= unit
		exp++
	}
	return fmt.Sprintf("%.1f %ciB", float64(n)/float64(div), "KMGTPE"[exp])
}

// ParseBytes reads a byte count: a whole number, optionally with a unit.
func ParseBytes(s string) (int64, error) {
	s = strings.TrimSpace(s)
	factor := int64(1)
	for _, u := range byteUnits {
		if strings.HasSuffix(s, u.suffix) {
			s, factor = strings.TrimSpace(strings.TrimSuffix(s, u.suffix)), u.factor
			break
		}
	}
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil || n < 0 {
		return 0, errors.New("must be a whole number of bytes, optionally with a unit (KiB, MiB, GiB, TiB, KB, MB, GB, TB)")
	}
	if n > (1<<63-1)/factor {
		return 0, errors.New("is too large")
	}
	return n * factor, nil
}
