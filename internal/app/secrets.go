package app

import (
	"context"
	"crypto/aes"
	"crypto/cipher"
	"crypto/hkdf"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"errors"
	"fmt"
	"strings"

	"github.com/google/uuid"
)

// Purposes of keys derived from the master key: each use gets its own key,
// so a value sealed for one can never be opened as another.
//
// The master key (MONITOR_MASTER_KEY or MONITOR_MASTER_KEY_FILE) is text of
// at least 16 random characters, e.g. `openssl rand -base64 32`; a shorter
// one is refused with that advice. It is never stored: HKDF-SHA256 derives
// one AES-256 key per purpose from it, and AES-256-GCM seals each value
// under a random 96-bit nonce, bound by its AAD to what it is.
const (
	settingsPurpose    = "monitor settings v1"
	credentialsPurpose = "monitor credentials v1"
)

// credentialKeyVersion is recorded with each sealed credential
// (account_credentials.key_version): 1 is credentialsPurpose's key derived
// from the master key. A later key scheme gets its own number.
const credentialKeyVersion = 1

// sealedPrefix marks the format of a sealed value: AES-256-GCM, the nonce
// followed by the ciphertext, base64 (standard, padded).
const sealedPrefix = "v1:"

// minMasterKeyLen is the shortest master key accepted. HKDF does not
// stretch a weak key, so a short one would make the ciphertext guessable.
const minMasterKeyLen = 16

// errNoMasterKey is why nothing can be sealed or opened.
var errNoMasterKey = errors.New("no master key")

// secretBox seals and opens values with a key derived from the master key
// for one purpose.
type secretBox struct {
	aead cipher.AEAD
}

// newSecretBox derives the purpose's AES-256 key from the master key with
// HKDF-SHA256.
func newSecretBox(masterKey, purpose string) (*secretBox, error) {
	if masterKey == "" {
		return nil, errNoMasterKey
	}
	if len(masterKey) < minMasterKeyLen {
		return nil, fmt.Errorf("MONITOR_MASTER_KEY is %d characters; use at least %d random ones, e.g. from `openssl rand -base64 32`",
			len(masterKey), minMasterKeyLen)
	}
	key, err := hkdf.Key(sha256.New, []byte(masterKey), nil, purpose, 32)
	if err != nil {
		return nil, fmt.Errorf("app: derive key: %w", err)
	}
	block, err := aes.NewCipher(key)
	if err != nil {
		return nil, fmt.Errorf("app: derive key: %w", err)
	}
	aead, err := cipher.NewGCM(block)
	if err != nil {
		return nil, fmt.Errorf("app: derive key: %w", err)
	}
	return &secretBox{aead: aead}, nil
}

// seal encrypts plaintext bound to aad (the name of what it is, so a
// sealed value copied to another name does not open) under a random nonce.
func (b *secretBox) seal(plaintext, aad string) string {
	nonce, ct := b.sealBytes([]byte(plaintext), []byte(aad))
	return sealedPrefix + base64.StdEncoding.EncodeToString(append(nonce, ct...))
}

// sealBytes encrypts plaintext bound to aad under a fresh random nonce and
// returns the nonce and the ciphertext (with its tag) apart, as
// account_credentials stores them.
func (b *secretBox) sealBytes(plaintext, aad []byte) (nonce, ciphertext []byte) {
	nonce = make([]byte, b.aead.NonceSize())
	_, _ = rand.Read(nonce) // never fails (crypto/rand panics instead)
	return nonce, b.aead.Seal(nil, nonce, plaintext, aad)
}

// openBytes decrypts what sealBytes sealed for aad.
func (b *secretBox) openBytes(nonce, ciphertext, aad []byte) ([]byte, error) {
	if len(nonce) != b.aead.NonceSize() || len(ciphertext) < b.aead.Overhead() {
		return nil, errors.New("sealed value is damaged")
	}
	plain, err := b.aead.Open(nil, nonce, ciphertext, aad)
	if err != nil {
		return nil, errWrongKey
	}
	return plain, nil
}

// errWrongKey is a sealed value that does not open: another master key,
// or the value was moved or altered.
var errWrongKey = errors.New("it does not open with this MONITOR_MASTER_KEY (changed since it was stored?)")

// open decrypts a value sealed for aad.
func (b *secretBox) open(sealed, aad string) (string, error) {
	raw, ok := strings.CutPrefix(sealed, sealedPrefix)
	if !ok {
		return "", errors.New("not a sealed value of a known format")
	}
	data, err := base64.StdEncoding.DecodeString(raw)
	if err != nil || len(data) < b.aead.NonceSize()+b.aead.Overhead() {
		return "", errors.New("sealed value is damaged")
	}
	n := b.aead.NonceSize()
	plain, err := b.openBytes(data[:n], data[n:], []byte(aad))
	if err != nil {
		return "", err
	}
	return string(plain), nil
}

// sealSetting encrypts a secret setting's value for storage, bound to its
// key name.
func (a *App) sealSetting(key, value string) (string, error) {
	box, err := newSecretBox(a.masterKey, settingsPurpose)
	if errors.Is(err, errNoMasterKey) {
		return "", errorf(ErrInvalid, "set MONITOR_MASTER_KEY to store secret settings such as %s", key)
	}
	if err != nil {
		return "", errorf(ErrInvalid, "cannot store secret setting %s: %v", key, err)
	}
	return box.seal(value, key), nil
}

// SecretSetting decrypts a secret setting ("" when it is not set), for the
// component that uses it; it is never shown to anyone.
func (a *App) SecretSetting(ctx context.Context, key string) (string, error) {
	k, ok := settingKeyByName(key)
	if !ok {
		return "", unknownSetting(key)
	}
	if !k.secret {
		return "", errorf(ErrInvalid, "setting %s is not a secret; read it with Settings", key)
	}
	stored, err := a.store.SettingList(ctx)
	if err != nil {
		return "", err
	}
	for _, st := range stored {
		if st.Key != key {
			continue
		}
		box, err := newSecretBox(a.masterKey, settingsPurpose)
		if errors.Is(err, errNoMasterKey) {
			return "", fmt.Errorf("secret setting %s is stored encrypted; set MONITOR_MASTER_KEY to the key it was stored with", key)
		}
		if err != nil {
			return "", fmt.Errorf("secret setting %s: %w", key, err)
		}
		v, err := box.open(st.Value, key)
		if err != nil {
			return "", fmt.Errorf("secret setting %s: %v; store it again with `monitor admin config set %s VALUE`", key, err, key)
		}
		return v, nil
	}
	return "", nil
}

// credentialAAD binds a sealed account credential to its tenant and its
// account_credentials record: moved to another row or tenant, it does not
// open.
func credentialAAD(tenantID, credentialID uuid.UUID) []byte {
	return []byte("tenant:" + tenantID.String() + "/credential:" + credentialID.String())
}

// credentialBox is the box account credentials are sealed with; without a
// usable master key it says so, in words for the operator.
func (a *App) credentialBox() (*secretBox, error) {
	box, err := newSecretBox(a.masterKey, credentialsPurpose)
	if errors.Is(err, errNoMasterKey) {
		return nil, errorf(ErrInvalid, "MONITOR_MASTER_KEY is not set, so this instance cannot keep account credentials; the operator sets it (at least 16 random characters, e.g. `openssl rand -base64 32`) and restarts")
	}
	if err != nil {
		return nil, errorf(ErrInvalid, "cannot keep account credentials: %v", err)
	}
	return box, nil
}

// sealCredential encrypts an adapter's prepared credential for the
// tenant's record credentialID.
func (a *App) sealCredential(tenantID, credentialID uuid.UUID, credential []byte) (nonce, ciphertext []byte, err error) {
	box, err := a.credentialBox()
	if err != nil {
		return nil, nil, err
	}
	nonce, ciphertext = box.sealBytes(credential, credentialAAD(tenantID, credentialID))
	return nonce, ciphertext, nil
}

// openCredential decrypts the tenant's sealed credential record.
func (a *App) openCredential(tenantID, credentialID uuid.UUID, nonce, ciphertext []byte) ([]byte, error) {
	box, err := a.credentialBox()
	if err != nil {
		return nil, err
	}
	plain, err := box.openBytes(nonce, ciphertext, credentialAAD(tenantID, credentialID))
	if err != nil {
		return nil, errorf(ErrInvalid, "the account's stored credential cannot be used: %v; the operator restores the key it was stored with, or the account is added again", err)
	}
	return plain, nil
}
