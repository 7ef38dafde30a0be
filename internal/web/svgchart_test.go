package web

import (
	"encoding/xml"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// svgElements parses the chart as XML and counts its elements by name,
// collecting the attribute attr of those named name.
func svgElements(t *testing.T, svg string, name, attr string) (counts map[string]int, attrs []string, texts []string) {
	t.Helper()
	counts = map[string]int{}
	dec := xml.NewDecoder(strings.NewReader(svg))
	inText := false
	for {
		tok, err := dec.Token()
		if err == io.EOF {
			break
		}
		require.NoError(t, err, "the chart is well-formed XML")
		switch el := tok.(type) {
		case xml.StartElement:
			counts[el.Name.Local]++
			inText = el.Name.Local == "text"
			if el.Name.Local == name {
				for _, a := range el.Attr {
					if a.Name.Local == attr {
						attrs = append(attrs, a.Value)
					}
				}
			}
		case xml.CharData:
			if inText {
				texts = append(texts, string(el))
			}
		case xml.EndElement:
			inText = false
		}
	}
	return counts, attrs, texts
}

func f(v float64) *float64 { return &v }

func TestLineChartDrawsLinesGapsAndAxes(t *testing.T) {
	t.Parallel()
	from := time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC)
	c := LineChart{
		Title: "Memory <RSS>",
		From:  from, To: from.Add(24 * time.Hour),
		Series: []ChartSeries{
			{Label: "RSS", Values: []*float64{f(10 << 20), f(20 << 20), nil, f(30 << 20), f(40 << 20), nil, f(5 << 20)}},
			{Label: "<script>", Values: []*float64{f(1 << 20), f(2 << 20), f(3 << 20), f(4 << 20), f(5 << 20), f(6 << 20), f(7 << 20)}},
		},
		Format: ChartBytes, Binary: true,
	}
	svg := string(c.SVG())
	require.NotContains(t, svg, "<script>", "labels are escaped")
	require.NotContains(t, svg, "style=", "no style attributes: the CSP refuses them")
	counts, paths, texts := svgElements(t, svg, "path", "d")
	require.Equal(t, 2, counts["path"], "one path per series")
	require.Equal(t, 1, counts["circle"], "the lone last point of RSS is a dot")
	require.Equal(t, 3, strings.Count(paths[0], "M"), "two gaps break the RSS line in three")
	require.Equal(t, 1, strings.Count(paths[1], "M"), "a full series is one line")
	joined := strings.Join(texts, "|")
	require.Contains(t, joined, "Memory <RSS>", "the title, as the reader sees it")
	require.Contains(t, joined, "40 MiB", "the y axis reaches the largest value in bytes")
	require.Contains(t, joined, "0 B")
	require.Contains(t, joined, "12:00", "hours on the time axis")
	require.Contains(t, joined, "<script>", "the legend names the second line")
	hours := 0
	for _, s := range texts {
		if len(s) == 5 && s[2] == ':' {
			hours++
		}
	}
	require.GreaterOrEqual(t, hours, 4)
	require.LessOrEqual(t, hours, 8, "a day is labelled every few hours, not every hour")
}

func TestLineChartEmptyAndFixedMax(t *testing.T) {
	t.Parallel()
	from := time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC)
	empty := string(LineChart{Title: "CPU", From: from, To: from.Add(time.Hour), Series: []ChartSeries{{Label: "CPU", Values: []*float64{nil, nil}}},
		Format: ChartPercent, Max: 100}.SVG())
	counts, _, texts := svgElements(t, empty, "path", "d")
	require.Zero(t, counts["path"])
	require.Contains(t, texts, "—", "an empty chart says there is nothing")
	require.Contains(t, texts, "100%", "a fixed top")

	one := string(LineChart{Title: "Jobs", From: from, To: from.Add(time.Hour), Series: []ChartSeries{{Label: "jobs", Values: []*float64{f(3)}}}}.SVG())
	counts, _, _ = svgElements(t, one, "path", "d")
	require.Equal(t, 1, counts["circle"])
}

func TestChartFormats(t *testing.T) {
	t.Parallel()
	require.Equal(t, "1.5 MiB", ChartBytes(1.5*(1<<20)))
	require.Equal(t, "512 B", ChartBytes(512))
	require.Equal(t, "2 KiB/s", ChartRate(2048))
	require.Equal(t, "12.5%", ChartPercent(12.5))
	require.Equal(t, "1.2k", ChartCount(1200))
	require.Equal(t, "3M", ChartCount(3e6))
	require.Equal(t, 1.0, niceStep(0))
	require.Equal(t, 25.0, niceStep(21))
	require.Equal(t, 50.0, niceStep(26))
	require.Equal(t, float64(10<<20), niceBinaryStep(10<<20))
	require.Equal(t, float64(2<<10), niceBinaryStep(1500))
}
