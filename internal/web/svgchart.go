package web

import (
	"fmt"
	"html/template"
	"math"
	"strconv"
	"strings"
	"time"
)

// This file draws the operator console's line charts as inline SVG on the
// server: no chart library, no script, nothing the CSP would refuse (only
// presentation attributes, no style attributes). Text in a chart comes from
// the caller, already in the reader's language.

// ChartSeries is one line of a LineChart.
type ChartSeries struct {
	// Label names the line in the legend and the accessible description.
	Label string
	// Values are evenly spaced over the chart's time span, oldest first;
	// nil is a gap (no data), drawn as a break in the line.
	Values []*float64
}

// LineChart is a time-series chart of one or more lines on one y axis.
type LineChart struct {
	// Title is the chart's accessible name, drawn above it.
	Title string
	// From and To are the span the values cover.
	From, To time.Time
	// Location is where the time axis's hours are read (nil: UTC).
	Location *time.Location
	Series   []ChartSeries
	// Format writes a y-axis value (nil: ChartCount).
	Format func(float64) string
	// Width and Height are the drawing's size in pixels (0: 640 × 200). The
	// SVG scales to its container through its viewBox.
	Width, Height int
	// Max fixes the top of the y axis (0: from the data, e.g. 100 for CPU).
	Max float64
	// Binary makes the y axis's steps round in KiB, MiB, GiB (for sizes
	// and rates) instead of in powers of ten.
	Binary bool
}

// chartColors are the lines' colours, readable on light and dark pages.
var chartColors = [...]string{"#2f7fd8", "#d9822b", "#2e9e6b", "#c0457a", "#8a63d2", "#7c8894"}

// Margins of the plot inside the drawing.
const (
	chartLeft   = 64
	chartRight  = 12
	chartTop    = 28
	chartBottom = 24
)

// SVG renders the chart as an inline <svg> element.
func (c LineChart) SVG() template.HTML {
	w, h := c.Width, c.Height
	if w <= 0 || h <= 0 {
		w, h = 640, 200
	}
	format := c.Format
	if format == nil {
		format = ChartCount
	}
	loc := c.Location
	if loc == nil {
		loc = time.UTC
	}
	pw, ph := float64(w-chartLeft-chartRight), float64(h-chartTop-chartBottom)

	top, hasData := c.Max, false
	for _, s := range c.Series {
		for _, v := range s.Values {
			if v != nil && !math.IsNaN(*v) && !math.IsInf(*v, 0) {
				hasData = true
				if c.Max == 0 && *v > top {
					top = *v
				}
			}
		}
	}
	step := niceStep(top / 4)
	if c.Binary {
		step = niceBinaryStep(top / 4)
	}
	top = step * 4

	var b strings.Builder
	esc := template.HTMLEscapeString
	fmt.Fprintf(&b, `<svg class="chart" xmlns="http://www.w3.org/2000/svg" viewBox="0 0 %d %d" width="%d" height="%d" role="img" aria-label="%s">`,
		w, h, w, h, esc(c.Title))
	fmt.Fprintf(&b, `<title>%s</title>`, esc(c.Title))
	fmt.Fprintf(&b, `<text class="chart-title" x="%d" y="16" font-size="13" font-weight="600" fill="currentColor">%s</text>`, chartLeft, esc(c.Title))

	// Legend, right-aligned in the title row.
	if len(c.Series) > 1 {
		x := float64(w - chartRight)
		for i := len(c.Series) - 1; i >= 0; i-- {
			label := esc(c.Series[i].Label)
			x -= float64(len([]rune(c.Series[i].Label)))*7 + 22
			fmt.Fprintf(&b, `<rect x="%s" y="8" width="10" height="10" fill="%s"/><text x="%s" y="17" font-size="11" fill="currentColor">%s</text>`,
				num(x), chartColors[i%len(chartColors)], num(x+14), label)
		}
	}

	// Y grid and labels.
	for i := 0; i <= 4; i++ {
		y := float64(chartTop) + ph - ph*float64(i)/4
		fmt.Fprintf(&b, `<line class="chart-grid" x1="%d" x2="%d" y1="%s" y2="%s" stroke="currentColor" stroke-opacity="0.15"/>`,
			chartLeft, w-chartRight, num(y), num(y))
		fmt.Fprintf(&b, `<text x="%d" y="%s" font-size="11" text-anchor="end" fill="currentColor" fill-opacity="0.7">%s</text>`,
			chartLeft-6, num(y+4), esc(format(step*float64(i))))
	}

	// X labels on whole hours, at most about seven of them.
	span := c.To.Sub(c.From)
	if span > 0 {
		every := time.Hour
		for _, e := range []time.Duration{time.Hour, 2 * time.Hour, 3 * time.Hour, 4 * time.Hour, 6 * time.Hour, 12 * time.Hour, 24 * time.Hour} {
			every = e
			if span/e <= 7 {
				break
			}
		}
		if span < 2*time.Hour {
			every = 15 * time.Minute
		}
		first := c.From.In(loc).Truncate(every)
		if first.Before(c.From) {
			first = first.Add(every)
		}
		for t := first; !t.After(c.To); t = t.Add(every) {
			x := float64(chartLeft) + pw*float64(t.Sub(c.From))/float64(span)
			fmt.Fprintf(&b, `<text x="%s" y="%d" font-size="11" text-anchor="middle" fill="currentColor" fill-opacity="0.7">%s</text>`,
				num(x), h-6, t.In(loc).Format("15:04"))
		}
	}

	if !hasData {
		fmt.Fprintf(&b, `<text class="chart-empty" x="%s" y="%s" font-size="12" text-anchor="middle" fill="currentColor" fill-opacity="0.6">—</text>`,
			num(float64(chartLeft)+pw/2), num(float64(chartTop)+ph/2))
	}

	// Lines: one path per series, broken at gaps; a lone point is a dot.
	for i, s := range c.Series {
		n := len(s.Values)
		if n == 0 {
			continue
		}
		color := chartColors[i%len(chartColors)]
		xAt := func(j int) float64 {
			if n == 1 {
				return float64(chartLeft) + pw/2
			}
			return float64(chartLeft) + pw*float64(j)/float64(n-1)
		}
		yAt := func(v float64) float64 {
			if top <= 0 {
				return float64(chartTop) + ph
			}
			return float64(chartTop) + ph - ph*math.Min(math.Max(v, 0), top)/top
		}
		var d strings.Builder
		var dots []string
		run := 0
		for j, v := range s.Values {
			if v == nil || math.IsNaN(*v) || math.IsInf(*v, 0) {
				if run == 1 {
					dots = append(dots, lastPoint(d.String()))
				}
				run = 0
				continue
			}
			cmd := "L"
			if run == 0 {
				cmd = "M"
			}
			fmt.Fprintf(&d, "%s%s %s ", cmd, num(xAt(j)), num(yAt(*v)))
			run++
		}
		if run == 1 {
			dots = append(dots, lastPoint(d.String()))
		}
		if d.Len() > 0 {
			fmt.Fprintf(&b, `<path class="chart-line" d="%s" fill="none" stroke="%s" stroke-width="1.5" stroke-linejoin="round"><title>%s</title></path>`,
				strings.TrimSpace(d.String()), color, esc(s.Label))
		}
		for _, p := range dots {
			x, y, _ := strings.Cut(p, " ")
			fmt.Fprintf(&b, `<circle cx="%s" cy="%s" r="2" fill="%s"/>`, x, y, color)
		}
	}
	b.WriteString(`</svg>`)
	return template.HTML(b.String()) //nolint:gosec // every text in it is escaped above
}

// lastPoint is the coordinates of the last command of a path.
func lastPoint(d string) string {
	f := strings.Fields(d)
	if len(f) < 2 {
		return "0 0"
	}
	return strings.TrimLeft(f[len(f)-2], "ML") + " " + f[len(f)-1]
}

// niceStep rounds a raw tick step up to 1, 2 or 5 times a power of ten
// (at least 1, so an empty or flat chart still has an axis).
func niceStep(raw float64) float64 {
	if raw <= 1 || math.IsNaN(raw) || math.IsInf(raw, 0) {
		return 1
	}
	p := math.Pow(10, math.Floor(math.Log10(raw)))
	for _, m := range []float64{1, 2, 2.5, 5, 10} {
		if m*p >= raw {
			return m * p
		}
	}
	return 10 * p
}

// niceBinaryStep is niceStep in the binary unit the raw step falls in.
func niceBinaryStep(raw float64) float64 {
	unit := 1.0
	for raw/unit >= 1024 {
		unit *= 1024
	}
	return niceStep(raw/unit) * unit
}

// num writes a coordinate with at most one decimal.
func num(v float64) string { return strconv.FormatFloat(math.Round(v*10)/10, 'f', -1, 64) }

// ChartCount writes an axis count: 950, 1.2k, 3.4M.
func ChartCount(v float64) string {
	switch a := math.Abs(v); {
	case a >= 1e9:
		return chartDecimal(v/1e9) + "G"
	case a >= 1e6:
		return chartDecimal(v/1e6) + "M"
	case a >= 1e3:
		return chartDecimal(v/1e3) + "k"
	}
	return chartDecimal(v)
}

// ChartBytes writes an axis size in binary units: 512 B, 1.5 MiB.
func ChartBytes(v float64) string {
	units := []string{"B", "KiB", "MiB", "GiB", "TiB", "PiB"}
	i := 0
	for math.Abs(v) >= 1024 && i < len(units)-1 {
		v /= 1024
		i++
	}
	return chartDecimal(v) + " " + units[i]
}

// ChartRate writes bytes per second: 2 MiB/s.
func ChartRate(v float64) string { return ChartBytes(v) + "/s" }

// ChartPercent writes a percentage: 12.5%.
func ChartPercent(v float64) string { return chartDecimal(v) + "%" }

// chartDecimal writes v with one decimal, without a trailing ".0".
func chartDecimal(v float64) string {
	return strings.TrimSuffix(strconv.FormatFloat(math.Round(v*10)/10, 'f', 1, 64), ".0")
}
