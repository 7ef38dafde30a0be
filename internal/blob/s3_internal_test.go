package blob

import (
	"bytes"
	"errors"
	"io"
	"testing"
	"testing/iotest"

	"github.com/stretchr/testify/require"
)

func TestReadChunk(t *testing.T) {
	t.Parallel()
	const size = 3*firstChunk + 5 // not a power-of-two multiple of the first chunk
	data := make([]byte, 2*size+7)
	for i := range data {
		data[i] = byte(i * 7)
	}
	readers := map[string]func([]byte) io.Reader{
		"plain":    func(b []byte) io.Reader { return bytes.NewReader(b) },
		"one byte": func(b []byte) io.Reader { return iotest.OneByteReader(bytes.NewReader(b)) },
		"data+EOF": func(b []byte) io.Reader { return iotest.DataErrReader(bytes.NewReader(b)) },
		"half":     func(b []byte) io.Reader { return iotest.HalfReader(bytes.NewReader(b)) },
	}
	for name, newReader := range readers {
		for _, n := range []int{0, 1, firstChunk - 1, firstChunk, firstChunk + 1, 2 * firstChunk, size - 1, size, size + 1, 2*size + 7} {
			r := newReader(data[:n])
			var got []byte
			var buf []byte
			for {
				chunk, eof, err := readChunk(r, buf, size)
				require.NoError(t, err, "%s %d", name, n)
				require.LessOrEqual(t, cap(chunk), size, "%s %d: buffer beyond the part size", name, n)
				if !eof {
					require.Len(t, chunk, size, "%s %d: a chunk short of size must end the input", name, n)
				}
				got = append(got, chunk...)
				buf = chunk
				if eof {
					break
				}
			}
			require.True(t, bytes.Equal(data[:n], got), "%s %d: bytes differ", name, n)
		}
	}

	// An object that exactly fills the first buffer does not grow it.
	chunk, eof, err := readChunk(bytes.NewReader(data[:firstChunk]), nil, size)
	require.NoError(t, err)
	require.True(t, eof)
	require.Equal(t, firstChunk, cap(chunk))

	// Reader errors come back as they are, with what was read.
	boom := errors.New("boom")
	chunk, eof, err = readChunk(io.MultiReader(bytes.NewReader(data[:firstChunk]), iotest.ErrReader(boom)), nil, size)
	require.ErrorIs(t, err, boom)
	require.False(t, eof)
	require.Len(t, chunk, firstChunk)
}

func TestContentRangeTotal(t *testing.T) {
	t.Parallel()
	for v, want := range map[string]int64{"bytes 10-29/1000": 1000, "bytes 0-0/1": 1, "bytes */1000": 1000} {
		got, ok := contentRangeTotal(v)
		require.True(t, ok, v)
		require.Equal(t, want, got, v)
	}
	for _, v := range []string{"", "bytes 0-9/*", "items 0-9/10", "bytes 0-9/-1"} {
		_, ok := contentRangeTotal(v)
		require.False(t, ok, v)
	}
}

func TestHTTPRange(t *testing.T) {
	t.Parallel()
	require.Equal(t, "bytes=10-", httpRange(&Range{Offset: 10, Length: -1}))
	require.Equal(t, "bytes=10-29", httpRange(&Range{Offset: 10, Length: 20}))
	require.Equal(t, "bytes=10-", httpRange(&Range{Offset: 10, Length: 1<<63 - 1}), "no overflow")
}
