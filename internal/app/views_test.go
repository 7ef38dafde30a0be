package app_test

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/monitorhq/monitor/internal/app"
)

func TestIsSHA256(t *testing.T) {
	t.Parallel()
	good := strings.Repeat("0123456789abcdef", 4)
	require.True(t, app.IsSHA256(good))
	for _, bad := range []string{"", good[:63], good + "0", strings.ToUpper(good), good[:63] + "g", "../" + good[3:]} {
		require.False(t, app.IsSHA256(bad), bad)
	}
}
