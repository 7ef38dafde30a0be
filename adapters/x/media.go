package x

import (
	"math"
	"net/url"
	"path"
	"strconv"
	"strings"

	adapterv1 "github.com/monitorhq/monitor/api/adapter/v1"
)

// Media selection: photos at name=orig, the best MP4 of a video, avatars
// without their size suffix.

// Purposes of media that are not shown with the post.
const (
	purposeAvatar = "avatar"
	purposeBanner = "banner"
	purposeQuoted = "quoted"
	// purposePoster marks a video's or gif's still frame. Posters are
	// resources of the post that shows the videos, one per video in the
	// order of the post's videos, or none at all (see posterMedia).
	purposePoster = "poster"
	// purposeCard is a link card's image, purposeArticleCover an
	// article's cover: resources of the post that shows them.
	purposeCard         = "card"
	purposeArticleCover = "article_cover"
)

// statusMedia returns a post's media in the order the post shows them, each
// with the given purpose and the post's sensitive flag.
func statusMedia(st *fxStatus, purpose string) []*adapterv1.Media {
	items := displayItems(st)
	out := make([]*adapterv1.Media, 0, len(items))
	for _, m := range items {
		var md *adapterv1.Media
		switch m.Type {
		case "photo":
			md = photoMedia(m)
		case "video":
			md = videoMedia(m, adapterv1.MediaKind_MEDIA_KIND_VIDEO, "x:video:")
		default: // "gif", as displayItems keeps no other kind
			md = videoMedia(m, adapterv1.MediaKind_MEDIA_KIND_GIF, "x:gif:")
		}
		md.Sensitive = st.PossiblySensitive
		md.Purpose = purpose
		out = append(out, md)
	}
	return out
}

// displayItems are the photos, videos and gifs a post shows, in order:
// media.all, or the photos then the videos when all is missing. Kinds
// FxTwitter may add later (mosaics live outside "all") are left out
// rather than guessed at.
func displayItems(st *fxStatus) []fxMedia {
	if st.Media == nil {
		return nil
	}
	items := st.Media.All
	if len(items) == 0 {
		items = append(append([]fxMedia(nil), st.Media.Photos...), st.Media.Videos...)
	}
	var out []fxMedia
	for _, m := range items {
		switch m.Type {
		case "photo", "video", "gif":
			out = append(out, m)
		}
	}
	return out
}

// linkImages are the card's image (purpose "card") and the article's
// cover (purpose "article_cover") of a post, as resources of the post.
func linkImages(st *fxStatus) []*adapterv1.Media {
	var out []*adapterv1.Media
	add := func(raw, purpose, alt string, w, h int) {
		u, ok := httpURL(raw)
		if !ok {
			return
		}
		out = append(out, &adapterv1.Media{Url: u.String(), Kind: adapterv1.MediaKind_MEDIA_KIND_IMAGE, Mime: imageMime(u),
			Width: dim(w), Height: dim(h), Alt: alt, Sensitive: st.PossiblySensitive, Purpose: purpose})
	}
	if c := cardOf(st.Card); c != nil && c.ImageURL != "" {
		w, h := 0, 0
		if st.Card.Image != nil {
			w, h = st.Card.Image.Width, st.Card.Image.Height
		}
		add(c.ImageURL, purposeCard, c.ImageAlt, w, h)
	}
	if a := articleOf(st.Article); a != nil && a.CoverURL != "" {
		mi := st.Article.CoverMedia.MediaInfo
		add(a.CoverURL, purposeArticleCover, "", mi.OriginalImgWidth, mi.OriginalImgHeight)
	}
	return out
}

// posterMedia returns the posters of a post's videos and gifs that have an
// address: the thumbnail FxTwitter gives each one, in the order the videos
// appear. It returns posters for every available video or for none, so a
// reader can pair the n-th poster with the n-th video.
func posterMedia(st *fxStatus) []*adapterv1.Media {
	var out []*adapterv1.Media
	for _, m := range displayItems(st) {
		if m.Type != "video" && m.Type != "gif" {
			continue
		}
		if _, ok := bestMP4(m); !ok {
			// The video itself is unavailable: it is not shown, so it has
			// no poster to pair with.
			continue
		}
		u, ok := httpURL(m.ThumbnailURL)
		if !ok {
			return nil
		}
		md := &adapterv1.Media{
			Url: u.String(), Kind: adapterv1.MediaKind_MEDIA_KIND_IMAGE, Mime: imageMime(u),
			Width: dim(m.Width), Height: dim(m.Height), Sensitive: st.PossiblySensitive, Purpose: purposePoster,
		}
		if m.ID != "" {
			md.CacheKey = "x:poster:" + m.ID
		}
		out = append(out, md)
	}
	return out
}

// photoMedia asks for the original size (name=orig), keeping any format
// parameter.
func photoMedia(m fxMedia) *adapterv1.Media {
	md := &adapterv1.Media{
		Kind:   adapterv1.MediaKind_MEDIA_KIND_IMAGE,
		Mime:   "image/jpeg",
		Width:  dim(m.Width),
		Height: dim(m.Height),
		Alt:    m.AltText,
	}
	u, ok := httpURL(m.URL)
	if !ok {
		md.UnavailableReason = "FxTwitter gave no usable URL for this photo"
		return md
	}
	q := u.Query()
	q.Set("name", "orig")
	u.RawQuery = q.Encode()
	md.Url = u.String()
	md.Mime = imageMime(u)
	id := m.ID
	if id == "" {
		id = u.EscapedPath()
	}
	md.CacheKey = "x:photo:" + id + ":orig"
	return md
}

// videoCandidate is one MP4 rendition of a video.
type videoCandidate struct {
	url           string
	bitrate       int64
	width, height int
	// codec is the rendition's codec as FxTwitter names it (h264, hevc,
	// av1, vp9), read from the twimg path when the answer does not say;
	// "" when neither says (the legacy shapes only served H.264).
	codec string
}

// Codecs of video renditions.
const (
	codecH264 = "h264"
	codecHEVC = "hevc"
	codecAV1  = "av1"
	codecVP9  = "vp9"
)

// browserPlays reports whether every browser plays an MP4 of codec:
// H.264 does; HEVC, AV1 and VP9 in MP4 only some.
func browserPlays(codec string) bool { return codec == codecH264 || codec == "" }

// videoMedia picks the best MP4 rendition (bestMP4; never the HLS
// playlist); its size comes from the rendition's path (/vid/.../WxH/),
// else from the rendition, else from the video.
func videoMedia(m fxMedia, kind adapterv1.MediaKind, keyPrefix string) *adapterv1.Media {
	md := &adapterv1.Media{
		Kind:       kind,
		Mime:       "video/mp4",
		Width:      dim(m.Width),
		Height:     dim(m.Height),
		DurationMs: durationMS(m.Duration),
		Alt:        m.AltText,
	}
	best, ok := bestMP4(m)
	if !ok {
		md.UnavailableReason = "FxTwitter offers no MP4 version of this video"
		return md
	}
	md.Url = best.url
	if w, h, ok := candidateDims(best); ok {
		md.Width, md.Height = w, h
	}
	if m.ID != "" {
		md.CacheKey = keyPrefix + m.ID + ":" + strconv.Itoa(int(md.Width)) + "x" + strconv.Itoa(int(md.Height))
		if !browserPlays(best.codec) {
			md.CacheKey += ":" + best.codec
		}
	} else if u, ok := httpURL(best.url); ok {
		md.CacheKey = keyPrefix + u.EscapedPath()
	}
	return md
}

// bestMP4 chooses the rendition to keep: among the MP4s every browser
// plays (H.264), the highest resolution, then the highest bitrate. Only
// when a video has no such MP4 is the best HEVC, AV1 or VP9 one chosen,
// and its codec says so (the post's media record keeps it). A video
// without renditions falls back to its own URL when that is an MP4.
func bestMP4(m fxMedia) (videoCandidate, bool) {
	var cands []videoCandidate
	for _, f := range m.Formats {
		if f.Container == "mp4" || (f.Container == "" && isMP4Path(f.URL)) {
			cands = append(cands, videoCandidate{url: f.URL, bitrate: f.Bitrate, width: f.Width, height: f.Height, codec: codecOf(f.Codec, f.URL)})
		}
	}
	for _, v := range m.Variants {
		if strings.EqualFold(v.ContentType, "video/mp4") {
			cands = append(cands, videoCandidate{url: v.URL, bitrate: v.Bitrate, codec: codecOf("", v.URL)})
		}
	}
	if len(cands) == 0 && (isMP4Path(m.URL) || m.Format == "video/mp4") {
		cands = append(cands, videoCandidate{url: m.URL, width: m.Width, height: m.Height, codec: codecOf("", m.URL)})
	}
	var best videoCandidate
	found := false
	for _, c := range cands {
		if _, ok := httpURL(c.url); !ok || isHLSPath(c.url) {
			continue
		}
		if !found || better(c, best) {
			best, found = c, true
		}
	}
	return best, found
}

// better orders renditions: one a browser plays first, then the larger,
// then the higher bitrate.
func better(c, than videoCandidate) bool {
	if pc, pt := browserPlays(c.codec), browserPlays(than.codec); pc != pt {
		return pc
	}
	if ac, at := area(c), area(than); ac != at {
		return ac > at
	}
	return c.bitrate > than.bitrate
}

// codecOf is the codec FxTwitter names, else the one the twimg path names
// (/vid/avc1/, /vid/hevc/, /vid/av01/), else "".
func codecOf(named, raw string) string {
	switch strings.ToLower(named) {
	case "h264", "avc", "avc1":
		return codecH264
	case "hevc", "h265", "hvc1", "hev1":
		return codecHEVC
	case "av1", "av01":
		return codecAV1
	case "vp9", "vp09":
		return codecVP9
	}
	u, ok := httpURL(raw)
	if !ok {
		return ""
	}
	segs := strings.Split(u.Path, "/")
	for i, s := range segs {
		if s == "vid" && i+1 < len(segs) {
			switch strings.ToLower(segs[i+1]) {
			case "avc1":
				return codecH264
			case "hevc", "hvc1", "hev1":
				return codecHEVC
			case "av01", "av1":
				return codecAV1
			case "vp09", "vp9":
				return codecVP9
			}
		}
	}
	return ""
}

// candidateDims is a rendition's size: from its path, else as FxTwitter
// gave it.
func candidateDims(c videoCandidate) (uint32, uint32, bool) {
	if w, h, ok := pathDims(c.url); ok {
		return w, h, true
	}
	if c.width > 0 && c.height > 0 {
		return dim(c.width), dim(c.height), true
	}
	return 0, 0, false
}

func area(c videoCandidate) int64 {
	if w, h, ok := pathDims(c.url); ok {
		return int64(w) * int64(h)
	}
	return int64(max(c.width, 0)) * int64(max(c.height, 0))
}

// pathDims reads the rendition size from a twimg video URL path, the
// WxH directory after /vid/, e.g. /ext_tw_video/1/pu/vid/avc1/1920x1080/a.mp4.
func pathDims(raw string) (uint32, uint32, bool) {
	u, ok := httpURL(raw)
	if !ok {
		return 0, 0, false
	}
	segs := strings.Split(u.Path, "/")
	for i, s := range segs {
		if s != "vid" {
			continue
		}
		// The size directory follows /vid/ after an optional codec
		// directory; the last segment is the file name.
		for _, d := range segs[i+1 : max(len(segs)-1, i+1)] {
			if w, h, ok := parseDims(d); ok {
				return w, h, true
			}
		}
	}
	return 0, 0, false
}

// parseDims parses "1920x1080".
func parseDims(s string) (uint32, uint32, bool) {
	ws, hs, ok := strings.Cut(s, "x")
	if !ok {
		return 0, 0, false
	}
	w, err1 := strconv.ParseUint(ws, 10, 16)
	h, err2 := strconv.ParseUint(hs, 10, 16)
	if err1 != nil || err2 != nil || w == 0 || h == 0 {
		return 0, 0, false
	}
	return uint32(w), uint32(h), true
}

func isMP4Path(raw string) bool {
	u, err := url.Parse(raw)
	return err == nil && strings.EqualFold(path.Ext(u.Path), ".mp4")
}

func isHLSPath(raw string) bool {
	u, err := url.Parse(raw)
	return err == nil && strings.EqualFold(path.Ext(u.Path), ".m3u8")
}

// trimAvatarSize removes the size suffix of a twimg avatar file name:
// Xy7pQ2Lm_200x200 is Xy7pQ2Lm at a smaller size.
func trimAvatarSize(name string) string {
	for _, suffix := range []string{"_normal", "_bigger", "_mini", "_200x200", "_400x400", "_x96", "_reasonably_small"} {
		if base, ok := strings.CutSuffix(name, suffix); ok && base != "" {
			return base
		}
	}
	return name
}

// profileImage returns an avatar or banner as a resource of its profile,
// or nil when the URL is not usable. Avatars lose their size suffix.
func profileImage(raw, purpose string) *adapterv1.Media {
	u, ok := httpURL(raw)
	if !ok {
		return nil
	}
	if purpose == purposeAvatar {
		dir, file := path.Split(u.Path)
		ext := path.Ext(file)
		if base := strings.TrimSuffix(file, ext); trimAvatarSize(base) != base {
			u.Path = dir + trimAvatarSize(base) + ext
			u.RawPath = ""
		}
	}
	md := &adapterv1.Media{
		Url:     u.String(),
		Kind:    adapterv1.MediaKind_MEDIA_KIND_IMAGE,
		Mime:    imageMime(u),
		Purpose: purpose,
	}
	// Avatar and banner URLs name an immutable file (a new picture gets a
	// new URL), so the URL itself is the cache key. Other hosts' images
	// are not assumed immutable.
	if strings.Contains(u.Path, "/profile_images/") || strings.Contains(u.Path, "/profile_banners/") {
		md.CacheKey = md.Url
	}
	return md
}

// imageMime reads an image's type from its format parameter or extension;
// twimg serves JPEG when neither says.
func imageMime(u *url.URL) string {
	format := u.Query().Get("format")
	if format == "" {
		format = strings.TrimPrefix(path.Ext(u.Path), ".")
	}
	switch strings.ToLower(format) {
	case "png":
		return "image/png"
	case "webp":
		return "image/webp"
	case "gif":
		return "image/gif"
	}
	return "image/jpeg"
}

// httpURL parses an absolute http(s) URL; anything else is not a URL core
// should download.
func httpURL(raw string) (*url.URL, bool) {
	if raw == "" {
		return nil, false
	}
	u, err := url.Parse(raw)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, false
	}
	return u, true
}

func dim(n int) uint32 {
	if n <= 0 {
		return 0
	}
	return uint32(min(uint64(n), math.MaxUint32))
}

func durationMS(seconds float64) uint32 {
	if !(seconds > 0) {
		return 0
	}
	return uint32(min(math.Round(seconds*1000), math.MaxUint32))
}
