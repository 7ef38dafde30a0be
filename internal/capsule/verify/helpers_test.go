package verify_test

import (
	"crypto/sha256"
	"encoding/hex"

	"github.com/monitorhq/monitor/internal/app"
)

func sha256hex(b []byte) string {
	s := sha256.Sum256(b)
	return hex.EncodeToString(s[:])
}

func appVerifyAll() app.VerifyOptions { return app.VerifyOptions{} }
