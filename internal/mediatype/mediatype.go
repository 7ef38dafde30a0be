// Package mediatype decides how an archived media file may be shown. The
// archive keeps whatever type the upstream host claimed, and some types are
// active content: an HTML page or an SVG image runs its scripts when a
// browser opens it from our origin. Only passive types (raster images,
// video, audio) are shown inline; everything else is a download. The REST
// API, the web library and the static site all ask this package, so the
// rule is written once.
//
// It is a leaf: it imports nothing of Monitor's.
package mediatype

import (
	"mime"
	"strings"
)

// Download is the type every file that is not shown inline is served as.
const Download = "application/octet-stream"

// Essence is the type/subtype of t in lowercase, without parameters; ""
// when t is not a well-formed media type.
func Essence(t string) string {
	if strings.TrimSpace(t) == "" {
		return ""
	}
	essence, _, err := mime.ParseMediaType(t)
	if err != nil || !strings.Contains(essence, "/") {
		return ""
	}
	return essence
}

// rasterImages are the image types that hold only pixels. SVG is an image
// type too, but a document that can run scripts, so it is not among them.
func rasterImages() []string {
	return []string{
		"image/jpeg", "image/jpg", "image/pjpeg", "image/png", "image/apng", "image/gif", "image/webp",
		"image/avif", "image/bmp", "image/x-ms-bmp", "image/heic", "image/heif", "image/jxl",
		"image/tiff", "image/x-icon", "image/vnd.microsoft.icon",
	}
}

// Inline reports whether a file of type t may be shown in a page (<img>,
// <video>, <audio>) and served for display: raster images, video/* and
// audio/*. Anything else, an unknown or malformed type included, is offered
// only as a download.
func Inline(t string) bool {
	e := Essence(t)
	switch {
	case e == "":
		return false
	case strings.HasPrefix(e, "video/"), strings.HasPrefix(e, "audio/"):
		return true
	}
	for _, r := range rasterImages() {
		if e == r {
			return true
		}
	}
	return false
}

// ServeAs is the Content-Type to serve a file of type t with: its essence
// when it is shown inline, else Download.
func ServeAs(t string) string {
	if Inline(t) {
		return Essence(t)
	}
	return Download
}

// Ext is a file name extension for type t, for the names people save
// files under; "bin" when the type is unknown.
func Ext(t string) string {
	switch e := Essence(t); e {
	case "image/jpeg", "image/jpg", "image/pjpeg":
		return "jpg"
	case "image/png", "image/apng":
		return "png"
	case "image/gif":
		return "gif"
	case "image/webp":
		return "webp"
	case "image/avif":
		return "avif"
	case "image/bmp", "image/x-ms-bmp":
		return "bmp"
	case "image/heic":
		return "heic"
	case "image/heif":
		return "heif"
	case "image/jxl":
		return "jxl"
	case "image/tiff":
		return "tiff"
	case "image/x-icon", "image/vnd.microsoft.icon":
		return "ico"
	case "image/svg+xml":
		return "svg"
	case "video/mp4":
		return "mp4"
	case "video/webm":
		return "webm"
	case "video/quicktime":
		return "mov"
	case "audio/mpeg":
		return "mp3"
	case "audio/ogg":
		return "ogg"
	case "audio/mp4", "audio/aac":
		return "m4a"
	case "text/html":
		return "html"
	case "application/xhtml+xml":
		return "xhtml"
	case "application/pdf":
		return "pdf"
	case "text/plain":
		return "txt"
	case "application/json":
		return "json"
	case "application/xml", "text/xml":
		return "xml"
	}
	return "bin"
}

// Filename is the name a media file is saved under: its SHA-256 and the
// extension of its type.
func Filename(sha256, t string) string {
	return sha256 + "." + Ext(t)
}

// Attachment is the Content-Disposition of a file offered as a download.
func Attachment(sha256, t string) string {
	return mime.FormatMediaType("attachment", map[string]string{"filename": Filename(sha256, t)})
}
