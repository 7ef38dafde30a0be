package build

import (
	"encoding/json"
	"strings"

	"github.com/monitorhq/monitor/internal/capsule"
	"github.com/monitorhq/monitor/internal/web"
)

// Entity types whose data is a profile header: an X account and a
// Telegram channel (schemas in adapters/x and adapters/telegram).
const (
	typeXProfile = "x.profile"
	typeChannel  = "telegram.channel"
)

// profileKey is the graph key of the profile entity of a collection's
// author: the root itself when the collection is a profile or channel,
// else the entity the root is authored_by (X) or posted_in (Telegram).
func profileKey(g *capsule.Graph) string {
	if e := entity(g, g.Root); e != nil && isProfile(e.Type) {
		return e.Key
	}
	for _, rel := range []string{"authored_by", "posted_in"} {
		if k := related(g, g.Root, rel); k != "" {
			if e := entity(g, k); e != nil && isProfile(e.Type) {
				return k
			}
		}
	}
	return ""
}

func isProfile(typ string) bool { return typ == typeXProfile || typ == typeChannel }

// profileData is what a header shows of x.profile and telegram.channel
// data; each type fills its own fields.
type profileData struct {
	// x.profile
	Handle      string `json:"handle"`
	Name        string `json:"name"`
	Description string `json:"description"`
	Followers   *int64 `json:"followers"`
	Following   *int64 `json:"following"`
	Posts       *int64 `json:"posts"`
	URL         string `json:"url"`
	// telegram.channel
	Username    string `json:"username"`
	Title       string `json:"title"`
	Subscribers *int64 `json:"subscribers"`
	Photos      *int64 `json:"photos"`
	Videos      *int64 `json:"videos"`
	Files       *int64 `json:"files"`
	Links       *int64 `json:"links"`
}

// profile is the header of an author page: the author's profile entity
// from the collection that knows the most of it, preferring a capture of
// the profile itself (which has its banner and counts), then the newest
// post. nil when no post names a profile.
func (s *site) profile(ps []*post) *web.Profile {
	var best *post
	score := func(p *post) int {
		e := entity(&p.c.Graph, p.profile)
		n := len(e.Resources)
		if p.c.Graph.Root == p.profile {
			n += 100
		}
		return n
	}
	for _, p := range ps { // newest first
		if p.profile == "" {
			continue
		}
		if best == nil || score(p) > score(best) {
			best = p
		}
	}
	if best == nil {
		return nil
	}
	g := &best.c.Graph
	e := entity(g, best.profile)
	var d profileData
	if err := json.Unmarshal(e.Data, &d); err != nil {
		return nil
	}
	pr := &web.Profile{Bio: strings.TrimSpace(d.Description), URL: d.URL,
		Avatar: s.resource(g, e.Key, "avatar"), Banner: s.resource(g, e.Key, "banner")}
	add := func(key string, n *int64) {
		if n != nil {
			pr.Counts = append(pr.Counts, web.Count{Label: s.t("build.count." + key), Value: *n})
		}
	}
	switch e.Type {
	case typeXProfile:
		pr.Name, pr.Handle = d.Name, d.Handle
		add("posts", d.Posts)
		add("following", d.Following)
		add("followers", d.Followers)
	case typeChannel:
		pr.Name, pr.Handle = d.Title, d.Username
		add("subscriber", d.Subscribers)
		add("photos", d.Photos)
		add("videos", d.Videos)
		add("files", d.Files)
		add("links", d.Links)
	}
	if pr.Name == "" {
		pr.Name = best.Author.Name
	}
	return pr
}
