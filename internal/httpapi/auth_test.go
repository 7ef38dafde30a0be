package httpapi

import (
	"testing"

	"github.com/stretchr/testify/require"
)

func TestBearerToken(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name   string
		values []string
		token  string // "" = refused
	}{
		{"bearer", []string{"Bearer mon_abc"}, "mon_abc"},
		{"scheme case", []string{"bearer mon_abc"}, "mon_abc"},
		{"extra space", []string{"Bearer   mon_abc "}, "mon_abc"},
		{"absent", nil, ""},
		{"empty", []string{""}, ""},
		{"no token", []string{"Bearer"}, ""},
		{"blank token", []string{"Bearer  "}, ""},
		{"basic", []string{"Basic dXNlcjpwYXNz"}, ""},
		{"two tokens", []string{"Bearer a b"}, ""},
		{"two headers", []string{"Bearer a", "Bearer b"}, ""},
	} {
		token, ok := bearerToken(tc.values)
		require.Equal(t, tc.token != "", ok, tc.name)
		require.Equal(t, tc.token, token, tc.name)
	}
}
