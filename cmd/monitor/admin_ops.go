package main

import "github.com/spf13/cobra"

// newAdminOpsCmds are the admin commands for settings, events and the
// error log.
func newAdminOpsCmds(d *deps) []*cobra.Command { return nil }
