//go:build !linux

package runtime

// releaseStartupPages does nothing where /proc/self/maps does not exist.
func releaseStartupPages() {}
