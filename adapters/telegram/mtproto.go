package telegram

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/gotd/td/session"
	gotd "github.com/gotd/td/telegram"
	"github.com/gotd/td/telegram/dcs"
	"github.com/gotd/td/tg"
	"github.com/gotd/td/tgerr"
	"go.uber.org/zap"

	"github.com/monitorhq/monitor/adapters/kit"
	adapterv1 "github.com/monitorhq/monitor/api/adapter/v1"
)

// The mtproto provider reads Telegram through a tenant's own signed-in
// user session over MTProto (gotd), so it reaches what the web preview
// cannot show: private channels (t.me/c/...), channels that forbid
// forwarding and saving, and big files. The credential is the session
// (DC and auth key) as opaque bytes that core keeps sealed; every call
// opens a connection with it and keeps nothing afterwards.

// ProviderMTProto reads Telegram through a tenant's user session.
const ProviderMTProto = "mtproto"

// msgNoAppCredentials is the refusal when the adapter's host has no app
// credentials of its own.
const msgNoAppCredentials = "Telegram sessions need this instance's Telegram app credentials: set MONITOR_TELEGRAM_APP_ID " +
	"and MONITOR_TELEGRAM_APP_HASH (from https://my.telegram.org, API development tools) where the Telegram adapter runs"

// mtprotoCredentialHelp tells a person what to give as a credential.
const mtprotoCredentialHelp = "a Telegram user session: sign in with `monitor account add --adapter telegram` in a terminal, " +
	"or paste a gotd session.json or a Telethon string session"

// MTProto configures the mtproto provider. The zero value has no app
// credentials, and the provider refuses every call with that reason.
type MTProto struct {
	// AppID and AppHash are the instance's Telegram app credentials
	// (MONITOR_TELEGRAM_APP_ID, MONITOR_TELEGRAM_APP_HASH).
	AppID   int
	AppHash string
	// DCList, Resolver and PublicKeys say where Telegram is; zero: its
	// production data centers. Tests point them at gotd's test server.
	DCList     dcs.List
	Resolver   dcs.Resolver
	PublicKeys []gotd.PublicKey
	// PartSize is the size of one upload.getFile part (0: 512 KiB, the
	// most Telegram gives).
	PartSize int
	// Logger receives gotd's own logs (nil: none). They never carry the
	// session.
	Logger *zap.Logger
}

// defaultPartSize is the part size of file downloads.
const defaultPartSize = 512 << 10

// NewWithMTProto is New with the mtproto provider configured.
func NewWithMTProto(opts Options, mt MTProto) *Adapter {
	a := New(opts)
	a.mt = mt
	if a.mt.PartSize <= 0 {
		a.mt.PartSize = defaultPartSize
	}
	return a
}

// sessionCredential is the provider's credential format (version 1): the
// session as gotd keeps it. Core stores it sealed and never reads it.
type sessionCredential struct {
	V       int    `json:"v"`
	DC      int    `json:"dc"`
	Addr    string `json:"addr,omitempty"`
	AuthKey []byte `json:"auth_key"`
	KeyID   []byte `json:"auth_key_id"`
	Salt    int64  `json:"salt,omitempty"`
}

// credentialOf is the credential of a gotd session.
func credentialOf(d *session.Data) ([]byte, error) {
	return json.Marshal(sessionCredential{V: 1, DC: d.DC, Addr: d.Addr, AuthKey: d.AuthKey, KeyID: d.AuthKeyID, Salt: d.Salt})
}

// openSession reads the credential core handed back.
func openSession(b []byte) (*session.Data, *adapterv1.Error) {
	var c sessionCredential
	if json.Unmarshal(b, &c) != nil || c.V != 1 || len(c.AuthKey) != 256 || len(c.KeyID) != 8 || c.DC <= 0 {
		return nil, kit.Err(adapterv1.ErrorCode_ERROR_CODE_INVALID_REQUEST, "not a credential of the mtproto provider; add the account again")
	}
	return &session.Data{DC: c.DC, Addr: c.Addr, AuthKey: c.AuthKey, AuthKeyID: c.KeyID, Salt: c.Salt}, nil
}

// parseSessionInput reads what a person gave as a session: this
// provider's own credential, a gotd session.json ({"Version":1,"Data":…})
// or a Telethon string session.
func parseSessionInput(input []byte) (*session.Data, bool) {
	s := strings.TrimSpace(strings.TrimPrefix(string(input), "\ufeff"))
	if d, e := openSession([]byte(s)); e == nil {
		return d, true
	}
	if strings.HasPrefix(s, "{") {
		var f struct {
			Version int          `json:"Version"`
			Data    session.Data `json:"Data"`
		}
		if json.Unmarshal([]byte(s), &f) == nil && len(f.Data.AuthKey) == 256 && f.Data.DC > 0 {
			if len(f.Data.AuthKeyID) != 8 {
				return nil, false
			}
			return &f.Data, true
		}
		return nil, false
	}
	if d, err := session.TelethonSession(s); err == nil && len(d.AuthKey) == 256 {
		return d, true
	}
	return nil, false
}

// errAnswer carries a typed answer out of a session call.
type errAnswer struct{ e *adapterv1.Error }

func (e errAnswer) Error() string { return e.e.GetMessage() }

// answer returns e as the error of a session call.
func answer(e *adapterv1.Error) error { return errAnswer{e} }

// withSession opens a connection with the session in cred, runs f with
// the API, and closes it. Telegram's refusals come back classified.
func (a *Adapter) withSession(ctx context.Context, cred []byte, f func(ctx context.Context, api *tg.Client) error) *adapterv1.Error {
	if a.mt.AppID == 0 || a.mt.AppHash == "" {
		return kit.Err(adapterv1.ErrorCode_ERROR_CODE_UNSUPPORTED, msgNoAppCredentials)
	}
	data, e := openSession(cred)
	if e != nil {
		return e
	}
	return a.runSession(ctx, data, f)
}

// runSession is withSession on an opened session.
func (a *Adapter) runSession(ctx context.Context, data *session.Data, f func(ctx context.Context, api *tg.Client) error) *adapterv1.Error {
	storage := &session.StorageMemory{}
	if err := (&session.Loader{Storage: storage}).Save(ctx, data); err != nil {
		return kit.Err(adapterv1.ErrorCode_ERROR_CODE_INVALID_REQUEST, "the session cannot be used; add the account again")
	}
	client := gotd.NewClient(a.mt.AppID, a.mt.AppHash, a.mt.clientOptions(storage))
	// gotd's Run may end without an error when its connection dies under
	// f, so f's own outcome decides.
	ferr := errors.New("the connection to Telegram ended early")
	err := client.Run(ctx, func(ctx context.Context) error {
		ferr = f(ctx, client.API())
		return ferr
	})
	if err == nil {
		err = ferr
	}
	return sessionError(ctx, err)
}

// clientOptions are the gotd client's options around a session storage.
func (mt MTProto) clientOptions(storage gotd.SessionStorage) gotd.Options {
	log := mt.Logger
	if log == nil {
		log = zap.NewNop()
	}
	return gotd.Options{
		PublicKeys:     mt.PublicKeys,
		DCList:         mt.DCList,
		Resolver:       mt.Resolver,
		NoUpdates:      true,
		SessionStorage: storage,
		Logger:         log,
		MaxRetries:     3,
		Device:         gotd.DeviceConfig{DeviceModel: "Monitor", SystemVersion: "server", AppVersion: Version},
	}
}

// authRefusals are Telegram's words for a session that no longer works.
var authRefusals = []string{"AUTH_KEY_UNREGISTERED", "SESSION_REVOKED", "SESSION_EXPIRED", "AUTH_KEY_INVALID",
	"AUTH_KEY_PERM_EMPTY", "USER_DEACTIVATED", "USER_DEACTIVATED_BAN", "SESSION_PASSWORD_NEEDED"}

// msgSessionRefused is what a person reads when Telegram refuses the
// session.
const msgSessionRefused = "Telegram no longer accepts this session (%s); sign in again with monitor account add --adapter telegram"

// sessionError classifies what a session call ended with: the session
// refused is AUTH_FAILED, FLOOD_WAIT_n is RATE_LIMITED with n seconds,
// Telegram's faults and the network are UNAVAILABLE.
func sessionError(ctx context.Context, err error) *adapterv1.Error {
	if err == nil {
		return nil
	}
	var ea errAnswer
	if errors.As(err, &ea) {
		return ea.e
	}
	if d, ok := tgerr.AsFloodWait(err); ok {
		e := kit.Retryable(adapterv1.ErrorCode_ERROR_CODE_RATE_LIMITED, "Telegram asked this account to slow down; the capture will be retried")
		e.RetryAfterSeconds = uint32(min(math.Ceil(d.Seconds()), float64(time.Hour/time.Second)))
		e.Reason = "FLOOD_WAIT_" + strconv.Itoa(int(d.Seconds()))
		return e
	}
	if rpc, ok := tgerr.As(err); ok {
		switch {
		case tgerr.Is(err, authRefusals...):
			e := kit.Err(adapterv1.ErrorCode_ERROR_CODE_AUTH_FAILED, fmt.Sprintf(msgSessionRefused, rpc.Type))
			e.Reason = rpc.Type
			return e
		case tgerr.Is(err, "CHANNEL_PRIVATE", "CHAT_FORBIDDEN", "CHANNEL_PUBLIC_GROUP_NA"):
			e := kit.Err(adapterv1.ErrorCode_ERROR_CODE_PRIVATE, "this account cannot read the channel: it is not a member, or was removed")
			e.Reason = rpc.Type
			return e
		case tgerr.Is(err, "CHANNEL_INVALID", "MSG_ID_INVALID", "USERNAME_NOT_OCCUPIED", "USERNAME_INVALID", "PEER_ID_INVALID"):
			e := kit.Err(adapterv1.ErrorCode_ERROR_CODE_NOT_FOUND, msgPostNotFound)
			e.Reason = rpc.Type
			return e
		case rpc.Code >= 500:
			e := kit.Retryable(adapterv1.ErrorCode_ERROR_CODE_UNAVAILABLE, "Telegram failed to answer ("+rpc.Type+"); try again later")
			e.Reason = rpc.Type
			return e
		}
		e := kit.BadResponse("Telegram refused the request (" + rpc.Type + ")")
		e.Reason = rpc.Type
		return e
	}
	if ctx.Err() != nil {
		return kit.Retryable(adapterv1.ErrorCode_ERROR_CODE_UNAVAILABLE, "Telegram did not answer in time; try again later")
	}
	return kit.Retryable(adapterv1.ErrorCode_ERROR_CODE_UNAVAILABLE, "could not talk to Telegram: "+shortText(err.Error(), 300))
}

// self asks users.getSelf (users.getUsers of inputUserSelf).
func self(ctx context.Context, api *tg.Client) (*tg.User, error) {
	users, err := api.UsersGetUsers(ctx, []tg.InputUserClass{&tg.InputUserSelf{}})
	if err != nil {
		return nil, err
	}
	for _, u := range users {
		if u, ok := u.(*tg.User); ok {
			return u, nil
		}
	}
	return nil, answer(kit.Err(adapterv1.ErrorCode_ERROR_CODE_AUTH_FAILED, fmt.Sprintf(msgSessionRefused, "no signed-in account")))
}

// handleOf is a user's handle: the username, else the phone-less name.
func handleOf(u *tg.User) string {
	if u.Username != "" {
		return u.Username
	}
	for _, n := range u.Usernames {
		if n.Active {
			return n.Username
		}
	}
	return strings.TrimSpace(u.FirstName + " " + u.LastName)
}

// PrepareCredential turns a session a person gave into the provider's
// credential and says whose it is (users.getSelf).
func (a *Adapter) PrepareCredential(ctx context.Context, req *adapterv1.PrepareCredentialRequest) (*adapterv1.PrepareCredentialResponse, error) {
	if req.GetProviderId() != ProviderMTProto {
		return &adapterv1.PrepareCredentialResponse{Error: kit.Err(adapterv1.ErrorCode_ERROR_CODE_INVALID_REQUEST,
			fmt.Sprintf("provider %s takes no account; the Telegram adapter's account provider is %s", kit.Quote(req.GetProviderId()), ProviderMTProto))}, nil
	}
	data, ok := parseSessionInput(req.GetInput())
	if !ok {
		return &adapterv1.PrepareCredentialResponse{Error: kit.Err(adapterv1.ErrorCode_ERROR_CODE_INVALID_REQUEST,
			"this is not a Telegram session; give "+mtprotoCredentialHelp)}, nil
	}
	cred, err := credentialOf(data)
	if err != nil {
		return nil, err
	}
	resp, err := a.CheckConnection(ctx, &adapterv1.CheckConnectionRequest{ProviderId: ProviderMTProto, Credential: cred})
	if err != nil || resp.GetError() != nil {
		return &adapterv1.PrepareCredentialResponse{Error: resp.GetError()}, err
	}
	return &adapterv1.PrepareCredentialResponse{Credential: cred, AccountId: resp.GetAccountId(), Handle: resp.GetHandle()}, nil
}

// CheckConnection asks users.getSelf whose session the credential is.
func (a *Adapter) CheckConnection(ctx context.Context, req *adapterv1.CheckConnectionRequest) (*adapterv1.CheckConnectionResponse, error) {
	if req.GetProviderId() != ProviderMTProto {
		return &adapterv1.CheckConnectionResponse{Error: kit.Err(adapterv1.ErrorCode_ERROR_CODE_INVALID_REQUEST,
			fmt.Sprintf("provider %s takes no account", kit.Quote(req.GetProviderId())))}, nil
	}
	var u *tg.User
	e := a.withSession(ctx, req.GetCredential(), func(ctx context.Context, api *tg.Client) (err error) {
		u, err = self(ctx, api)
		return err
	})
	if e != nil {
		return &adapterv1.CheckConnectionResponse{Error: e}, nil
	}
	return &adapterv1.CheckConnectionResponse{Ok: true, AccountId: strconv.FormatInt(u.ID, 10), Handle: handleOf(u)}, nil
}
