package main

import (
	"archive/zip"
	"bytes"
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"io/fs"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/gotd/td/tg"
	"github.com/stretchr/testify/require"

	"github.com/monitorhq/monitor/internal/store/storetest"
	"github.com/monitorhq/monitor/internal/testkit"
)

// leakCorpus collects everything a person or another program could read
// after Monitor ran: logs, command output, REST responses, and the files
// it wrote (archives unpacked), each under a name for the failure message.
type leakCorpus struct {
	t     *testing.T
	texts map[string][]byte
}

func (c *leakCorpus) add(name string, b []byte) {
	c.texts[name] = append(c.texts[name], b...)
}

// addTree adds every file under root, unpacking zip files.
func (c *leakCorpus) addTree(root string) {
	c.t.Helper()
	n := 0
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		c.addFile(p)
		n++
		return nil
	})
	require.NoError(c.t, err)
	require.NotZero(c.t, n, root)
}

func (c *leakCorpus) addFile(p string) {
	c.t.Helper()
	b, err := os.ReadFile(p)
	require.NoError(c.t, err)
	c.add(p, b)
	if !strings.HasSuffix(p, ".zip") {
		return
	}
	zr, err := zip.NewReader(bytes.NewReader(b), int64(len(b)))
	require.NoError(c.t, err, p)
	for _, f := range zr.File {
		rc, err := f.Open()
		require.NoError(c.t, err)
		inner, err := io.ReadAll(rc)
		require.NoError(c.t, err)
		require.NoError(c.t, rc.Close())
		c.add(p+"!"+f.Name, inner)
	}
}

// cli runs a command, keeping its error output (logs) and, unless it
// prints a secret by design, its output.
func (c *leakCorpus) cli(env map[string]string, printsSecret bool, args ...string) string {
	c.t.Helper()
	out, errOut, code := cli(c.t, env, args...)
	require.Equal(c.t, 0, code, "%v: %s", args, errOut)
	name := "monitor " + strings.Join(args, " ")
	c.add(name+" (stderr)", []byte(errOut))
	if !printsSecret {
		c.add(name+" (stdout)", []byte(out))
	}
	return out
}

// cliInput is cli with a secret on stdin.
func (c *leakCorpus) cliInput(env map[string]string, stdin string, args ...string) string {
	c.t.Helper()
	out, errOut, code := cliInput(c.t, env, stdin, args...)
	require.Equal(c.t, 0, code, "%v: %s", args, errOut)
	name := "monitor " + strings.Join(args, " ")
	c.add(name+" (stderr)", []byte(errOut))
	c.add(name+" (stdout)", []byte(out))
	return out
}

// requireNone fails for each secret found anywhere in the corpus.
func (c *leakCorpus) requireNone(secrets map[string]string) {
	c.t.Helper()
	require.NotEmpty(c.t, c.texts)
	for what, s := range secrets {
		require.GreaterOrEqual(c.t, len(s), 12, "%s is long enough not to match by chance", what)
		for name, b := range c.texts {
			require.False(c.t, bytes.Contains(b, []byte(s)), "%s leaked into %s", what, name)
		}
	}
}

// rest calls the REST API, keeping the response in the corpus.
func (c *leakCorpus) rest(base, token, method, path, body string) (int, string) {
	c.t.Helper()
	var r io.Reader
	if body != "" {
		r = strings.NewReader(body)
	}
	req, err := http.NewRequest(method, base+path, r)
	require.NoError(c.t, err)
	req.Header.Set("Authorization", "Bearer "+token)
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := http.DefaultClient.Do(req)
	require.NoError(c.t, err)
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	require.NoError(c.t, err)
	c.add(method+" "+path, b)
	return resp.StatusCode, string(b)
}

// captureThrough submits url over REST and waits until its capture ends.
func (c *leakCorpus) captureThrough(base, token, url string) {
	c.t.Helper()
	c.captureJSON(base, token, url, `{"url": "`+url+`"}`)
}

// captureJSON submits a POST /v1/captures body and waits until its
// capture of url ends complete.
func (c *leakCorpus) captureJSON(base, token, url, submit string) {
	c.t.Helper()
	code, body := c.rest(base, token, "POST", "/v1/captures", submit)
	require.Equal(c.t, http.StatusAccepted, code, body)
	id := jsonField(c.t, body, "capture_id")
	deadline := time.Now().Add(60 * time.Second)
	for {
		code, body := c.rest(base, token, "GET", "/v1/captures/"+id, "")
		require.Equal(c.t, http.StatusOK, code, body)
		if s := jsonField(c.t, body, "state"); s == "complete" {
			return
		} else if s == "failed" || s == "partial" {
			c.t.Fatalf("capture of %s ended %s: %s", url, s, body)
		}
		require.True(c.t, time.Now().Before(deadline), "capture of %s did not finish", url)
		time.Sleep(50 * time.Millisecond)
	}
}

// stop ends a monitor process and adds its logs.
func (c *leakCorpus) stop(name string, p *process) {
	c.t.Helper()
	require.NoError(c.t, p.cmd.Process.Signal(syscall.SIGTERM))
	select {
	case <-p.done:
	case <-time.After(30 * time.Second):
		c.t.Fatalf("%s did not stop", name)
	}
	c.add(name+" logs", p.logs.Bytes())
}

func randomSecret(t *testing.T) string {
	b := make([]byte, 24)
	_, err := rand.Read(b)
	require.NoError(t, err)
	return hex.EncodeToString(b)
}

// One run of both deployment modes with every kind of secret Monitor
// holds: tokens (tenant and admin), the master key, a setting encrypted with
// it, S3 keys, database passwords and account sessions (added through the
// CLI and REST, replaced, checked, refused and revoked). After tenants,
// tokens, accounts, captures, REST calls, a capsule and a snapshot, none of
// them is in the logs, the
// command output, the REST responses, the data directory, the capsules or
// the snapshot (archives unpacked), nor in any row of the PostgreSQL
// database. Tokens are stored as their SHA-256 digest only.
func TestSecretsLeakNowhere(t *testing.T) {
	t.Parallel()
	requirePostgres(t)
	s3 := testkit.StartS3(t)
	fx := testkit.NewFxTwitter(t)
	bot := testkit.NewBotAPI(t)
	accounts, accountsAddr := serveAccountAdapter(t)
	c := &leakCorpus{t: t, texts: map[string][]byte{}}
	masterKey := randomSecret(t)
	// Not the fake's own token: the bot started with it is refused, so
	// serve logs that failure too.
	botToken := "7000001:AA" + randomSecret(t)[:34]
	secrets := map[string]string{
		"the master key":               masterKey,
		"the S3 secret key":            s3.SecretAccessKey,
		"the bot token in a setting":   botToken,
		"the bot token's secret part":  botToken[len("7000001:"):],
		"a token no one was given":     "mon_" + randomSecret(t),
		"the monitor_app password":     storetest.AppPassword,
		"the database owner password":  randomSecret(t),
		"the S3 access key (a secret)": s3.AccessKeyID,
		"a session added on the CLI":   "cli" + randomSecret(t),
		"a session replacing it":       "cl2" + randomSecret(t),
		"a session added over REST":    "rst" + randomSecret(t),
		"a session refused on add":     "bad" + randomSecret(t),
		"a session of the scale mode":  "scl" + randomSecret(t),
		"a session pasted on the web":  "web" + randomSecret(t),
		"a session pasted to the bot":  "bot" + randomSecret(t),
	}
	accounts.Expire(secrets["a session refused on add"])
	// Telegram: a session given on the CLI (gotd's session.json) reads a
	// private channel's photo; a sign-in with a 2FA password adds another.
	tgFake := testkit.NewTelegram(t)
	tgSession := tgFake.Session(t)
	tgKey := telegramAuthKey(t, tgSession)
	secrets["the Telegram session"] = string(tgSession)
	secrets["the Telegram auth key (base64)"] = base64.StdEncoding.EncodeToString(tgKey)
	secrets["the Telegram auth key (hex)"] = hex.EncodeToString(tgKey)
	secrets["the Telegram auth key (raw)"] = string(tgKey)
	secrets["the Telegram 2FA password"] = "tg2fa" + randomSecret(t)
	tgFake.SetSignIn(t, "+15550001111", "24680", secrets["the Telegram 2FA password"])
	tgChannel := &tg.Channel{ID: 1234567890, AccessHash: 4242, Title: "Spore Private", Broadcast: true}
	tgFake.AddChannel(tgChannel)
	tgPhoto := tgFake.AddFile(9001, 50_000)
	tgFake.AddMessage(tgChannel.ID, &tg.Message{ID: 5, Message: "private note", Media: &tg.MessageMediaPhoto{Photo: &tg.Photo{
		ID: 9001, AccessHash: 1, FileReference: tgPhoto.Ref, DCID: 2, Sizes: []tg.PhotoSizeClass{&tg.PhotoSize{Type: "y", W: 800, H: 600}}}}})
	tgKeys := filepath.Join(t.TempDir(), "dc.pem")
	require.NoError(t, os.WriteFile(tgKeys, tgFake.KeysPEM(), 0o600))
	session := func(account, what string) string {
		return "account=" + account + "; handle=leak_" + account + "; token=" + secrets[what]
	}
	token := func(name, tok string) string {
		tok = strings.TrimSpace(tok)
		require.True(t, strings.HasPrefix(tok, "mon_"), tok)
		secrets[name] = tok
		secrets[name+" without its prefix"] = tok[len("mon_"):]
		return tok
	}
	posts := []string{
		"https://x.com/archivist_demo/status/2078399740166950912",
		"https://x.com/archivist_demo/status/2079906847374594048",
	}
	common := map[string]string{
		"MONITOR_FXTWITTER_URL":        fx.URL(),
		"MONITOR_TELEGRAM_API_URL":     bot.URL(),
		"MONITOR_MASTER_KEY":           masterKey,
		"MONITOR_S3_ACCESS_KEY_ID":     s3.AccessKeyID,
		"MONITOR_S3_SECRET_ACCESS_KEY": s3.SecretAccessKey,
		"MONITOR_LOG_LEVEL":            "debug",
		"MONITOR_ADAPTERS":             "builtin," + accountsAddr,
		"MONITOR_TELEGRAM_APP_ID":      "1",
		"MONITOR_TELEGRAM_APP_HASH":    "test-hash",
		"MONITOR_TELEGRAM_DC_ADDR":     tgFake.Addr(),
		"MONITOR_TELEGRAM_DC_KEYS":     tgKeys,
	}
	envWith := func(extra map[string]string) map[string]string {
		m := map[string]string{}
		for k, v := range common {
			m[k] = v
		}
		for k, v := range extra {
			m[k] = v
		}
		return m
	}
	work := t.TempDir()

	// Embedded: SQLite and media files, with a snapshot.
	dataDir := t.TempDir()
	emb := envWith(map[string]string{"MONITOR_DATA_DIR": dataDir})
	allowFakeMedia(t, emb)
	c.cli(emb, false, "admin", "tenant", "create", "alice")
	c.cli(emb, false, "admin", "tenant", "create", "bob")
	alice := token("alice's token", c.cli(emb, true, "admin", "token", "create", "--tenant", "alice"))
	admin := token("the admin token", c.cli(emb, true, "admin", "token", "create", "--tenant", "bob", "--admin"))
	c.cli(emb, false, "admin", "config", "set", "telegram_token", botToken)
	c.cli(emb, false, "admin", "config", "set", "fetch_allow_hosts", testkit.FetchAllowHosts)
	c.cli(emb, false, "capture", posts[0], "--tenant", "alice", "--wait")
	added := c.cliInput(emb, session("71", "a session added on the CLI"), "account", "add", "--tenant", "alice", "--adapter", "acct")
	connID := connectionLine.FindStringSubmatch(added)[1]
	c.cliInput(emb, session("71", "a session replacing it"), "account", "add", "--tenant", "alice", "--adapter", "acct")
	_, refused, code := cliInput(t, emb, session("71", "a session refused on add"), "account", "add", "--tenant", "alice", "--adapter", "acct")
	require.Equal(t, 1, code, refused)
	c.add("refused account add (stderr)", []byte(refused))
	c.cli(emb, false, "account", "check", connID, "--tenant", "alice")
	tgAdded := c.cliInput(emb, string(tgSession), "account", "add", "--tenant", "alice", "--adapter", "telegram")
	tgConn := connectionLine.FindStringSubmatch(tgAdded)[1]
	tgFake.Fail(tg.UsersGetUsersRequestTypeID, testkit.ErrAuthKeyUnregistered) // the sign-in's new session
	c.cliInput(emb, "+15550001111\n24680\n"+secrets["the Telegram 2FA password"]+"\n",
		"account", "add", "--tenant", "bob", "--adapter", "telegram", "--sign-in")
	// A QR sign-in of the same account for bob, its password asked after
	// the scan: the terminal shows the login code, never the session.
	qrTerm := &qrScanner{fake: tgFake, scanAt: 1, errs: make(chan error, 1)}
	var qrOut bytes.Buffer
	qrCtx, qrCancel := context.WithTimeout(context.Background(), time.Minute)
	code = run(qrCtx, []string{"account", "add", "--tenant", "bob", "--adapter", "telegram", "--qr"},
		func(k string) (string, bool) { v, ok := emb[k]; return v, ok }, strings.NewReader(secrets["the Telegram 2FA password"]+"\n"), &qrOut, qrTerm)
	qrCancel()
	require.Equal(t, 0, code, qrTerm.String())
	require.NoError(t, <-qrTerm.errs)
	c.add("QR Telegram account add (stdout)", qrOut.Bytes())
	c.add("QR Telegram account add (stderr)", []byte(qrTerm.String()))
	tgFake.Fail(tg.UsersGetUsersRequestTypeID, testkit.ErrAuthKeyUnregistered)
	_, tgRefused, code := cliInput(t, emb, string(tgSession), "account", "add", "--tenant", "alice", "--adapter", "telegram")
	require.Equal(t, 1, code, tgRefused)
	c.add("refused Telegram account add (stderr)", []byte(tgRefused))
	c.cli(emb, false, "account", "list", "--tenant", "alice")
	c.cli(emb, false, "serve", "--print-config")
	// A cloud destination whose rclone config holds a user and a password
	// (not even obscured, so rclone complains about it): pushed to while it
	// is unreachable, so rclone fails and what it says is logged.
	rclone := exec.Command("rclone", "version").Run() == nil
	if rclone {
		secrets["an rclone config's user"] = "usr" + randomSecret(t)
		secrets["an rclone config's password"] = "rcl" + randomSecret(t)
		conf := filepath.Join(t.TempDir(), "rclone.conf")
		require.NoError(t, os.WriteFile(conf, []byte("[dav]\ntype = webdav\nurl = http://127.0.0.1:1/\nvendor = other\nuser = "+
			secrets["an rclone config's user"]+"\npass = "+secrets["an rclone config's password"]+"\n"), 0o600))
		c.cli(emb, false, "admin", "destination", "add", "dav", "--remote", "dav:archive", "--config", conf)
		c.cli(emb, false, "admin", "destination", "allow", "dav", "--tenant", "alice", "--default")
		c.cli(emb, false, "admin", "destination", "list")
	}
	srv := startProcess(t, emb, "monitor is serving", "http", "serve", "--http-addr", "127.0.0.1:0")
	base := srv.addr
	c.captureThrough(base, alice, posts[1])
	code, body := c.rest(base, alice, "GET", "/v1/collections", "")
	require.Equal(t, http.StatusOK, code, body)
	if rclone {
		var list struct {
			Items []struct {
				ID string `json:"id"`
			} `json:"items"`
		}
		require.NoError(t, json.Unmarshal([]byte(body), &list), body)
		code, body = c.rest(base, alice, "POST", "/v1/collections/"+list.Items[0].ID+"/push", "")
		require.Equal(t, http.StatusAccepted, code, body)
		push := jsonField(t, body, "id")
		require.Eventually(t, func() bool {
			code, body = c.rest(base, alice, "GET", "/v1/pushes/"+push, "")
			return code == http.StatusOK && jsonField(t, body, "error") != ""
		}, 60*time.Second, 100*time.Millisecond, "the push to an unreachable drive fails")
		require.Contains(t, body, "rclone:")
	}
	code, body = c.rest(base, admin, "GET", "/v1/admin/config", "")
	require.Equal(t, http.StatusOK, code, body)
	require.Contains(t, body, "telegram_token")
	code, _ = c.rest(base, secrets["a token no one was given"], "GET", "/v1/collections", "")
	require.Equal(t, http.StatusUnauthorized, code)
	code, body = c.rest(base, alice, "POST", "/v1/connections", `{"adapter": "acct", "secret": "`+session("72", "a session added over REST")+`"}`)
	require.Equal(t, http.StatusCreated, code, body)
	restConn := jsonField(t, body, "id")
	code, body = c.rest(base, alice, "POST", "/v1/connections", `{"adapter": "acct", "secret": "`+session("72", "a session refused on add")+`"}`)
	require.Equal(t, http.StatusBadRequest, code, body)
	code, body = c.rest(base, alice, "POST", "/v1/connections/"+restConn+"/check", "")
	require.Equal(t, http.StatusOK, code, body)
	protected := testkit.AccountPostURL("4242")
	c.captureJSON(base, alice, protected, `{"url": "`+protected+`", "connection_id": "`+restConn+`"}`)
	require.Len(t, accounts.Fetched(), 1, "the capture went through the account")
	tgPost := "https://t.me/c/1234567890/5"
	c.captureJSON(base, alice, tgPost, `{"url": "`+tgPost+`", "connection_id": "`+tgConn+`"}`)
	tgFake.Fail(tg.ChannelsGetMessagesRequestTypeID, testkit.ErrAuthKeyUnregistered)
	code, body = c.rest(base, alice, "POST", "/v1/captures", `{"url": "https://t.me/c/1234567890/6", "connection_id": "`+tgConn+`"}`)
	require.Equal(t, http.StatusAccepted, code, body)
	code, body = c.rest(base, alice, "GET", "/v1/connections", "")
	require.Equal(t, http.StatusOK, code, body)
	code, body = c.rest(base, alice, "DELETE", "/v1/connections/"+connID, "")
	require.Equal(t, http.StatusNoContent, code, body)
	c.stop("embedded serve", srv)

	// The web form and the bot's /account_add, on a serve whose bot is
	// the fake Bot API's own.
	withBot := envWith(map[string]string{"MONITOR_DATA_DIR": dataDir, "MONITOR_TELEGRAM_TOKEN": bot.Token()})
	link := strings.TrimSpace(c.cli(emb, true, "admin", "login-link", "--tenant", "alice"))
	srv = startProcess(t, withBot, "monitor is serving", "http", "serve", "--http-addr", "127.0.0.1:0")
	c.webAccount(srv.addr, link, session("74", "a session pasted on the web"), session("74", "a session refused on add"))
	c.botAccount(bot, session("75", "a session pasted to the bot"))
	c.stop("embedded serve with the bot", srv)
	c.cli(emb, false, "export", "capsule", "--tenant", "alice", "--include-private", "-o", filepath.Join(work, "capsule"))
	c.cli(emb, false, "export", "capsule", "--tenant", "alice", "--include-private", "--zip", "-o", filepath.Join(work, "capsule.zip"))
	c.cli(emb, false, "export", "snapshot", "-o", filepath.Join(work, "snapshot.zip"))
	c.cli(emb, false, "admin", "audit")

	// Scale: PostgreSQL with passwords in its URLs, media on S3.
	ownerURL, appURL := storetest.NewPostgresDatabase(t)
	ownerURL = withUser(t, ownerURL, "postgres", secrets["the database owner password"])
	require.Contains(t, appURL, storetest.AppPassword)
	// pgx reads a password from the user info and from ?password= alike.
	sep := "?"
	if strings.Contains(appURL, "?") {
		sep = "&"
	}
	appURL += sep + "password=" + storetest.AppPassword
	bucket := testkit.BucketName(t.Name())
	scaleDir := t.TempDir()
	scale := envWith(map[string]string{
		"MONITOR_DATA_DIR":     scaleDir,
		"MONITOR_DATABASE_URL": appURL,
		"MONITOR_BLOB_URL":     "s3://" + bucket + "?endpoint=" + s3.Endpoint,
	})
	c.cli(envWith(map[string]string{"MONITOR_DATA_DIR": scaleDir, "MONITOR_DATABASE_URL": ownerURL, "MONITOR_APP_PASSWORD": storetest.AppPassword}),
		false, "migrate")
	c.cli(scale, false, "storage-init")
	c.cli(scale, false, "serve", "--print-config")
	allowFakeMedia(t, scale)
	c.cli(scale, false, "admin", "tenant", "create", "carol")
	carol := token("carol's token", c.cli(scale, true, "admin", "token", "create", "--tenant", "carol"))
	c.cliInput(scale, session("73", "a session of the scale mode"), "account", "add", "--tenant", "carol", "--adapter", "acct")
	c.cli(scale, false, "admin", "config", "set", "telegram_token", botToken)
	c.cli(scale, false, "admin", "config", "set", "fetch_allow_hosts", testkit.FetchAllowHosts)
	srv = startProcess(t, scale, "monitor is serving", "http", "serve", "--http-addr", "127.0.0.1:0")
	base = srv.addr
	for _, u := range posts {
		c.captureThrough(base, carol, u)
	}
	code, _ = c.rest(base, secrets["a token no one was given"], "GET", "/v1/usage", "")
	require.Equal(t, http.StatusUnauthorized, code)
	c.stop("scale serve", srv)
	c.cli(scale, false, "export", "capsule", "--tenant", "carol", "--include-private", "--zip", "-o", filepath.Join(work, "scale-capsule.zip"))

	c.addTree(dataDir)
	c.addTree(work)
	if _, err := os.Stat(scaleDir); err == nil {
		_ = filepath.WalkDir(scaleDir, func(p string, d fs.DirEntry, err error) error {
			if err == nil && !d.IsDir() {
				c.addFile(p)
			}
			return err
		})
	}
	c.add("PostgreSQL rows", postgresRows(t, withUser(t, ownerURL, "postgres", "")))
	for _, name := range []string{filepath.Join(work, "capsule.zip"), filepath.Join(work, "snapshot.zip"), filepath.Join(work, "scale-capsule.zip")} {
		require.Contains(t, c.texts, name, "the archive was read")
	}
	c.requireNone(secrets)
}

// telegramAuthKey is the auth key of a gotd session.json.
func telegramAuthKey(t *testing.T, session []byte) []byte {
	t.Helper()
	var f struct {
		Data struct{ AuthKey []byte }
	}
	require.NoError(t, json.Unmarshal(session, &f))
	require.Len(t, f.Data.AuthKey, 256)
	return f.Data.AuthKey
}

// webAccount signs in on the web library with a login link, adds an
// account through the Accounts form and has another refused, keeping the
// pages in the corpus.
func (c *leakCorpus) webAccount(base, link, secret, refused string) {
	c.t.Helper()
	_, token, ok := strings.Cut(link, "/login/")
	require.True(c.t, ok, link)
	jar, err := cookiejar.New(nil)
	require.NoError(c.t, err)
	hc := &http.Client{Jar: jar}
	get := func(path string) string {
		resp, err := hc.Get(base + path)
		require.NoError(c.t, err)
		defer resp.Body.Close()
		b, err := io.ReadAll(resp.Body)
		require.NoError(c.t, err)
		require.Equal(c.t, http.StatusOK, resp.StatusCode, "%s: %s", path, b)
		c.add("web GET "+path, b)
		return string(b)
	}
	get("/login/" + token)
	page := get("/accounts")
	m := regexp.MustCompile(`name="csrf" value="([^"]+)"`).FindStringSubmatch(page)
	require.NotNil(c.t, m, "the Accounts form carries the CSRF token")
	post := func(secret string, want int) {
		form := url.Values{"csrf": {m[1]}, "adapter": {"acct"}, "secret": {secret}}
		req, err := http.NewRequest(http.MethodPost, base+"/accounts", strings.NewReader(form.Encode()))
		require.NoError(c.t, err)
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		req.Header.Set("Origin", base)
		resp, err := hc.Do(req)
		require.NoError(c.t, err)
		defer resp.Body.Close()
		b, err := io.ReadAll(resp.Body)
		require.NoError(c.t, err)
		require.Equal(c.t, want, resp.StatusCode, string(b))
		c.add("web POST /accounts", b)
	}
	post(secret, http.StatusOK) // followed to the list
	post(refused, http.StatusBadRequest)
	require.Contains(c.t, get("/accounts"), "@leak_74")
}

// botAccount runs the bot's /account_add with the account test adapter:
// the secret message is deleted from the chat and the account added. What
// the bot sent (every Bot API call but the person's own updates) goes into
// the corpus.
func (c *leakCorpus) botAccount(bot *testkit.BotAPI, secret string) {
	c.t.Helper()
	user := testkit.BotUser{ID: 9101, FirstName: "Leak", Username: "leak"}
	wait := func(what string, match func(testkit.BotCall) bool) testkit.BotCall {
		c.t.Helper()
		var found testkit.BotCall
		require.Eventually(c.t, func() bool {
			for _, call := range bot.Calls() {
				if call.OK() && match(call) {
					found = call
					return true
				}
			}
			return false
		}, 60*time.Second, 20*time.Millisecond, "waiting for %s", what)
		return found
	}
	bot.PushPrivateMessage(user, "/account_add")
	choose := wait("the platforms", func(call testkit.BotCall) bool {
		return call.ChatID == user.ID && strings.Contains(call.Text, "Which platform")
	})
	btn, ok := choose.Button("Accounts (test)")
	require.True(c.t, ok, "%v", choose.Buttons)
	bot.PushCallback(user.ID, user, choose.Result[0], btn.CallbackData)
	wait("the prompt", func(call testkit.BotCall) bool {
		return call.ChatID == user.ID && strings.Contains(call.Text, "next message")
	})
	msg := bot.PushPrivateMessage(user, secret)
	wait("the secret deleted", func(call testkit.BotCall) bool {
		return call.Method == "deleteMessage" && call.ChatID == user.ID && call.MessageID == msg.MessageID
	})
	wait("the account added", func(call testkit.BotCall) bool {
		return call.ChatID == user.ID && strings.Contains(call.Text, "@leak_75 connected")
	})
	for _, call := range bot.Calls() {
		c.add("Bot API "+call.Method, []byte(fmt.Sprintf("%+v", call)))
	}
}

// postgresRows is every row of every table in the database's public
// schema, as text.
func postgresRows(t *testing.T, url string) []byte {
	t.Helper()
	db, err := sql.Open("pgx", url)
	require.NoError(t, err)
	defer db.Close()
	rows, err := db.Query(`SELECT quote_ident(table_name) FROM information_schema.tables WHERE table_schema = 'public' AND table_type = 'BASE TABLE'`)
	require.NoError(t, err)
	var tables []string
	for rows.Next() {
		var name string
		require.NoError(t, rows.Scan(&name))
		tables = append(tables, name)
	}
	require.NoError(t, rows.Err())
	rows.Close()
	require.NotEmpty(t, tables)
	var out bytes.Buffer
	for _, table := range tables {
		rows, err := db.Query(`SELECT t::text FROM ` + table + ` t`)
		require.NoError(t, err, table)
		for rows.Next() {
			var s string
			require.NoError(t, rows.Scan(&s))
			out.WriteString(table + ": " + s + "\n")
		}
		require.NoError(t, rows.Err())
		rows.Close()
	}
	return out.Bytes()
}

// jsonField is a string field of a JSON object.
func jsonField(t *testing.T, body, key string) string {
	t.Helper()
	var m map[string]any
	require.NoError(t, json.Unmarshal([]byte(body), &m), body)
	s, _ := m[key].(string)
	return s
}
