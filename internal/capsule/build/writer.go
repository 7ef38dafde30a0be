package build

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"sync"

	"github.com/monitorhq/monitor/internal/web"
)

// pool renders pages and writes files on GOMAXPROCS workers. Build hands
// it work in the site's order and decides everything that depends on
// that order (the sitemap's list, the next page's links) before it does,
// so that the files are the same bytes whatever order the workers finish
// in. Files are written without fsync: the staging folder is moved into
// place only when every file is written, and a build that was cut off is
// run again, not repaired.
type pool struct {
	jobs     chan job
	wg       sync.WaitGroup
	bufs     sync.Pool // *bytes.Buffer, for pages
	copyBufs sync.Pool // *[]byte, for media

	mu       sync.Mutex
	err      error // of the earliest job that failed
	errSeq   int
	seq      int // jobs handed out, numbered from 1
	pages    int
	files    int
	bytes    int64
	done     int // collection pages written
	progress func(done, total int)
	total    int

	dirs sync.Map // folders known to exist under the staging root

	framesMu sync.Mutex
	// frames are the layouts drawn once (web.Frame) for this build's
	// one site, by key; a nil frame: pages of that key are drawn whole.
	frames map[web.FrameKey]*web.Frame
}

type job struct {
	seq int
	run func(p *pool) error
}

func newPool(progress func(done, total int), total int) *pool {
	n := runtime.GOMAXPROCS(0)
	p := &pool{jobs: make(chan job, 2*n), progress: progress, total: total}
	p.bufs.New = func() any { return new(bytes.Buffer) }
	p.copyBufs.New = func() any { b := make([]byte, 32<<10); return &b }
	for range n {
		p.wg.Add(1)
		go func() {
			defer p.wg.Done()
			for j := range p.jobs {
				if p.failed() {
					continue
				}
				if err := j.run(p); err != nil {
					p.fail(j.seq, err)
				}
			}
		}()
	}
	return p
}

// submit hands a job to a worker; it waits while all are busy, which
// bounds the pages held in memory at once.
func (p *pool) submit(run func(p *pool) error) {
	p.mu.Lock()
	p.seq++
	seq := p.seq
	p.mu.Unlock()
	p.jobs <- job{seq: seq, run: run}
}

// wait lets every job handed out finish and says the error of the
// earliest one that failed.
func (p *pool) wait() error {
	close(p.jobs)
	p.wg.Wait()
	return p.err
}

// failed says whether a job failed, so that the build stops handing out
// more.
func (p *pool) failed() bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.err != nil
}

func (p *pool) fail(seq int, err error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.err == nil || seq < p.errSeq {
		p.err, p.errSeq = err, seq
	}
}

// render renders a page with the shared (parsed once) templates, makes
// its links name files and writes it.
func (p *pool) render(r *web.Renderer, path, rel, tmpl string, pg *web.Page, collection bool) error {
	b := p.bufs.Get().(*bytes.Buffer)
	out := p.bufs.Get().(*bytes.Buffer)
	defer p.bufs.Put(b)
	defer p.bufs.Put(out)
	b.Reset()
	out.Reset()
	f, err := p.frame(r, pg)
	if err != nil {
		return err
	}
	if f != nil {
		err = f.Render(b, r, tmpl, pg)
	} else {
		err = r.Render(b, tmpl, pg)
	}
	if err != nil {
		return err
	}
	if err := fileLinks(out, b.Bytes()); err != nil {
		return fmt.Errorf("build: %s: %w", rel, err)
	}
	if err := p.writeFile(path, out.Bytes()); err != nil {
		return err
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	p.pages++
	if collection {
		p.done++
		if p.progress != nil {
			p.progress(p.done, p.total)
		}
	}
	return nil
}

// frame is the layout drawn once for the pages like pg (web.Frame), and
// nil for a page that must be rendered whole.
func (p *pool) frame(r *web.Renderer, pg *web.Page) (*web.Frame, error) {
	key, ok := web.FrameKeyOf(pg)
	if !ok {
		return nil, nil
	}
	p.framesMu.Lock()
	defer p.framesMu.Unlock()
	if f, ok := p.frames[key]; ok {
		return f, nil
	}
	f, ok, err := r.Frame(pg)
	if err != nil {
		return nil, err
	}
	var fp *web.Frame
	if ok {
		fp = &f
	}
	if p.frames == nil {
		p.frames = map[web.FrameKey]*web.Frame{}
	}
	p.frames[key] = fp
	return fp, nil
}

// mkdir makes the folder of a file, once per folder.
func (p *pool) mkdir(file string) error {
	dir := filepath.Dir(file)
	if _, ok := p.dirs.Load(dir); ok {
		return nil
	}
	// Most folders are new and their parent exists: try that first,
	// which is one system call where MkdirAll makes two.
	err := os.Mkdir(dir, 0o755)
	if errors.Is(err, fs.ErrNotExist) {
		err = os.MkdirAll(dir, 0o755)
	} else if errors.Is(err, fs.ErrExist) {
		err = nil
	}
	if err != nil {
		return fmt.Errorf("build: %w", err)
	}
	p.dirs.Store(dir, true)
	return nil
}

func (p *pool) writeFile(path string, data []byte) error {
	if err := p.mkdir(path); err != nil {
		return err
	}
	f, err := createFile(path)
	if err != nil {
		return fmt.Errorf("build: %w", err)
	}
	_, err = f.Write(data)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("build: %w", err)
	}
	p.count(int64(len(data)))
	return nil
}

// copyFile copies a media file out of the capsule.
func (p *pool) copyFile(path string, in io.ReadCloser) error {
	defer in.Close()
	if err := p.mkdir(path); err != nil {
		return err
	}
	f, err := createFile(path)
	if err != nil {
		return fmt.Errorf("build: %w", err)
	}
	buf := p.copyBufs.Get().(*[]byte)
	defer p.copyBufs.Put(buf)
	n, err := io.CopyBuffer(f, struct{ io.Reader }{in}, *buf)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return err
	}
	p.count(n)
	return nil
}

func (p *pool) count(n int64) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.files++
	p.bytes += n
}
