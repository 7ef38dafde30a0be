//go:build unix

package build

import (
	"io"
	"io/fs"
	"syscall"
)

// createFile creates (or truncates) a file for writing with one system
// call. os.Create also registers each file with the runtime's poller,
// which for a regular file only fails and costs five more calls; a build
// writes tens of thousands of files.
func createFile(path string) (io.WriteCloser, error) {
	for {
		fd, err := syscall.Open(path, syscall.O_WRONLY|syscall.O_CREAT|syscall.O_TRUNC|syscall.O_CLOEXEC, 0o644)
		if err == syscall.EINTR {
			continue
		}
		if err != nil {
			return nil, &fs.PathError{Op: "open", Path: path, Err: err}
		}
		return &rawFile{fd: fd, path: path}, nil
	}
}

// rawFile is a file descriptor opened by createFile.
type rawFile struct {
	fd   int
	path string
}

func (f *rawFile) Write(p []byte) (int, error) {
	n := 0
	for n < len(p) {
		m, err := syscall.Write(f.fd, p[n:])
		if err == syscall.EINTR {
			continue
		}
		if err != nil {
			return n, &fs.PathError{Op: "write", Path: f.path, Err: err}
		}
		if m == 0 {
			return n, &fs.PathError{Op: "write", Path: f.path, Err: io.ErrShortWrite}
		}
		n += m
	}
	return n, nil
}

func (f *rawFile) Close() error {
	if err := syscall.Close(f.fd); err != nil {
		return &fs.PathError{Op: "close", Path: f.path, Err: err}
	}
	return nil
}
