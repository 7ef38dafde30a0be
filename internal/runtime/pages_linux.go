package runtime

import (
	"bufio"
	"os"
	"strconv"
	"strings"
	"syscall"
)

// madvise advises the kernel on a range of the program's own mappings,
// given by address (not as a Go slice: it is no memory Go allocated).
func madvise(addr, length uintptr, advice int) {
	_, _, _ = syscall.Syscall(syscall.SYS_MADVISE, addr, length, uintptr(advice))
}

// releaseStartupPages gives back the pages of Monitor's own program file
// that starting touched, and asks the kernel to read only what is used
// from then on. A Go program's code and read-only data are mapped from
// its file; each first touch of a page reads the pages around it too (the
// disk's read-ahead, 128 KiB to several MiB), so a 100 MB program showed
// 45 MB of it resident after start, most of it never run again. Dropping
// read-only file pages loses nothing: the next touch maps them again from
// the page cache. Writable mappings are left alone.
func releaseStartupPages() {
	exe, err := os.Executable()
	if err != nil {
		return
	}
	f, err := os.Open("/proc/self/maps")
	if err != nil {
		return
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		// 00400000-022e1000 r-xp 00000000 fe:00 9977973   /path/to/monitor
		fields := strings.Fields(sc.Text())
		if len(fields) < 6 || fields[5] != exe || (fields[1] != "r-xp" && fields[1] != "r--p") {
			continue
		}
		from, to, ok := strings.Cut(fields[0], "-")
		start, err1 := strconv.ParseUint(from, 16, 64)
		end, err2 := strconv.ParseUint(to, 16, 64)
		if !ok || err1 != nil || err2 != nil || end <= start {
			continue
		}
		madvise(uintptr(start), uintptr(end-start), syscall.MADV_RANDOM)
		madvise(uintptr(start), uintptr(end-start), syscall.MADV_DONTNEED)
	}
}
