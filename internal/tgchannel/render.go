package tgchannel

import (
	"fmt"
	"math"
	"slices"
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
func renderList(l locale, items []channelapi.Item, page int, more bool) outMessage {
	if len(items) == 0 {
		if page <= 1 {
			return outMessage{text: l.t("list.empty")}
		}
		return outMessage{text: l.t("list.no_more")}
	}
	var b strings.Builder
	var ents []models.MessageEntity
	units := 0
	write := func(s string) {
		b.WriteString(s)
		units += utf16Len(s)
	}
	kb := &keyboard{}
	write(l.t("list.head", page))
	for i, it := range items {
		n := (page-1)*pageSize + i + 1
		write(fmt.Sprintf("\n%d. ", n))
		s := foldSummary(itemSummary(it))
		if s == "" {
			s = l.t("list.no_text")
		}
		if isWebURL(it.SourceURL) {
			ents = append(ents, models.MessageEntity{Type: models.MessageEntityTypeTextLink, Offset: units, Length: utf16Len(s), URL: it.SourceURL})
		}
		write(s + "\n")
		row := []kbButton{{Text: l.t("list.view", n), CallbackData: callbackData(btnView, it.ID)}}
		if isWebURL(it.SourceURL) {
			row = append(row, kbButton{Text: l.t("list.original", n), URL: it.SourceURL})
		}
		kb.InlineKeyboard = append(kb.InlineKeyboard, row)
	}
	if more {
		last := items[len(items)-1].ID
		kb.InlineKeyboard = append(kb.InlineKeyboard, []kbButton{{Text: l.t("list.next"), CallbackData: pageData(int16(min(page+1, math.MaxInt16)), last)}})
	}
	return outMessage{text: strings.TrimRight(b.String(), "\n"), entities: ents, kb: kb}
}

// renderDetail shows a saved item: its id, author, publication time in
// UTC+8 (left out when unknown), media and text, with an "original"
// button on the first message.
func renderDetail(l locale, it channelapi.Item) []outMessage {
	var b strings.Builder
	fmt.Fprintf(&b, "🆔 %s\n", it.ID)
	if it.AuthorName != "" {
		fmt.Fprintf(&b, "👤 %s\n", it.AuthorName)
	}
	if t := formatTime(it.PublishedAt); t != "" {
		fmt.Fprintf(&b, "🕒 %s\n", t)
	}
	if m := mediaLine(l, it.Media); m != "" {
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
		out[0].kb = &keyboard{InlineKeyboard: [][]kbButton{{{Text: l.t("item.original"), URL: it.SourceURL}}}}
	}
	return out
}

// mediaLine counts media by kind: "2 photos · 1 video".
func mediaLine(l locale, media []channelapi.Media) string {
	order := []string{"image", "video", "gif", "audio", "document"}
	counts := map[string]int{}
	for _, m := range media {
		k := m.Kind
		if !slices.Contains(order, k) {
			k = "document"
		}
		counts[k]++
	}
	var parts []string
	for _, k := range order {
		switch n := counts[k]; {
		case n == 1:
			parts = append(parts, l.t("media."+k+".one"))
		case n > 1:
			parts = append(parts, l.t("media."+k+".many", n))
		}
	}
	return strings.Join(parts, " · ")
}

// renderUsage answers /usage.
func renderUsage(l locale, u channelapi.UsageReply) string {
	var b strings.Builder
	if u.QuotaBytes != nil {
		b.WriteString(l.t("usage.quota", config.FormatBytes(u.UsedBytes), config.FormatBytes(*u.QuotaBytes)))
	} else {
		b.WriteString(l.t("usage.no_quota", config.FormatBytes(u.UsedBytes)))
	}
	if u.ReservedBytes > 0 {
		b.WriteString(l.t("usage.reserved", config.FormatBytes(u.ReservedBytes)))
	}
	b.WriteString(l.t("usage.counts", u.Collections, u.SubmittedToday))
	if u.DailyLimit > 0 {
		b.WriteString(l.t("usage.daily", u.DailyLimit))
	}
	return b.String()
}

// resultText is a delivered post: author, text, then when it was
// published, its id and any notes.
func resultText(l locale, d channelapi.Delivery, notes []string) string {
	it := d.Item
	var b strings.Builder
	writePost(&b, it)
	b.WriteString("🆔 " + it.ID.String())
	if d.CaptureState == "partial" {
		note := l.t("result.partial")
		if d.Error != "" {
			note = l.t("result.partial_why", d.Error)
		}
		b.WriteString("\n" + note)
	}
	for _, n := range notes {
		b.WriteString("\n" + n)
	}
	return b.String()
}

// writePost writes what a result shows of the post: the author, the text
// and the publication time.
func writePost(b *strings.Builder, it *channelapi.Item) {
	if it.AuthorName != "" {
		b.WriteString("👤 " + it.AuthorName + "\n\n")
	}
	if t := strings.TrimSpace(it.Text); t != "" {
		b.WriteString(t + "\n\n")
	}
	if t := formatTime(it.PublishedAt); t != "" {
		b.WriteString("🕒 " + t + "\n")
	}
}

// copyText is a result as copied to a bound channel: the author, the
// text and the time, then a footer linking the original.
func copyText(l locale, d channelapi.Delivery, notes []string) string {
	it := d.Item
	var b strings.Builder
	writePost(&b, it)
	url := it.SourceURL
	if !isWebURL(url) {
		url = d.InputURL
	}
	b.WriteString(l.t("copy.footer", url))
	for _, n := range notes {
		b.WriteString("\n" + n)
	}
	return b.String()
}

// resultKeyboard: the original post, and in groups "save too" on public
// results, so that others can keep them as well.
func resultKeyboard(l locale, d channelapi.Delivery) *keyboard {
	var row []kbButton
	if isWebURL(d.Item.SourceURL) {
		row = append(row, kbButton{Text: l.t("item.original"), URL: d.Item.SourceURL})
	}
	if d.Public && d.ChatID < 0 {
		row = append(row, kbButton{Text: l.t("item.save_too"), CallbackData: callbackData(btnSave, d.Item.ID)})
	}
	if len(row) == 0 {
		return nil
	}
	return &keyboard{InlineKeyboard: [][]kbButton{row}}
}

func isWebURL(s string) bool {
	return strings.HasPrefix(s, "https://") || strings.HasPrefix(s, "http://")
}
