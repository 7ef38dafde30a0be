package blob_test

import (
	"strings"
	"testing"

	"github.com/google/uuid"
	"github.com/stretchr/testify/require"

	"github.com/monitorhq/monitor/internal/blob"
	"github.com/monitorhq/monitor/internal/blob/blobtest"
)

func TestValidateKey(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		key string
		ok  bool
	}{
		{"a", true},
		{"t1/objects/a", true},
		{"0193a8c4-7b2e-7c1d-9f00-123456789abc/objects/0193a8c4-7b2e-7c1d-9f00-cba987654321", true},
		{"A-Z_a-z.0-9", true},
		{".hidden/..x/x..", true},
		{"...", true},
		{strings.Repeat("a", blob.MaxSegmentLen), true},
		{strings.Repeat(strings.Repeat("a", 127)+"/", 3) + strings.Repeat("a", 128), true}, // exactly 512 bytes
		{"", false},
		{"../x", false},
		{"a/../../b", false},
		{"a/..", false},
		{"..", false},
		{".", false},
		{"a/./b", false},
		{"/abs", false},
		{"trailing/", false},
		{"/", false},
		{"a//b", false},
		{`a\b`, false},
		{"a\x00b", false},
		{"a b", false},
		{"a:b", false},
		{"a%2Fb", false},
		{"ünicode", false},
		{strings.Repeat("a", blob.MaxSegmentLen+1), false},
		{strings.Repeat("a/", blob.MaxKeyLen/2) + "a", false}, // 513 bytes
	} {
		err := blob.ValidateKey(tc.key)
		if tc.ok {
			require.NoError(t, err, "%q", tc.key)
		} else {
			require.ErrorIs(t, err, blob.ErrInvalidKey, "%q", tc.key)
			require.True(t, strings.HasPrefix(err.Error(), "blob: invalid key"), err.Error())
		}
	}
	for _, key := range blobtest.InvalidKeys() {
		require.ErrorIs(t, blob.ValidateKey(key), blob.ErrInvalidKey, "%q", key)
	}
}

func TestObjectKey(t *testing.T) {
	t.Parallel()
	tenant := uuid.MustParse("0193a8c4-7b2e-7c1d-9f00-123456789abc")
	object := uuid.MustParse("0193a8c4-7b2e-7c1d-9f00-cba987654321")
	key := blob.ObjectKey(tenant, object)
	require.Equal(t, "0193a8c4-7b2e-7c1d-9f00-123456789abc/objects/0193a8c4-7b2e-7c1d-9f00-cba987654321", key)
	require.NoError(t, blob.ValidateKey(key))
}
