package testkit

import (
	"context"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"crypto/x509"
	"encoding/base64"
	"encoding/hex"
	"encoding/pem"
	"errors"
	"fmt"
	"math/big"
	"net"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gotd/td/crypto/srp"
	"github.com/gotd/td/session"
	gotd "github.com/gotd/td/telegram"
	"github.com/gotd/td/telegram/auth/qrlogin"
	"github.com/gotd/td/telegram/dcs"
	"github.com/gotd/td/tg"
	"github.com/gotd/td/tgerr"
	"github.com/gotd/td/tgtest"
	"github.com/gotd/td/tgtest/cluster"
)

// Telegram is a fake Telegram for the mtproto provider: gotd's in-process
// MTProto test server (tgtest) on a loopback port, with handlers for the
// calls the provider makes, answering from a small world of one account,
// its channels, their messages and files. File bytes are made on the fly
// from the file id and offset, so a big file never sits in memory.
type Telegram struct {
	cluster *cluster.Cluster

	mu       sync.Mutex
	self     *tg.User
	channels []*tg.Channel
	messages map[int64][]*tg.Message // by channel id
	files    map[int64]*FakeFile     // by photo or document id
	faults   map[uint32][]*tgerr.Error
	calls    map[uint32]int
	history  []int // the offset_id of each messages.getHistory
	// Sign-in: the phone, code and 2FA password the fake accepts.
	phone, code string
	password    *srpPassword
	// QR sign-in: the token shown now, whether a test scanned it, and
	// the session that asked for it (to tell it of the scan).
	qr qrState
	// invites by hash (messages.checkChatInvite, importChatInvite).
	invites map[string]*FakeInvite
}

// FakeInvite is an invite link of the fake Telegram to a channel the
// account is not a member of yet.
type FakeInvite struct {
	Channel *tg.Channel
	// RequestNeeded: the channel's admins accept each member
	// (INVITE_REQUEST_SENT).
	RequestNeeded bool
	// Expired: the link was revoked or ran out (INVITE_HASH_EXPIRED).
	Expired bool
}

// AddInvite makes hash an invite link (t.me/+hash) to inv.Channel; the
// account becomes a member when it imports it.
func (f *Telegram) AddInvite(hash string, inv FakeInvite) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if inv.Channel.Photo == nil {
		inv.Channel.Photo = &tg.ChatPhotoEmpty{}
	}
	f.invites[hash] = &inv
}

// Member reports whether the account is a member of the channel.
func (f *Telegram) Member(channelID int64) bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.memberLocked(channelID)
}

func (f *Telegram) memberLocked(channelID int64) bool {
	for _, ch := range f.channels {
		if ch.ID == channelID {
			return true
		}
	}
	return false
}

// qrState is the fake's QR login (auth.exportLoginToken).
type qrState struct {
	ttl      time.Duration
	token    []byte
	expires  time.Time
	accepted bool
	exports  int
	server   *tgtest.Server
	session  tgtest.Session
}

// srpPassword is the server side of a two-step verification password
// (https://core.telegram.org/api/srp): the verifier v and this round's
// secret b, from which it checks the client's proof without the password.
type srpPassword struct {
	algo *tg.PasswordKdfAlgoSHA256SHA256PBKDF2HMACSHA512iter100000SHA256ModPow
	v, b *big.Int
	gb   []byte
	id   int64
}

// FakeFile is a file of the fake Telegram.
type FakeFile struct {
	ID   int64
	Size int64
	// Ref is the file reference the server accepts now.
	Ref []byte
}

// FakeFileByte is byte i of a fake file: the same on every read.
func FakeFileByte(id, i int64) byte { return byte((i*131 + id*7 + i>>9) & 0xff) }

// FakeFileSHA256 is the SHA-256 of a fake file, in hex.
func FakeFileSHA256(id, size int64) string {
	h := sha256.New()
	buf := make([]byte, 0, 64<<10)
	for i := int64(0); i < size; i++ {
		buf = append(buf, FakeFileByte(id, i))
		if len(buf) == cap(buf) {
			h.Write(buf)
			buf = buf[:0]
		}
	}
	h.Write(buf)
	return hex.EncodeToString(h.Sum(nil))
}

// NewTelegram starts a fake Telegram until the test ends.
func NewTelegram(t testing.TB) *Telegram {
	t.Helper()
	f := &Telegram{
		cluster:  cluster.NewCluster(cluster.Options{}),
		self:     &tg.User{ID: 5001, AccessHash: 77, Username: "spore_reader", FirstName: "Spore", Self: true},
		messages: map[int64][]*tg.Message{},
		files:    map[int64]*FakeFile{},
		faults:   map[uint32][]*tgerr.Error{},
		calls:    map[uint32]int{},
		invites:  map[string]*FakeInvite{},
	}
	d := f.cluster.Dispatch(2, "server")
	f.register(d)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		_ = f.cluster.Up(ctx)
	}()
	t.Cleanup(func() {
		cancel()
		<-done
	})
	select {
	case <-f.cluster.Ready():
	case <-time.After(10 * time.Second):
		t.Fatal("testkit: the fake Telegram did not start")
	}
	return f
}

// DCList, Resolver and PublicKeys point a gotd client at the fake.
func (f *Telegram) DCList() dcs.List             { return f.cluster.List() }
func (f *Telegram) Resolver() dcs.Resolver       { return f.cluster.Resolver() }
func (f *Telegram) PublicKeys() []gotd.PublicKey { return f.cluster.Keys() }

// Addr is the fake's DC 2 address (MONITOR_TELEGRAM_DC_ADDR).
func (f *Telegram) Addr() string {
	for _, o := range f.cluster.List().Options {
		if o.ID == 2 {
			return net.JoinHostPort(o.IPAddress, strconv.Itoa(o.Port))
		}
	}
	return ""
}

// KeysPEM are the fake's RSA public keys as PEM (MONITOR_TELEGRAM_DC_KEYS).
func (f *Telegram) KeysPEM() []byte {
	var out []byte
	for _, k := range f.cluster.Keys() {
		out = append(out, pem.EncodeToMemory(&pem.Block{Type: "RSA PUBLIC KEY", Bytes: x509.MarshalPKCS1PublicKey(k.RSA)})...)
	}
	return out
}

// Session signs a client in to the fake (the key exchange) and returns
// its session as gotd's session.json holds it.
//
// The key exchange is the costly part of a fake Telegram: the client
// factors the server's pq and tests its 2048-bit DH prime, about 1.7 s of
// CPU under -race, and several times that on two cores shared with the
// rest of the suite. Hence the wide deadline: it bounds a hang, not speed.
func (f *Telegram) Session(t testing.TB) []byte {
	t.Helper()
	storage := &session.StorageMemory{}
	c := gotd.NewClient(1, "test-hash", gotd.Options{PublicKeys: f.PublicKeys(), DCList: f.DCList(), Resolver: f.Resolver(),
		SessionStorage: storage, NoUpdates: true})
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	if err := c.Run(ctx, func(context.Context) error { return nil }); err != nil {
		t.Fatalf("testkit: sign in to the fake Telegram: %v", err)
	}
	b, err := storage.Bytes(nil)
	if err != nil {
		t.Fatalf("testkit: read the fake session: %v", err)
	}
	return b
}

// Self is the signed-in account.
func (f *Telegram) Self() *tg.User { return f.self }

// AddChannel adds a channel the account is a member of.
func (f *Telegram) AddChannel(ch *tg.Channel) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if ch.Photo == nil {
		ch.Photo = &tg.ChatPhotoEmpty{}
	}
	f.channels = append(f.channels, ch)
}

// SetAccessHash gives a channel a new access hash, as Telegram's change
// when an account leaves and joins again: an old one is CHANNEL_INVALID.
func (f *Telegram) SetAccessHash(channelID, hash int64) {
	f.mu.Lock()
	defer f.mu.Unlock()
	for i, ch := range f.channels {
		if ch.ID == channelID {
			c := *ch
			c.AccessHash = hash
			f.channels[i] = &c
		}
	}
}

// AddMessage adds a message to a channel.
func (f *Telegram) AddMessage(channelID int64, m *tg.Message) {
	f.mu.Lock()
	defer f.mu.Unlock()
	m.PeerID = &tg.PeerChannel{ChannelID: channelID}
	if m.Date == 0 {
		m.Date = int(time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC).Unix())
	}
	f.messages[channelID] = append(f.messages[channelID], m)
}

// AddFile makes a file of size bytes downloadable under id.
func (f *Telegram) AddFile(id, size int64) *FakeFile {
	f.mu.Lock()
	defer f.mu.Unlock()
	ff := &FakeFile{ID: id, Size: size, Ref: []byte{byte(id), 1}}
	f.files[id] = ff
	return ff
}

// RenewFileRef gives a file a new reference: messages read from now on
// carry it, and the old one answers FILE_REFERENCE_EXPIRED.
func (f *Telegram) RenewFileRef(id int64) {
	f.mu.Lock()
	defer f.mu.Unlock()
	ff := f.files[id]
	ff.Ref = []byte{byte(id), ff.Ref[1] + 1}
	for _, msgs := range f.messages {
		for _, m := range msgs {
			switch md := m.Media.(type) {
			case *tg.MessageMediaPhoto:
				if p, ok := md.Photo.(*tg.Photo); ok && p.ID == id {
					p.FileReference = ff.Ref
				}
			case *tg.MessageMediaDocument:
				if d, ok := md.Document.(*tg.Document); ok && d.ID == id {
					d.FileReference = ff.Ref
				}
			}
		}
	}
}

// Fail makes the next calls of a method (by its request type id, e.g.
// tg.UsersGetUsersRequestTypeID) answer errs, one per call.
func (f *Telegram) Fail(typeID uint32, errs ...*tgerr.Error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.faults[typeID] = append(f.faults[typeID], errs...)
}

// HistoryOffsets are the offset_id of each messages.getHistory so far.
func (f *Telegram) HistoryOffsets() []int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return slices.Clone(f.history)
}

// Calls counts the calls of a method so far.
func (f *Telegram) Calls(typeID uint32) int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.calls[typeID]
}

// handle registers a method's handler behind the fault queue.
func (f *Telegram) handle(d *tgtest.Dispatcher, id uint32, h func(s *tgtest.Server, req *tgtest.Request) error) {
	d.HandleFunc(id, func(s *tgtest.Server, req *tgtest.Request) error {
		f.mu.Lock()
		f.calls[id]++
		var fault *tgerr.Error
		if q := f.faults[id]; len(q) > 0 {
			fault, f.faults[id] = q[0], q[1:]
		}
		f.mu.Unlock()
		if fault != nil {
			return s.SendErr(req, fault)
		}
		return h(s, req)
	})
}

func (f *Telegram) register(d *tgtest.Dispatcher) {
	f.handle(d, tg.AuthExportLoginTokenRequestTypeID, func(s *tgtest.Server, req *tgtest.Request) error {
		var r tg.AuthExportLoginTokenRequest
		if err := r.Decode(req.Buf); err != nil {
			return err
		}
		f.mu.Lock()
		q := &f.qr
		q.exports++
		q.server, q.session = s, req.Session
		accepted, pw := q.accepted, f.password
		if !accepted && (q.token == nil || !time.Now().Before(q.expires)) {
			ttl := q.ttl
			if ttl <= 0 {
				ttl = 30 * time.Second
			}
			q.token = []byte("fake-login-token-" + strconv.Itoa(q.exports))
			q.expires = time.Now().Add(ttl).Truncate(time.Second)
		}
		token, expires := q.token, q.expires
		f.mu.Unlock()
		switch {
		case r.APIID == 0 || r.APIHash == "":
			return s.SendErr(req, tgerr.New(400, "API_ID_INVALID"))
		case accepted && pw != nil:
			return s.SendErr(req, tgerr.New(401, "SESSION_PASSWORD_NEEDED"))
		case accepted:
			return s.SendResult(req, &tg.AuthLoginTokenSuccess{Authorization: &tg.AuthAuthorization{User: f.self}})
		}
		return s.SendResult(req, &tg.AuthLoginToken{Token: token, Expires: int(expires.Unix())})
	})
	f.handle(d, tg.AuthImportLoginTokenRequestTypeID, func(s *tgtest.Server, req *tgtest.Request) error {
		var r tg.AuthImportLoginTokenRequest
		if err := r.Decode(req.Buf); err != nil {
			return err
		}
		f.mu.Lock()
		ok := f.qr.accepted && string(r.Token) == string(f.qr.token)
		f.mu.Unlock()
		if !ok {
			return s.SendErr(req, tgerr.New(400, "AUTH_TOKEN_INVALID"))
		}
		return s.SendResult(req, &tg.AuthLoginTokenSuccess{Authorization: &tg.AuthAuthorization{User: f.self}})
	})
	f.handle(d, tg.AuthSendCodeRequestTypeID, func(s *tgtest.Server, req *tgtest.Request) error {
		var r tg.AuthSendCodeRequest
		if err := r.Decode(req.Buf); err != nil {
			return err
		}
		f.mu.Lock()
		ok := f.phone != "" && r.PhoneNumber == f.phone
		f.mu.Unlock()
		if !ok {
			return s.SendErr(req, tgerr.New(400, "PHONE_NUMBER_INVALID"))
		}
		return s.SendResult(req, &tg.AuthSentCode{Type: &tg.AuthSentCodeTypeApp{Length: 5}, PhoneCodeHash: "fake-code-hash"})
	})
	f.handle(d, tg.AuthSignInRequestTypeID, func(s *tgtest.Server, req *tgtest.Request) error {
		var r tg.AuthSignInRequest
		if err := r.Decode(req.Buf); err != nil {
			return err
		}
		f.mu.Lock()
		code, pw := f.code, f.password
		f.mu.Unlock()
		switch {
		case r.PhoneCodeHash != "fake-code-hash" || r.PhoneCode != code:
			return s.SendErr(req, tgerr.New(400, "PHONE_CODE_INVALID"))
		case pw != nil:
			return s.SendErr(req, tgerr.New(401, "SESSION_PASSWORD_NEEDED"))
		}
		return s.SendResult(req, &tg.AuthAuthorization{User: f.self})
	})
	f.handle(d, tg.AccountGetPasswordRequestTypeID, func(s *tgtest.Server, req *tgtest.Request) error {
		f.mu.Lock()
		pw := f.password
		f.mu.Unlock()
		if pw == nil {
			return s.SendResult(req, &tg.AccountPassword{NewAlgo: &tg.PasswordKdfAlgoUnknown{}, NewSecureAlgo: &tg.SecurePasswordKdfAlgoUnknown{}})
		}
		return s.SendResult(req, &tg.AccountPassword{HasPassword: true, CurrentAlgo: pw.algo, SRPB: pw.gb, SRPID: pw.id,
			NewAlgo: &tg.PasswordKdfAlgoUnknown{}, NewSecureAlgo: &tg.SecurePasswordKdfAlgoUnknown{}})
	})
	f.handle(d, tg.AuthCheckPasswordRequestTypeID, func(s *tgtest.Server, req *tgtest.Request) error {
		var r tg.AuthCheckPasswordRequest
		if err := r.Decode(req.Buf); err != nil {
			return err
		}
		f.mu.Lock()
		pw := f.password
		f.mu.Unlock()
		in, ok := r.Password.(*tg.InputCheckPasswordSRP)
		if pw == nil || !ok || in.SRPID != pw.id || !pw.checkSRP(in.A, in.M1) {
			return s.SendErr(req, tgerr.New(400, "PASSWORD_HASH_INVALID"))
		}
		return s.SendResult(req, &tg.AuthAuthorization{User: f.self})
	})
	f.handle(d, tg.MessagesCheckChatInviteRequestTypeID, func(s *tgtest.Server, req *tgtest.Request) error {
		var r tg.MessagesCheckChatInviteRequest
		if err := r.Decode(req.Buf); err != nil {
			return err
		}
		f.mu.Lock()
		defer f.mu.Unlock()
		inv, fault := f.inviteLocked(r.Hash)
		if fault != nil {
			return s.SendErr(req, fault)
		}
		if f.memberLocked(inv.Channel.ID) {
			return s.SendResult(req, &tg.ChatInviteAlready{Chat: inv.Channel})
		}
		return s.SendResult(req, &tg.ChatInvite{Title: inv.Channel.Title, Channel: true, Broadcast: inv.Channel.Broadcast,
			RequestNeeded: inv.RequestNeeded, Photo: &tg.PhotoEmpty{}, ParticipantsCount: 12})
	})
	f.handle(d, tg.MessagesImportChatInviteRequestTypeID, func(s *tgtest.Server, req *tgtest.Request) error {
		var r tg.MessagesImportChatInviteRequest
		if err := r.Decode(req.Buf); err != nil {
			return err
		}
		f.mu.Lock()
		defer f.mu.Unlock()
		inv, fault := f.inviteLocked(r.Hash)
		switch {
		case fault != nil:
			return s.SendErr(req, fault)
		case f.memberLocked(inv.Channel.ID):
			return s.SendErr(req, tgerr.New(400, "USER_ALREADY_PARTICIPANT"))
		case inv.RequestNeeded:
			return s.SendErr(req, tgerr.New(400, "INVITE_REQUEST_SENT"))
		}
		f.channels = append(f.channels, inv.Channel)
		return s.SendResult(req, &tg.Updates{Chats: []tg.ChatClass{inv.Channel}, Date: int(time.Now().Unix())})
	})
	f.handle(d, tg.UsersGetUsersRequestTypeID, func(s *tgtest.Server, req *tgtest.Request) error {
		return s.SendVector(req, f.self)
	})
	f.handle(d, tg.MessagesGetDialogsRequestTypeID, func(s *tgtest.Server, req *tgtest.Request) error {
		f.mu.Lock()
		out := &tg.MessagesDialogs{}
		for _, ch := range f.channels {
			top := 1
			for _, m := range f.messages[ch.ID] {
				top = max(top, m.ID)
			}
			out.Dialogs = append(out.Dialogs, &tg.Dialog{Peer: &tg.PeerChannel{ChannelID: ch.ID}, TopMessage: top})
			out.Messages = append(out.Messages, &tg.Message{ID: top, PeerID: &tg.PeerChannel{ChannelID: ch.ID}, Date: 1})
			out.Chats = append(out.Chats, ch)
		}
		f.mu.Unlock()
		return s.SendResult(req, out)
	})
	f.handle(d, tg.ChannelsGetChannelsRequestTypeID, func(s *tgtest.Server, req *tgtest.Request) error {
		var r tg.ChannelsGetChannelsRequest
		if err := r.Decode(req.Buf); err != nil {
			return err
		}
		f.mu.Lock()
		defer f.mu.Unlock()
		out := &tg.MessagesChats{}
		for _, in := range r.ID {
			in, ok := in.(*tg.InputChannel)
			if !ok {
				continue
			}
			for _, ch := range f.channels {
				if ch.ID == in.ChannelID {
					if ch.AccessHash != in.AccessHash {
						return s.SendErr(req, tgerr.New(400, "CHANNEL_INVALID"))
					}
					out.Chats = append(out.Chats, ch)
				}
			}
		}
		return s.SendResult(req, out)
	})
	f.handle(d, tg.ContactsResolveUsernameRequestTypeID, func(s *tgtest.Server, req *tgtest.Request) error {
		var r tg.ContactsResolveUsernameRequest
		if err := r.Decode(req.Buf); err != nil {
			return err
		}
		f.mu.Lock()
		defer f.mu.Unlock()
		for _, ch := range f.channels {
			if ch.Username != "" && strings.EqualFold(ch.Username, r.Username) {
				return s.SendResult(req, &tg.ContactsResolvedPeer{Peer: &tg.PeerChannel{ChannelID: ch.ID}, Chats: []tg.ChatClass{ch}})
			}
		}
		return s.SendErr(req, tgerr.New(400, "USERNAME_NOT_OCCUPIED"))
	})
	f.handle(d, tg.ChannelsGetMessagesRequestTypeID, func(s *tgtest.Server, req *tgtest.Request) error {
		var r tg.ChannelsGetMessagesRequest
		if err := r.Decode(req.Buf); err != nil {
			return err
		}
		in, ok := r.Channel.(*tg.InputChannel)
		if !ok {
			return s.SendErr(req, tgerr.New(400, "CHANNEL_INVALID"))
		}
		f.mu.Lock()
		defer f.mu.Unlock()
		var ch *tg.Channel
		for _, c := range f.channels {
			if c.ID == in.ChannelID && c.AccessHash == in.AccessHash {
				ch = c
			}
		}
		if ch == nil {
			return s.SendErr(req, tgerr.New(400, "CHANNEL_INVALID"))
		}
		out := &tg.MessagesChannelMessages{Chats: []tg.ChatClass{ch}}
		for _, id := range r.ID {
			mid, ok := id.(*tg.InputMessageID)
			if !ok {
				continue
			}
			var found tg.MessageClass = &tg.MessageEmpty{ID: mid.ID}
			for _, m := range f.messages[ch.ID] {
				if m.ID == mid.ID {
					found = m
				}
			}
			out.Messages = append(out.Messages, found)
		}
		out.Count = len(out.Messages)
		return s.SendResult(req, out)
	})
	f.handle(d, tg.MessagesGetHistoryRequestTypeID, func(s *tgtest.Server, req *tgtest.Request) error {
		var r tg.MessagesGetHistoryRequest
		if err := r.Decode(req.Buf); err != nil {
			return err
		}
		in, ok := r.Peer.(*tg.InputPeerChannel)
		if !ok {
			return s.SendErr(req, tgerr.New(400, "PEER_ID_INVALID"))
		}
		f.mu.Lock()
		defer f.mu.Unlock()
		var ch *tg.Channel
		for _, c := range f.channels {
			if c.ID == in.ChannelID && c.AccessHash == in.AccessHash {
				ch = c
			}
		}
		if ch == nil {
			return s.SendErr(req, tgerr.New(400, "CHANNEL_INVALID"))
		}
		if r.Limit <= 0 || r.Limit > 100 {
			return s.SendErr(req, tgerr.New(400, "LIMIT_INVALID"))
		}
		// Newest first, older than offset_id (0: from the newest).
		msgs := append([]*tg.Message(nil), f.messages[ch.ID]...)
		slices.SortFunc(msgs, func(a, b *tg.Message) int { return b.ID - a.ID })
		out := &tg.MessagesChannelMessages{Chats: []tg.ChatClass{ch}, Count: len(msgs)}
		for _, m := range msgs {
			if (r.OffsetID == 0 || m.ID < r.OffsetID) && len(out.Messages) < r.Limit {
				out.Messages = append(out.Messages, m)
			}
		}
		f.history = append(f.history, r.OffsetID)
		return s.SendResult(req, out)
	})
	f.handle(d, tg.UploadGetFileRequestTypeID, func(s *tgtest.Server, req *tgtest.Request) error {
		var r tg.UploadGetFileRequest
		if err := r.Decode(req.Buf); err != nil {
			return err
		}
		var (
			id  int64
			ref []byte
		)
		switch l := r.Location.(type) {
		case *tg.InputPhotoFileLocation:
			id, ref = l.ID, l.FileReference
		case *tg.InputDocumentFileLocation:
			id, ref = l.ID, l.FileReference
		default:
			return s.SendErr(req, tgerr.New(400, "LOCATION_INVALID"))
		}
		f.mu.Lock()
		ff := f.files[id]
		var cur []byte
		if ff != nil {
			cur = ff.Ref
		}
		f.mu.Unlock()
		switch {
		case ff == nil:
			return s.SendErr(req, tgerr.New(400, "LOCATION_INVALID"))
		case string(cur) != string(ref):
			return s.SendErr(req, tgerr.New(400, "FILE_REFERENCE_EXPIRED"))
		case r.Limit <= 0 || r.Limit > 1<<20 || r.Offset < 0:
			return s.SendErr(req, tgerr.New(400, "LIMIT_INVALID"))
		}
		end := min(r.Offset+int64(r.Limit), ff.Size)
		var data []byte
		if r.Offset < end {
			data = make([]byte, end-r.Offset)
			for i := range data {
				data[i] = FakeFileByte(id, r.Offset+int64(i))
			}
		}
		return s.SendResult(req, &tg.UploadFile{Type: &tg.StorageFilePartial{}, Mtime: 1, Bytes: data})
	})
}

// inviteLocked finds an invite, or Telegram's refusal of it.
func (f *Telegram) inviteLocked(hash string) (*FakeInvite, *tgerr.Error) {
	inv, ok := f.invites[hash]
	switch {
	case hash == "":
		return nil, tgerr.New(400, "INVITE_HASH_EMPTY")
	case !ok:
		return nil, tgerr.New(400, "INVITE_HASH_INVALID")
	case inv.Expired:
		return nil, tgerr.New(400, "INVITE_HASH_EXPIRED")
	}
	return inv, nil
}

// SetQRLogin sets how long the fake's QR login tokens live (0: 30 s, as
// Telegram's).
func (f *Telegram) SetQRLogin(ttl time.Duration) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.qr = qrState{ttl: ttl}
}

// QRExports counts the login tokens asked for so far.
func (f *Telegram) QRExports() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.qr.exports
}

// ShownQR is the login URL of the current QR login token ("" before the
// first export): what a phone scanning the code on screen reads.
func (f *Telegram) ShownQR() string {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.qr.token == nil {
		return ""
	}
	return "tg://login?token=" + base64.URLEncoding.EncodeToString(f.qr.token)
}

// ScanQR is a Telegram app accepting a login URL (tg://login?token=…)
// shown by a QR sign-in: the token must be the current one and not
// expired. The waiting session is told (updateLoginToken), and its next
// export answers with the authorization (or SESSION_PASSWORD_NEEDED when
// the account has a 2FA password).
func (f *Telegram) ScanQR(loginURL string) error {
	t, err := qrlogin.ParseTokenURL(loginURL)
	if err != nil {
		return fmt.Errorf("testkit: not a login URL: %w", err)
	}
	f.mu.Lock()
	q := &f.qr
	switch {
	case q.token == nil || t.String() != base64.URLEncoding.EncodeToString(q.token):
		f.mu.Unlock()
		return errors.New("testkit: not the login token shown now")
	case !time.Now().Before(q.expires):
		f.mu.Unlock()
		return errors.New("testkit: the login token expired")
	}
	q.accepted = true
	s, k := q.server, q.session
	f.mu.Unlock()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	return s.SendUpdates(ctx, k, &tg.UpdateLoginToken{})
}

// SetSignIn makes the fake accept a sign-in with phone and code, and, when
// password is not "", the two-step verification password.
func (f *Telegram) SetSignIn(t testing.TB, phone, code, password string) {
	t.Helper()
	f.mu.Lock()
	defer f.mu.Unlock()
	f.phone, f.code, f.password = phone, code, nil
	if password == "" {
		return
	}
	algo := &tg.PasswordKdfAlgoSHA256SHA256PBKDF2HMACSHA512iter100000SHA256ModPow{
		Salt1: []byte{230, 200, 149, 125, 223, 152, 141, 72}, Salt2: []byte{159, 99, 68, 130, 43, 9, 108, 255}, G: 3, P: telegramPrime(),
	}
	vb, salt1, err := srp.NewSRP(rand.Reader).NewHash([]byte(password), srp.Input{Salt1: algo.Salt1, Salt2: algo.Salt2, G: algo.G, P: algo.P})
	if err != nil {
		t.Fatalf("testkit: make the 2FA verifier: %v", err)
	}
	algo.Salt1 = salt1
	p, g := new(big.Int).SetBytes(algo.P), big.NewInt(int64(algo.G))
	b, err := rand.Int(rand.Reader, p)
	if err != nil {
		t.Fatal(err)
	}
	v := new(big.Int).SetBytes(vb)
	// B = (k*v + g^b) mod p, k = H(p | pad(g)).
	k := new(big.Int).SetBytes(sha(algo.P, pad256(g)))
	gb := new(big.Int).Mod(new(big.Int).Add(new(big.Int).Mul(k, v), new(big.Int).Exp(g, b, p)), p)
	f.password = &srpPassword{algo: algo, v: v, b: b, gb: pad256(gb), id: 4711}
}

// checkSRP verifies a client's proof M1 for A against the verifier.
func (pw *srpPassword) checkSRP(a, m1 []byte) bool {
	p := new(big.Int).SetBytes(pw.algo.P)
	g := big.NewInt(int64(pw.algo.G))
	av := new(big.Int).SetBytes(a)
	if av.Sign() <= 0 || av.Cmp(p) >= 0 {
		return false
	}
	u := new(big.Int).SetBytes(sha(pad256(av), pw.gb))
	// S = (A * v^u)^b mod p
	s := new(big.Int).Exp(new(big.Int).Mod(new(big.Int).Mul(av, new(big.Int).Exp(pw.v, u, p)), p), pw.b, p)
	k := sha(pad256(s))
	hp, hg := sha(pw.algo.P), sha(pad256(g))
	for i := range hp {
		hp[i] ^= hg[i]
	}
	want := sha(hp, sha(pw.algo.Salt1), sha(pw.algo.Salt2), pad256(av), pw.gb, k)
	return hmac.Equal(want, m1)
}

func sha(parts ...[]byte) []byte {
	h := sha256.New()
	for _, p := range parts {
		h.Write(p)
	}
	return h.Sum(nil)
}

func pad256(n *big.Int) []byte {
	out := make([]byte, 256)
	return n.FillBytes(out)
}

// telegramPrime is the 2048-bit safe prime Telegram's SRP uses.
func telegramPrime() []byte {
	p, _ := hex.DecodeString("c71caeb9c6b1c9048e6c522f70f13f73980d40238e3e21c14934d037563d930f" +
		"48198a0aa7c14058229493d22530f4dbfa336f6e0ac925139543aed44cce7c37" +
		"20fd51f69458705ac68cd4fe6b6b13abdc9746512969328454f18faf8c595f64" +
		"2477fe96bb2a941d5bcd1d4ac8cc49880708fa9b378e3c4f3a9060bee67cf9a4" +
		"a4a695811051907e162753b56b0f6b410dba74d8a84b2a14b3144e0ef1284754" +
		"fd17ed950d5965b4b9dd46582db1178d169c6bc465b0d6ff9ca3928fef5b9ae4" +
		"e418fc15e83ebea0f87fa9ff5eed70050ded2849f47bf959d956850ce929851f" +
		"0d8115f635b105ee2e4e15d04b2454bf6f4fadf034b10403119cd8e3b92fcc5b")
	return p
}

// Errors a test makes the fake answer.
var (
	// ErrFloodWait3 asks the client to wait 3 seconds.
	ErrFloodWait3 = tgerr.New(420, "FLOOD_WAIT_3")
	// ErrAuthKeyUnregistered refuses a session that was signed out.
	ErrAuthKeyUnregistered = tgerr.New(401, "AUTH_KEY_UNREGISTERED")
)
