package httpapi

import (
	"context"
	"net/http"
	"strconv"

	"github.com/monitorhq/monitor/internal/app"
)

// collections lists the tenant's saved collections, newest save first:
// GET /v1/collections?limit=&cursor=.
func (d Deps) collections(w http.ResponseWriter, r *http.Request) {
	limit, cursor, err := pageParams(r.URL.Query())
	if err != nil {
		d.writeError(w, r, err)
		return
	}
	p, lang := principal(r), summaryLang(r)
	tenant := p.TenantID
	body, err := d.App.KeptAnswer(r.Context(), p, "collections\x00"+strconv.Itoa(limit)+"\x00"+cursor+"\x00"+lang,
		func(ctx context.Context) ([]byte, error) {
			page, err := d.App.Collections(ctx, tenant, limit, cursor)
			if err != nil {
				return nil, err
			}
			if page.Items == nil {
				page.Items = []app.CollectionView{}
			}
			for i := range page.Items {
				linkCollection(&page.Items[i], lang)
			}
			return encodeJSON(page)
		})
	if err != nil {
		d.writeError(w, r, err)
		return
	}
	writeJSONBytes(w, http.StatusOK, body)
}

// collection shows a collection with its current revision:
// GET /v1/collections/{id}.
func (d Deps) collection(w http.ResponseWriter, r *http.Request) {
	id, err := pathID(r, "collection")
	if err != nil {
		d.writeError(w, r, err)
		return
	}
	v, err := d.App.Collection(r.Context(), principal(r).TenantID, id)
	if err != nil {
		d.writeError(w, r, err)
		return
	}
	linkCollection(&v, summaryLang(r))
	writeJSON(w, http.StatusOK, v)
}

// revisions lists a collection's versions, newest first:
// GET /v1/collections/{id}/revisions.
func (d Deps) revisions(w http.ResponseWriter, r *http.Request) {
	id, err := pathID(r, "collection")
	if err != nil {
		d.writeError(w, r, err)
		return
	}
	revs, err := d.App.Revisions(r.Context(), principal(r).TenantID, id)
	if err != nil {
		d.writeError(w, r, err)
		return
	}
	if revs == nil {
		revs = []app.RevisionView{}
	}
	lang := summaryLang(r)
	for i := range revs {
		linkRevision(&revs[i], lang)
	}
	writeJSON(w, http.StatusOK, listBody[app.RevisionView]{Items: revs})
}

// revision shows one version: GET /v1/revisions/{id}.
func (d Deps) revision(w http.ResponseWriter, r *http.Request) {
	id, err := pathID(r, "revision")
	if err != nil {
		d.writeError(w, r, err)
		return
	}
	v, err := d.App.Revision(r.Context(), principal(r).TenantID, id)
	if err != nil {
		d.writeError(w, r, err)
		return
	}
	linkRevision(&v, summaryLang(r))
	writeJSON(w, http.StatusOK, v)
}

// deleteCollection removes the tenant's reference to a collection:
// DELETE /v1/collections/{id}.
func (d Deps) deleteCollection(w http.ResponseWriter, r *http.Request) {
	id, err := pathID(r, "collection")
	if err != nil {
		d.writeError(w, r, err)
		return
	}
	if err := d.App.DeleteCollection(r.Context(), principal(r).TenantID, id); err != nil {
		d.writeError(w, r, err)
		return
	}
	w.WriteHeader(http.StatusNoContent)
}

// refresh captures a saved collection again:
// POST /v1/collections/{id}/refresh.
func (d Deps) refresh(w http.ResponseWriter, r *http.Request) {
	id, err := pathID(r, "collection")
	if err != nil {
		d.writeError(w, r, err)
		return
	}
	key, err := idempotencyKey(r.Header)
	if err != nil {
		d.writeError(w, r, err)
		return
	}
	res, err := d.App.Refresh(r.Context(), principal(r).TenantID, id, key)
	if err != nil {
		d.writeError(w, r, err)
		return
	}
	writeAccepted(w, res)
}

// listBody is the body of the listings that are not paginated.
type listBody[T any] struct {
	Items []T `json:"items"`
}

// linkCollection points the collection's media at GET /v1/media, renders
// its empty lists as [] rather than null and its summary's media markers
// in lang.
func linkCollection(c *app.CollectionView, lang string) {
	c.Summary = app.RenderSummary(c.Summary, lang)
	c.Media = linkMedia(c.Media)
	if c.Graph != nil {
		linkGraph(c.Graph)
	}
}

// linkRevision is linkCollection for a revision.
func linkRevision(v *app.RevisionView, lang string) {
	v.Summary = app.RenderSummary(v.Summary, lang)
	v.Media = linkMedia(v.Media)
	linkGraph(&v.Graph)
}

// summaryLang is the language of the media markers of the summaries in an
// answer: Accept-Language's, but Chinese ([图片]) when the request sends
// none, the form REST answered before markers were stored locale-neutral
// and that existing clients expect.
func summaryLang(r *http.Request) string {
	accept := r.Header.Get("Accept-Language")
	if accept == "" {
		return app.LangChinese
	}
	return app.Lang("", accept)
}

func linkMedia(media []app.MediaView) []app.MediaView {
	if media == nil {
		return []app.MediaView{}
	}
	for i := range media {
		media[i].URL = mediaURL(media[i].SHA256)
	}
	return media
}

func linkGraph(g *app.GraphView) {
	if g.Entities == nil {
		g.Entities = []app.EntityNode{}
	}
	if g.Relations == nil {
		g.Relations = []app.RelationView{}
	}
	for i := range g.Entities {
		for j := range g.Entities[i].Resources {
			g.Entities[i].Resources[j].URL = mediaURL(g.Entities[i].Resources[j].SHA256)
		}
	}
}

// mediaURL is where GET /v1/media serves the bytes of a sha256.
func mediaURL(sha256 string) string { return "/v1/media/" + sha256 }
