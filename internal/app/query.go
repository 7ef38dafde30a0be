package app

// The search language, one parser for every surface (REST, web, bot,
// static site). A query is typed by a person, so every refusal says where
// (a rune offset) and what was expected there, in English and Chinese.
//
//	words            ANDed: tide moon
//	"exact phrase"   also “curly quotes”, as phones type them
//	-word -"phrase"  exclude; -from:x, -#tag, -(a b) too
//	a OR b           binds tighter than the implicit AND: a OR b c = (a OR b) c
//	( )              groups, nested at most QueryMaxDepth deep
//	from:handle      a leading @ dropped, case-insensitive
//	platform: kind: has: is:   one of a fixed set of choices
//	#tag, tag:tag    letters, digits, marks and _ (CJK included)
//	after:2026-12-01, before:2026-12-01   on the post's time, UTC days
//	saved:>7d        saved more than 7 days ago; <2w within 2 weeks; d w m(30 d) y(365 d)
//
// Any other word, including an unknown prefix such as http://x, is text.

import (
	"fmt"
	"strconv"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"
)

// Limits of a query: beyond them ParseQuery refuses it.
const (
	// QueryMaxRunes bounds a query's length, also once printed canonically.
	QueryMaxRunes = 1000
	// QueryMaxTerms bounds the words, phrases and filters of a query.
	QueryMaxTerms = 64
	// QueryMaxDepth bounds how deep groups nest.
	QueryMaxDepth = 16
)

// The choices of the fields with a fixed set of values, in the order
// error messages name them.
var queryChoices = map[string][]string{
	"platform": {"x", "telegram"},
	"kind":     {"post", "profile", "channel"},
	"has":      {"photo", "video", "gif", "media", "quote", "poll"},
	"is":       {"sensitive", "private", "public", "failed"},
}

// QueryError is a bad query. Pos is the 0-based rune offset where the
// problem is (for a missing closing quote or value: where it was
// expected); Expected says what was expected there and Msg what is wrong,
// in plain English; ExpectedZH and MsgZH say the same in Simplified
// Chinese for pages shown in Chinese. It matches ErrInvalid.
type QueryError struct {
	Pos        int
	Expected   string
	Msg        string
	ExpectedZH string
	MsgZH      string
}

// Error names the position counting from 1, as people count characters:
// "at character 7: this phrase is not closed (expected a closing quote)".
func (e *QueryError) Error() string {
	return fmt.Sprintf("at character %d: %s (expected %s)", e.Pos+1, e.Msg, e.Expected)
}

// ErrorZH is Error in Simplified Chinese.
func (e *QueryError) ErrorZH() string {
	return fmt.Sprintf("第 %d 个字符处：%s（应为%s）", e.Pos+1, e.MsgZH, e.ExpectedZH)
}

// Is makes errors.Is(err, ErrInvalid) true.
func (e *QueryError) Is(target error) bool { return target == ErrInvalid }

// Query is a parsed search. Root is nil for an empty query (all posts).
type Query struct{ Root Node }

// Node is one part of a query: And, Or, Not, Text, Field or Time.
type Node interface{ queryNode() }

// And matches what matches every one of Nodes (two or more).
type And struct{ Nodes []Node }

// Or matches what matches any one of Nodes (two or more).
type Or struct{ Nodes []Node }

// Not matches what Node does not match.
type Not struct{ Node Node }

// Text is full text: a word (Phrase false, as typed) or an exact phrase
// (Phrase true, its spaces collapsed to one and trimmed).
type Text struct {
	Value  string
	Phrase bool
}

// Field is a filter: Name is from (a handle, lower case, without @),
// platform, kind, has, is (one of their choices) or tag (lower case,
// without #).
type Field struct {
	Name  string
	Value string
}

// Time compares a post's time with At: Field is "published" (the post's
// own time; after: is ">=" the day's start in UTC, before: is "<" it) or
// "saved" (when the tenant saved it). Op is ">", "<", ">=" or "<=", read as
// "the post's time Op At". Ago is the relative age as typed in canonical
// form ("7d") for saved:, so a saved search stays relative; At is then
// now minus it ("saved:>7d", saved more than 7 days ago, is Op "<").
type Time struct {
	Field string
	Op    string
	At    time.Time
	Ago   string
}

func (And) queryNode()   {}
func (Or) queryNode()    {}
func (Not) queryNode()   {}
func (Text) queryNode()  {}
func (Field) queryNode() {}
func (Time) queryNode()  {}

// ParseQuery parses the search language. now anchors relative dates
// (saved:>7d). A bad query is a *QueryError.
func ParseQuery(s string, now time.Time) (*Query, error) {
	q, err := parseQuery(s, now)
	if err != nil {
		return nil, err
	}
	// The canonical form adds a space between terms typed together
	// ("a""b"), so it is bounded too: what ParseQuery accepts, it reads back.
	if n := utf8.RuneCountInString(q.String()); n > QueryMaxRunes {
		return nil, qerr(utf8.RuneCountInString(s),
			fmt.Sprintf("written out with a space between its terms this query has %d characters", n),
			fmt.Sprintf("加上词之间的空格后，查询有 %d 个字符", n),
			"a query of at most 1,000 characters", "不超过 1000 个字符的查询")
	}
	return q, nil
}

func parseQuery(s string, now time.Time) (*Query, error) {
	if !utf8.ValidString(s) {
		pos := utf8.RuneCountInString(s[:invalidUTF8At(s)])
		return nil, qerr(pos, "this is not UTF-8 text", "这里不是 UTF-8 文本", "text in UTF-8", "UTF-8 文本")
	}
	rs := []rune(s)
	if len(rs) > QueryMaxRunes {
		return nil, qerr(QueryMaxRunes, fmt.Sprintf("the query has %d characters", len(rs)),
			fmt.Sprintf("查询有 %d 个字符", len(rs)),
			"a query of at most 1,000 characters", "不超过 1000 个字符的查询")
	}
	for i, r := range rs {
		if unicode.IsControl(r) && !unicode.IsSpace(r) {
			return nil, qerr(i, fmt.Sprintf("the control character %U cannot be searched for", r),
				fmt.Sprintf("控制字符 %U 无法搜索", r), "printable text", "可打印的文本")
		}
	}
	toks, err := lexQuery(rs)
	if err != nil {
		return nil, err
	}
	p := &queryParser{toks: toks, now: now.Round(0).UTC()}
	root, err := p.parseAnd(0, -1)
	if err != nil {
		return nil, err
	}
	return &Query{Root: root}, nil
}

func invalidUTF8At(s string) int {
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && n == 1 {
			return i
		}
		i += n
	}
	return len(s)
}

func qerr(pos int, msg, msgZH, expected, expectedZH string) *QueryError {
	return &QueryError{Pos: pos, Msg: msg, MsgZH: msgZH, Expected: expected, ExpectedZH: expectedZH}
}

type qkind int

const (
	tEOF qkind = iota
	tWord
	tPhrase
	tOr
	tNeg
	tOpen
	tClose
)

// qtok is a token: its kind, where it starts (a rune offset) and, for a
// word or phrase, its text (runes, so positions inside stay known).
type qtok struct {
	kind qkind
	pos  int
	text []rune
}

func isQuote(r rune) bool { return r == '"' || r == '“' || r == '”' }

// isDelim ends a word.
func isDelim(r rune) bool { return unicode.IsSpace(r) || r == '(' || r == ')' || isQuote(r) }

// lexQuery splits a query into tokens. Parentheses and quotes always
// split words; a - starts an exclusion only where a token starts.
func lexQuery(rs []rune) ([]qtok, error) {
	var toks []qtok
	for i := 0; i < len(rs); {
		r := rs[i]
		switch {
		case unicode.IsSpace(r):
			i++
		case r == '(':
			toks = append(toks, qtok{kind: tOpen, pos: i})
			i++
		case r == ')':
			toks = append(toks, qtok{kind: tClose, pos: i})
			i++
		case r == '-':
			toks = append(toks, qtok{kind: tNeg, pos: i})
			i++
		case isQuote(r):
			j := i + 1
			for j < len(rs) && !isQuote(rs[j]) {
				j++
			}
			if j == len(rs) {
				return nil, qerr(len(rs), fmt.Sprintf("the phrase opened at character %d is not closed", i+1),
					fmt.Sprintf("第 %d 个字符处开始的短语没有结束", i+1), "a closing quote", "一个结束引号")
			}
			phrase := strings.Join(strings.FieldsFunc(string(rs[i+1:j]), unicode.IsSpace), " ")
			if phrase == "" {
				return nil, qerr(i+1, "this phrase is empty", "短语是空的", "words between the quotes", "引号之间的词")
			}
			toks = append(toks, qtok{kind: tPhrase, pos: i, text: []rune(phrase)})
			i = j + 1
		default:
			j := i
			for j < len(rs) && !isDelim(rs[j]) {
				j++
			}
			k := tWord
			if string(rs[i:j]) == "OR" {
				k = tOr
			}
			toks = append(toks, qtok{kind: k, pos: i, text: rs[i:j]})
			i = j
		}
	}
	return append(toks, qtok{kind: tEOF, pos: len(rs)}), nil
}

type queryParser struct {
	toks  []qtok
	i     int
	terms int
	now   time.Time
}

func (p *queryParser) peek() qtok { return p.toks[p.i] }
func (p *queryParser) next() qtok { t := p.toks[p.i]; p.i++; return t }

const termZH = "词、短语或括号分组"

// parseAnd reads terms up to the end (open < 0) or up to the ) closing
// the ( at open.
func (p *queryParser) parseAnd(depth, open int) (Node, error) {
	var nodes []Node
	for {
		t := p.peek()
		switch t.kind {
		case tEOF:
			if open >= 0 {
				return nil, qerr(t.pos, fmt.Sprintf("the group opened at character %d is not closed", open+1),
					fmt.Sprintf("第 %d 个字符处开始的分组没有结束", open+1), "a closing )", "一个右括号 )")
			}
			return joinNodes(nodes, false), nil
		case tClose:
			if open < 0 {
				return nil, qerr(t.pos, "this ) closes no (", "这个 ) 没有对应的 (", "a ( before it, or no )", "前面有 (，或者去掉 )")
			}
			if len(nodes) == 0 {
				return nil, qerr(t.pos, "this group is empty", "分组是空的",
					"a word, a phrase or a group inside ( )", "括号里的"+termZH)
			}
			return joinNodes(nodes, false), nil
		case tOr:
			return nil, qerr(t.pos, "OR joins two terms, and nothing comes before this one", "OR 连接两个词，但它前面没有词",
				"a word, a phrase or a group before OR", "OR 前面的"+termZH)
		}
		n, err := p.parseOr(depth)
		if err != nil {
			return nil, err
		}
		nodes = append(nodes, n)
	}
}

func (p *queryParser) parseOr(depth int) (Node, error) {
	n, err := p.parseUnary(depth)
	if err != nil {
		return nil, err
	}
	nodes := []Node{n}
	for p.peek().kind == tOr {
		p.next()
		switch t := p.peek(); t.kind {
		case tEOF, tClose, tOr:
			return nil, qerr(t.pos, "OR joins two terms, and nothing comes after this one", "OR 连接两个词，但它后面没有词",
				"a word, a phrase or a group after OR", "OR 后面的"+termZH)
		}
		n, err := p.parseUnary(depth)
		if err != nil {
			return nil, err
		}
		nodes = append(nodes, n)
	}
	return joinNodes(nodes, true), nil
}

func (p *queryParser) parseUnary(depth int) (Node, error) {
	if p.peek().kind != tNeg {
		return p.parsePrimary(depth)
	}
	neg := p.next()
	t := p.peek()
	if t.pos != neg.pos+1 || (t.kind != tWord && t.kind != tPhrase && t.kind != tOpen) {
		return nil, qerr(neg.pos+1, "- excludes what comes right after it, and nothing does",
			"- 排除紧跟在它后面的内容，但后面什么也没有",
			"a word, a phrase or a group right after -", "紧跟在 - 后面的"+termZH)
	}
	n, err := p.parsePrimary(depth)
	if err != nil {
		return nil, err
	}
	return Not{Node: n}, nil
}

func (p *queryParser) parsePrimary(depth int) (Node, error) {
	t := p.next()
	if t.kind == tOpen {
		if depth >= QueryMaxDepth {
			return nil, qerr(t.pos, fmt.Sprintf("groups nest more than %d deep here", QueryMaxDepth),
				fmt.Sprintf("分组嵌套超过 %d 层", QueryMaxDepth),
				fmt.Sprintf("at most %d groups inside each other", QueryMaxDepth),
				fmt.Sprintf("最多 %d 层嵌套的分组", QueryMaxDepth))
		}
		n, err := p.parseAnd(depth+1, t.pos)
		if err != nil {
			return nil, err
		}
		p.next() // the )
		return n, nil
	}
	p.terms++
	if p.terms > QueryMaxTerms {
		return nil, qerr(t.pos, fmt.Sprintf("this is term %d", p.terms), fmt.Sprintf("这是第 %d 个词", p.terms),
			fmt.Sprintf("at most %d terms", QueryMaxTerms), fmt.Sprintf("最多 %d 个词", QueryMaxTerms))
	}
	if t.kind == tPhrase {
		return Text{Value: string(t.text), Phrase: true}, nil
	}
	return p.word(t)
}

// joinNodes makes one node of several, flattening nested ones of the same
// kind so that the canonical form needs no parentheses for them.
func joinNodes(nodes []Node, or bool) Node {
	var flat []Node
	for _, n := range nodes {
		switch v := n.(type) {
		case And:
			if !or {
				flat = append(flat, v.Nodes...)
				continue
			}
		case Or:
			if or {
				flat = append(flat, v.Nodes...)
				continue
			}
		}
		flat = append(flat, n)
	}
	switch {
	case len(flat) == 0:
		return nil
	case len(flat) == 1:
		return flat[0]
	case or:
		return Or{Nodes: flat}
	}
	return And{Nodes: flat}
}

func isTagRune(r rune) bool {
	return r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r) || unicode.IsMark(r)
}

func isHandleRune(r rune) bool {
	return r == '_' || r == '.' || r == '-' || unicode.IsLetter(r) || unicode.IsDigit(r) || unicode.IsMark(r)
}

// word reads a word: a #tag, a known field, or text.
func (p *queryParser) word(t qtok) (Node, error) {
	w := t.text
	if w[0] == '#' && len(w) > 1 {
		v, err := tagValue(w[1:], t.pos+1, "#")
		if err != nil {
			return nil, err
		}
		return Field{Name: "tag", Value: v}, nil
	}
	colon := -1
	for i, r := range w {
		if r == ':' {
			colon = i
			break
		}
	}
	if colon <= 0 {
		return Text{Value: string(w)}, nil
	}
	name := strings.ToLower(string(w[:colon]))
	val, vpos := w[colon+1:], t.pos+colon+1
	switch name {
	case "from":
		if len(val) > 0 && val[0] == '@' {
			val, vpos = val[1:], vpos+1
		}
		v, bad := lowerChecked(val, isHandleRune)
		if v == "" || bad >= 0 {
			return nil, valueErr(vpos+max(bad, 0), "from:", val, bad,
				"a handle (letters, digits, _, . or -) after from:", "from: 后面的用户名（字母、数字、_、. 或 -）")
		}
		return Field{Name: "from", Value: v}, nil
	case "tag":
		v, err := tagValue(val, vpos, "tag:")
		if err != nil {
			return nil, err
		}
		return Field{Name: "tag", Value: v}, nil
	case "platform", "kind", "has", "is":
		v := strings.ToLower(string(val))
		choices := queryChoices[name]
		for _, c := range choices {
			if v == c {
				return Field{Name: name, Value: v}, nil
			}
		}
		msg, msgZH := name+": needs one of its choices", name+": 后面需要一个选项"
		if v != "" {
			msg, msgZH = fmt.Sprintf("%s: does not know %q", name, string(val)), fmt.Sprintf("%s: 没有 %q 这个选项", name, string(val))
		}
		return nil, qerr(vpos, msg, msgZH,
			fmt.Sprintf("one of %s after %s:", strings.Join(choices, ", "), name),
			fmt.Sprintf("%s: 后面的 %s 之一", name, strings.Join(choices, "、")))
	case "after", "before":
		at, err := queryDate(val, vpos, name)
		if err != nil {
			return nil, err
		}
		op := ">="
		if name == "before" {
			op = "<"
		}
		return Time{Field: "published", Op: op, At: at}, nil
	case "saved":
		return p.savedAge(val, vpos)
	}
	return Text{Value: string(w)}, nil
}

// lowerChecked lowers v and reports the index of the first rune that ok
// refuses (-1: none).
func lowerChecked(v []rune, ok func(rune) bool) (string, int) {
	low := []rune(strings.ToLower(string(v)))
	for i, r := range low {
		if !ok(r) {
			return "", i
		}
	}
	return string(low), -1
}

func tagValue(val []rune, vpos int, prefix string) (string, error) {
	v, bad := lowerChecked(val, isTagRune)
	if v == "" || bad >= 0 {
		return "", valueErr(vpos+max(bad, 0), prefix, val, bad,
			"a tag of letters, digits or _ after "+prefix, prefix+" 后面由字母、数字或 _ 组成的标签")
	}
	return v, nil
}

// valueErr is a missing value (bad < 0) or one with a rune it may not have.
func valueErr(pos int, prefix string, val []rune, bad int, expected, expectedZH string) error {
	if bad < 0 || len(val) == 0 {
		return qerr(pos, prefix+" needs a value right after it", prefix+" 后面需要紧跟一个值", expected, expectedZH)
	}
	return qerr(pos, fmt.Sprintf("%q cannot be part of it", string(val[bad])), fmt.Sprintf("不能包含 %q", string(val[bad])),
		expected+` (quote it, as in "`+prefix+string(val)+`", to search for the text)`,
		expectedZH+`（要搜索这段文字，请加引号："`+prefix+string(val)+`"）`)
}

func queryDate(val []rune, vpos int, name string) (time.Time, error) {
	expected := "a date such as 2026-12-01 after " + name + ":"
	expectedZH := name + ": 后面的日期，例如 2026-12-01"
	bad := func(msg, msgZH string) (time.Time, error) {
		return time.Time{}, qerr(vpos, msg, msgZH, expected, expectedZH)
	}
	s := string(val)
	if s == "" {
		return bad(name+": needs a date right after it", name+": 后面需要紧跟一个日期")
	}
	shape := len(val) == 10 && val[4] == '-' && val[7] == '-'
	for i, r := range val {
		if i != 4 && i != 7 && (r < '0' || r > '9') {
			shape = false
		}
	}
	if !shape {
		return bad(fmt.Sprintf("%q is not a date written as year-month-day", s), fmt.Sprintf("%q 不是“年-月-日”格式的日期", s))
	}
	y, _ := strconv.Atoi(s[:4])
	m, _ := strconv.Atoi(s[5:7])
	d, _ := strconv.Atoi(s[8:])
	if m < 1 || m > 12 {
		return bad(fmt.Sprintf("%s is not a date: there is no month %d", s, m), fmt.Sprintf("%s 不是日期：没有第 %d 个月", s, m))
	}
	at := time.Date(y, time.Month(m), d, 0, 0, 0, 0, time.UTC)
	if d < 1 || at.Day() != d {
		return bad(fmt.Sprintf("%s is not a date: %s %d has no day %d", s, time.Month(m), y, d),
			fmt.Sprintf("%s 不是日期：%d 年 %d 月没有 %d 日", s, y, m, d))
	}
	return at, nil
}

// The units of a relative age, in days.
var ageUnits = map[rune]int{'d': 1, 'w': 7, 'm': 30, 'y': 365}

const maxAgeDays = 100 * 365

// savedAge reads saved:>7d and its kin: the age compared is the opposite
// of the time compared (older than 7 days = saved before now − 7 days).
func (p *queryParser) savedAge(val []rune, vpos int) (Node, error) {
	const expected = "an age such as >7d, <2w, >=3m or <1y after saved:"
	const expectedZH = "saved: 后面的时长，例如 >7d、<2w、>=3m 或 <1y"
	i := 0
	var op string
	switch {
	case len(val) >= 2 && (val[0] == '>' || val[0] == '<') && val[1] == '=':
		op, i = string(val[:2]), 2
	case len(val) >= 1 && (val[0] == '>' || val[0] == '<'):
		op, i = string(val[:1]), 1
	default:
		return nil, qerr(vpos, "saved: needs > (more than) or < (less than) and an age",
			"saved: 后面需要 >（超过）或 <（不到）和一个时长", expected, expectedZH)
	}
	j := i
	for j < len(val) && val[j] >= '0' && val[j] <= '9' {
		j++
	}
	if j == i {
		return nil, qerr(vpos+i, "saved: needs a number after "+op, "saved: 的 "+op+" 后面需要一个数字", expected, expectedZH)
	}
	if j == len(val) {
		return nil, qerr(vpos+j, "the age has no unit", "时长没有单位",
			"a unit after the number: d (days), w (weeks), m (months of 30 days) or y (years of 365 days)",
			"数字后面的单位：d（天）、w（周）、m（月，30 天）或 y（年，365 天）")
	}
	unit := unicode.ToLower(val[j])
	per, ok := ageUnits[unit]
	if !ok {
		return nil, qerr(vpos+j, fmt.Sprintf("%q is not a unit of time", string(val[j])), fmt.Sprintf("%q 不是时间单位", string(val[j])),
			"a unit after the number: d (days), w (weeks), m (months of 30 days) or y (years of 365 days)",
			"数字后面的单位：d（天）、w（周）、m（月，30 天）或 y（年，365 天）")
	}
	if j+1 < len(val) {
		return nil, qerr(vpos+j+1, "the age ends at its unit", "时长在单位处结束", "a space after the age", "时长后面的空格")
	}
	n := maxAgeDays + 1
	if j-i <= 6 {
		n, _ = strconv.Atoi(string(val[i:j]))
	}
	if n*per > maxAgeDays {
		return nil, qerr(vpos+i, "that is more than 100 years", "超过了 100 年", "an age of at most 100 years", "不超过 100 年的时长")
	}
	timeOp := map[string]string{">": "<", ">=": "<=", "<": ">", "<=": ">="}[op]
	return Time{Field: "saved", Op: timeOp, At: p.now.AddDate(0, 0, -n*per),
		Ago: strconv.Itoa(n) + string(unit)}, nil
}

// String prints the query in its canonical form, which ParseQuery reads
// back to an equal tree: terms separated by one space, OR in capitals,
// parentheses only where they are needed, filters in lower case, tags as
// #tag, dates as after:/before:, ages as typed (saved:>7d). "" is the
// empty query.
func (q *Query) String() string {
	if q == nil || q.Root == nil {
		return ""
	}
	var b strings.Builder
	writeNode(&b, q.Root, ctxAnd)
	return b.String()
}

type printCtx int

const (
	ctxAnd printCtx = iota
	ctxOr
	ctxNot
)

func writeNode(b *strings.Builder, n Node, ctx printCtx) {
	switch v := n.(type) {
	case And:
		writeList(b, v.Nodes, " ", ctxAnd, ctx != ctxAnd)
	case Or:
		writeList(b, v.Nodes, " OR ", ctxOr, ctx == ctxNot)
	case Not:
		if ctx == ctxNot { // -(-a): "--a" is refused
			b.WriteString("(-")
			writeNode(b, v.Node, ctxNot)
			b.WriteByte(')')
			return
		}
		b.WriteByte('-')
		writeNode(b, v.Node, ctxNot)
	case Text:
		if v.Phrase {
			b.WriteString(`"` + v.Value + `"`)
		} else {
			b.WriteString(v.Value)
		}
	case Field:
		if v.Name == "tag" {
			b.WriteString("#" + v.Value)
		} else {
			b.WriteString(v.Name + ":" + v.Value)
		}
	case Time:
		writeTime(b, v)
	}
}

func writeList(b *strings.Builder, nodes []Node, sep string, inner printCtx, parens bool) {
	if parens {
		b.WriteByte('(')
	}
	for i, c := range nodes {
		if i > 0 {
			b.WriteString(sep)
		}
		// A nested list of the same kind (never made by ParseQuery) keeps
		// its parentheses so it prints what it means.
		_, and := c.(And)
		_, or := c.(Or)
		if (inner == ctxAnd && and) || (inner == ctxOr && or) {
			writeNode(b, c, ctxNot)
			continue
		}
		writeNode(b, c, inner)
	}
	if parens {
		b.WriteByte(')')
	}
}

func writeTime(b *strings.Builder, v Time) {
	if v.Field == "saved" && v.Ago != "" {
		b.WriteString("saved:" + map[string]string{"<": ">", "<=": ">=", ">": "<", ">=": "<="}[v.Op] + v.Ago)
		return
	}
	day := v.At.UTC().Format("2006-01-02")
	if v.Op == ">" || v.Op == ">=" {
		b.WriteString("after:" + day)
	} else {
		b.WriteString("before:" + day)
	}
}
