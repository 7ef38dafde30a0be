package httpapi

import (
	"math"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestParseRange(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		header string
		want   byteRange
		ok     bool
	}{
		{"bytes=0-499", byteRange{first: 0, last: 499}, true},
		{"bytes=500-999", byteRange{first: 500, last: 999}, true},
		{"bytes=9500-", byteRange{first: 9500, last: -1}, true},
		{"bytes=-500", byteRange{suffix: true, n: 500}, true},
		{"bytes=-0", byteRange{suffix: true, n: 0}, true},
		{"bytes=5-5", byteRange{first: 5, last: 5}, true},
		{"Bytes = 1-2", byteRange{first: 1, last: 2}, true},
		{"bytes=0-99999999999999999999", byteRange{first: 0, last: math.MaxInt64}, true},
		// Ignored: the whole file is served.
		{"", byteRange{}, false},
		{"bytes=0-1,4-5", byteRange{}, false},
		{"items=0-1", byteRange{}, false},
		{"bytes=5-3", byteRange{}, false},
		{"bytes=-", byteRange{}, false},
		{"bytes=a-b", byteRange{}, false},
		{"bytes=1", byteRange{}, false},
		{"bytes=+1-2", byteRange{}, false},
		{"bytes=1-2-3", byteRange{}, false},
		{"bytes 0-1", byteRange{}, false},
	} {
		got, ok := parseRange(tc.header)
		require.Equal(t, tc.ok, ok, tc.header)
		if ok {
			require.Equal(t, tc.want, got, tc.header)
		}
	}
}

func TestByteRangeResolve(t *testing.T) {
	t.Parallel()
	const size = 10
	for _, tc := range []struct {
		header     string
		off, n     int64
		satisfying bool
	}{
		{"bytes=0-0", 0, 1, true},
		{"bytes=0-9", 0, 10, true},
		{"bytes=0-", 0, 10, true},
		{"bytes=2-5", 2, 4, true},
		{"bytes=8-20", 8, 2, true},
		{"bytes=9-", 9, 1, true},
		{"bytes=0-99999999999999999999", 0, 10, true},
		{"bytes=-3", 7, 3, true},
		{"bytes=-10", 0, 10, true},
		{"bytes=-50", 0, 10, true},
		{"bytes=10-", 0, 0, false},
		{"bytes=10-12", 0, 0, false},
		{"bytes=99999999999999999999-", 0, 0, false},
		{"bytes=-0", 0, 0, false},
	} {
		b, ok := parseRange(tc.header)
		require.True(t, ok, tc.header)
		off, n, ok := b.resolve(size)
		require.Equal(t, tc.satisfying, ok, tc.header)
		if ok {
			require.Equal(t, [2]int64{tc.off, tc.n}, [2]int64{off, n}, tc.header)
		}
	}

	// An empty file satisfies no range.
	for _, h := range []string{"bytes=0-", "bytes=-1", "bytes=0-0"} {
		b, _ := parseRange(h)
		_, _, ok := b.resolve(0)
		require.False(t, ok, h)
	}
}

func TestByteRangeLength(t *testing.T) {
	t.Parallel()
	for header, want := range map[string]int64{
		"bytes=0-0":                    1,
		"bytes=2-5":                    4,
		"bytes=7-":                     -1,
		"bytes=3-99999999999999999999": -1,
		"bytes=0-9223372036854775806":  math.MaxInt64,
		"bytes=10-9223372036854775806": math.MaxInt64 - 10,
	} {
		b, ok := parseRange(header)
		require.True(t, ok, header)
		require.Equal(t, want, b.length(), header)
	}
}

func TestETagMatches(t *testing.T) {
	t.Parallel()
	etag := `"` + strings.Repeat("ab", 32) + `"`
	for header, want := range map[string]bool{
		"":                                   false,
		etag:                                 true,
		"W/" + etag:                          true,
		"*":                                  true,
		` "x" , ` + etag:                     true,
		`"x", "y"`:                           false,
		strings.Trim(etag, `"`):              false,
		`"` + strings.Repeat("cd", 32) + `"`: false,
	} {
		require.Equal(t, want, etagMatches(header, etag), header)
	}
}
