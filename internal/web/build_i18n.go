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
		"build.search.hint": {`Words, "a phrase", -leave out, a OR b, ( ), from:handle, #tag, has:photo|video|quote|poll, platform:x, kind:post, after:2026-11-01, before:…`,
			`词语、"短语"、-排除、a OR b、( )、from:用户名、#标签、has:photo|video|quote|poll、platform:x、kind:post、after:2026-11-01、before:…`},
		// A query search.js cannot run: where, and why. {n} is the
		// character (from 1), {v}, {f}, {m} and {q} values search.js fills
		// in; the rules are those of internal/app/query.go.
		"build.search.error":         {"At character {n}: {msg}", "第 {n} 个字符处：{msg}"},
		"build.search.q-long":        {"the query has {v} characters; a query has at most 1,000", "查询有 {v} 个字符，最多 1000 个"},
		"build.search.q-control":     {"the control character {v} cannot be searched for", "控制字符 {v} 无法搜索"},
		"build.search.q-unclosed":    {"the phrase opened at character {v} is not closed; add a closing quote", "第 {v} 个字符处开始的短语没有结束，请加上结束引号"},
		"build.search.q-emptyphrase": {"this phrase is empty; put words between the quotes", "短语是空的，请在引号之间写上词语"},
		"build.search.q-group":       {"the group opened at character {v} is not closed; add a )", "第 {v} 个字符处开始的分组没有结束，请加上右括号 )"},
		"build.search.q-stray":       {"this ) closes no (; add a ( before it or remove it", "这个 ) 没有对应的 (，请在前面加上 ( 或去掉它"},
		"build.search.q-emptygroup":  {"this group is empty; put a word, a phrase or a group inside ( )", "分组是空的，请在括号里写上词、短语或分组"},
		"build.search.q-orbefore":    {"OR joins two terms, and nothing comes before this one", "OR 连接两个词，但它前面没有词"},
		"build.search.q-orafter":     {"OR joins two terms, and nothing comes after this one", "OR 连接两个词，但它后面没有词"},
		"build.search.q-neg":         {"- excludes what comes right after it, and nothing does", "- 排除紧跟在它后面的内容，但后面什么也没有"},
		"build.search.q-deep":        {"groups nest more than {v} deep here", "分组嵌套超过 {v} 层"},
		"build.search.q-terms":       {"this is term {v}; a query has at most {m} terms", "这是第 {v} 个词，查询最多 {m} 个词"},
		"build.search.q-value":       {"{f} needs a value right after it", "{f} 后面需要紧跟一个值"},
		"build.search.q-char":        {`"{v}" cannot be part of a {f} value; to search for the text, put it in quotes: {q}`, "{f} 的值不能包含“{v}”；要搜索这段文字，请加引号：{q}"},
		"build.search.q-choice":      {"{f} needs one of: {v}", "{f} 后面需要以下选项之一：{v}"},
		"build.search.q-date":        {"{v} is not a date; write a date as year-month-day, such as 2026-12-01", "{v} 不是日期，请写成“年-月-日”，例如 2026-12-01"},
		"build.search.q-unsupported": {"{f} filters need the archive itself and do not work in this site's search; remove it, or search the archive", "{f} 筛选需要存档本身，本站的搜索无法使用；请去掉它，或在存档中搜索"},
	}
}

// T is the text of key in the language of a site whose manifest names
// siteLanguage (a BCP 47 tag, "" for English), for what monitor build
// writes outside the templates: headings, titles and profile counts.
func (r *Renderer) T(siteLanguage, key string, args ...any) string {
	return r.cat.T(pickLang("", siteLanguage), key, args...)
}
