// Command monitor is Monitor's single binary: the server, the one-shot
// operations (migrate, admin) and, as they arrive, the channel and adapter
// processes. This package only wires commands to internal/runtime and
// internal/app; it holds no business logic.
package main

import (
	"context"
	"io"
	"os"
	"os/signal"
	"syscall"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	// After the first signal, a second one kills the process the usual way.
	go func() { <-ctx.Done(); stop() }()
	os.Exit(run(ctx, os.Args[1:], os.LookupEnv, os.Stdin, os.Stdout, os.Stderr))
}

// run executes one command line and returns the process exit code: 0 on
// success, 1 when the command failed, 2 when it was used wrongly. stdin is
// read only by commands that take a secret there (monitor account add).
func run(ctx context.Context, args []string, env func(string) (string, bool), stdin io.Reader, stdout, stderr io.Writer) int {
	cmd := newRootCmd(env, stdin, stdout, stderr)
	cmd.SetArgs(args)
	return execute(ctx, cmd, stderr)
}
