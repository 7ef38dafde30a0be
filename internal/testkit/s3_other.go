//go:build !linux

package testkit

import "os/exec"

// setParentDeathSignal is Linux-only; elsewhere test cleanups alone stop
// the server.
func setParentDeathSignal(*exec.Cmd) {}
