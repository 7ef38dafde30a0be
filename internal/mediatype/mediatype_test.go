package mediatype_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/monitorhq/monitor/internal/mediatype"
)

func TestInlineOnlyPassiveTypes(t *testing.T) {
	t.Parallel()
	for typ, inline := range map[string]bool{
		"image/jpeg": true, "IMAGE/PNG": true, "image/gif": true, "image/webp": true, "image/avif": true, "image/bmp": true,
		"image/jpeg; charset=binary": true, "video/mp4": true, "video/webm; codecs=vp9": true, "audio/mpeg": true, "audio/ogg": true,

		"image/svg+xml": false, "text/html": false, "text/html; charset=utf-8": false, "application/xhtml+xml": false,
		"application/pdf": false, "text/plain": false, "application/xml": false, "text/xml": false, "application/javascript": false,
		"image/svg+xml; charset=utf-8": false, "multipart/x-mixed-replace; boundary=x": false, "application/octet-stream": false,
		"": false, "image": false, "video/": false, "text/html, video/mp4": false, "video/mp4\x00": false,
	} {
		require.Equal(t, inline, mediatype.Inline(typ), "%q", typ)
		want := mediatype.Download
		if inline {
			want = mediatype.Essence(typ)
			require.NotEmpty(t, want)
		}
		require.Equal(t, want, mediatype.ServeAs(typ), "%q", typ)
	}
}

func TestAttachmentNamesTheFileByItsType(t *testing.T) {
	t.Parallel()
	sha := "ab" + "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcd"
	require.Equal(t, "attachment; filename="+sha+".svg", mediatype.Attachment(sha, "image/svg+xml"))
	require.Equal(t, "attachment; filename="+sha+".html", mediatype.Attachment(sha, "text/html; charset=utf-8"))
	require.Equal(t, "attachment; filename="+sha+".bin", mediatype.Attachment(sha, "application/x-unknown"))
	require.Equal(t, sha+".xhtml", mediatype.Filename(sha, "application/xhtml+xml"))
}
