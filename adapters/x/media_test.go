package x

import (
	"testing"

	"github.com/stretchr/testify/require"

	adapterv1 "github.com/monitorhq/monitor/api/adapter/v1"
)

func TestPhotoURL(t *testing.T) {
	t.Parallel()
	tests := []struct{ in, url, mime string }{
		{"https://pbs.twimg.com/media/A.jpg?name=orig", "https://pbs.twimg.com/media/A.jpg?name=orig", "image/jpeg"},
		{"https://pbs.twimg.com/media/A.jpg", "https://pbs.twimg.com/media/A.jpg?name=orig", "image/jpeg"},
		{"https://pbs.twimg.com/media/A.png?name=small", "https://pbs.twimg.com/media/A.png?name=orig", "image/png"},
		{"https://pbs.twimg.com/media/A?format=webp&name=900x900", "https://pbs.twimg.com/media/A?format=webp&name=orig", "image/webp"},
		{"https://pbs.twimg.com/media/A?format=jpg&name=large", "https://pbs.twimg.com/media/A?format=jpg&name=orig", "image/jpeg"},
	}
	for _, tt := range tests {
		m := photoMedia(fxMedia{ID: "9", Type: "photo", URL: tt.in})
		require.Equal(t, tt.url, m.GetUrl(), tt.in)
		require.Equal(t, tt.mime, m.GetMime(), tt.in)
		require.Equal(t, "x:photo:9:orig", m.GetCacheKey())
	}
	for _, bad := range []string{"", "javascript:alert(1)", "/media/A.jpg", "file:///etc/passwd"} {
		m := photoMedia(fxMedia{Type: "photo", URL: bad, Width: 10, Height: 20})
		require.Empty(t, m.GetUrl(), bad)
		require.NotEmpty(t, m.GetUnavailableReason(), bad)
		require.EqualValues(t, 10, m.GetWidth())
	}
}

func TestBestMP4(t *testing.T) {
	t.Parallel()
	const base = "https://video.twimg.com/ext_tw_video/1/pu/vid/avc1/"
	// Legacy "variants" shape, HLS first and highest "bitrate".
	m := fxMedia{ID: "1", Type: "video", Width: 640, Height: 360, Duration: 1.2345, Variants: []fxVariant{
		{URL: "https://video.twimg.com/ext_tw_video/1/pu/pl/a.m3u8", ContentType: "application/x-mpegURL", Bitrate: 1 << 40},
		{URL: base + "640x360/a.mp4", ContentType: "video/mp4", Bitrate: 832000},
		{URL: base + "1280x720/b.mp4", ContentType: "video/mp4", Bitrate: 2176000},
	}}
	v := videoMedia(m, adapterv1.MediaKind_MEDIA_KIND_VIDEO, "x:video:")
	require.Equal(t, base+"1280x720/b.mp4", v.GetUrl())
	require.EqualValues(t, 1280, v.GetWidth())
	require.EqualValues(t, 720, v.GetHeight())
	require.EqualValues(t, 1235, v.GetDurationMs())
	require.Equal(t, "x:video:1:1280x720", v.GetCacheKey())

	// Same bitrate: the larger rendition; no size in the path: the format's.
	m = fxMedia{ID: "2", Type: "video", Width: 10, Height: 10, Formats: []fxVideoFormat{
		{URL: "https://v.example/a.mp4", Container: "mp4", Bitrate: 5, Width: 320, Height: 180},
		{URL: "https://v.example/b.mp4", Container: "mp4", Bitrate: 5, Width: 640, Height: 360},
		{URL: "https://v.example/c.m3u8", Container: "mp4", Bitrate: 9}, // mislabelled playlist
	}}
	v = videoMedia(m, adapterv1.MediaKind_MEDIA_KIND_VIDEO, "x:video:")
	require.Equal(t, "https://v.example/b.mp4", v.GetUrl())
	require.EqualValues(t, 640, v.GetWidth())

	// Only a playlist: the video is marked unavailable, never the m3u8.
	m = fxMedia{ID: "3", Type: "video", URL: "https://video.twimg.com/a.m3u8", Width: 1, Height: 1, Formats: []fxVideoFormat{
		{URL: "https://video.twimg.com/a.m3u8", Container: "m3u8"},
	}}
	v = videoMedia(m, adapterv1.MediaKind_MEDIA_KIND_VIDEO, "x:video:")
	require.Empty(t, v.GetUrl())
	require.Contains(t, v.GetUnavailableReason(), "no MP4")

	// No renditions at all: the video's own MP4 URL.
	m = fxMedia{Type: "gif", URL: "https://video.twimg.com/tweet_video/G.mp4", Width: 498, Height: 280}
	v = videoMedia(m, adapterv1.MediaKind_MEDIA_KIND_GIF, "x:gif:")
	require.Equal(t, "https://video.twimg.com/tweet_video/G.mp4", v.GetUrl())
	require.Equal(t, "x:gif:/tweet_video/G.mp4", v.GetCacheKey(), "no media id: the path")

	// No renditions and no .mp4 in the path: the format says it is one.
	m = fxMedia{Type: "video", URL: "https://video.twimg.com/amplify_video/5/vid/clip", Format: "video/mp4", Width: 640, Height: 360}
	v = videoMedia(m, adapterv1.MediaKind_MEDIA_KIND_VIDEO, "x:video:")
	require.Equal(t, "https://video.twimg.com/amplify_video/5/vid/clip", v.GetUrl())
	m.Format = ""
	require.Empty(t, videoMedia(m, adapterv1.MediaKind_MEDIA_KIND_VIDEO, "x:video:").GetUrl())
}

func TestStatusMediaFallsBackToPhotosThenVideos(t *testing.T) {
	t.Parallel()
	st := &fxStatus{PossiblySensitive: true, Media: &fxMediaSet{
		Videos: []fxMedia{{ID: "2", Type: "video", URL: "https://video.twimg.com/v.mp4"}},
		Photos: []fxMedia{{ID: "1", Type: "photo", URL: "https://pbs.twimg.com/media/p.jpg"}},
	}}
	ms := statusMedia(st, "")
	require.Len(t, ms, 2)
	require.Equal(t, adapterv1.MediaKind_MEDIA_KIND_IMAGE, ms[0].GetKind())
	require.Equal(t, adapterv1.MediaKind_MEDIA_KIND_VIDEO, ms[1].GetKind())
	require.True(t, ms[0].GetSensitive() && ms[1].GetSensitive())
	require.Equal(t, "A：hi there ⟦image⟧⟦video⟧", summary("A", "hi\nthere", ms))
}

func TestProfileImage(t *testing.T) {
	t.Parallel()
	tests := []struct{ in, want string }{
		{"https://pbs.twimg.com/profile_images/1/Xy7pQ2Lm_200x200.jpg", "https://pbs.twimg.com/profile_images/1/Xy7pQ2Lm.jpg"},
		{"https://pbs.twimg.com/profile_images/1/Xy7pQ2Lm_normal.jpg", "https://pbs.twimg.com/profile_images/1/Xy7pQ2Lm.jpg"},
		{"https://pbs.twimg.com/profile_images/1/a_b_bigger.png", "https://pbs.twimg.com/profile_images/1/a_b.png"},
		{"https://pbs.twimg.com/profile_images/1/a_mini.jpeg", "https://pbs.twimg.com/profile_images/1/a.jpeg"},
		{"https://pbs.twimg.com/profile_images/1/a_400x400.jpg?x=1", "https://pbs.twimg.com/profile_images/1/a.jpg?x=1"},
		{"https://pbs.twimg.com/profile_images/1/a.jpg", "https://pbs.twimg.com/profile_images/1/a.jpg"},
		{"https://pbs.twimg.com/profile_images/1/_normal.jpg", "https://pbs.twimg.com/profile_images/1/_normal.jpg"},
	}
	for _, tt := range tests {
		m := profileImage(tt.in, purposeAvatar)
		require.Equal(t, tt.want, m.GetUrl(), tt.in)
		require.Equal(t, tt.want, m.GetCacheKey(), tt.in)
		require.Equal(t, "avatar", m.GetPurpose())
		require.False(t, m.GetSensitive())
	}
	require.Nil(t, profileImage("", purposeAvatar))
	require.Nil(t, profileImage("data:image/png;base64,AAAA", purposeAvatar))
	m := profileImage("https://cdn.example/me_normal.png", purposeAvatar)
	require.Equal(t, "https://cdn.example/me.png", m.GetUrl())
	require.Empty(t, m.GetCacheKey(), "only twimg profile images are immutable by URL")
}

func TestSummary(t *testing.T) {
	t.Parallel()
	img := &adapterv1.Media{Kind: adapterv1.MediaKind_MEDIA_KIND_IMAGE}
	vid := &adapterv1.Media{Kind: adapterv1.MediaKind_MEDIA_KIND_VIDEO}
	gif := &adapterv1.Media{Kind: adapterv1.MediaKind_MEDIA_KIND_GIF}
	avatar := &adapterv1.Media{Kind: adapterv1.MediaKind_MEDIA_KIND_IMAGE, Purpose: "avatar"}
	require.Equal(t, "Ann：hello ⟦image⟧⟦image⟧", summary("Ann", "hello", []*adapterv1.Media{img, img, avatar}))
	require.Equal(t, "Ann：a b c ⟦video⟧⟦image⟧⟦video⟧", summary("Ann", "a\n\nb \r\n c\n", []*adapterv1.Media{vid, img, gif}))
	require.Equal(t, "Ann：⟦image⟧", summary("Ann", "", []*adapterv1.Media{img}))
	require.Equal(t, "Ann：just text", summary("Ann", "just text", nil))
}

func TestSnowflakeTime(t *testing.T) {
	t.Parallel()
	got, ok := snowflakeTime("2078399740166950912")
	require.True(t, ok)
	// FxTwitter's created_timestamp of that fixture is 1784364087.
	require.Equal(t, int64(1784364087), got.Unix())
	_, ok = snowflakeTime("20") // a 2006 post: no time inside
	require.False(t, ok)
}

// Posters pair with the shown videos in order, or there are none.
func TestPosterMedia(t *testing.T) {
	t.Parallel()
	mp4 := func(id, thumb string) fxMedia {
		return fxMedia{ID: id, Type: "video", URL: "https://video.twimg.com/" + id + ".mp4", ThumbnailURL: thumb}
	}
	st := &fxStatus{PossiblySensitive: true, Media: &fxMediaSet{All: []fxMedia{
		{ID: "1", Type: "photo", URL: "https://pbs.twimg.com/media/p.jpg"},
		mp4("2", "https://pbs.twimg.com/ext_tw_video_thumb/2/pu/img/a.jpg"),
		// Only a playlist: not shown, so no poster to pair.
		{ID: "3", Type: "video", URL: "https://video.twimg.com/a.m3u8", ThumbnailURL: "https://pbs.twimg.com/x.jpg"},
		{ID: "4", Type: "gif", URL: "https://video.twimg.com/tweet_video/G.mp4", ThumbnailURL: "https://pbs.twimg.com/tweet_video_thumb/G.png"},
	}}}
	ps := posterMedia(st)
	require.Len(t, ps, 2)
	require.Equal(t, "https://pbs.twimg.com/ext_tw_video_thumb/2/pu/img/a.jpg", ps[0].GetUrl())
	require.Equal(t, "x:poster:2", ps[0].GetCacheKey())
	require.Equal(t, "image/png", ps[1].GetMime())
	for _, p := range ps {
		require.Equal(t, "poster", p.GetPurpose())
		require.Equal(t, adapterv1.MediaKind_MEDIA_KIND_IMAGE, p.GetKind())
		require.True(t, p.GetSensitive())
	}
	// One shown video without a thumbnail: no posters at all.
	st.Media.All = append(st.Media.All, mp4("5", ""))
	require.Nil(t, posterMedia(st))
}

// Videos: the highest resolution among H.264 MP4s, then the bitrate; an
// HEVC or AV1 rendition only when there is no H.264 one, and then its
// codec says so.
func TestBestMP4ByCodecThenResolution(t *testing.T) {
	t.Parallel()
	const base = "https://video.twimg.com/amplify_video/7/vid/"
	m := fxMedia{ID: "7", Type: "video", Formats: []fxVideoFormat{
		{URL: base + "avc1/1280x720/a.mp4", Container: "mp4", Codec: "h264", Bitrate: 9_000_000},
		{URL: base + "avc1/1920x1080/b.mp4", Container: "mp4", Codec: "h264", Bitrate: 5_000_000},
		{URL: base + "avc1/1920x1080/c.mp4", Container: "mp4", Codec: "h264", Bitrate: 6_000_000},
		{URL: base + "hevc/3840x2160/d.mp4", Container: "mp4", Codec: "hevc", Bitrate: 20_000_000},
		{URL: base + "av01/3840x2160/e.mp4", Container: "mp4", Codec: "av1", Bitrate: 15_000_000},
		{URL: base + "vp09/1920x1080/f.webm", Container: "webm", Codec: "vp9", Bitrate: 30_000_000},
	}}
	best, ok := bestMP4(m)
	require.True(t, ok)
	require.Equal(t, base+"avc1/1920x1080/c.mp4", best.url, "1080p beats a higher-bitrate 720p; HEVC and AV1 lose to any H.264")
	require.Equal(t, codecH264, best.codec)
	v := videoMedia(m, adapterv1.MediaKind_MEDIA_KIND_VIDEO, "x:video:")
	require.Equal(t, "x:video:7:1920x1080", v.GetCacheKey())

	// HEVC and AV1 only: the largest is kept, marked with its codec.
	m.Formats = m.Formats[3:]
	best, ok = bestMP4(m)
	require.True(t, ok)
	require.Equal(t, base+"hevc/3840x2160/d.mp4", best.url, "same size: the higher bitrate")
	require.Equal(t, codecHEVC, best.codec)
	require.False(t, browserPlays(best.codec))
	v = videoMedia(m, adapterv1.MediaKind_MEDIA_KIND_VIDEO, "x:video:")
	require.Equal(t, base+"hevc/3840x2160/d.mp4", v.GetUrl())
	require.Empty(t, v.GetUnavailableReason(), "kept, not refused")
	require.Equal(t, "x:video:7:3840x2160:hevc", v.GetCacheKey(), "never shares a cache entry with an H.264 rendition")
	st := &fxStatus{ID: "1", Media: &fxMediaSet{All: []fxMedia{m}}}
	recs := mediaRecords(st)
	require.Len(t, recs, 1)
	require.Equal(t, "hevc", recs[0].Codec)
	require.False(t, *recs[0].BrowserPlays)

	// The codec from the path when the answer does not name it (the
	// legacy variants shape).
	require.Equal(t, codecHEVC, codecOf("", "https://video.twimg.com/x/vid/hvc1/720x1280/a.mp4"))
	require.Equal(t, codecH264, codecOf("", "https://video.twimg.com/x/vid/avc1/720x1280/a.mp4"))
	require.Equal(t, codecAV1, codecOf("AV1", ""))
	require.Empty(t, codecOf("", "https://video.twimg.com/tweet_video/G.mp4"))
}
