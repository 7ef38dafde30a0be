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
)

// Purposes of keys derived from the master key: each use gets its own key,
// so a value sealed for one can never be opened as another.
const settingsPurpose = "monitor settings v1"

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
	nonce := make([]byte, b.aead.NonceSize(), b.aead.NonceSize()+len(plaintext)+b.aead.Overhead())
	_, _ = rand.Read(nonce) // never fails (crypto/rand panics instead)
	out := b.aead.Seal(nonce, nonce, []byte(plaintext), []byte(aad))
	return sealedPrefix + base64.StdEncoding.EncodeToString(out)
}

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
	plain, err := b.aead.Open(nil, data[:n], data[n:], []byte(aad))
	if err != nil {
		return "", errors.New("it does not open with this MONITOR_MASTER_KEY (changed since it was stored?)")
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
