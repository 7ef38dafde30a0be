package web

import (
	"fmt"
	"strings"
)

// The web's two languages. Every text a page shows comes from the
// catalog through Page.T, so both languages always have it (a test checks
// that every key has both and the same formatting verbs).
const (
	LangEnglish = "en"
	LangChinese = "zh-CN"
)

// message is one text in English and Simplified Chinese.
type message struct{ en, zh string }

// catalog is the web's texts by key. Pages add their keys in their own
// files (libraryMessages, itemMessages, …) and catalog joins them.
type catalog map[string]message

// newCatalog joins the pages' texts; a key two pages define is an error,
// so New fails at start instead of a page showing the other page's text.
func newCatalog() (catalog, error) {
	c := catalog{}
	for _, part := range []catalog{layoutMessages(), signinMessages(), buildMessages(), itemMessages(), libraryMessages(),
		captureMessages(), usageMessages(), tokenMessages(), accountMessages(), channelMessages(), sessionMessages(), settingsMessages(), searchMessages(), submissionMessages(),
		adminMessages(), watchMessages(), adminWatchMessages()} {
		for k, m := range part {
			if _, dup := c[k]; dup {
				return nil, fmt.Errorf("web: message key %s is defined twice", k)
			}
			c[k] = m
		}
	}
	return c, nil
}

// layoutMessages are the texts of the frame around every page.
func layoutMessages() catalog {
	return catalog{
		"site.title":          {"Monitor", "Monitor"},
		"nav.posts":           {"Posts", "帖子"},
		"nav.authors":         {"Authors", "作者"},
		"nav.tags":            {"Tags", "标签"},
		"nav.feed":            {"Feed", "订阅"},
		"nav.library":         {"Library", "收藏库"},
		"nav.main":            {"Main", "主导航"},
		"nav.search":          {"Search", "搜索"},
		"nav.usage":           {"Usage", "用量"},
		"nav.tokens":          {"Tokens", "令牌"},
		"nav.sessions":        {"Sessions", "会话"},
		"nav.settings":        {"Settings", "设置"},
		"nav.logout":          {"Sign out", "退出登录"},
		"nav.skip":            {"Skip to content", "跳到正文"},
		"search.label":        {"Search the archive", "搜索收藏"},
		"search.placeholder":  {"Search", "搜索"},
		"footer.archived":     {"Archived with Monitor.", "由 Monitor 存档。"},
		"error.notfound":      {"Not found", "未找到"},
		"error.notfound.text": {"There is nothing here, or it is not yours to see.", "这里什么也没有，或者你无权查看。"},
		"error.server":        {"Something went wrong", "出错了"},
		"error.server.text":   {"The server could not show this page. Try again in a moment.", "服务器无法显示此页面，请稍后再试。"},
		"error.back":          {"Back to the library", "返回收藏库"},
	}
}

// T returns the text of key in lang, formatted with args. A key the
// catalog lacks shows as the key itself, which tests catch.
func (c catalog) T(lang, key string, args ...any) string {
	m, ok := c[key]
	if !ok {
		return key
	}
	s := m.en
	if lang == LangChinese {
		s = m.zh
	}
	if len(args) > 0 {
		return fmt.Sprintf(s, args...)
	}
	return s
}

// pickLang chooses the page language: the person's setting ("" = none),
// then the first language of Accept-Language that we have.
func pickLang(preference, acceptLanguage string) string {
	switch preference {
	case LangEnglish, LangChinese:
		return preference
	}
	for _, part := range strings.Split(acceptLanguage, ",") {
		tag := strings.ToLower(strings.TrimSpace(strings.SplitN(part, ";", 2)[0]))
		switch {
		case tag == "zh" || strings.HasPrefix(tag, "zh-"):
			return LangChinese
		case tag == "en" || strings.HasPrefix(tag, "en-"):
			return LangEnglish
		}
	}
	return LangEnglish
}
