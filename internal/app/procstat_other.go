//go:build !linux

package app

import "time"

// processRSS is not measured off Linux.
func processRSS() (int64, bool) { return 0, false }

// processCPU is not measured off Linux.
func processCPU() (time.Duration, bool) { return 0, false }
