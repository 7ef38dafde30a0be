package app

import "testing"

// An invite's code is shown masked: its first four and last two
// characters, or nothing of a short one.
func TestMaskInvite(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{
		"https://t.me/+HarbourInvite01":    "https://t.me/+Harb…01",
		"https://t.me/+Short123":           "https://t.me/+…",
		"https://t.me/joinchat/AbCdEfGhIj": "https://t.me/joinchat/AbCd…Ij",
		"garbage":                          "…",
	} {
		if got := maskInvite(in); got != want {
			t.Errorf("maskInvite(%q) = %q, want %q", in, got, want)
		}
	}
}
