package web

// buildMessages are the texts of the static site's own pages (list,
// terms, search and 404 templates, search.js and the headings monitor
// build writes).
func buildMessages() catalog {
	return catalog{
		"build.archive":          {"Archive", "存档"},
		"build.archive.of":       {"%s — archive", "%s 的存档"},
		"build.posts_by":         {"Posts by %s", "%s 的帖子"},
		"build.page":             {"Page %d", "第 %d 页"},
		"build.heading_page":     {"%s, page %d", "%s · 第 %d 页"},
		"build.unknown_author":   {"Unknown author", "未知作者"},
		"build.empty":            {"Nothing archived yet.", "还没有存档。"},
		"build.none":             {"None yet.", "暂无。"},
		"build.profile":          {"Profile", "资料"},
		"build.count.posts":      {"posts", "帖子"},
		"build.count.following":  {"following", "正在关注"},
		"build.count.followers":  {"followers", "关注者"},
		"build.count.subscriber": {"subscribers", "订阅者"},
		"build.count.photos":     {"photos", "照片"},
		"build.count.videos":     {"videos", "视频"},
		"build.count.files":      {"files", "文件"},
		"build.count.links":      {"links", "链接"},
		"build.notfound.text":    {"There is no page at this address.", "此地址没有页面。"},
		"build.notfound.latest":  {"Latest posts", "最新帖子"},
		"build.search.noscript":  {"Search needs JavaScript. Every post is also listed by author and by tag:", "搜索需要 JavaScript。所有帖子也可以按作者和标签浏览："},
		"build.search.empty":     {"Type words to find posts.", "输入词语来查找帖子。"},
		"build.search.one":       {"1 post", "1 条帖子"},
		"build.search.many":      {"{n} posts", "{n} 条帖子"},
		"build.search.failed":    {"The search index could not be loaded.", "无法加载搜索索引。"},
		"build.search.post":      {"Post", "帖子"},
	}
}

// T is the text of key in the language of a site whose manifest names
// siteLanguage (a BCP 47 tag, "" for English), for what monitor build
// writes outside the templates: headings, titles and profile counts.
func (r *Renderer) T(siteLanguage, key string, args ...any) string {
	return r.cat.T(pickLang("", siteLanguage), key, args...)
}
