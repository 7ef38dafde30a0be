package x

import (
	"context"
	_ "embed"

	"github.com/monitorhq/monitor/adapters/kit"
	adapterv1 "github.com/monitorhq/monitor/api/adapter/v1"
)

// Identity of the adapter and the names it declares in Describe.
const (
	// AdapterID is the adapter's id in core's registry.
	AdapterID = "x"
	// Version is the adapter's software version, recorded with captures.
	Version = "0.1.0"
	// Platform is the platform name in every target the adapter resolves.
	Platform = "x"
	// ProviderFxTwitter reads public posts through the FxTwitter API.
	ProviderFxTwitter = "fxtwitter"
	// EntityTypePost is a post on X.
	EntityTypePost = "x.post"
	// EntityTypeProfile is an account on X.
	EntityTypeProfile = "x.profile"
)

// The JSON Schemas of the entity types, kept as files so they are easy to
// read and diff.
var (
	//go:embed schemas/x.post.json
	postSchema string
	//go:embed schemas/x.profile.json
	profileSchema string
)

// Hosts returns the hosts whose URLs the adapter resolves, lowercase and
// exact. The fx/vx/fixup hosts are embed proxies people paste as often as
// x.com links.
func Hosts() []string {
	return []string{
		"x.com", "www.x.com", "mobile.x.com",
		"twitter.com", "www.twitter.com", "mobile.twitter.com",
		"fxtwitter.com", "www.fxtwitter.com",
		"fixupx.com", "www.fixupx.com",
		"vxtwitter.com", "www.vxtwitter.com",
	}
}

// gate is Resolve's first check, in X's words.
func gate() *kit.Gate {
	return &kit.Gate{
		Hosts:    Hosts(),
		Links:    "X links",
		Send:     "an x.com link",
		Example:  "https://x.com/...",
		HostNoun: "an X host",
		PortNoun: "an X port",
		Home:     "this is the X home page, not a post or a profile; send a link to a post or a profile",
	}
}

// maxBatchSize is the most posts of a public profile one batch archives
// (seed 000: 1,000).
const maxBatchSize = 1000

// Describe says who the adapter is: the public provider fxtwitter, that
// fetches posts with their media, author and quoted post, threads, and
// profiles with their timelines page by page; and x-session, which does
// the same through a tenant's X account.
func (a *Adapter) Describe(context.Context, *adapterv1.DescribeRequest) (*adapterv1.DescribeResponse, error) {
	return &adapterv1.DescribeResponse{
		AdapterId:      AdapterID,
		DisplayName:    "X",
		Protocol:       &adapterv1.ProtocolVersion{Major: adapterv1.ProtocolMajor, Minor: adapterv1.ProtocolMinor},
		AdapterVersion: Version,
		Hosts:          Hosts(),
		Providers: []*adapterv1.Provider{{
			Id:              ProviderFxTwitter,
			AuthMode:        adapterv1.AuthMode_AUTH_MODE_NONE,
			DefaultProvider: true,
			Visibilities:    []adapterv1.Visibility{adapterv1.Visibility_VISIBILITY_PUBLIC},
			Capabilities:    captureCaps(),
			EntityTypes:     []string{EntityTypePost, EntityTypeProfile},
			MaxBatchSize:    maxBatchSize,
		}, {
			// A tenant's own signed-in session: protected posts the
			// account may see, private unless X shows they are public.
			Id:              ProviderXSession,
			AuthMode:        adapterv1.AuthMode_AUTH_MODE_ACCOUNT,
			DefaultProvider: true,
			Visibilities:    []adapterv1.Visibility{adapterv1.Visibility_VISIBILITY_PRIVATE, adapterv1.Visibility_VISIBILITY_PUBLIC},
			Capabilities: append(captureCaps(),
				adapterv1.Cap1(adapterv1.CapCredentialPrepare),
				adapterv1.Cap1(adapterv1.CapConnectionCheck)),
			EntityTypes:    []string{EntityTypePost, EntityTypeProfile},
			MaxBatchSize:   maxBatchSize,
			CredentialHelp: credentialHelp,
		}},
		EntityTypes: []*adapterv1.EntityType{
			{Name: EntityTypePost, JsonSchema: postSchema},
			{Name: EntityTypeProfile, JsonSchema: profileSchema},
		},
	}, nil
}

// captureCaps are what both providers capture: posts, threads and
// profiles (a profile's timeline comes page by page; a profile by handle
// answers with its stable id), as text, graph, raw responses and media.
func captureCaps() []*adapterv1.Capability {
	return []*adapterv1.Capability{
		adapterv1.Cap1(adapterv1.CapCaptureFetch),
		adapterv1.Cap1(adapterv1.CapCaptureRelated),
		adapterv1.Cap1(adapterv1.CapCapturePage),
		adapterv1.Cap1(adapterv1.CapCaptureCanonical),
		adapterv1.Cap1(adapterv1.CapCaptureThread),
		adapterv1.Cap1(adapterv1.CapContentText),
		adapterv1.Cap1(adapterv1.CapEntityGraph),
		adapterv1.Cap1(adapterv1.CapSourceRaw),
		adapterv1.Cap1(adapterv1.CapMediaImage),
		adapterv1.Cap1(adapterv1.CapMediaVideo),
	}
}
