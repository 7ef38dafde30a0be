// Package kit is what every Monitor source adapter shares: the URL gate
// of Resolve, the first checks of Fetch, a bounded upstream GET whose
// answer is kept as the capture's source response, the protocol's typed
// errors, the one-line summary and the entity graph builder.
//
// It imports only the standard library, api/adapter/v1 and gRPC, so an
// adapter built on it still runs inside `monitor serve` or alone as
// `monitor adapter <id>`. Its conformance suite is kittest.
package kit

import (
	"fmt"
	"strconv"
)

// Quote quotes s for a message, cut to a readable length, so hostile input
// cannot fill or garble what a person reads.
func Quote(s string) string {
	const limit = 40
	if r := []rune(s); len(r) > limit {
		s = string(r[:limit]) + "…"
	}
	return strconv.Quote(s)
}

// ByteSize formats a byte count for messages: whole MiB or KiB when it is
// one, else bytes.
func ByteSize(n int64) string {
	switch {
	case n >= 1<<20 && n%(1<<20) == 0:
		return fmt.Sprintf("%d MiB", n>>20)
	case n >= 1<<10 && n%(1<<10) == 0:
		return fmt.Sprintf("%d KiB", n>>10)
	}
	return fmt.Sprintf("%d bytes", n)
}
