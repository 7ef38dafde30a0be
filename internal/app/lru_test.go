package app

import (
	"testing"

	"github.com/stretchr/testify/require"
)

func TestLRUKeepsCountAndWeight(t *testing.T) {
	c := weighed[string](3, 10, func(v string) int { return len(v) })
	c.put("a", "1234")
	c.put("b", "1234")
	_, _ = c.get("a")  // a is now the most recently used
	c.put("c", "1234") // 12 > 10: b, the least recently used, goes
	_, ok := c.get("b")
	require.False(t, ok)
	v, ok := c.get("a")
	require.True(t, ok)
	require.Equal(t, "1234", v)
	c.put("a", "1") // replacing a value reweighs it: 1 + 4
	c.put("d", "12")
	for _, k := range []string{"a", "c", "d"} {
		_, ok := c.get(k)
		require.True(t, ok, k)
	}
	c.put("e", "1") // four values: the count bound drops the oldest, a
	_, ok = c.get("a")
	require.False(t, ok)
	c.put("big", "12345678901") // heavier than the bound alone: kept by itself
	_, ok = c.get("big")
	require.True(t, ok)
	require.Equal(t, 1, c.order.Len())
	require.Equal(t, 11, c.weight)
}
