package app

import (
	"context"
	"fmt"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/monitorhq/monitor/internal/netguard"
	"github.com/monitorhq/monitor/internal/store"
)

// Settings are the runtime settings an operator changes without editing
// the environment, stored in the config table. Unset keys have defaults.
type Settings struct {
	// Timezone is the operating timezone: daily limits reset at its midnight.
	Timezone *time.Location
	// CollectionRetention is how long content nobody saves is kept.
	CollectionRetention time.Duration
	// ObjectGCGrace is how old a pending object must be to be collected,
	// and how long garbage waits.
	ObjectGCGrace time.Duration
	// ErrorLogRetention is how long error log rows are kept.
	ErrorLogRetention time.Duration
	// ChannelRetention is how long the channel plumbing is kept: handled
	// updates, their finished work, replies and the bot messages whose
	// buttons still work.
	ChannelRetention time.Duration
	// ApprovalMode is "open" (new self-service tenants are enabled) or
	// "approval" (pending until an admin approves).
	ApprovalMode string
	// SelfService are the limits of tenants that sign themselves up.
	SelfService TenantLimits
	// DefaultQuotaBytes is the quota of self-service tenants (nil: none).
	DefaultQuotaBytes *int64
	// SystemName is shown to people.
	SystemName string
	// MaxMediaBytes and the worker counts override the environment when
	// set; they apply at the next start (0: not set).
	MaxMediaBytes   int64
	CaptureWorkers  int
	DownloadWorkers int
	ControlWorkers  int
	// FetchAllowHosts are the hosts and ranges media downloads may reach
	// although they are not public addresses (empty: public only).
	FetchAllowHosts netguard.Allow
	// WebBaseURL is the address people open the web library at, the base
	// of sign-in links ("": http:// and the HTTP listen address).
	WebBaseURL string
	// BackupInterval is how often a snapshot is written (0: never);
	// BackupKeep how many of the newest are kept (backups.go).
	BackupInterval time.Duration
	BackupKeep     int
	// Notify is how operators are told about events, without its secrets
	// (notify.go).
	Notify NotifySettings
	// Watches are the limits of watched sources (watches.go).
	Watches WatchSettings
	// AccountJoin: tenants may ask to join chats by invite link through
	// their accounts, each request approved by an operator (joins.go).
	// Off by default.
	AccountJoin bool
	// AccountQRWait is how long the bot's QR sign-in waits for a scan
	// (channelqr.go).
	AccountQRWait time.Duration
}

// WatchSettings bound watched sources (seed 003's watch settings).
type WatchSettings struct {
	// MinInterval is the shortest interval a watch may ask for.
	MinInterval time.Duration
	// ApplyEnabled: tenants may create watches (admins always may).
	ApplyEnabled bool
	// RequireApproval: a tenant's new watch waits for an admin.
	RequireApproval bool
	// MaxSources is how many distinct sources may be watched at once.
	MaxSources int
	// PerTenant is how many watches one tenant may have.
	PerTenant int
}

// TenantLimits bound how much one tenant may ask for (0: no limit).
type TenantLimits struct {
	// IntervalSeconds is the least time between two submits.
	IntervalSeconds int `json:"submit_interval_seconds"`
	// Daily is how many captures per operating day.
	Daily int `json:"daily_limit"`
	// Concurrent is how many unfinished captures at once.
	Concurrent int `json:"concurrent_limit"`
}

// settingKey declares one runtime setting: its type, default, validation
// and where it goes in Settings.
type settingKey struct {
	name     string
	typ      string // string, int, bool, duration
	def      string
	help     string
	secret   bool
	restart  bool
	validate func(v string) error
	apply    func(s *Settings, v string)
}

func intIn(lo, hi int) func(string) error {
	return func(v string) error {
		n, err := strconv.Atoi(v)
		if err != nil || n < lo || n > hi {
			return fmt.Errorf("must be a whole number from %d to %d", lo, hi)
		}
		return nil
	}
}

func atoi(v string) int { n, _ := strconv.Atoi(v); return n }

// settingKeys is the single list of runtime settings.
func settingKeys() []settingKey {
	return []settingKey{
		{name: "timezone", typ: "string", def: "UTC", help: "operating timezone (IANA name); daily limits reset at its midnight",
			validate: func(v string) error {
				if _, err := time.LoadLocation(v); err != nil || v == "" || v == "Local" {
					return fmt.Errorf("must be an IANA timezone name such as UTC or Asia/Shanghai")
				}
				return nil
			},
			apply: func(s *Settings, v string) { s.Timezone, _ = time.LoadLocation(v) }},
		{name: "collection_retention_days", typ: "int", def: "7", help: "days content nobody saves is kept before it is purged",
			validate: intIn(0, 3650), apply: func(s *Settings, v string) { s.CollectionRetention = time.Duration(atoi(v)) * 24 * time.Hour }},
		{name: "object_gc_grace_hours", typ: "int", def: "24", help: "hours before an upload whose commit was lost is collected",
			validate: intIn(1, 8760), apply: func(s *Settings, v string) { s.ObjectGCGrace = time.Duration(atoi(v)) * time.Hour }},
		{name: "error_log_retention_days", typ: "int", def: "30", help: "days error log rows are kept",
			validate: intIn(1, 365), apply: func(s *Settings, v string) { s.ErrorLogRetention = time.Duration(atoi(v)) * 24 * time.Hour }},
		{name: "channel_retention_days", typ: "int", def: "30",
			help:     "days handled channel updates, their finished work, replies and the bot's messages with buttons are kept; buttons on older messages stop working",
			validate: intIn(1, 3650), apply: func(s *Settings, v string) { s.ChannelRetention = time.Duration(atoi(v)) * 24 * time.Hour }},
		{name: "approval_mode", typ: "string", def: "open", help: "open: self-service tenants start enabled; approval: pending until an admin approves",
			validate: func(v string) error {
				if v != "open" && v != "approval" {
					return fmt.Errorf("must be open or approval")
				}
				return nil
			},
			apply: func(s *Settings, v string) { s.ApprovalMode = v }},
		{name: "self_service_submit_interval_seconds", typ: "int", def: "10", help: "least seconds between two submits of a self-service tenant (0: none)",
			validate: intIn(0, 86400), apply: func(s *Settings, v string) { s.SelfService.IntervalSeconds = atoi(v) }},
		{name: "self_service_daily_limit", typ: "int", def: "50", help: "captures a day of a self-service tenant (0: no limit)",
			validate: intIn(0, 1000000), apply: func(s *Settings, v string) { s.SelfService.Daily = atoi(v) }},
		{name: "self_service_concurrent_limit", typ: "int", def: "2", help: "unfinished captures at once of a self-service tenant (0: no limit)",
			validate: intIn(0, 1000), apply: func(s *Settings, v string) { s.SelfService.Concurrent = atoi(v) }},
		{name: "default_quota_bytes", typ: "int", def: "", help: "storage quota of self-service tenants in bytes (empty: unlimited)",
			validate: func(v string) error {
				if v == "" {
					return nil
				}
				if n, err := strconv.ParseInt(v, 10, 64); err != nil || n < 0 {
					return fmt.Errorf("must be a whole number of bytes, or empty for unlimited")
				}
				return nil
			},
			apply: func(s *Settings, v string) {
				if n, err := strconv.ParseInt(v, 10, 64); err == nil {
					s.DefaultQuotaBytes = &n
				}
			}},
		{name: "system_name", typ: "string", def: "Monitor", help: "the name people see",
			validate: func(v string) error {
				if strings.TrimSpace(v) == "" || len(v) > 64 {
					return fmt.Errorf("must be 1 to 64 characters")
				}
				return nil
			},
			apply: func(s *Settings, v string) { s.SystemName = v }},
		{name: "max_media_bytes", typ: "int", def: "", restart: true, help: "largest media file stored, overriding MONITOR_MAX_MEDIA_SIZE (empty: the environment's)",
			validate: func(v string) error {
				if v == "" {
					return nil
				}
				if n, err := strconv.ParseInt(v, 10, 64); err != nil || n < 1 {
					return fmt.Errorf("must be a whole number of bytes, at least 1, or empty")
				}
				return nil
			},
			apply: func(s *Settings, v string) { s.MaxMediaBytes, _ = strconv.ParseInt(v, 10, 64) }},
		{name: "capture_workers", typ: "int", def: "", restart: true, help: "workers of the capture queue, overriding MONITOR_CAPTURE_WORKERS (empty: the environment's)",
			validate: optionalInt(1, 1000), apply: func(s *Settings, v string) { s.CaptureWorkers = atoi(v) }},
		{name: "download_workers", typ: "int", def: "", restart: true, help: "workers of the download queue, overriding MONITOR_DOWNLOAD_WORKERS",
			validate: optionalInt(1, 1000), apply: func(s *Settings, v string) { s.DownloadWorkers = atoi(v) }},
		{name: "control_workers", typ: "int", def: "", restart: true, help: "workers of the control queue, overriding MONITOR_CONTROL_WORKERS",
			validate: optionalInt(1, 1000), apply: func(s *Settings, v string) { s.ControlWorkers = atoi(v) }},
		{name: "fetch_allow_hosts", typ: "string", def: "",
			help:     "host names, IP addresses or CIDR ranges, comma-separated, that media downloads may reach although they are private (e.g. 127.0.0.1, 10.0.0.0/8, minio.internal); empty: public addresses only",
			validate: func(v string) error { _, err := netguard.ParseAllow(v); return err },
			apply:    func(s *Settings, v string) { s.FetchAllowHosts, _ = netguard.ParseAllow(v) }},
		{name: "web_base_url", typ: "string", def: "",
			help:     "the address people open the web library at, such as https://monitor.example.org or https://example.org/monitor: the base of sign-in links (empty: http:// and MONITOR_HTTP_ADDR)",
			validate: checkWebBaseURL, apply: func(s *Settings, v string) { s.WebBaseURL = strings.TrimRight(v, "/") }},
		{name: "backup_interval_hours", typ: "int", def: "0", help: "hours between scheduled snapshots of the instance (0: none); embedded default with media files only",
			validate: intIn(0, 8760), apply: func(s *Settings, v string) { s.BackupInterval = time.Duration(atoi(v)) * time.Hour }},
		{name: "backup_keep_count", typ: "int", def: "7", help: "how many of the newest snapshots are kept; older ones are deleted after each new one",
			validate: intIn(1, 1000), apply: func(s *Settings, v string) { s.BackupKeep = atoi(v) }},
		{name: "notify_min_severity", typ: "string", def: "warn", help: "least severity of the events operators are told about: info, warn or error",
			validate: oneOf(SeverityInfo, SeverityWarn, SeverityError), apply: func(s *Settings, v string) { s.Notify.MinSeverity = v }},
		{name: "notify_recovery", typ: "bool", def: "true", help: "also tell operators when an event they were told about is resolved (true or false)",
			validate: oneOf("true", "false"), apply: func(s *Settings, v string) { s.Notify.Recovery = v == "true" }},
		{name: "notify_language", typ: "string", def: "en", help: "language of notifications: en or zh-CN",
			validate: oneOf("en", "zh-CN"), apply: func(s *Settings, v string) { s.Notify.Language = v }},
		{name: "notify_telegram_chat_id", typ: "string", def: "", help: "Telegram chat that gets notifications: a chat id such as -1001234567890 or a @channel (empty: none)",
			validate: telegramChatID, apply: func(s *Settings, v string) { s.Notify.TelegramChat = v }},
		{name: "notify_telegram_token", typ: "string", def: "", secret: true,
			help: "Bot API token that sends notifications (empty: the bot's own token)", validate: telegramToken,
			apply: func(*Settings, string) {}}, // read with SecretSetting
		{name: "notify_webhook_url", typ: "string", def: "", secret: true,
			help: "http(s) address that gets each notification as a JSON POST (empty: none)", validate: webhookURL,
			apply: func(*Settings, string) {}}, // read with SecretSetting
		{name: "notify_webhook_secret", typ: "string", def: "", secret: true,
			help: "secret of the webhook's X-Monitor-Signature: sha256=<HMAC-SHA256 of the body>, at least 16 characters", validate: webhookSecret,
			apply: func(*Settings, string) {}}, // read with SecretSetting
		{name: "watch_min_interval_seconds", typ: "int", def: "300", help: "shortest interval, in seconds, a watched source may be read at",
			validate: intIn(60, 86400), apply: func(s *Settings, v string) { s.Watches.MinInterval = time.Duration(atoi(v)) * time.Second }},
		{name: "watch_apply_enabled", typ: "bool", def: "true", help: "tenants may watch profiles and channels (false: only admins add watches)",
			validate: boolValue, apply: func(s *Settings, v string) { s.Watches.ApplyEnabled = v == "true" }},
		{name: "watch_require_approval", typ: "bool", def: "false", help: "a tenant's new watch is pending until an admin approves it",
			validate: boolValue, apply: func(s *Settings, v string) { s.Watches.RequireApproval = v == "true" }},
		{name: "watch_max_sources", typ: "int", def: "20", help: "how many distinct profiles and channels may be watched at once, over all tenants",
			validate: intIn(0, 100000), apply: func(s *Settings, v string) { s.Watches.MaxSources = atoi(v) }},
		{name: "watch_per_user_limit", typ: "int", def: "3", help: "how many watches one tenant may have",
			validate: intIn(0, 10000), apply: func(s *Settings, v string) { s.Watches.PerTenant = atoi(v) }},
		{name: SettingAccountJoin, typ: "bool", def: "false",
			help:     "tenants may ask to join channels by invite link through their accounts (Telegram); an operator approves each request",
			validate: boolValue, apply: func(s *Settings, v string) { s.AccountJoin = v == "true" }},
		{name: SettingAccountQRWait, typ: "int", def: "300",
			help:     "seconds the bot's /account_add waits for a QR code to be scanned (Telegram sign-in)",
			validate: intIn(5, 600), apply: func(s *Settings, v string) { s.AccountQRWait = time.Duration(atoi(v)) * time.Second }},
		{name: "telegram_token", typ: "string", def: "", secret: true, restart: true,
			help: "Telegram Bot API token, used when MONITOR_TELEGRAM_TOKEN is not set", validate: telegramToken,
			apply: func(*Settings, string) {}}, // read with SecretSetting
	}
}

// boolValue accepts true or false.
func boolValue(v string) error {
	if v != "true" && v != "false" {
		return fmt.Errorf("must be true or false")
	}
	return nil
}

func optionalInt(lo, hi int) func(string) error {
	check := intIn(lo, hi)
	return func(v string) error {
		if v == "" {
			return nil
		}
		return check(v)
	}
}

func settingKeyByName(name string) (settingKey, bool) {
	for _, k := range settingKeys() {
		if k.name == name {
			return k, true
		}
	}
	return settingKey{}, false
}

// Settings reads the runtime settings, with defaults for unset keys.
// Stored values that no longer validate (a key's rules tightened) fall back
// to the default rather than stopping the system.
func (a *App) Settings(ctx context.Context) (Settings, error) {
	stored, err := a.store.SettingList(ctx)
	if err != nil {
		return Settings{}, err
	}
	byKey := map[string]string{}
	for _, st := range stored {
		byKey[st.Key] = st.Value
	}
	var s Settings
	for _, k := range settingKeys() {
		v, ok := byKey[k.name]
		if !ok || k.secret || k.validate(v) != nil {
			v = k.def
		}
		k.apply(&s, v)
	}
	return s, nil
}

// SettingView is one runtime setting as operators see it.
type SettingView struct {
	Key     string `json:"key"`
	Value   string `json:"value"`
	Default string `json:"default"`
	Type    string `json:"type"`
	Set     bool   `json:"set"`
	Secret  bool   `json:"secret"`
	Restart bool   `json:"restart_to_apply"`
	Help    string `json:"help"`
}

// SettingsList lists every setting with its effective value; secret values
// are never shown.
func (a *App) SettingsList(ctx context.Context) ([]SettingView, error) {
	stored, err := a.store.SettingList(ctx)
	if err != nil {
		return nil, err
	}
	byKey := map[string]store.Setting{}
	for _, st := range stored {
		byKey[st.Key] = st
	}
	var out []SettingView
	for _, k := range settingKeys() {
		st, set := byKey[k.name]
		v := k.def
		if set {
			v = st.Value
		}
		if k.secret && v != "" {
			v = "<redacted>"
		}
		out = append(out, SettingView{Key: k.name, Value: v, Default: k.def, Type: k.typ, Set: set, Secret: k.secret, Restart: k.restart, Help: k.help})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Key < out[j].Key })
	return out, nil
}

// SetSetting validates and stores a setting, with an audit entry by actor
// (before/after without secret values). An empty value for a key whose
// default is empty, or value "default", removes the stored value.
func (a *App) SetSetting(ctx context.Context, actor, key, value string) (SettingView, error) {
	k, ok := settingKeyByName(key)
	if !ok {
		return SettingView{}, unknownSetting(key)
	}
	reset := value == "default"
	stored := value
	if !reset {
		if err := k.validate(value); err != nil {
			if k.secret { // never echo a secret, not even a wrong one
				return SettingView{}, errorf(ErrInvalid, "setting %s: %v", key, err)
			}
			return SettingView{}, errorf(ErrInvalid, "setting %s=%q: %v", key, value, err)
		}
		if k.secret {
			var err error
			if stored, err = a.sealSetting(key, value); err != nil {
				return SettingView{}, err
			}
		}
	}
	show := func(v string) string {
		if k.secret && v != "" {
			return "<redacted>"
		}
		return v
	}
	err := a.store.InTx(ctx, func(tx *store.Tx) error {
		before := k.def
		if old, err := tx.SettingGet(ctx, key); err == nil {
			before = old.Value
		} else if !isNotFound(err) {
			return err
		}
		if reset {
			if err := tx.SettingDelete(ctx, key); err != nil {
				return err
			}
			value = k.def
		} else if err := tx.SettingPut(ctx, store.Setting{Key: key, Value: stored, Type: k.typ, Secret: k.secret}); err != nil {
			return err
		}
		return audit(ctx, tx, actor, "config.set", key, map[string]string{"value": show(before)}, map[string]string{"value": show(value)})
	})
	if err != nil {
		return SettingView{}, err
	}
	if key == "fetch_allow_hosts" {
		a.forgetFetchAllowHosts()
	}
	return SettingView{Key: key, Value: show(value), Default: k.def, Type: k.typ, Set: !reset, Secret: k.secret, Restart: k.restart, Help: k.help}, nil
}

// Setting shows one setting as SettingsList does: a secret's value is
// never shown, only "<redacted>" when it is set.
func (a *App) Setting(ctx context.Context, key string) (SettingView, error) {
	if _, ok := settingKeyByName(key); !ok {
		return SettingView{}, unknownSetting(key)
	}
	all, err := a.SettingsList(ctx)
	if err != nil {
		return SettingView{}, err
	}
	for _, v := range all {
		if v.Key == key {
			return v, nil
		}
	}
	return SettingView{}, unknownSetting(key)
}

// unknownSetting refuses a key the registry does not have, naming those it
// has.
func unknownSetting(key string) error {
	names := make([]string, 0)
	for _, k := range settingKeys() {
		names = append(names, k.name)
	}
	sort.Strings(names)
	return errorf(ErrInvalid, "no setting named %q; settings: %s", key, strings.Join(names, ", "))
}

// telegramToken checks the shape of a Bot API token, "<bot id>:<secret>".
func telegramToken(v string) error {
	id, secret, ok := strings.Cut(v, ":")
	valid := ok && id != "" && len(secret) >= 30
	for _, r := range id {
		valid = valid && r >= '0' && r <= '9'
	}
	for _, r := range secret {
		valid = valid && (r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '_' || r == '-')
	}
	if !valid {
		return fmt.Errorf("must be a Bot API token as @BotFather gives it, such as 123456789:AAE…")
	}
	return nil
}
