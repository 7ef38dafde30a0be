package tgchannel

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"strconv"
	"strings"

	"github.com/go-telegram/bot/models"
	"github.com/google/uuid"

	"github.com/monitorhq/monitor/internal/channelapi"
)

// The command registry: one table drives how messages are handled, how
// their arguments are checked, the /help text, which button presses are
// valid, and the command menu sent with setMyCommands.

// command is one slash command.
type command struct {
	name    string // without the slash, lowercase
	args    string // the arguments as /help shows them, e.g. "ID"
	descKey string // the catalog's one line for /help and the menu
	minArgs int
	maxArgs int // -1: any number, ignored
	// checkArg validates each argument; a refused one is shown with the
	// usage.
	checkArg func(string) error
	// privateOnly commands answer only in a private chat with the bot.
	privateOnly bool
	// hidden commands stay out of the menu and /help.
	hidden bool
	run    func(j *job, ctx context.Context, args []string) error
}

// description is the command's line in /help and the menu.
func (c *command) description(l locale) string { return l.t(c.descKey) }

// usage is "/get ID".
func (c *command) usage() string {
	if c.args == "" {
		return "/" + c.name
	}
	return "/" + c.name + " " + c.args
}

// button is one kind of inline button that calls back: its data is
// "<prefix>:<argument>".
type button struct {
	prefix string
	// parse validates the argument of a press.
	parse func(arg string) error
	run   func(j *job, ctx context.Context, arg string) error
}

// registry is the table of commands and buttons.
type registry struct {
	commands []command
	buttons  []button
}

// Button prefixes, kept short: callback data holds at most 64 bytes.
const (
	btnView = "v" // v:<collection id>: show a saved item
	btnPage = "l" // l:<page>:<last id of the previous page>: a /list page
	btnSave = "s" // s:<collection id>: "save too"
	// f:<page>: a /search page; the query is in the pressed message
	// (searchQueryOf), so the data stays a few bytes for any query.
	btnSearch = "f"
	// m:<page>, b:<page>: fetch one more page, or a batch, after a page of
	// a profile or channel; x:<first page>: stop its chain.
	btnMore  = "m"
	btnBatch = "b"
	btnStop  = "x"
)

// maxLinks is how many links one message may ask to archive; each gets
// its own status message and delivery.
const maxLinks = 10

func newRegistry() *registry {
	return &registry{
		commands: []command{
			{name: "start", descKey: "cmd.start", maxArgs: -1, run: (*job).cmdStart},
			{name: "help", descKey: "cmd.help", maxArgs: -1, run: (*job).cmdHelp},
			{name: "list", descKey: "cmd.list", run: (*job).cmdList},
			{name: "search", args: "QUERY", descKey: "cmd.search", maxArgs: -1, run: (*job).cmdSearch},
			{name: "get", args: "ID", descKey: "cmd.get", minArgs: 1, maxArgs: 1, checkArg: checkItemID, run: (*job).cmdGet},
			{name: "delete", args: "ID", descKey: "cmd.delete", minArgs: 1, maxArgs: 1, checkArg: checkItemID, run: (*job).cmdDelete},
			{name: "watch", args: "URL [INTERVAL]", descKey: "cmd.watch", minArgs: 1, maxArgs: 2, run: (*job).cmdWatch},
			{name: "watches", descKey: "cmd.watches", run: (*job).cmdWatches},
			{name: "unwatch", args: "[N]", descKey: "cmd.unwatch", maxArgs: 1, run: (*job).cmdUnwatch},
			{name: "bind", args: "CHANNEL", descKey: "cmd.bind", minArgs: 1, maxArgs: 1, privateOnly: true, run: (*job).cmdBind},
			{name: "channels", descKey: "cmd.channels", privateOnly: true, run: (*job).cmdChannels},
			{name: "unbind", args: "[N]", descKey: "cmd.unbind", maxArgs: 1, privateOnly: true, run: (*job).cmdUnbind},
			{name: "account_add", descKey: "cmd.account_add", privateOnly: true, run: (*job).cmdAccountAdd},
			{name: "accounts", descKey: "cmd.accounts", privateOnly: true, run: (*job).cmdAccounts},
			{name: "account_remove", descKey: "cmd.account_remove", privateOnly: true, run: (*job).cmdAccountRemove},
			{name: "join", args: "LINK", descKey: "cmd.join", minArgs: 1, maxArgs: 1, privateOnly: true, run: (*job).cmdJoin},
			{name: "cancel", args: "[LINK]", descKey: "cmd.cancel", maxArgs: 1, privateOnly: true, run: (*job).cmdCancel},
			{name: "download", args: "[DESTINATION] LINK", descKey: "cmd.download", minArgs: 1, maxArgs: 2, privateOnly: true, run: (*job).cmdDownload},
			{name: "pin", args: "[LINK]", descKey: "cmd.pin", maxArgs: 1, privateOnly: true, run: (*job).cmdPin},
			{name: "usage", descKey: "cmd.usage", run: (*job).cmdUsage},
			{name: "token", descKey: "cmd.token", privateOnly: true, run: (*job).cmdToken},
			{name: "web", descKey: "cmd.web", privateOnly: true, run: (*job).cmdWeb},
			{name: "admin", descKey: "cmd.admin", privateOnly: true, hidden: true, run: (*job).cmdAdmin},
		},
		buttons: []button{
			{prefix: btnView, parse: checkUUID, run: (*job).btnView},
			{prefix: btnPage, parse: checkPageArg, run: (*job).btnPage},
			{prefix: btnSave, parse: checkUUID, run: (*job).btnSave},
			{prefix: btnSearch, parse: checkSearchPage, run: (*job).btnSearch},
			{prefix: btnMore, parse: checkUUID, run: (*job).btnMore},
			{prefix: btnBatch, parse: checkUUID, run: (*job).btnBatch},
			{prefix: btnStop, parse: checkUUID, run: (*job).btnStop},
			{prefix: btnUnwatch, parse: checkUUID, run: (*job).btnUnwatch},
			{prefix: btnAccountAdd, parse: checkAdapterID, run: (*job).btnAccountAdd},
			{prefix: btnAccountRemove, parse: checkUUID, run: (*job).btnAccountRemove},
			{prefix: btnAccountQR, parse: checkAdapterID, run: (*job).btnAccountQR},
		},
	}
}

func (r *registry) find(name string) *command {
	for i := range r.commands {
		if r.commands[i].name == name {
			return &r.commands[i]
		}
	}
	return nil
}

// menu is the command list for setMyCommands in l.
func (r *registry) menu(l locale) []models.BotCommand {
	var out []models.BotCommand
	for _, c := range r.commands {
		if c.hidden {
			continue
		}
		desc := c.description(l)
		if c.args != "" {
			desc = c.args + " — " + desc
		}
		out = append(out, models.BotCommand{Command: c.name, Description: desc})
	}
	return out
}

// help is the /help text in l.
func (r *registry) help(l locale, username string) string {
	var b strings.Builder
	b.WriteString(l.t("help.intro"))
	for _, c := range r.commands {
		if c.hidden {
			continue
		}
		fmt.Fprintf(&b, "%s — %s\n", c.usage(), c.description(l))
	}
	b.WriteString(l.t("help.group", username, username))
	return b.String()
}

// request is what a message asks for.
type request struct {
	cmd   *command
	args  []string
	links []string
	// problem, when set, is what to answer instead.
	problem string
}

// parseMessage reads a message addressed to the bot; problems are worded
// in l.
func (r *registry) parseMessage(u channelapi.Update, username string, l locale) request {
	var tokens []string
	for _, t := range strings.Fields(u.Text) {
		if strings.EqualFold(strings.TrimRight(t, ",:"), "@"+username) {
			continue // the mention that addressed the message to us
		}
		tokens = append(tokens, t)
	}
	if len(tokens) > 0 && strings.HasPrefix(tokens[0], "/") && len(tokens[0]) > 1 && !strings.Contains(tokens[0][1:], "/") {
		name, at, _ := strings.Cut(tokens[0][1:], "@")
		name = strings.ToLower(name)
		if at != "" && !strings.EqualFold(at, username) {
			return request{problem: l.t("parse.other_bot")}
		}
		c := r.find(name)
		if c == nil {
			return request{problem: l.t("parse.unknown", name)}
		}
		args := tokens[1:]
		if c.privateOnly && u.ChatType != string(models.ChatTypePrivate) {
			return request{problem: l.t("parse.private_only", c.usage(), username)}
		}
		if len(args) < c.minArgs || (c.maxArgs >= 0 && len(args) > c.maxArgs) {
			return request{problem: usageProblem(l, c, "")}
		}
		if c.maxArgs >= 0 && c.checkArg != nil {
			for _, a := range args {
				if c.checkArg(a) != nil {
					return request{problem: usageProblem(l, c, a)}
				}
			}
		}
		return request{cmd: c, args: args}
	}
	links := findLinks(u.Text, u.Entities)
	switch {
	case len(links) > maxLinks:
		return request{problem: l.t("parse.too_many_links", len(links), maxLinks)}
	case len(links) > 0:
		return request{links: links}
	}
	return request{problem: l.t("parse.nothing")}
}

// usageProblem is a command's usage, after what was wrong with the
// argument bad ("" = the number of arguments).
func usageProblem(l locale, c *command, bad string) string {
	s := l.t("parse.usage", c.usage(), c.description(l))
	if bad != "" {
		s = l.t("parse.bad_id", bad) + "\n" + s
	}
	return s
}

// parseCallback finds the button a press names and checks its argument.
func (r *registry) parseCallback(data string) (*button, string, error) {
	prefix, arg, ok := strings.Cut(data, ":")
	if ok {
		for i := range r.buttons {
			if r.buttons[i].prefix == prefix {
				if err := r.buttons[i].parse(arg); err != nil {
					return nil, "", err
				}
				return &r.buttons[i], arg, nil
			}
		}
	}
	return nil, "", errors.New("this button no longer works")
}

// callbackData builds the data of a button about one collection:
// "v:<id>" is 38 bytes, within Telegram's 64.
func callbackData(prefix string, id uuid.UUID) string {
	return prefix + ":" + id.String()
}

// pageData builds the data of a /list page button: "l:<page>:<id>" stays
// within Telegram's 64 bytes for any page an int16 can count.
func pageData(page int16, last uuid.UUID) string {
	return btnPage + ":" + strconv.Itoa(int(page)) + ":" + last.String()
}

// checkItemID accepts a collection id or a prefix of at least 8 hex
// digits of one (core resolves it).
func checkItemID(s string) error {
	digits := 0
	for i, r := range s {
		switch {
		case (r >= '0' && r <= '9') || (r >= 'a' && r <= 'f') || (r >= 'A' && r <= 'F'):
			digits++
		case r == '-' && i > 0:
		default:
			digits = -1
		}
		if digits < 0 {
			break
		}
	}
	if digits < 8 || digits > 32 || len(s) > 36 {
		return fmt.Errorf("%q is not an item id", s)
	}
	return nil
}

func checkUUID(s string) error {
	_, err := uuid.Parse(s)
	return err
}

// checkPageArg validates "<page>:<uuid>".
func checkPageArg(s string) error {
	_, _, err := parsePageArg(s)
	return err
}

func parsePageArg(s string) (page int, after uuid.UUID, err error) {
	p, id, ok := strings.Cut(s, ":")
	if !ok {
		return 0, uuid.Nil, errors.New("no page")
	}
	page, err = strconv.Atoi(p)
	if err != nil || page < 2 {
		return 0, uuid.Nil, errors.New("bad page")
	}
	after, err = uuid.Parse(id)
	return page, after, err
}

// findLinks returns the distinct links of a message: its url and
// text_link entities, else the words that look like web links.
func findLinks(text string, entities []channelapi.Entity) []string {
	var out []string
	seen := map[string]bool{}
	add := func(s string) {
		s = strings.TrimRight(s, ".,;:!?)»”'\"")
		if !strings.Contains(s, "://") {
			s = "https://" + s
		}
		u, err := url.Parse(s)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || !strings.Contains(u.Host, ".") {
			return
		}
		if !seen[s] {
			seen[s] = true
			out = append(out, s)
		}
	}
	for _, e := range entities {
		switch e.Type {
		case "url":
			add(utf16Slice(text, e.Offset, e.Length))
		case "text_link":
			add(e.URL)
		}
	}
	if len(out) == 0 {
		for _, w := range strings.Fields(text) {
			if strings.HasPrefix(w, "http://") || strings.HasPrefix(w, "https://") {
				add(w)
			}
		}
	}
	return out
}
