package tgchannel

import (
	"fmt"
	"math"
	"strings"

	"github.com/go-telegram/bot/models"

	"github.com/monitorhq/monitor/internal/channelapi"
	"github.com/monitorhq/monitor/internal/config"
)

// itemSummary is the line an item shows in /list: the adapter's summary,
// else the author and text.
func itemSummary(it channelapi.Item) string {
	switch {
	case strings.TrimSpace(it.Summary) != "":
		return it.Summary
	case it.AuthorName != "" && it.Text != "":
		return it.AuthorName + "：" + it.Text
	case it.Text != "":
		return it.Text
	case it.AuthorName != "":
		return it.AuthorName
	}
	return it.SourceURL
}

// renderList is one /list page: numbered one-line summaries linked to
// their sources with a blank line between them, and per item a "view" and
// an "original" button; a "next page" button when there is more.
func renderList(items []channelapi.Item, page int, more bool) outMessage {
	if len(items) == 0 {
		if page <= 1 {
			return outMessage{text: "📚 Your archive is empty. Send me a link to archive a post."}
		}
		return outMessage{text: "📚 No more items."}
	}
	var b strings.Builder
	var ents []models.MessageEntity
	units := 0
	write := func(s string) {
		b.WriteString(s)
		units += utf16Len(s)
	}
	kb := &keyboard{}
	write(fmt.Sprintf("📚 Your archive — page %d\n", page))
	for i, it := range items {
		n := (page-1)*pageSize + i + 1
		write(fmt.Sprintf("\n%d. ", n))
		s := foldSummary(itemSummary(it))
		if s == "" {
			s = "(no text)"
		}
		if isWebURL(it.SourceURL) {
			ents = append(ents, models.MessageEntity{Type: models.MessageEntityTypeTextLink, Offset: units, Length: utf16Len(s), URL: it.SourceURL})
		}
		write(s + "\n")
		row := []kbButton{{Text: fmt.Sprintf("👁 View %d", n), CallbackData: callbackData(btnView, it.ID)}}
		if isWebURL(it.SourceURL) {
			row = append(row, kbButton{Text: fmt.Sprintf("🔗 Original %d", n), URL: it.SourceURL})
		}
		kb.InlineKeyboard = append(kb.InlineKeyboard, row)
	}
	if more {
		last := items[len(items)-1].ID
		kb.InlineKeyboard = append(kb.InlineKeyboard, []kbButton{{Text: "Next page ▶", CallbackData: pageData(int16(min(page+1, math.MaxInt16)), last)}})
	}
	return outMessage{text: strings.TrimRight(b.String(), "\n"), entities: ents, kb: kb}
}

// renderDetail shows a saved item: its id, author, publication time in
// UTC+8 (left out when unknown), media and text, with an "original"
// button on the first message.
func renderDetail(it channelapi.Item) []outMessage {
	var b strings.Builder
	fmt.Fprintf(&b, "🆔 %s\n", it.ID)
	if it.AuthorName != "" {
		fmt.Fprintf(&b, "👤 %s\n", it.AuthorName)
	}
	if t := formatTime(it.PublishedAt); t != "" {
		fmt.Fprintf(&b, "🕒 %s\n", t)
	}
	if m := mediaLine(it.Media); m != "" {
		fmt.Fprintf(&b, "📎 %s\n", m)
	}
	text := it.Text
	if strings.TrimSpace(text) == "" {
		text = it.Summary
	}
	if strings.TrimSpace(text) != "" {
		b.WriteString("\n" + text)
	}
	parts := splitMessages(b.String())
	out := make([]outMessage, len(parts))
	for i, p := range parts {
		out[i] = outMessage{text: p}
	}
	if isWebURL(it.SourceURL) {
		out[0].kb = &keyboard{InlineKeyboard: [][]kbButton{{{Text: "🔗 Original", URL: it.SourceURL}}}}
	}
	return out
}

// mediaLine counts media by kind: "2 photos · 1 video".
func mediaLine(media []channelapi.Media) string {
	order := []string{"image", "video", "gif", "audio", "document"}
	names := map[string][2]string{
		"image": {"photo", "photos"}, "video": {"video", "videos"}, "gif": {"GIF", "GIFs"},
		"audio": {"audio file", "audio files"}, "document": {"file", "files"},
	}
	counts := map[string]int{}
	for _, m := range media {
		k := m.Kind
		if _, ok := names[k]; !ok {
			k = "document"
		}
		counts[k]++
	}
	var parts []string
	for _, k := range order {
		switch n := counts[k]; {
		case n == 1:
			parts = append(parts, "1 "+names[k][0])
		case n > 1:
			parts = append(parts, fmt.Sprintf("%d %s", n, names[k][1]))
		}
	}
	return strings.Join(parts, " · ")
}

// renderUsage answers /usage.
func renderUsage(u channelapi.UsageReply) string {
	var b strings.Builder
	if u.QuotaBytes != nil {
		fmt.Fprintf(&b, "💾 Storage: %s of %s used", config.FormatBytes(u.UsedBytes), config.FormatBytes(*u.QuotaBytes))
	} else {
		fmt.Fprintf(&b, "💾 Storage: %s used (no quota)", config.FormatBytes(u.UsedBytes))
	}
	if u.ReservedBytes > 0 {
		fmt.Fprintf(&b, ", %s reserved for captures in progress", config.FormatBytes(u.ReservedBytes))
	}
	fmt.Fprintf(&b, "\n📚 Saved items: %d\n📅 Links sent today: %d", u.Collections, u.SubmittedToday)
	if u.DailyLimit > 0 {
		fmt.Fprintf(&b, " of %d a day", u.DailyLimit)
	}
	return b.String()
}

// resultText is a delivered post: author, text, then when it was
// published, its id and any notes.
func resultText(d channelapi.Delivery, notes []string) string {
	it := d.Item
	var b strings.Builder
	if it.AuthorName != "" {
		b.WriteString("👤 " + it.AuthorName + "\n\n")
	}
	if t := strings.TrimSpace(it.Text); t != "" {
		b.WriteString(t + "\n\n")
	}
	if t := formatTime(it.PublishedAt); t != "" {
		b.WriteString("🕒 " + t + "\n")
	}
	b.WriteString("🆔 " + it.ID.String())
	if d.CaptureState == "partial" {
		note := "⚠️ Archived in part"
		if d.Error != "" {
			note += ": " + d.Error
		}
		b.WriteString("\n" + note)
	}
	for _, n := range notes {
		b.WriteString("\n" + n)
	}
	return b.String()
}

// resultKeyboard: the original post, and in groups "save too" on public
// results, so that others can keep them as well.
func resultKeyboard(d channelapi.Delivery) *keyboard {
	var row []kbButton
	if isWebURL(d.Item.SourceURL) {
		row = append(row, kbButton{Text: "🔗 Original", URL: d.Item.SourceURL})
	}
	if d.Public && d.ChatID < 0 {
		row = append(row, kbButton{Text: "📥 Save too (我也要存)", CallbackData: callbackData(btnSave, d.Item.ID)})
	}
	if len(row) == 0 {
		return nil
	}
	return &keyboard{InlineKeyboard: [][]kbButton{row}}
}

func isWebURL(s string) bool {
	return strings.HasPrefix(s, "https://") || strings.HasPrefix(s, "http://")
}
