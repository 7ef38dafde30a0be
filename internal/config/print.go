package config

import (
	"fmt"
	"io"
	"net/url"
	"strings"
)

// redacted stands in for a secret value in anything a person may read.
const redacted = "<redacted>"

// hidden stands in for a secret inside a URL, which keeps its shape.
const hidden = "xxxxx"

// PrintTo writes the effective configuration, one MONITOR_* variable a line
// with where its value came from. Secrets are redacted; a database or blob
// URL keeps its shape but loses its password and secret parameters.
func (c *Config) PrintTo(w io.Writer) error {
	for _, o := range options() {
		v := c.values[o.env]
		if _, err := fmt.Fprintf(w, "%s=%s\t# %s\n", o.env, o.display(v), c.sources[o.env]); err != nil {
			return err
		}
	}
	return nil
}

// display is how an option's value may be shown to a person, in printed
// configuration and in error messages alike.
func (o option) display(v string) string {
	switch {
	case o.url:
		return RedactURL(v)
	case o.secret && v != "":
		return redacted
	}
	return v
}

// RedactURL hides the secrets a URL may carry: the password of its user
// info, the value of every query parameter whose name says it holds a
// secret (password, secret, token, key, signature, credential), and the
// user info of a parameter that is itself a URL (an S3 endpoint). A value
// that does not parse as a URL with a scheme is hidden whole: it might be
// a key=value connection string with a password in it.
func RedactURL(v string) string {
	if v == "" {
		return v
	}
	u, err := url.Parse(v)
	if err != nil || u.Scheme == "" {
		return redacted
	}
	changed := false
	if _, has := u.User.Password(); has {
		u.User = url.UserPassword(u.User.Username(), hidden)
		changed = true
	}
	if u.RawQuery != "" {
		if q, ok := redactQuery(u.RawQuery); ok {
			u.RawQuery, changed = q, true
		}
	}
	if !changed {
		return v
	}
	return u.String()
}

// redactQuery rewrites the secret parameters of a raw query, keeping the
// others as written and in order. It reports whether it changed anything.
func redactQuery(raw string) (string, bool) {
	parts := strings.Split(raw, "&")
	changed := false
	for i, p := range parts {
		name, value, _ := strings.Cut(p, "=")
		key, err := url.QueryUnescape(name)
		if err != nil {
			parts[i], changed = hidden, true
			continue
		}
		if secretParam(key) {
			if value != "" {
				parts[i], changed = name+"="+hidden, true
			}
			continue
		}
		val, err := url.QueryUnescape(value)
		if err != nil {
			parts[i], changed = name+"="+hidden, true
			continue
		}
		if inner, ok := redactUserInfo(val); ok {
			parts[i], changed = name+"="+inner, true
		}
	}
	return strings.Join(parts, "&"), changed
}

// secretParam reports whether a query parameter's name says it holds a
// secret: pgx's password and sslpassword, S3-style secret and access keys,
// session tokens, presigned signatures and credentials.
func secretParam(name string) bool {
	n := strings.ToLower(name)
	for _, s := range []string{"pass", "secret", "token", "key", "signature", "credential", "auth"} {
		if strings.Contains(n, s) {
			return true
		}
	}
	return false
}

// redactUserInfo hides the user info of a URL inside a value (an S3
// endpoint), or the whole value when it has an '@' but no readable user
// info. It reports whether it hid anything.
func redactUserInfo(v string) (string, bool) {
	if !strings.Contains(v, "@") {
		return v, false
	}
	if u, err := url.Parse(v); err == nil && u.User != nil {
		u.User = url.User(hidden)
		return u.String(), true
	}
	return hidden, true
}
