package config

import (
	"fmt"
	"io"
	"net/url"
)

// redacted stands in for a secret value in anything a person may read.
const redacted = "<redacted>"

// PrintTo writes the effective configuration, one MONITOR_* variable a line
// with where its value came from. Secrets are redacted; a database URL keeps
// its shape but loses its password.
func (c *Config) PrintTo(w io.Writer) error {
	for _, o := range options() {
		v := c.values[o.env]
		if _, err := fmt.Fprintf(w, "%s=%s\t# %s\n", o.env, o.display(v), c.sources[o.env]); err != nil {
			return err
		}
	}
	return nil
}

// display is how an option's value may be shown to a person.
func (o option) display(v string) string {
	switch {
	case o.env == "MONITOR_DATABASE_URL":
		return redactURLPassword(v)
	case o.secret && v != "":
		return redacted
	}
	return v
}

// redactURLPassword hides the password of a URL, and the whole value when it
// cannot be parsed (it might be a key=value connection string with one).
func redactURLPassword(v string) string {
	u, err := url.Parse(v)
	if err != nil {
		return redacted
	}
	if _, has := u.User.Password(); has {
		u.User = url.UserPassword(u.User.Username(), "xxxxx")
		return u.String()
	}
	q := u.Query()
	if q.Has("password") {
		q.Set("password", "xxxxx")
		u.RawQuery = q.Encode()
		return u.String()
	}
	return v
}
