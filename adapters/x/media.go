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
)

// statusMedia returns a post's media in the order the post shows them, each
// with the given purpose and the post's sensitive flag.
func statusMedia(st *fxStatus, purpose string) []*adapterv1.Media {
	if st.Media == nil {
		return nil
	}
	items := st.Media.All
	if len(items) == 0 {
		items = append(append([]fxMedia(nil), st.Media.Photos...), st.Media.Videos...)
	}
	out := make([]*adapterv1.Media, 0, len(items))
	for _, m := range items {
		var md *adapterv1.Media
		switch m.Type {
		case "photo":
			md = photoMedia(m)
		case "video":
			md = videoMedia(m, adapterv1.MediaKind_MEDIA_KIND_VIDEO, "x:video:")
		case "gif":
			md = videoMedia(m, adapterv1.MediaKind_MEDIA_KIND_GIF, "x:gif:")
		default:
			// Kinds FxTwitter may add later (mosaics live outside "all")
			// are skipped rather than guessed at.
			continue
		}
		md.Sensitive = st.PossiblySensitive
		md.Purpose = purpose
		out = append(out, md)
	}
	return out
}

// posterMedia returns the posters of a post's videos and gifs that have an
// address: the thumbnail FxTwitter gives each one, in the order the videos
// appear. It returns posters for every available video or for none, so a
// reader can pair the n-th poster with the n-th video.
func posterMedia(st *fxStatus) []*adapterv1.Media {
	if st.Media == nil {
		return nil
	}
	items := st.Media.All
	if len(items) == 0 {
		items = append(append([]fxMedia(nil), st.Media.Photos...), st.Media.Videos...)
	}
	var out []*adapterv1.Media
	for _, m := range items {
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
}

// videoMedia picks the highest-bitrate MP4 rendition (never the HLS
// playlist); its size comes from the rendition's path (/vid/.../WxH/), else
// from the video.
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
	if w, h, ok := pathDims(best.url); ok {
		md.Width, md.Height = w, h
	} else if best.width > 0 && best.height > 0 {
		md.Width, md.Height = dim(best.width), dim(best.height)
	}
	if m.ID != "" {
		md.CacheKey = keyPrefix + m.ID + ":" + strconv.Itoa(int(md.Width)) + "x" + strconv.Itoa(int(md.Height))
	} else if u, ok := httpURL(best.url); ok {
		md.CacheKey = keyPrefix + u.EscapedPath()
	}
	return md
}

// bestMP4 returns the MP4 rendition with the highest bitrate, larger size
// breaking ties. A video without renditions falls back to its own URL when
// that is an MP4.
func bestMP4(m fxMedia) (videoCandidate, bool) {
	var cands []videoCandidate
	for _, f := range m.Formats {
		if f.Container == "mp4" || (f.Container == "" && isMP4Path(f.URL)) {
			cands = append(cands, videoCandidate{url: f.URL, bitrate: f.Bitrate, width: f.Width, height: f.Height})
		}
	}
	for _, v := range m.Variants {
		if strings.EqualFold(v.ContentType, "video/mp4") {
			cands = append(cands, videoCandidate{url: v.URL, bitrate: v.Bitrate})
		}
	}
	if len(cands) == 0 && (isMP4Path(m.URL) || m.Format == "video/mp4") {
		cands = append(cands, videoCandidate{url: m.URL, width: m.Width, height: m.Height})
	}
	var best videoCandidate
	found := false
	for _, c := range cands {
		if _, ok := httpURL(c.url); !ok || isHLSPath(c.url) {
			continue
		}
		if !found || c.bitrate > best.bitrate || (c.bitrate == best.bitrate && area(c) > area(best)) {
			best, found = c, true
		}
	}
	return best, found
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
