package web

import (
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"
)

// Pages are parsed on first use, not at start; the templates are embedded,
// so parsing every one here is what stops a broken page from shipping.
func TestEveryPageParses(t *testing.T) {
	t.Parallel()
	r, err := New()
	require.NoError(t, err)
	for _, p := range pages() {
		tmpl, err := r.page(p)
		require.NoError(t, err, p)
		require.NotNil(t, tmpl.Lookup("layout.html"), "%s has the layout", p)
	}
	_, err = r.page("nope.html")
	require.EqualError(t, err, "web: no page template nope.html")
}

// The first draws of a page may come at once: each sees the one parse.
func TestFirstDrawsOfAPageAtOnce(t *testing.T) {
	t.Parallel()
	r, err := New()
	require.NoError(t, err)
	var wg sync.WaitGroup
	out := make([]string, 8)
	for i := range out {
		wg.Go(func() {
			var b strings.Builder
			if err := r.Render(&b, "post.html", &Page{Site: SiteInfo{Title: "Archive"}, Post: &Post{Author: Author{Name: "A"}, Body: PlainHTML("hi")}}); err != nil {
				out[i] = err.Error()
				return
			}
			out[i] = b.String()
		})
	}
	wg.Wait()
	require.Contains(t, out[0], "<p>hi</p>")
	for _, o := range out[1:] {
		require.Equal(t, out[0], o)
	}
}
