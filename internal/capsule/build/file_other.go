//go:build !unix

package build

import (
	"io"
	"os"
)

// createFile creates (or truncates) a file for writing.
func createFile(path string) (io.WriteCloser, error) { return os.Create(path) }
