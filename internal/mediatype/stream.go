package mediatype

import (
	"errors"
	"fmt"
	"io"
	"net/http"
	"time"
)

// streamChunk is how much of a media file is written per write deadline.
const streamChunk = 64 << 10

// Stream copies n bytes of src to w, for the REST API's and the channel
// protocol's media routes alike. With a window it moves the connection's
// write deadline window ahead before each chunk, so a large file streams
// for as long as the client keeps reading, while a client that stops
// reading is cut off after window (the server's WriteTimeout alone would
// cut every long download).
func Stream(w http.ResponseWriter, src io.Reader, n int64, window time.Duration) error {
	if window <= 0 {
		_, err := io.CopyN(w, src, n)
		return err
	}
	rc := http.NewResponseController(w)
	buf := make([]byte, streamChunk)
	for n > 0 {
		if err := rc.SetWriteDeadline(time.Now().Add(window)); err != nil && !errors.Is(err, http.ErrNotSupported) {
			return fmt.Errorf("mediatype: extend the write deadline: %w", err)
		}
		k, err := io.ReadFull(src, buf[:min(int64(len(buf)), n)])
		if k > 0 {
			if _, werr := w.Write(buf[:k]); werr != nil {
				return werr
			}
			n -= int64(k)
		}
		if errors.Is(err, io.EOF) { // the file is shorter than its size
			return io.ErrUnexpectedEOF
		}
		if err != nil {
			return err
		}
	}
	return nil
}
