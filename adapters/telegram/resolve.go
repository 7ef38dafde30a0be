package telegram

import (
	"context"
	"fmt"
	"strconv"
	"strings"

	"github.com/monitorhq/monitor/adapters/kit"
	adapterv1 "github.com/monitorhq/monitor/api/adapter/v1"
)

// Username limits. Telegram gives new usernames 5 to 32 characters; the
// collectible ones sold on Fragment may have 4, so 4 is accepted too.
const (
	minUsernameLen = 4
	maxUsernameLen = 32
)

// reservedPath reports whether seg, the first path segment of a t.me link
// (lowercase), is a Telegram page rather than a username. "s", "c",
// "joinchat" and invite links ("+...") are handled before this list.
func reservedPath(seg string) bool {
	switch seg {
	case "addstickers", "addemoji", "addtheme", "addlist", "share", "proxy", "socks",
		"setlanguage", "login", "confirmphone", "iv", "bg", "boost", "contact", "invoice",
		"giftcode", "nft", "m":
		return true
	}
	return false
}

// Resolve turns a t.me URL into a target. Failures are answered in
// ResolveResponse.error; only an empty request is an RPC error.
func (a *Adapter) Resolve(_ context.Context, req *adapterv1.ResolveRequest) (*adapterv1.ResolveResponse, error) {
	if err := kit.CheckRequest(req); err != nil {
		return nil, err
	}
	return resolve(req.GetUrl(), req.GetAccount()), nil
}

// resolve does the work of Resolve on a non-empty URL.
//
// Forms: t.me/<channel>/<id> (also with ?single, ?embed=1, ?comment=...,
// and under telegram.me and telegram.dog), t.me/s/<channel>/<id>,
// t.me/<group>/<topic>/<id> → the message; t.me/<channel> and
// t.me/s/<channel> → the channel. t.me/c/... (private) needs an account;
// invite links and Telegram's own pages are unsupported.
//
// With account (the fetch goes through a tenant's session), a t.me/c/
// message link resolves to a message of the channel "c/<internal id>",
// and t.me/c/<internal id> to that channel, a collection.
func resolve(raw string, account bool) *adapterv1.ResolveResponse {
	segs, resp := gate().Check(raw)
	if resp != nil {
		return resp
	}
	first := strings.ToLower(segs[0])
	switch {
	case strings.HasPrefix(first, "+") || strings.HasPrefix(first, "%2b") || first == "joinchat":
		return kit.ResolveError(adapterv1.ErrorCode_ERROR_CODE_UNSUPPORTED,
			"this is an invite link to a private chat, not a post: to archive its channel, ask to join it through your Telegram account "+
				"(monitor account join, where the operator allows joining), then send the channel's link; or send a link to a post in a public channel (t.me/<channel>/<id>)")
	case first == "c":
		return resolvePrivate(segs[1:], account)
	case first == "s":
		if len(segs) < 2 {
			return kit.ResolveError(adapterv1.ErrorCode_ERROR_CODE_INVALID_URL, "the link has no channel after t.me/s/; copy the link again")
		}
		segs = segs[1:]
	case reservedPath(first):
		return kit.ResolveError(adapterv1.ErrorCode_ERROR_CODE_UNSUPPORTED,
			fmt.Sprintf("t.me/%s is a Telegram page, not a channel or a post; send a link like https://t.me/<channel>/<id>", quoteBare(first)))
	}

	name := segs[0]
	if !validUsername(name) {
		return kit.ResolveError(adapterv1.ErrorCode_ERROR_CODE_INVALID_URL,
			fmt.Sprintf("%s is not a valid Telegram username (%d to %d letters, digits or _, starting with a letter)",
				kit.Quote(name), minUsernameLen, maxUsernameLen))
	}
	name = strings.ToLower(name)
	switch len(segs) {
	case 1:
		return channelTarget(name)
	case 2:
		return messageFromSeg(name, segs[1])
	case 3:
		// t.me/<group>/<topic>/<id>: a message in a forum topic; the id
		// alone names it within the group.
		if _, ok := parseID(segs[1]); !ok {
			return kit.ResolveError(adapterv1.ErrorCode_ERROR_CODE_UNSUPPORTED,
				"this t.me page is not supported; send a link to a post (t.me/<channel>/<id>) or a channel (t.me/<channel>)")
		}
		return messageFromSeg(name, segs[2])
	}
	return kit.ResolveError(adapterv1.ErrorCode_ERROR_CODE_UNSUPPORTED,
		"this t.me page is not supported; send a link to a post (t.me/<channel>/<id>) or a channel (t.me/<channel>)")
}

// resolvePrivate answers t.me/c/<internal id>[/<topic>]/<id>: links into
// private channels and groups, readable only with an account.
func resolvePrivate(rest []string, account bool) *adapterv1.ResolveResponse {
	if len(rest) == 0 {
		return kit.ResolveError(adapterv1.ErrorCode_ERROR_CODE_INVALID_URL, "the link has no channel id after t.me/c/; copy the link again")
	}
	if _, ok := parseID(rest[0]); !ok {
		return kit.ResolveError(adapterv1.ErrorCode_ERROR_CODE_INVALID_URL,
			fmt.Sprintf("%s is not a valid private channel id in a t.me/c/ link", kit.Quote(rest[0])))
	}
	for _, s := range rest[1:min(len(rest), 3)] {
		if _, ok := parseID(s); !ok {
			return kit.ResolveError(adapterv1.ErrorCode_ERROR_CODE_INVALID_URL,
				fmt.Sprintf("message id %s is not a valid Telegram message id", kit.Quote(s)))
		}
	}
	if account && len(rest) >= 2 && len(rest) <= 3 {
		id, _ := parseID(rest[len(rest)-1])
		return messageTarget(privateScope(rest[0]), id)
	}
	if account && len(rest) == 1 {
		return privateChannelTarget(privateScope(rest[0]))
	}
	if account {
		return kit.ResolveError(adapterv1.ErrorCode_ERROR_CODE_UNSUPPORTED,
			"this t.me/c/ link is not a channel or a post; send a link like https://t.me/c/<id>/<post> or https://t.me/c/<id>")
	}
	return kit.ResolveError(adapterv1.ErrorCode_ERROR_CODE_NEEDS_ACCOUNT,
		"t.me/c/ links point into a private channel or group; archiving them needs a Telegram account connection "+
			"(monitor account add --adapter telegram, then capture with it). If the channel is public, send its t.me/<channel>/<id> link instead")
}

// privateScopePrefix starts the channel part of a private channel's
// targets: "c/<internal id>", as its t.me/c/ links name it.
const privateScopePrefix = "c/"

// privateScope is the channel part of a private channel's targets.
func privateScope(internalID string) string {
	id, _ := parseID(internalID)
	return privateScopePrefix + strconv.FormatInt(id, 10)
}

// messageFromSeg resolves the message id segment of a channel's link.
func messageFromSeg(channel, seg string) *adapterv1.ResolveResponse {
	id, ok := parseID(seg)
	if !ok {
		return kit.ResolveError(adapterv1.ErrorCode_ERROR_CODE_INVALID_URL,
			fmt.Sprintf("message id %s is not a valid Telegram message id", kit.Quote(seg)))
	}
	return messageTarget(channel, id)
}

// parseID accepts a decimal number from 1 to the int64 maximum and
// returns it without leading zeros.
func parseID(s string) (int64, bool) {
	if s == "" || len(s) > 40 {
		return 0, false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return 0, false
		}
	}
	n, err := strconv.ParseInt(strings.TrimLeft(s, "0"), 10, 64)
	if err != nil || n <= 0 {
		return 0, false
	}
	return n, true
}

// validUsername accepts minUsernameLen to maxUsernameLen of [A-Za-z0-9_]
// starting with a letter. Telegram also forbids a trailing or doubled
// underscore in new names; old ones may have them, so they are accepted.
func validUsername(s string) bool {
	if len(s) < minUsernameLen || len(s) > maxUsernameLen || !isLetter(s[0]) {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(isLetter(c) || c >= '0' && c <= '9' || c == '_') {
			return false
		}
	}
	return true
}

func isLetter(c byte) bool { return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' }

// messageURL is the canonical URL of a message.
func messageURL(channel string, id int64) string {
	return "https://t.me/" + channel + "/" + strconv.FormatInt(id, 10)
}

// messageExternalID is a message's external id, "<channel>/<id>".
func messageExternalID(channel string, id int64) string {
	return channel + "/" + strconv.FormatInt(id, 10)
}

// messageTargetOf is the target of a message; channel is lowercase.
func messageTargetOf(channel string, id int64) *adapterv1.Target {
	return &adapterv1.Target{
		Platform:     Platform,
		EntityType:   EntityTypeMessage,
		ObjectScope:  channel,
		ExternalId:   messageExternalID(channel, id),
		CanonicalUrl: messageURL(channel, id),
	}
}

func messageTarget(channel string, id int64) *adapterv1.ResolveResponse {
	return &adapterv1.ResolveResponse{Target: messageTargetOf(channel, id)}
}

// channelTarget: an explicit submit of a channel reads it again and
// expands its posts, page by page.
func channelTarget(channel string) *adapterv1.ResolveResponse {
	return &adapterv1.ResolveResponse{
		Target: &adapterv1.Target{
			Platform:     Platform,
			EntityType:   EntityTypeChannel,
			ExternalId:   channel,
			CanonicalUrl: "https://t.me/" + channel,
		},
		RefreshOnSubmit: true,
		Collection:      true,
	}
}

// privateChannelTarget is a private channel (t.me/c/<internal id>) read
// through an account: a collection like a public channel, under the
// scope its posts have, so core keeps one access hash for all of them.
func privateChannelTarget(scope string) *adapterv1.ResolveResponse {
	r := channelTarget(scope)
	r.Target.ObjectScope = scope
	return r
}

// quoteBare is kit.Quote without the quotes, for names already known to
// be plain (reserved words).
func quoteBare(s string) string {
	q := kit.Quote(s)
	return q[1 : len(q)-1]
}
