package web

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/monitorhq/monitor/internal/app"
)

func TestMarkSnippetEscapesThenMarks(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{
		"…the «tide» <b>rose</b> & «fell»": "…the <mark>tide</mark> &lt;b&gt;rose&lt;/b&gt; &amp; <mark>fell</mark>",
		"»stray« «open":                    "»stray<mark> «open</mark>",
		"":                                 "",
		`"quoted" 'text'`:                  "&#34;quoted&#34; &#39;text&#39;",
	} {
		require.Equal(t, want, string(markSnippet(in)), in)
	}
}

func TestProblemPutsTheCaretUnderItsCharacter(t *testing.T) {
	t.Parallel()
	qe := &app.QueryError{Pos: 4, Msg: "m", Expected: "e", MsgZH: "错", ExpectedZH: "应"}
	p := problemOf(&request{lang: LangChinese}, "潮汐\tab c", qe)
	require.Equal(t, "潮汐 ab c", p.Query, "whitespace shown as one space")
	require.Equal(t, "\u3000\u3000  ", p.Pad, "a wide space under each wide character")
	require.Equal(t, qe.ErrorZH(), p.Message)
	require.Equal(t, qe.Error(), problemOf(&request{lang: LangEnglish}, "x", qe).Message)
}
