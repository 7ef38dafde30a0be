package tgchannel

import (
	"regexp"
	"strings"
	"time"
	"unicode"
	"unicode/utf16"
	"unicode/utf8"
)

// Telegram's limits, in UTF-16 code units as Telegram counts them.
const (
	maxText    = 4096 // a message text
	maxCaption = 1024 // a media caption
)

// summaryRunes is how many characters a /list item shows.
const summaryRunes = 100

// utf16Len counts s in UTF-16 code units.
func utf16Len(s string) int {
	n := 0
	for _, r := range s {
		n += utf16.RuneLen(r)
	}
	return n
}

// utf16Slice returns the part of s from offset for length UTF-16 units, as
// Telegram's entities address text; out-of-range parts are clipped.
func utf16Slice(s string, offset, length int) string {
	var b strings.Builder
	pos := 0
	for _, r := range s {
		n := utf16.RuneLen(r)
		if pos >= offset && pos+n <= offset+length {
			b.WriteRune(r)
		}
		pos += n
		if pos >= offset+length {
			break
		}
	}
	return b.String()
}

// splitUTF16 cuts s into pieces of at most limit UTF-16 units whose
// concatenation is s. A cut never falls inside a character (so never
// between the halves of a surrogate pair); it prefers the end of a line,
// then of a word, when one lies in the second half of the piece.
func splitUTF16(s string, limit int) []string {
	var out []string
	for utf16Len(s) > limit {
		cut, lastLine, lastSpace, units := 0, -1, -1, 0
		for i := 0; i < len(s); {
			r, w := utf8.DecodeRuneInString(s[i:])
			n := utf16.RuneLen(r)
			if n < 0 {
				n = 1 // an invalid byte is sent as U+FFFD
			}
			if units+n > limit {
				break
			}
			units += n
			i += w
			cut = i
			if units > limit/2 {
				switch {
				case r == '\n':
					lastLine = cut
				case unicode.IsSpace(r):
					lastSpace = cut
				}
			}
		}
		switch {
		case lastLine > 0:
			cut = lastLine
		case lastSpace > 0:
			cut = lastSpace
		case cut == 0:
			_, cut = utf8.DecodeRuneInString(s) // a limit below one character
		}
		out = append(out, s[:cut])
		s = s[cut:]
	}
	if s != "" || len(out) == 0 {
		out = append(out, s)
	}
	return out
}

// splitCaption divides a text between a media caption (at most
// maxCaption units) and the messages that follow it (at most maxText
// each). Whitespace at the cuts is trimmed; empty parts are dropped.
func splitCaption(text string) (caption string, rest []string) {
	parts := splitUTF16(text, maxCaption)
	caption = strings.TrimSpace(parts[0])
	return caption, splitMessages(strings.Join(parts[1:], ""))
}

// splitMessages divides a text into messages of at most maxText units,
// trimmed, none empty.
func splitMessages(text string) []string {
	var out []string
	for _, p := range splitUTF16(text, maxText) {
		if p = strings.TrimSpace(p); p != "" {
			out = append(out, p)
		}
	}
	return out
}

// mediaMarkers matches the media markers at the end of a summary as core
// renders them, such as " [图片][视频]" or " [photo][video]".
var mediaMarkers = regexp.MustCompile(`(?:\s*\[[^\[\]\s]{1,8}\])+$`)

// foldSummary makes a one-line summary of at most summaryRunes
// characters: runs of whitespace (newlines included) become one space;
// when too long the text is cut and ended with an ellipsis, keeping the
// trailing media markers.
func foldSummary(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	if len([]rune(s)) <= summaryRunes {
		return s
	}
	markers := ""
	if loc := mediaMarkers.FindStringIndex(s); loc != nil {
		markers = strings.TrimSpace(s[loc[0]:])
		s = strings.TrimSpace(s[:loc[0]])
	}
	room := summaryRunes - 1 // the ellipsis
	if markers != "" {
		room -= len([]rune(markers)) + 1 // a space before the markers
	}
	body := []rune(s)
	if room < 0 {
		room = 0
	}
	if len(body) > room {
		body = []rune(strings.TrimSpace(string(body[:room])))
	}
	out := string(body) + "…"
	if markers != "" {
		out += " " + markers
	}
	return out
}

// utc8 is the zone the seed shows times in.
var utc8 = time.FixedZone("UTC+8", 8*60*60)

// formatTime shows a time in UTC+8; "" when it is unknown.
func formatTime(t *time.Time) string {
	if t == nil || t.IsZero() {
		return ""
	}
	return t.In(utc8).Format("2006-01-02 15:04") + " (UTC+8)"
}

// formatWait says how long until something lifts, for people, in l.
func formatWait(l locale, seconds int) string {
	d := time.Duration(seconds) * time.Second
	switch {
	case d < time.Minute:
		return l.t("wait.s", seconds)
	case d < time.Hour:
		return l.t("wait.min", (seconds+59)/60)
	default:
		h := seconds / 3600
		m := (seconds%3600 + 59) / 60
		if m == 0 {
			return l.t("wait.h", h)
		}
		return l.t("wait.hmin", h, m)
	}
}
