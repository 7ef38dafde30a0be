package web_test

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/monitorhq/monitor/internal/testkit/testcore"
)

// The item page says the post's chain verifies, how long it is and which
// key signs it, in both languages, and offers the proof to download.
func TestItemPageShowsTheVerifiedChain(t *testing.T) {
	t.Parallel()
	testcore.Each(t, testcore.Options{}, func(t *testing.T, c *testcore.Core) {
		s := newItemSite(t, c, "alice")
		id := s.save(t, photosPost)
		fp := c.App.Instance().KeyFingerprint
		require.NotEmpty(t, fp)

		status, doc := s.get(t, "/c/"+id.String(), "")
		require.Equal(t, http.StatusOK, status)
		proof := doc.Find("article.post .proof")
		require.Equal(t, 1, proof.Length())
		require.Equal(t, "✓ verified chain · 1 revision · key "+fp+" Download the proof", words(proof))
		a := proof.Find("a")
		href := a.AttrOr("href", "")
		require.Equal(t, "/v1/collections/"+id.String()+"/proof", href)
		require.Equal(t, "proof-"+id.String()+".json", a.AttrOr("download", ""))

		_, doc = s.get(t, "/c/"+id.String(), "zh-CN")
		require.Equal(t, "✓ 哈希链已验证 · 1 个版本 · 密钥 "+fp+" 下载证明", words(doc.Find("article.post .proof")))

		// The link downloads the proof with the page's session.
		req, _ := http.NewRequestWithContext(context.Background(), http.MethodGet, s.srv.URL+href, nil)
		req.AddCookie(&http.Cookie{Name: "monitor_session", Value: s.key})
		resp, err := http.DefaultClient.Do(req)
		require.NoError(t, err)
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		require.Equal(t, http.StatusOK, resp.StatusCode, string(body))
		var p struct {
			Head  string            `json:"head"`
			Chain []json.RawMessage `json:"chain"`
		}
		require.NoError(t, json.Unmarshal(body, &p))
		require.Len(t, p.Chain, 1)
		require.NotEmpty(t, p.Head)
	})
}
