package web_test

import (
	"net/http"
	"net/url"
	"regexp"
	"strconv"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/monitorhq/monitor/internal/testkit"
	"github.com/monitorhq/monitor/internal/testkit/testcore"
)

// testkitPost is the i-th synthetic text post of the fake FxTwitter.
func testkitPost(i int) testkit.SyntheticPost {
	return testkit.SyntheticPost{ID: strconv.Itoa(3000000000000000000 + i), NoAvatar: true}
}

func TestUsageTokensAndSettings(t *testing.T) {
	t.Parallel()
	testcore.Each(t, testcore.Options{NoAdapters: true}, func(t *testing.T, c *testcore.Core) {
		quota := int64(10 << 20)
		s := newSite(t, c, "alice", &quota)

		u := s.get("/usage")
		require.Equal(t, http.StatusOK, u.Status)
		require.Contains(t, u.Body, `<meter class="quota" min="0" max="10485760"`)
		require.Contains(t, u.Body, "10 MiB")
		require.Contains(t, s.get("/usage", "Accept-Language", "zh-CN").Body, "配额")

		require.Contains(t, s.get("/tokens").Body, "You have no tokens yet.")
		created := s.post("/tokens", url.Values{"name": {"laptop"}})
		require.Equal(t, http.StatusOK, created.Status)
		secret := regexp.MustCompile(`mon_[A-Za-z0-9_-]{43}`).FindString(created.Body)
		require.NotEmpty(t, secret, "the new token is shown once")
		list := s.get("/tokens")
		require.Contains(t, list.Body, "laptop")
		require.NotContains(t, list.Body, secret, "and never again")
		rev := regexp.MustCompile(`action="(/tokens/[0-9a-f-]{36}/revoke)"`).FindStringSubmatch(list.Body)
		require.NotNil(t, rev)
		require.Equal(t, http.StatusSeeOther, s.post(rev[1], nil).Status)
		require.Contains(t, s.get("/tokens").Body, "Revoked")
		require.Equal(t, http.StatusNotFound, s.post(rev[1], nil).Status, "revoked already")
		bad := s.post("/tokens", url.Values{"name": {"bad\x00name"}})
		require.Equal(t, http.StatusBadRequest, bad.Status)
		require.Contains(t, bad.Body, "This name cannot be used")

		set := s.get("/settings")
		require.Contains(t, set.Body, `value="" checked`, "automatic until chosen")
		saved := s.post("/settings", url.Values{"language": {"zh-CN"}, "theme": {"dark"}})
		require.Equal(t, http.StatusSeeOther, saved.Status, saved.Body)
		set = s.get(saved.Location)
		require.Contains(t, set.Body, "Saved.")
		require.Contains(t, set.Body, `value="zh-CN" checked`)
		require.Contains(t, set.Body, `value="dark" checked`)
		wrong := s.post("/settings", url.Values{"language": {"klingon"}, "theme": {"dark"}})
		require.Equal(t, http.StatusBadRequest, wrong.Status)
		require.Contains(t, wrong.Body, "Not saved")
	})
}
