package telegram

import (
	"context"
	_ "embed"
	"slices"

	"github.com/monitorhq/monitor/adapters/kit"
	adapterv1 "github.com/monitorhq/monitor/api/adapter/v1"
)

// Identity of the adapter and the names it declares in Describe.
const (
	// AdapterID is the adapter's id in core's registry.
	AdapterID = "telegram"
	// Version is the adapter's software version, recorded with captures.
	Version = "0.2.0"
	// Platform is the platform name in every target the adapter resolves.
	Platform = "telegram"
	// ProviderTmePublic reads public channels and groups through t.me's
	// web preview, without an account.
	ProviderTmePublic = "tme-public"
	// EntityTypeMessage is a message (post) in a channel or group.
	EntityTypeMessage = "telegram.message"
	// EntityTypeChannel is a public channel or group, by username.
	EntityTypeChannel = "telegram.channel"
)

// The JSON Schemas of the entity types, kept as files so they are easy to
// read and diff.
var (
	//go:embed schemas/telegram.message.json
	messageSchema string
	//go:embed schemas/telegram.channel.json
	channelSchema string
)

// Hosts returns the hosts whose URLs the adapter resolves, lowercase and
// exact: t.me and the older names Telegram still redirects to it.
func Hosts() []string {
	return []string{"t.me", "telegram.me", "www.telegram.me", "telegram.dog"}
}

// gate is Resolve's first check, in Telegram's words.
func gate() *kit.Gate {
	return &kit.Gate{
		Hosts:    Hosts(),
		Links:    "t.me links",
		Send:     "a t.me link",
		Example:  "https://t.me/...",
		HostNoun: "a Telegram host",
		PortNoun: "a t.me port",
		Home:     "this is Telegram's home page, not a channel or a post; send a link like https://t.me/<channel>/<id>",
	}
}

// isHost reports whether host (already lowercase) is one of Hosts.
func isHost(host string) bool {
	return slices.Contains(Hosts(), host)
}

// maxBatchSize is the most posts of a channel one batch archives.
const maxBatchSize = 1000

// Describe says who the adapter is: the public provider tme-public, that
// fetches channel posts (albums whole) with their media and channel, and
// channels with their posts page by page; and the account provider
// mtproto, that reads posts through a tenant's Telegram session, its media
// streamed with ReadMedia.
func (a *Adapter) Describe(context.Context, *adapterv1.DescribeRequest) (*adapterv1.DescribeResponse, error) {
	return &adapterv1.DescribeResponse{
		AdapterId:      AdapterID,
		DisplayName:    "Telegram",
		Protocol:       &adapterv1.ProtocolVersion{Major: adapterv1.ProtocolMajor, Minor: adapterv1.ProtocolMinor},
		AdapterVersion: Version,
		Hosts:          Hosts(),
		Providers: []*adapterv1.Provider{{
			Id:              ProviderTmePublic,
			AuthMode:        adapterv1.AuthMode_AUTH_MODE_NONE,
			DefaultProvider: true,
			Visibilities:    []adapterv1.Visibility{adapterv1.Visibility_VISIBILITY_PUBLIC},
			Capabilities: []*adapterv1.Capability{
				adapterv1.Cap1(adapterv1.CapCaptureFetch),
				// A link to a later member of an album answers with the
				// album, whose identity is its first message.
				adapterv1.Cap1(adapterv1.CapCaptureCanonical),
				// A channel's posts come page by page.
				adapterv1.Cap1(adapterv1.CapCaptureRelated),
				adapterv1.Cap1(adapterv1.CapCapturePage),
				adapterv1.Cap1(adapterv1.CapContentText),
				adapterv1.Cap1(adapterv1.CapEntityGraph),
				adapterv1.Cap1(adapterv1.CapSourceRaw),
				adapterv1.Cap1(adapterv1.CapMediaImage),
				adapterv1.Cap1(adapterv1.CapMediaVideo),
			},
			EntityTypes:  []string{EntityTypeMessage, EntityTypeChannel},
			MaxBatchSize: maxBatchSize,
		}, {
			Id:       ProviderMTProto,
			AuthMode: adapterv1.AuthMode_AUTH_MODE_ACCOUNT,
			// The default account provider: the only one.
			DefaultProvider: true,
			Visibilities:    []adapterv1.Visibility{adapterv1.Visibility_VISIBILITY_PRIVATE, adapterv1.Visibility_VISIBILITY_PUBLIC},
			Capabilities: []*adapterv1.Capability{
				adapterv1.Cap1(adapterv1.CapCaptureFetch),
				adapterv1.Cap1(adapterv1.CapCaptureCanonical),
				// A channel's posts (a private one's too) page by page.
				adapterv1.Cap1(adapterv1.CapCaptureRelated),
				adapterv1.Cap1(adapterv1.CapCapturePage),
				adapterv1.Cap1(adapterv1.CapContentText),
				adapterv1.Cap1(adapterv1.CapEntityGraph),
				adapterv1.Cap1(adapterv1.CapMediaImage),
				adapterv1.Cap1(adapterv1.CapMediaVideo),
				adapterv1.Cap1(adapterv1.CapMediaStream),
				adapterv1.Cap1(adapterv1.CapCredentialPrepare),
				adapterv1.Cap1(adapterv1.CapConnectionCheck),
				// Invite links, once an operator approved (protocol 1.2).
				adapterv1.Cap1(adapterv1.CapAccountJoin),
				// Sign-in by QR code over SignIn (protocol 1.3).
				adapterv1.Cap1(adapterv1.CapCredentialInteractive),
			},
			EntityTypes:    []string{EntityTypeMessage, EntityTypeChannel},
			MaxBatchSize:   maxBatchSize,
			CredentialHelp: mtprotoCredentialHelp,
		}},
		EntityTypes: []*adapterv1.EntityType{
			{Name: EntityTypeMessage, JsonSchema: messageSchema},
			{Name: EntityTypeChannel, JsonSchema: channelSchema},
		},
	}, nil
}
