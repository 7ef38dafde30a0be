package adapterv1

// The protocol version this code speaks.
const (
	ProtocolMajor = 1
	ProtocolMinor = 3
)

// Capability names of protocol 1.1. Every one is at version 1.0.
const (
	CapCaptureFetch     = "capture.fetch"
	CapCaptureRelated   = "capture.related"
	CapCapturePage      = "capture.page"
	CapCaptureCanonical = "capture.canonical"
	// CapCaptureThread: Fetch of a post with FetchRequest.expand "thread"
	// answers the author's thread around it as related targets.
	CapCaptureThread     = "capture.thread"
	CapCredentialPrepare = "credential.prepare"
	CapConnectionCheck   = "connection.check"
	CapContentText       = "content.text"
	CapEntityGraph       = "entity.graph"
	CapSourceRaw         = "source.raw"
	CapMediaImage        = "media.image"
	CapMediaVideo        = "media.video"
	// CapMediaStream (protocol 1.1): media with a stream_ref instead of a
	// URL are read with ReadMedia.
	CapMediaStream = "media.stream"
	// CapAccountJoin (protocol 1.2): Join makes the account a member of a
	// chat by an invite link.
	CapAccountJoin = "account.join"
	// CapCredentialInteractive (protocol 1.3): SignIn signs a new account
	// in step by step (a QR code, a password).
	CapCredentialInteractive = "credential.interactive"
)

// Methods of SignInInput.method.
const (
	// SignInMethodQR: a QR code scanned with the platform's app.
	SignInMethodQR = "qr"
)

// ReasonQRNotScanned is the Error.reason of a SignIn whose wait ended
// with no code scanned.
const ReasonQRNotScanned = "qr_not_scanned"

// Cap1 is a capability at version 1.0, the only version protocol 1.0 knows.
func Cap1(name string) *Capability {
	return &Capability{Name: name, Major: 1, Minor: 0}
}

// Values of FetchRequest.expand.
const (
	// ExpandThread: the related targets are the author's thread around
	// the target post (capability capture.thread).
	ExpandThread = "thread"
	// ExpandNone: the target alone, without related targets, so an
	// automatic capture that never expands spares the upstream reads
	// (a profile without its timeline, a channel without its posts).
	ExpandNone = "none"
)
