package testkit

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"
)

// PlainFetch is the anchor of the capture benchmarks: what a plain Go
// client does to keep the same media, with nothing of Monitor. It GETs
// each URL, hashes it with SHA-256 while writing it to a temporary file,
// renames the file to its hash, n at a time, and returns the time for all.
func PlainFetch(t testing.TB, client *http.Client, urls []string, n int) time.Duration {
	t.Helper()
	dir := t.TempDir()
	start := time.Now()
	work := make(chan string)
	errs := make(chan error, len(urls))
	var wg sync.WaitGroup
	for range n {
		wg.Go(func() {
			for u := range work {
				if err := fetchOne(client, dir, u); err != nil {
					errs <- err
				}
			}
		})
	}
	for _, u := range urls {
		work <- u
	}
	close(work)
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	return time.Since(start)
}

func fetchOne(client *http.Client, dir, url string) error {
	resp, err := client.Get(url)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("GET %s: %s", url, resp.Status)
	}
	f, err := os.CreateTemp(dir, "media-")
	if err != nil {
		return err
	}
	h := sha256.New()
	if _, err := io.Copy(io.MultiWriter(f, h), resp.Body); err != nil {
		f.Close()
		return err
	}
	if err := f.Close(); err != nil {
		return err
	}
	return os.Rename(f.Name(), filepath.Join(dir, hex.EncodeToString(h.Sum(nil))))
}
