// Command gencapsule writes a generated capsule of N posts and, with
// -hugo, the same posts as a Hugo site, for scripts/bench-build. With
// -verifiable every post carries its hash chain and the capsule its signed
// monitor.sum, for `monitor check --verify`.
//
//	go run ./scripts/gencapsule -n 10000 -capsule /tmp/c -hugo /tmp/h
//	go run ./scripts/gencapsule -n 10000 -capsule /tmp/c -verifiable
package main

import (
	"flag"
	"fmt"
	"os"

	"github.com/monitorhq/monitor/internal/capsule/capsulegen"
)

func main() {
	n := flag.Int("n", 10000, "how many posts")
	capsuleDir := flag.String("capsule", "", "folder to write the capsule into")
	hugoDir := flag.String("hugo", "", "folder to write the Hugo site into (optional)")
	verifiable := flag.Bool("verifiable", false, "chain every post and sign the capsule, as an export does")
	flag.Parse()
	if *capsuleDir == "" || *n <= 0 {
		fmt.Fprintln(os.Stderr, "gencapsule: name the capsule folder with -capsule and a positive -n")
		os.Exit(2)
	}
	gen := capsulegen.Capsule
	if *verifiable {
		gen = capsulegen.VerifiableCapsule
	}
	if err := gen(*capsuleDir, *n); err != nil {
		fmt.Fprintln(os.Stderr, "gencapsule:", err)
		os.Exit(1)
	}
	if *hugoDir != "" {
		if err := capsulegen.Hugo(*hugoDir, *n); err != nil {
			fmt.Fprintln(os.Stderr, "gencapsule:", err)
			os.Exit(1)
		}
	}
}
