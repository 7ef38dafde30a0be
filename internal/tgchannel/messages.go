package tgchannel

import (
	"fmt"
	"strings"

	"github.com/monitorhq/monitor/internal/channelapi"
)

// locale is the language the bot speaks to one person: channelapi's
// LangEnglish or LangChinese.
type locale string

const (
	langEN locale = channelapi.LangEnglish
	langZH locale = channelapi.LangChinese
)

// locales are the languages of the catalog; the first is the default.
var locales = []locale{langEN, langZH}

// localeOf is the work item's language as core resolved it (the person's
// setting, else their client's), or, from a core that sends none, the one
// the client reports (Telegram's language_code: zh, zh-hans, zh-TW… are
// Chinese; anything else English).
func localeOf(language, code string) locale {
	switch locale(language) {
	case langEN, langZH:
		return locale(language)
	}
	primary, _, _ := strings.Cut(strings.ToLower(strings.TrimSpace(code)), "-")
	if primary == "zh" {
		return langZH
	}
	return langEN
}

// t is the catalog's text for key in l, formatted with args like
// fmt.Sprintf; an unknown key (a bug the catalog test catches) shows as
// the key.
func (l locale) t(key string, args ...any) string {
	m, ok := catalog[key]
	if !ok {
		return key
	}
	s, ok := m[l]
	if !ok {
		s = m[langEN]
	}
	if len(args) == 0 {
		return s
	}
	return fmt.Sprintf(s, args...)
}

// catalog holds every text the bot sends, in English and Simplified
// Chinese: key → locale → text. Both languages have every key with the
// same formatting verbs in the same order (messages_test.go checks). It is
// never written to.
var catalog = map[string]map[locale]string{
	// The command menu (setMyCommands) and /help.
	"cmd.start":          {langEN: "what this bot does", langZH: "这个机器人能做什么"},
	"cmd.help":           {langEN: "the commands", langZH: "命令列表"},
	"cmd.list":           {langEN: "your archive, newest first, 10 a page", langZH: "你的收藏，最新的在前，每页 10 条"},
	"cmd.search":         {langEN: "search your archive (/search alone shows how)", langZH: "搜索你的收藏（只发 /search 查看写法）"},
	"cmd.get":            {langEN: "show a saved item", langZH: "查看一条收藏"},
	"cmd.delete":         {langEN: "remove a saved item from your archive", langZH: "从你的收藏中删除一条"},
	"cmd.watch":          {langEN: "archive a profile's or channel's new posts by themselves (interval e.g. 30m, 2h; default 15m)", langZH: "自动存档某个主页或频道的新帖子（间隔如 30m、2h；默认 15m）"},
	"cmd.watches":        {langEN: "your watched profiles and channels", langZH: "你关注的主页和频道"},
	"cmd.unwatch":        {langEN: "stop watching one (/unwatch alone lists them)", langZH: "停止关注（只发 /unwatch 列出全部）"},
	"cmd.account_add":    {langEN: "connect your own account of a platform, for posts only you may see (private chat only)", langZH: "连接你自己的平台账号，存档只有你能看到的帖子（仅限私聊）"},
	"cmd.accounts":       {langEN: "your connected accounts (private chat only)", langZH: "你已连接的账号（仅限私聊）"},
	"cmd.account_remove": {langEN: "remove a connected account and delete its credential (private chat only)", langZH: "移除已连接的账号并删除其凭据（仅限私聊）"},
	"cmd.join":           {langEN: "ask that your Telegram account join a channel by its invite link; an operator approves (private chat only)", langZH: "请求用你的 Telegram 账号通过邀请链接加入频道，需管理员批准（仅限私聊）"},
	"cmd.cancel":         {langEN: "stop archiving a link (reply to its ⏳ message, or add the link), or a running /account_add (private chat only)", langZH: "停止存档某个链接（回复它的 ⏳ 消息，或附上链接），或取消正在进行的 /account_add（仅限私聊）"},
	"cmd.pin":            {langEN: "pin a result in your bound channel (reply to the result, or add the link; private chat only)", langZH: "在你绑定的频道中置顶某条结果（回复该结果，或附上链接；仅限私聊）"},
	"cmd.download":       {langEN: "archive a link and upload it to your cloud drive instead of sending it here (private chat only)", langZH: "存档链接并上传到你的云盘，而不是发送到这里（仅限私聊）"},
	"download.queued":    {langEN: "☁️ Archiving %s; it goes up to %s once archived, and you are told here.", langZH: "☁️ 正在存档 %s；存档后将上传到 %s，完成后会在这里通知你。"},
	"download.done":      {langEN: "☁️ Uploaded %s to %s: %d file(s), %s, in %s.", langZH: "☁️ 已将 %s 上传到 %s：%d 个文件，%s，位于 %s。"},
	"download.failed":    {langEN: "❌ Could not upload %s to %s: %s", langZH: "❌ 无法将 %s 上传到 %s：%s"},
	"status.cancelled":   {langEN: "🚫 Cancelled: ", langZH: "🚫 已取消："},
	"cancel.done":        {langEN: "🚫 Stopped archiving %s for you.", langZH: "🚫 已为你停止存档 %s。"},
	"cancel.done_many":   {langEN: "🚫 Stopped archiving %s for you (%d times you sent it).", langZH: "🚫 已为你停止存档 %s（你发送了 %d 次）。"},
	"pin.done":           {langEN: "📌 Pinned in %s.", langZH: "📌 已在 %s 置顶。"},
	"pin.refused":        {langEN: "I could not pin it in %s: %s. Give me the right to %s there, then /pin again.", langZH: "无法在 %s 置顶：%s。请在那里授予我“%s”权限，然后再发送 /pin。"},
	"pin.right.channel":  {langEN: "edit messages", langZH: "编辑消息"},
	"pin.right.group":    {langEN: "pin messages", langZH: "置顶消息"},
	"cmd.bind":           {langEN: "copy each post you archive into a channel or group you run, where the bot is an admin (@name, t.me link or -100 id; private chat only)", langZH: "把你存档的每条帖子复制到你管理的频道或群组（机器人需为管理员；@名称、t.me 链接或 -100 开头的 ID；仅限私聊）"},
	"cmd.channels":       {langEN: "your bound channels (private chat only)", langZH: "你绑定的频道（仅限私聊）"},
	"cmd.unbind":         {langEN: "stop copying into a bound channel (private chat only)", langZH: "停止复制到已绑定的频道（仅限私聊）"},
	"bind.bad_ref": {
		langEN: "%q names no channel: send /bind @channel, /bind t.me/channel or /bind -100… (the channel's id).",
		langZH: "%q 不是频道：请发送 /bind @频道名、/bind t.me/频道名 或 /bind -100…（频道 ID）。",
	},
	"bind.invite": {
		langEN: "A bot cannot open invite links. Send the channel's @name, or for a private channel its id (-100…) or a t.me/c/… link of one of its posts.",
		langZH: "机器人无法打开邀请链接。请发送频道的 @名称；私有频道请发送其 ID（-100…）或其中某条帖子的 t.me/c/… 链接。",
	},
	"bind.unseen": {
		langEN: "I cannot see %s. Add @%s to the channel as an administrator with the right to post, then send /bind again.",
		langZH: "我看不到 %s。请先把 @%s 添加为该频道的管理员并授予发布消息的权限，然后再发送 /bind。",
	},
	"bind.not_channel": {
		langEN: "%s is not a channel or a group; only those can be bound.",
		langZH: "%s 不是频道或群组；只能绑定频道或群组。",
	},
	"bind.bot_rights": {
		langEN: "I cannot post in %s: %s. Change it in the channel's administrators, then send /bind again.",
		langZH: "我无法在 %s 发布：%s。请在频道的管理员设置中修改，然后再发送 /bind。",
	},
	"bind.right.admin": {
		langEN: "I am not an administrator there",
		langZH: "我不是那里的管理员",
	},
	"bind.right.post": {
		langEN: "I am an administrator without the right “Post messages”",
		langZH: "我是管理员，但没有“发布消息”权限",
	},
	"bind.not_yours": {
		langEN: "You are not an administrator of %s, so you cannot bind it.",
		langZH: "你不是 %s 的管理员，因此无法绑定它。",
	},
	"bind.taken": {
		langEN: "%s is bound to another account already; a channel belongs to one account.",
		langZH: "%s 已被另一个账户绑定；一个频道只能属于一个账户。",
	},
	"bind.already": {
		langEN: "%s is bound already: each post you archive is copied there.",
		langZH: "%s 已经绑定：你存档的每条帖子都会复制到那里。",
	},
	"bind.done": {
		langEN: "✅ Bound %s: from now on each post you archive is copied there too. /unbind stops it.",
		langZH: "✅ 已绑定 %s：今后你存档的每条帖子也会复制到那里。发送 /unbind 即可停止。",
	},
	"channels.empty": {
		langEN: "No channel is bound. Make the bot an administrator of your channel, then send /bind @channel.",
		langZH: "还没有绑定频道。请先把机器人设为你频道的管理员，然后发送 /bind @频道名。",
	},
	"channels.head": {langEN: "📢 Your bound channels (%d):", langZH: "📢 你绑定的频道（%d 个）："},
	"channels.hint": {langEN: "Send /unbind N to stop copying into one.", langZH: "发送 /unbind N 即可停止复制到其中一个。"},
	"unbind.done": {
		langEN: "✅ Unbound %s: nothing more is copied there.",
		langZH: "✅ 已解绑 %s：不会再复制内容到那里。",
	},
	"copy.gone": {
		langEN: "⚠️ %s is no longer bound: the channel is gone or I may no longer post there (%s). Fix it and send /bind again.",
		langZH: "⚠️ %s 已解除绑定：频道已不存在，或我不再有权在那里发布（%s）。修复后请再次发送 /bind。",
	},
	"copy.footer": {langEN: "🔗 Original: %s", langZH: "🔗 原文：%s"},
	"account.none_here": {
		langEN: "No platform on this Monitor takes accounts yet.",
		langZH: "这个 Monitor 上还没有可以连接账号的平台。",
	},
	"account.choose": {
		langEN: "🔑 Which platform is the account on? What you paste next stays sealed in Monitor and is used only for your own archive.",
		langZH: "🔑 要连接哪个平台的账号？你接下来粘贴的内容会加密保存在 Monitor 中，只用于你自己的存档。",
	},
	"account.paste": {
		langEN: "🔑 Send %s's credential as your next message: %s.\n\nI delete that message from this chat at once. Send /cancel to stop; I wait %d minutes.",
		langZH: "🔑 请把 %s 的凭据作为下一条消息发送：%s。\n\n我会立刻从聊天中删除这条消息。发送 /cancel 可取消；我会等待 %d 分钟。",
	},
	"account.help.x": {
		langEN: "the auth_token and ct0 cookies of a signed-in x.com: a Cookie header (auth_token=…; ct0=…), the x.com lines of a cookies.txt file, or a cookie extension's JSON export",
		langZH: "已登录 x.com 的 auth_token 和 ct0 两个 cookie：Cookie 请求头（auth_token=…; ct0=…）、cookies.txt 文件中 x.com 的几行，或浏览器 cookie 扩展导出的 JSON",
	},
	"account.help.telegram": {
		langEN: "a Telegram user session: gotd's session.json or a Telethon string session (or sign in with monitor account add --adapter telegram in a terminal, with --qr to scan a QR code instead of typing the phone number)",
		langZH: "Telegram 用户会话：gotd 的 session.json 或 Telethon 字符串会话（也可以在终端运行 monitor account add --adapter telegram 登录；加 --qr 可扫描二维码，无需输入手机号）",
	},
	"account.qr_button": {
		langEN: "📷 Sign in with a QR code instead",
		langZH: "📷 改用二维码登录",
	},
	"account.qr": {
		langEN: "📷 Scan this QR code with Telegram on a phone where the account is signed in: Settings → Devices → Link Desktop Device. It works for about %d seconds; I send a new one when it expires. Send /cancel to stop.",
		langZH: "📷 请在已登录该账号的手机上用 Telegram 扫描这个二维码：设置 → 设备 → 连接桌面设备。二维码约 %d 秒内有效；过期后我会发送新的。发送 /cancel 可取消。",
	},
	"account.qr_password": {
		langEN: "🔑 Scanned. The account has two-step verification: send its password as your next message. I delete that message from this chat at once.%s",
		langZH: "🔑 已扫描。该账号开启了两步验证：请把密码作为下一条消息发送。我会立刻从聊天中删除这条消息。%s",
	},
	"account.qr_hint": {
		langEN: " (Hint: %s)",
		langZH: "（提示：%s）",
	},
	"account.qr_timeout": {
		langEN: "⌛ No QR code was scanned in time; nothing was stored. Send /account_add again.",
		langZH: "⌛ 二维码未在有效时间内被扫描；没有保存任何内容。请重新发送 /account_add。",
	},
	"account.received": {
		langEN: "🔒 Received, and deleted from the chat. Checking it with the platform…",
		langZH: "🔒 已收到，并已从聊天中删除。正在向平台核验……",
	},
	"account.added": {
		langEN: "✅ %s account @%s connected. What you capture through it stays private to you; /accounts lists your accounts.",
		langZH: "✅ 已连接 %s 账号 @%s。通过它存档的内容只对你可见；发送 /accounts 查看。",
	},
	"account.replaced": {
		langEN: "✅ %s account @%s was connected already: its credential is replaced (revision %d).",
		langZH: "✅ %s 账号 @%s 已经连接过：凭据已更新（第 %d 版）。",
	},
	"account.problem": {
		langEN: "⚠️ Not added: %s\n\nNothing was stored. Send /account_add to try again.",
		langZH: "⚠️ 未添加：%s\n\n没有保存任何内容。发送 /account_add 可重试。",
	},
	"account.expired": {
		langEN: "⌛ The /account_add for %s waited 10 minutes without a credential and has ended; nothing was stored. Send /account_add to start again.",
		langZH: "⌛ %s 的 /account_add 等待 10 分钟未收到凭据，已结束；没有保存任何内容。发送 /account_add 可重新开始。",
	},
	"join.pending": {
		langEN: "Asked to join %s. An operator decides; the request is %s.",
		langZH: "已请求加入 %s，等待管理员决定；请求编号 %s。",
	},
	"join.joined": {
		langEN: "Your account is a member of %s already. Send its link to archive it: %s",
		langZH: "你的账号已是 %s 的成员。发送其链接即可存档：%s",
	},
	"account.cancelled": {
		langEN: "Cancelled: no account was added.",
		langZH: "已取消：没有添加账号。",
	},
	"account.nothing_to_cancel": {
		langEN: "Nothing to cancel: no /account_add is waiting for you.",
		langZH: "没有需要取消的内容：没有正在等待的 /account_add。",
	},
	"account.removed": {
		langEN: "🗑 Account @%s removed: its credential is deleted, and nothing is captured through it any more.",
		langZH: "🗑 已移除账号 @%s：其凭据已删除，之后不会再通过它存档。",
	},
	"accounts.empty": {
		langEN: "You have no connected accounts. Send /account_add to connect one.",
		langZH: "你还没有连接任何账号。发送 /account_add 即可连接。",
	},
	"accounts.head":                  {langEN: "🔑 Your accounts (%d):", langZH: "🔑 你的账号（%d 个）："},
	"accounts.state.active":          {langEN: "✅ active", langZH: "✅ 可用"},
	"accounts.state.reauth_required": {langEN: "⚠️ the platform no longer accepts it: add it again with /account_add", langZH: "⚠️ 平台已不再接受：请用 /account_add 重新添加"},
	"accounts.revision":              {langEN: " · credential revision %d", langZH: " · 凭据第 %d 版"},
	"accounts.checked":               {langEN: "\nLast checked %s", langZH: "\n上次核验：%s"},
	"accounts.remove":                {langEN: "✖ Remove %s @%s", langZH: "✖ 移除 %s @%s"},
	"accounts.hint": {
		langEN: "/account_add connects another; /account_remove removes one.",
		langZH: "/account_add 连接新账号；/account_remove 移除账号。",
	},
	"cmd.usage": {langEN: "storage used, quota and today's submissions", langZH: "已用空间、配额和今天提交的链接"},
	"cmd.token": {langEN: "create a REST API token (private chat only)", langZH: "创建 REST API 令牌（仅限私聊）"},
	"cmd.web":   {langEN: "a one-use sign-in link to your web library (private chat only)", langZH: "网页收藏库的一次性登录链接（仅限私聊）"},
	"cmd.admin": {langEN: "an operator's sign-in link to the console (private chat only)", langZH: "管理员登录控制台的一次性链接（仅限私聊）"},
	"help.intro": {
		langEN: "Send me a link to a post — an X post or profile, a public Telegram channel post — and I archive its text and media and send it back.\n\n",
		langZH: "发给我一个帖子链接（X 的帖子或主页、公开 Telegram 频道的帖子），我会存档它的文字和媒体，再发回给你。\n\n",
	},
	"help.group": {
		langEN: "\nIn a group, mention me (@%s) with the link, or address commands to me: /list@%s.",
		langZH: "\n在群组里，请连同链接提到我（@%s），或把命令发给我：/list@%s。",
	},

	// Reading a message.
	"parse.other_bot":    {langEN: "That command is meant for another bot.", langZH: "这条命令是发给另一个机器人的。"},
	"parse.unknown":      {langEN: "I don't know /%s. /help lists what I can do.", langZH: "我不认识 /%s。发送 /help 查看我能做什么。"},
	"parse.private_only": {langEN: "🔒 %s works only in a private chat with me (@%s): what it shows must stay secret.", langZH: "🔒 %s 只能在与我（@%s）的私聊中使用：它显示的内容必须保密。"},
	"parse.usage":        {langEN: "Usage: %s — %s.", langZH: "用法：%s — %s。"},
	"parse.bad_id": {
		langEN: "%q is not an item id: use the id /list or a result shows (at least its first 8 characters).",
		langZH: "%q 不是条目 ID：请使用 /list 或存档结果中显示的 ID（至少前 8 个字符）。",
	},
	"parse.too_many_links": {langEN: "That is %d links; send at most %d per message, please.", langZH: "这条消息有 %d 个链接；每条消息最多发送 %d 个。"},
	"parse.nothing":        {langEN: "Send me a link to archive, or /help to see what I can do.", langZH: "发给我一个要存档的链接，或发送 /help 查看我能做什么。"},
	"button.gone":          {langEN: "This button no longer works.", langZH: "这个按钮已经失效了。"},
	"sorry": {
		langEN: "Sorry, something went wrong on my side and I could not handle that. Please try again later.",
		langZH: "抱歉，我这边出了问题，没能处理这条消息。请稍后再试。",
	},

	// Core's refusals, by code; %s is core's own explanation.
	"err.quota":       {langEN: "💾 %s", langZH: "💾 存储空间不够了。（%s）"},
	"err.limit":       {langEN: "⏱ %s", langZH: "⏱ 已达到账户的限制。（%s）"},
	"err.retry":       {langEN: " You can try again in %s.", langZH: "%s后可以再试。"},
	"err.not_active":  {langEN: "⏳ %s", langZH: "⏳ 你的账户目前不可用。（%s）"},
	"err.unsupported": {langEN: "🚫 %s", langZH: "🚫 这个链接无法存档。（%s）"},
	"err.not_found":   {langEN: "⚠️ %s", langZH: "⚠️ 没有找到。（%s）"},
	"err.invalid":     {langEN: "⚠️ %s", langZH: "⚠️ 请求无效。（%s）"},
	"err.forbidden":   {langEN: "⚠️ %s", langZH: "⚠️ 不能这样做。（%s）"},
	"err.conflict":    {langEN: "⚠️ %s", langZH: "⚠️ 现在不能这样做。（%s）"},

	// /start.
	"start.hi":    {langEN: "👋 Hi %s! I keep an archive of posts for you.\n\n", langZH: "👋 你好，%s！我会为你保存帖子的存档。\n\n"},
	"start.there": {langEN: "there", langZH: "朋友"},
	"start.pending": {
		langEN: "⏳ Your account awaits approval by the operator of this Monitor; I can archive links once it is approved.\n\n",
		langZH: "⏳ 你的账户正在等待这个 Monitor 的管理员批准；批准后我就能为你存档链接。\n\n",
	},
	"start.disabled": {langEN: "⛔ Your account is disabled; ask the operator of this Monitor.\n\n", langZH: "⛔ 你的账户已被停用；请联系这个 Monitor 的管理员。\n\n"},
	"start.archived": {langEN: "⛔ Your account is archived; ask the operator of this Monitor.\n\n", langZH: "⛔ 你的账户已归档；请联系这个 Monitor 的管理员。\n\n"},

	// Commands' answers.
	"delete.done": {
		langEN: "🗑 Removed %s from your archive. Anyone else who saved it keeps their copy.",
		langZH: "🗑 已从你的收藏中删除 %s。其他保存过它的人仍保留各自的副本。",
	},
	"token.head": {langEN: "🔑 Your REST API token %s (shown only this once; keep it secret):\n\n", langZH: "🔑 你的 REST API 令牌 %s（只显示这一次，请妥善保密）：\n\n"},
	"token.tail": {langEN: "\n\nSend it as the header  Authorization: Bearer <token>.", langZH: "\n\n使用时请发送请求头  Authorization: Bearer <token>。"},
	"web.head":   {langEN: "🌐 Your sign-in link to the web library:\n\n", langZH: "🌐 你的网页收藏库登录链接：\n\n"},
	"admin.head": {
		langEN: "🛠 Your sign-in link, with operator rights (your library, and the console under /admin):\n\n",
		langZH: "🛠 你的登录链接，带管理员权限（你的收藏库，以及 /admin 下的控制台）：\n\n",
	},
	"admin.tail": {
		langEN: "\n\nIt works once, within %s. Keep it to yourself: whoever opens it can run this Monitor.",
		langZH: "\n\n链接只能使用一次，%s内有效。请勿转发：打开它的人可以管理这个 Monitor。",
	},
	"approval.approved": {
		langEN: "✅ Your account is approved: you can archive now. Send me a link to a post — an X post or profile, a public Telegram channel post.",
		langZH: "✅ 你的账户已获批准，现在可以存档了。发给我一个帖子链接（X 的帖子或主页、公开 Telegram 频道的帖子）。",
	},
	"approval.rejected": {
		langEN: "⛔ The operator of this Monitor declined your account, so I cannot archive links for you. Ask the operator if you think this is a mistake.",
		langZH: "⛔ 这个 Monitor 的管理员没有批准你的账户，所以我无法为你存档链接。如果你认为这是误会，请联系管理员。",
	},
	"admin.refused": {
		langEN: "⛔ /admin is for the operators of this Monitor, and your account is not one. For your own archive, send /web.",
		langZH: "⛔ /admin 仅供这个 Monitor 的管理员使用，你的账户不是管理员。要打开你自己的收藏库，请发送 /web。",
	},
	"web.tail": {
		langEN: "\n\nIt works once, within %s. Keep it to yourself: whoever opens it is signed in as you.",
		langZH: "\n\n链接只能使用一次，%s内有效。请勿转发：打开它的人会以你的身份登录。",
	},

	// Archiving a link.
	"status.archiving":     {langEN: "⏳ Archiving %s…", langZH: "⏳ 正在存档 %s…"},
	"status.queued":        {langEN: "queued: your account archives one link at a time, next in %s", langZH: "排队中：你的账户一次只存档一个链接，%s后轮到下一个"},
	"status.failed":        {langEN: "❌ Could not archive %s", langZH: "❌ 无法存档 %s"},
	"progress.queued":      {langEN: "waiting for its turn", langZH: "正在排队"},
	"progress.downloading": {langEN: "downloading media %d of %d", langZH: "正在下载媒体：第 %d 个，共 %d 个"},
	"progress.saving":      {langEN: "saving the post", langZH: "正在保存帖子"},

	// A profile or channel: one progress message for all its posts.
	"coll.head":           {langEN: "%s %s — %s of %s posts archived", langZH: "%s %s — 已存档 %s 条帖子，共 %s 条"},
	"coll.failed":         {langEN: " · %s failed", langZH: " · %s 条失败"},
	"coll.reading":        {langEN: "⏳ Reading the first page…", langZH: "⏳ 正在读取第一页…"},
	"coll.running":        {langEN: "⏳ Archiving… %s waiting", langZH: "⏳ 正在存档… 还有 %s 条在排队"},
	"coll.next_page":      {langEN: "⏳ Reading the next page…", langZH: "⏳ 正在读取下一页…"},
	"coll.stopped":        {langEN: "⏹ Stopped: nothing new is started; posts already on their way finish.", langZH: "⏹ 已停止：不再开始新的存档；已在进行中的帖子会完成。"},
	"coll.more":           {langEN: "✅ Done for now — there are more posts.", langZH: "✅ 这一批完成了，还有更多帖子。"},
	"coll.end":            {langEN: "✅ Done: archived to the end.", langZH: "✅ 完成：已存档到最后一条。"},
	"coll.problems":       {langEN: "⚠️ Done, with problems.", langZH: "⚠️ 完成了，但有问题。"},
	"coll.problems_more":  {langEN: "⚠️ Done for now, with problems — there are more posts.", langZH: "⚠️ 这一批完成了，但有问题；还有更多帖子。"},
	"coll.stop":           {langEN: "⏹ Stop", langZH: "⏹ 停止"},
	"coll.more_button":    {langEN: "⏬ Fetch more", langZH: "⏬ 获取更多"},
	"coll.batch_button":   {langEN: "⏬ Fetch %s more", langZH: "⏬ 再获取 %s 条"},
	"coll.fetching":       {langEN: "⏬ Fetching more…", langZH: "⏬ 正在获取更多…"},
	"coll.fetching_batch": {langEN: "⏬ Fetching up to %s more…", langZH: "⏬ 正在获取最多 %s 条…"},
	"coll.stopped_toast":  {langEN: "⏹ Stopped.", langZH: "⏹ 已停止。"},

	// "Save too".
	"save.saved":           {langEN: "✅ Saved to your archive.", langZH: "✅ 已保存到你的收藏。"},
	"save.already":         {langEN: "Already in your archive.", langZH: "已经在你的收藏里了。"},
	"save.refused":         {langEN: "❌ Not saved: %s", langZH: "❌ 未保存：%s"},
	"save.refused_default": {langEN: "it cannot be saved", langZH: "无法保存"},

	// /list and items.
	"list.empty":    {langEN: "📚 Your archive is empty. Send me a link to archive a post.", langZH: "📚 你的收藏还是空的。发给我一个链接来存档帖子。"},
	"list.no_more":  {langEN: "📚 No more items.", langZH: "📚 没有更多了。"},
	"list.head":     {langEN: "📚 Your archive — page %d\n", langZH: "📚 你的收藏 — 第 %d 页\n"},
	"list.no_text":  {langEN: "(no text)", langZH: "（无文字）"},
	"list.view":     {langEN: "👁 View %d", langZH: "👁 查看 %d"},
	"list.original": {langEN: "🔗 Original %d", langZH: "🔗 原帖 %d"},
	"list.next":     {langEN: "Next page ▶", langZH: "下一页 ▶"},
	"item.original": {langEN: "🔗 Original", langZH: "🔗 原帖"},
	"item.save_too": {langEN: "📥 Save too (我也要存)", langZH: "📥 我也要存"},

	// /search.
	"search.usage": {
		langEN: "🔎 Usage: /search QUERY — search the posts you saved.\n\n" +
			"For example:\n" +
			"/search tide moon — both words\n" +
			"/search \"high tide\" — the exact phrase\n" +
			"/search tide -moon — without a word\n" +
			"/search tide OR moon — either word\n" +
			"/search from:handle has:video — by an author, with a video\n" +
			"/search #tag after:2026-01-01 — with a tag, posted since a day\n" +
			"/search saved:<7d — saved in the last 7 days\n\n" +
			"Parts of words match too: 潮 finds 潮の満ち引き.",
		langZH: "🔎 用法：/search 查询 — 搜索你保存的帖子。\n\n" +
			"例如：\n" +
			"/search 潮汐 月亮 — 同时包含两个词\n" +
			"/search \"涨潮时间\" — 完整的短语\n" +
			"/search 潮汐 -月亮 — 不含某个词\n" +
			"/search 潮汐 OR 月亮 — 包含任一个词\n" +
			"/search from:handle has:video — 某位作者的、带视频的\n" +
			"/search #标签 after:2026-01-01 — 带某个标签、某天之后发布的\n" +
			"/search saved:<7d — 最近 7 天内保存的\n\n" +
			"词的一部分也能匹配：潮 能找到 潮の満ち引き。",
	},
	"search.head":     {langEN: "🔎 Search: ", langZH: "🔎 搜索："},
	"search.page":     {langEN: " — page %d", langZH: " — 第 %d 页"},
	"search.none":     {langEN: "Nothing you saved matches. Try fewer or shorter words, or send /search alone to see how to write a query.", langZH: "你的收藏中没有匹配的帖子。试试更少或更短的词，或只发 /search 查看查询的写法。"},
	"search.no_more":  {langEN: "No more results.", langZH: "没有更多结果了。"},
	"search.prev":     {langEN: "‹ Previous", langZH: "‹ 上一页"},
	"search.next":     {langEN: "Next ›", langZH: "下一页 ›"},
	"search.deepest":  {langEN: "Only the first %d results are shown; add words to narrow the search.", langZH: "只显示前 %d 条结果；请加几个词缩小范围。"},
	"search.bad":      {langEN: "⚠️ I could not read that query. At character %d: %s (expected %s).", langZH: "⚠️ 无法理解这个查询。第 %d 个字符处：%s（应为%s）。"},
	"search.bad_hint": {langEN: "Send /search alone to see how to write a query.", langZH: "只发 /search 可查看查询的写法。"},
	"search.gone":     {langEN: "This search no longer works here; send /search again.", langZH: "这次搜索已经失效；请重新发送 /search。"},

	// Counting media: "2 photos · 1 video".
	"media.image.one":     {langEN: "1 photo", langZH: "1 张图片"},
	"media.image.many":    {langEN: "%d photos", langZH: "%d 张图片"},
	"media.video.one":     {langEN: "1 video", langZH: "1 个视频"},
	"media.video.many":    {langEN: "%d videos", langZH: "%d 个视频"},
	"media.gif.one":       {langEN: "1 GIF", langZH: "1 个 GIF"},
	"media.gif.many":      {langEN: "%d GIFs", langZH: "%d 个 GIF"},
	"media.audio.one":     {langEN: "1 audio file", langZH: "1 个音频"},
	"media.audio.many":    {langEN: "%d audio files", langZH: "%d 个音频"},
	"media.document.one":  {langEN: "1 file", langZH: "1 个文件"},
	"media.document.many": {langEN: "%d files", langZH: "%d 个文件"},

	// /usage.
	"usage.quota":    {langEN: "💾 Storage: %s of %s used", langZH: "💾 存储：已用 %s，共 %s"},
	"usage.no_quota": {langEN: "💾 Storage: %s used (no quota)", langZH: "💾 存储：已用 %s（无配额）"},
	"usage.reserved": {langEN: ", %s reserved for captures in progress", langZH: "，另有 %s 为进行中的存档预留"},
	"usage.counts":   {langEN: "\n📚 Saved items: %d\n📅 Links sent today: %d", langZH: "\n📚 已保存条目：%d\n📅 今天发送的链接：%d"},
	"usage.daily":    {langEN: " of %d a day", langZH: "（每天上限 %d）"},

	// A delivered result.
	"result.partial":     {langEN: "⚠️ Archived in part", langZH: "⚠️ 只存档了一部分"},
	"result.partial_why": {langEN: "⚠️ Archived in part: %s", langZH: "⚠️ 只存档了一部分：%s"},
	"result.unsent": {
		langEN: "⚠️ %d media file(s) could not be sent here (too large or refused by Telegram); they are kept in your archive.",
		langZH: "⚠️ 有 %d 个媒体文件无法在这里发送（太大或被 Telegram 拒绝）；它们仍保存在你的收藏中。",
	},
	"result.too_large": {
		langEN: "⚠️ %d media file(s) are larger than the %s a bot may send here; they are kept in the archive.",
		langZH: "⚠️ 有 %d 个媒体文件超过了机器人在这里可发送的 %s；它们仍保存在存档中。",
	},
	"result.too_large_link": {
		langEN: "⚠️ %d media file(s) are larger than the %s a bot may send here; see them in your library: %s",
		langZH: "⚠️ 有 %d 个媒体文件超过了机器人在这里可发送的 %s；请在你的收藏库中查看：%s",
	},
	"result.missing": {langEN: "the archived post is missing", langZH: "存档的帖子不见了"},

	// How long until something lifts.
	"wait.s":    {langEN: "%d s", langZH: "%d 秒"},
	"wait.min":  {langEN: "%d min", langZH: "%d 分钟"},
	"wait.h":    {langEN: "%d h", langZH: "%d 小时"},
	"wait.hmin": {langEN: "%d h %d min", langZH: "%d 小时 %d 分钟"},

	"watch.bad_interval": {
		langEN: "%q is not an interval: write it like 30m, 2h or 1d (a bare number is minutes), at most a week.",
		langZH: "%q 不是有效的间隔：请写成 30m、2h 或 1d 这样的形式（只写数字表示分钟），最长一周。",
	},
	"watch.active": {
		langEN: "👀 Watching %s: its new posts are archived every %s, and you get them here.",
		langZH: "👀 已关注 %s：每 %s自动存档新帖子，并发送到这里。",
	},
	"watch.pending": {
		langEN: "⏳ Watching %s waits for an admin's approval; once approved, its new posts are archived every %s.",
		langZH: "⏳ 关注 %s 正在等待管理员批准；批准后每 %s自动存档新帖子。",
	},
	"watches.empty": {
		langEN: "You watch nothing yet. Send /watch and the link to an X profile or a Telegram channel.",
		langZH: "你还没有关注任何内容。发送 /watch 加上 X 主页或 Telegram 频道的链接即可开始。",
	},
	"watches.head":             {langEN: "👀 Your watches (%d):", langZH: "👀 你的关注（%d 个）："},
	"watches.state.active":     {langEN: "▶️ active", langZH: "▶️ 进行中"},
	"watches.state.pending":    {langEN: "⏳ waiting for an admin's approval", langZH: "⏳ 等待管理员批准"},
	"watches.state.rejected":   {langEN: "⛔ refused by an admin", langZH: "⛔ 已被管理员拒绝"},
	"watches.state.paused":     {langEN: "⏸ paused", langZH: "⏸ 已暂停"},
	"watches.state.paused_why": {langEN: "⏸ paused: %s", langZH: "⏸ 已暂停：%s"},
	"watches.every":            {langEN: " · every %s · %s", langZH: " · 每 %s · %s"},
	"watches.next":             {langEN: "\nNext look in %s", langZH: "\n%s后再次查看"},
	"watches.next_now":         {langEN: "\nNext look: now", langZH: "\n即将查看"},
	"watches.found":            {langEN: "\nNew posts archived: %d", langZH: "\n已存档新帖子：%d"},
	"watches.error":            {langEN: "\n⚠️ Last error: %s", langZH: "\n⚠️ 上次出错：%s"},
	"watches.stop":             {langEN: "✖ Stop %d", langZH: "✖ 停止 %d"},
	"watches.hint":             {langEN: "Press ✖ Stop N or send /unwatch N to stop watching one.", langZH: "按 ✖ 停止 N 或发送 /unwatch N 即可停止关注。"},
	"notify.deliver":           {langEN: "each new post sent here", langZH: "每条新帖子都发到这里"},
	"notify.digest":            {langEN: "one summary per look", langZH: "每次查看发一条汇总"},
	"notify.none":              {langEN: "archived quietly", langZH: "静默存档"},
	"unwatch.bad": {
		langEN: "%q is not a watch number: send /unwatch N with N from /watches.",
		langZH: "%q 不是关注编号：请发送 /unwatch N，N 为 /watches 中的编号。",
	},
	"unwatch.done": {
		langEN: "✅ Stopped watching %s. What it archived stays in your library.",
		langZH: "✅ 已停止关注 %s。已存档的内容仍保留在你的收藏中。",
	},
	"digest.head": {
		langEN: "👀 %d new posts archived from %s:",
		langZH: "👀 %d 条新帖子已从 %s 存档：",
	},
	"digest.more": {langEN: "\n… and %d more (see your library)", langZH: "\n……还有 %d 条（见你的收藏）"},
	"watch.paused": {
		langEN: "⏸ Stopped watching %s for now: %s\nResume it in the web library once the source is back, or remove it with /unwatch.",
		langZH: "⏸ 已暂停关注 %s：%s\n来源恢复后可在网页收藏库中继续关注，或用 /unwatch 删除。",
	},
	"watch.failed": {
		langEN: "⚠️ Watching %s: %s",
		langZH: "⚠️ 关注 %s 时出现问题：%s",
	},
}
