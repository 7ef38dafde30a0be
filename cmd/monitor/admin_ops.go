package main

import (
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/monitorhq/monitor/internal/app"
)

// newAdminOpsCmds are the admin commands for settings, events and the
// error log.
func newAdminOpsCmds(d *deps) []*cobra.Command {
	config := &cobra.Command{
		Use:   "config",
		Short: "Runtime settings: list, get, set",
		Long: `Runtime settings are stored in the database and apply without editing the
environment; those marked restart apply at the next start. Secret settings are
stored encrypted with MONITOR_MASTER_KEY and never shown.`,
		Args: cobra.NoArgs,
	}
	config.AddCommand(newConfigListCmd(d), newConfigGetCmd(d), newConfigSetCmd(d))
	return []*cobra.Command{config, newEventsCmd(d), newErrorsCmd(d)}
}

func newConfigListCmd(d *deps) *cobra.Command {
	return &cobra.Command{
		Use:   "list",
		Short: "List every setting with its value and default",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return d.withApp(cmd, func(a *app.App) error {
				views, err := a.SettingsList(cmd.Context())
				if err != nil {
					return err
				}
				rows := make([][]string, 0, len(views))
				for _, v := range views {
					rows = append(rows, []string{v.Key, orDash(v.Value), orDash(v.Default), yesNo(v.Set), yesNo(v.Restart)})
				}
				return d.table("KEY\tVALUE\tDEFAULT\tSET\tRESTART", rows)
			})
		},
	}
}

func newConfigGetCmd(d *deps) *cobra.Command {
	return &cobra.Command{
		Use:     "get KEY",
		Short:   "Print a setting's value (secrets print <redacted>)",
		Example: "  monitor admin config get timezone",
		Args:    exactArgs(1, "KEY"),
		RunE: func(cmd *cobra.Command, args []string) error {
			return d.withApp(cmd, func(a *app.App) error {
				v, err := a.Setting(cmd.Context(), args[0])
				if err != nil {
					return err
				}
				d.printf("%s\n", v.Value)
				return nil
			})
		},
	}
}

func newConfigSetCmd(d *deps) *cobra.Command {
	return &cobra.Command{
		Use:   "set KEY VALUE",
		Short: "Change a setting and print the stored value; VALUE default resets it",
		Long: `Change a setting, with an entry in the audit log, and print the stored value.
The value "default" removes the stored value so the default applies again.
Secret settings (telegram_token) need MONITOR_MASTER_KEY and print <redacted>.`,
		Example: `  monitor admin config set timezone Asia/Shanghai
  monitor admin config set error_log_retention_days 14
  monitor admin config set timezone default`,
		Args: exactArgs(2, "KEY and VALUE"),
		RunE: func(cmd *cobra.Command, args []string) error {
			return d.withApp(cmd, func(a *app.App) error {
				v, err := a.SetSetting(cmd.Context(), app.ActorCLI, args[0], args[1])
				if err != nil {
					return err
				}
				d.printf("%s\n", v.Value)
				return nil
			})
		},
	}
}

func newEventsCmd(d *deps) *cobra.Command {
	var all bool
	var limit int
	cmd := &cobra.Command{
		Use:   "events [--all]",
		Short: "System events (adapter offline, readiness, queue backlog), open ones unless --all",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			status := app.EventOpen
			if all {
				status = "all"
			}
			return d.withApp(cmd, func(a *app.App) error {
				events, err := a.Events(cmd.Context(), status, limit)
				if err != nil {
					return err
				}
				rows := make([][]string, 0, len(events))
				for _, e := range events {
					rows = append(rows, []string{e.Key, e.Severity, e.Status, strconv.FormatInt(e.Count, 10),
						e.FirstAt.UTC().Format(time.RFC3339), e.LastAt.UTC().Format(time.RFC3339), e.Message})
				}
				return d.table("KEY\tSEVERITY\tSTATUS\tCOUNT\tFIRST\tLAST\tMESSAGE", rows)
			})
		},
	}
	cmd.Flags().BoolVar(&all, "all", false, "also list resolved events")
	cmd.Flags().IntVar(&limit, "limit", 100, "how many events")
	cmd.AddCommand(&cobra.Command{
		Use:     "resolve KEY",
		Short:   "Mark an event resolved (it opens again if it happens again)",
		Example: "  monitor admin events resolve queue.backlog",
		Args:    exactArgs(1, "KEY"),
		RunE: func(cmd *cobra.Command, args []string) error {
			return d.withApp(cmd, func(a *app.App) error {
				e, err := a.ResolveEvent(cmd.Context(), app.ActorCLI, args[0])
				if err != nil {
					return err
				}
				d.printf("%s %s\n", e.Key, e.Status)
				return nil
			})
		},
	})
	return cmd
}

func newErrorsCmd(d *deps) *cobra.Command {
	var limit int
	var source string
	cmd := &cobra.Command{
		Use:   "errors [--limit N] [--source S]",
		Short: "The error log: one row per failed capture or download, newest first",
		Example: `  monitor admin errors
  monitor admin errors --source download --limit 20`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return d.withApp(cmd, func(a *app.App) error {
				logs, err := a.ErrorLogs(cmd.Context(), source, limit)
				if err != nil {
					return err
				}
				rows := make([][]string, 0, len(logs))
				for _, e := range logs {
					capture := "-"
					if e.CaptureID != nil {
						capture = e.CaptureID.String()
					}
					rows = append(rows, []string{e.At.UTC().Format(time.RFC3339), e.Source, orDash(e.Stage), orDash(e.Code),
						e.Severity, e.Message, capture, oneLine(e.Detail)})
				}
				return d.table("AT\tSOURCE\tSTAGE\tCODE\tSEVERITY\tMESSAGE\tCAPTURE\tDETAIL", rows)
			})
		},
	}
	cmd.Flags().IntVar(&limit, "limit", 50, "how many rows, 1 to 1000")
	cmd.Flags().StringVar(&source, "source", "", "only rows of this source: capture, download, ...")
	return cmd
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

func yesNo(b bool) string {
	if b {
		return "yes"
	}
	return "no"
}

// oneLine keeps a table row on one line.
func oneLine(s string) string {
	return strings.Join(strings.Fields(s), " ")
}
