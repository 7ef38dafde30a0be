package web

// Profile is the header of an author's page: who they are upstream, from
// the x.profile or telegram.channel entity the archive holds.
type Profile struct {
	Name   string
	Handle string
	// Bio is the profile's description, as plain text.
	Bio string
	// Avatar and Banner are image paths from the site root ("" when none).
	Avatar string
	Banner string
	// URL is the profile's address upstream.
	URL string
	// Counts are the profile's numbers in display order, such as
	// followers, following and posts.
	Counts []Count
}

// Count is one labelled number of a profile.
type Count struct {
	Label string
	Value int64
}

// AttachPosters gives a post's videos their posters. Adapters declare a
// post's posters as resources with purpose "poster", one for every video
// or gif it shows and in the same order, or none; posters pairs with the
// post's video media (Mime video/*) in order, and only when the numbers
// match, so that a poster never lands on the wrong video when one of
// them could not be archived.
func AttachPosters(media []Media, posters []string) {
	var videos []int
	for i, m := range media {
		if isVideo(m.Mime) {
			videos = append(videos, i)
		}
	}
	if len(videos) == 0 || len(videos) != len(posters) {
		return
	}
	for n, i := range videos {
		media[i].Poster = posters[n]
	}
}

func isVideo(mime string) bool { return len(mime) > 6 && mime[:6] == "video/" }
