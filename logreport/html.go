package logreport

import (
	"encoding/json"
	"fmt"
	"html/template"
	"io"
	"math"
	"slices"
	"strings"
	"time"
	"unicode/utf8"
)

// WriteHTML writes the report as one self-contained HTML page: its CSS inline, its charts
// inline SVG drawn here (the page needs no script and no other file, and reads offline), and
// the report's JSON (as WriteJSON writes it) in a <script type="application/json"
// id="report-data"> element, so that a script can read the numbers the page shows.
func (r *Report) WriteHTML(w io.Writer) error {
	data, err := json.Marshal(r) // escapes <, > and &: it cannot close the script element
	if err != nil {
		return err
	}
	data = jsonEscapeHidden(data)
	sparks := func(rows []*Crawler) []chart {
		out := make([]chart, len(rows))
		for i, c := range rows {
			out[i] = sparkline(c.Timeline)
		}
		return out
	}
	return page.Execute(w, struct {
		*Report
		JSON       template.JS
		Timeline   chart
		Bars       chart
		Sparks     []chart
		ToolSparks []chart
		PathGroups []pathGroup
	}{r, template.JS(data), timelineChart(r), barsChart(r), sparks(r.Crawlers), sparks(r.Tools), pathGroups(r)})
}

// chart is an SVG chart: its size, rectangles, lines and labels, in SVG user units. The
// page scales it to the width it has (viewBox).
type chart struct {
	W, H   int
	Rects  []rect
	Lines  []gridLine
	Labels []label
}

type rect struct {
	X, Y, W, H float64
	Class      string
	Title      string
}

// gridLine is a grid line or an axis tick.
type gridLine struct {
	X1, Y1, X2, Y2 float64
	Class          string
}

type label struct {
	X, Y   float64
	Anchor string
	Text   string
	Class  string
}

// tick is a time to mark on a time axis, with its label.
type tick struct {
	At   time.Time
	Text string
}

// tickSteps are the steps a time axis may be marked in, smallest first.
var tickSteps = []time.Duration{
	time.Minute, 2 * time.Minute, 5 * time.Minute, 10 * time.Minute, 15 * time.Minute, 30 * time.Minute,
	time.Hour, 2 * time.Hour, 3 * time.Hour, 6 * time.Hour, 12 * time.Hour,
	24 * time.Hour, 2 * 24 * time.Hour, 7 * 24 * time.Hour, 14 * 24 * time.Hour, 28 * 24 * time.Hour,
	56 * 24 * time.Hour, 91 * 24 * time.Hour, 182 * 24 * time.Hour, 364 * 24 * time.Hour,
}

// timeTicks are the times from start to end (inclusive) to mark: on multiples of the
// smallest step that makes at most most of them (minutes and hours of the day in UTC for a
// range of hours, dates for a range of days, so a reader can place a bar), labelled with the
// time of day ("15:00"), the date where the day changes ("Nov 20 00:00", or "Nov 20" when the
// step is days). A range of one step or more has two ticks at least.
func timeTicks(start, end time.Time, most int) []tick {
	if !end.After(start) {
		return nil
	}
	step := tickSteps[len(tickSteps)-1]
	for _, s := range tickSteps {
		if int(end.Sub(start)/s) < most {
			step = s
			break
		}
	}
	// time.Truncate counts from January 1 of year 1, a Monday at midnight UTC: multiples of
	// hours and days fall on UTC hours and midnights (weeks on Mondays).
	at := start.UTC().Truncate(step)
	if at.Before(start) {
		at = at.Add(step)
	}
	var out []tick
	prevDay := -1
	for ; !at.After(end) && len(out) <= most; at = at.Add(step) {
		text := at.Format("15:04")
		switch {
		case step >= 24*time.Hour:
			text = at.Format("Jan 2")
			if at.Month() == time.January && at.Day() <= int(step/(24*time.Hour)) || len(out) == 0 {
				text = at.Format("Jan 2, 2006")
			}
		case at.YearDay() != prevDay:
			text = at.Format("Jan 2 15:04")
		}
		prevDay = at.YearDay()
		out = append(out, tick{At: at, Text: text})
	}
	return out
}

// niceStep is a round step (1, 2 or 5 times a power of ten) dividing 0..peak in at most
// most parts: the grid lines of a count axis.
func niceStep(peak int64, most int) int64 {
	for p := int64(1); ; p *= 10 {
		for _, m := range []int64{1, 2, 5} {
			if s := m * p; peak/s < int64(most) {
				return s
			}
		}
	}
}

// timelineChart draws the timeline: per bucket a bar of the crawlers' requests with the
// tools', impostors' and other clients' stacked on it, the violations as a red bar in front;
// count grid lines and a time axis marked on round times (timeTicks).
func timelineChart(r *Report) chart {
	tl := r.Timeline
	c := chart{W: 1200, H: 280}
	const left, right, top, bottom = 56.0, 16.0, 12.0, 44.0
	plotW, plotH := float64(c.W)-left-right, float64(c.H)-top-bottom
	n := len(tl.Crawlers)
	if n == 0 {
		c.Labels = append(c.Labels, label{X: float64(c.W) / 2, Y: float64(c.H) / 2, Anchor: "middle", Text: "no requests"})
		return c
	}
	var peak int64 = 1
	for i := range n {
		peak = max(peak, tl.Crawlers[i]+at(tl.Tools, i)+tl.Impostors[i]+tl.Other[i])
	}
	step := niceStep(peak, 5)
	peak = (peak + step - 1) / step * step // the top grid line
	scale := func(v int64) float64 { return float64(v) / float64(peak) * plotH }
	base := top + plotH
	for v := int64(0); v <= peak; v += step {
		y := base - scale(v)
		c.Lines = append(c.Lines, gridLine{X1: left, Y1: y, X2: left + plotW, Y2: y, Class: "grid"})
		c.Labels = append(c.Labels, label{X: left - 6, Y: y + 4, Anchor: "end", Text: fmt.Sprint(v)})
	}
	bw := plotW / float64(n)
	width := time.Duration(tl.BucketSeconds) * time.Second
	for i := range n {
		x := left + float64(i)*bw
		when := fmtTime(tl.Start.Add(time.Duration(i) * width))
		y := base
		for _, s := range []struct {
			v           int64
			class, what string
		}{{tl.Crawlers[i], "crawlers", "crawler"}, {at(tl.Tools, i), "tools", "tool"}, {tl.Impostors[i], "impostors", "impostor"}, {tl.Other[i], "other", "other"}} {
			h := scale(s.v)
			y -= h
			c.Rects = append(c.Rects, rect{X: x, Y: y, W: bw * 0.9, H: h, Class: s.class, Title: fmt.Sprintf("%s: %d %s requests", when, s.v, s.what)})
		}
		if tl.Violations[i] > 0 {
			hv := scale(tl.Violations[i])
			c.Rects = append(c.Rects, rect{X: x + bw*0.2, Y: base - hv, W: bw * 0.5, H: hv, Class: "violations", Title: fmt.Sprintf("%s: %d violations", when, tl.Violations[i])})
		}
	}
	start := tl.Start
	end := start.Add(time.Duration(n) * width)
	span := end.Sub(start).Seconds()
	c.Lines = append(c.Lines, gridLine{X1: left, Y1: base, X2: left + plotW, Y2: base, Class: "axis"})
	for _, tk := range timeTicks(start, end, 10) {
		x := left + tk.At.Sub(start).Seconds()/span*plotW
		anchor := "middle"
		if x > left+plotW-30 {
			anchor = "end"
		}
		c.Lines = append(c.Lines, gridLine{X1: x, Y1: base, X2: x, Y2: base + 5, Class: "axis"})
		c.Labels = append(c.Labels, label{X: x, Y: base + 18, Anchor: anchor, Text: tk.Text, Class: "tick"})
	}
	c.Labels = append(c.Labels, label{X: left + plotW, Y: float64(c.H) - 4, Anchor: "end", Text: fmt.Sprintf("UTC; bars of %s", fmtWidth(width))})
	return c
}

// at is s[i], 0 past its end (a report decoded from an older JSON has no tools' series).
func at(s []int64, i int) int64 {
	if i < len(s) {
		return s[i]
	}
	return 0
}

// fmtWidth writes a bucket's width in its largest whole unit: "2 min", "4 h", "2 d".
func fmtWidth(d time.Duration) string {
	switch {
	case d%(24*time.Hour) == 0:
		return fmt.Sprintf("%d d", d/(24*time.Hour))
	case d%time.Hour == 0:
		return fmt.Sprintf("%d h", d/time.Hour)
	case d%time.Minute == 0:
		return fmt.Sprintf("%d min", d/time.Minute)
	}
	return d.String()
}

// barsChart draws the requests of each crawler (the first 20), its violations in front.
func barsChart(r *Report) chart {
	cs := r.Crawlers[:min(len(r.Crawlers), 20)]
	c := chart{W: 1200, H: 12 + 24*len(cs)}
	const left = 200.0
	plotW := float64(c.W) - left - 200
	var peak int64 = 1
	for _, cr := range cs {
		peak = max(peak, cr.Requests)
	}
	for i, cr := range cs {
		y := 6 + float64(i)*24
		w := float64(cr.Requests) / float64(peak) * plotW
		c.Labels = append(c.Labels, label{X: left - 8, Y: y + 14, Anchor: "end", Text: cr.Name},
			label{X: left + w + 8, Y: y + 14, Anchor: "start", Text: fmt.Sprintf("%d (%d violations)", cr.Requests, cr.Violations.Count)})
		c.Rects = append(c.Rects, rect{X: left, Y: y, W: w, H: 18, Class: "crawlers", Title: fmt.Sprintf("%s: %d requests", cr.Name, cr.Requests)})
		if cr.Violations.Count > 0 {
			c.Rects = append(c.Rects, rect{X: left, Y: y + 5, W: float64(cr.Violations.Count) / float64(peak) * plotW, H: 8, Class: "violations", Title: fmt.Sprintf("%s: %d violations", cr.Name, cr.Violations.Count)})
		}
	}
	return c
}

// sparkline draws a crawler's requests over the report's buckets, small, for its table row.
func sparkline(counts []int64) chart {
	c := chart{W: 120, H: 20}
	var peak int64 = 1
	for _, v := range counts {
		peak = max(peak, v)
	}
	bw := float64(c.W) / float64(max(len(counts), 1))
	for i, v := range counts {
		if v == 0 {
			continue
		}
		h := float64(v) / float64(peak) * float64(c.H)
		c.Rects = append(c.Rects, rect{X: float64(i) * bw, Y: float64(c.H) - h, W: bw, H: h, Class: "crawlers", Title: fmt.Sprint(v)})
	}
	return c
}

// pathGroup is the most fetched paths of one crawler or tool, for its card.
type pathGroup struct {
	Name, Token string
	Tool        bool
	Requests    int64
	Paths       []pathShare
	Other       int64
}

// pathShare is a path with its share of the group's largest count, for its bar.
type pathShare struct {
	PathCount
	Percent float64
}

// pathGroups are the crawlers' and then the tools' most fetched paths, a group each.
func pathGroups(r *Report) []pathGroup {
	var out []pathGroup
	for i, c := range slices.Concat(r.Crawlers, r.Tools) {
		if len(c.Paths.Top) == 0 && c.Paths.Other == 0 {
			continue
		}
		g := pathGroup{Name: c.Name, Token: c.Token, Tool: i >= len(r.Crawlers), Requests: c.Requests, Other: c.Paths.Other}
		var peak int64 = 1
		for _, p := range c.Paths.Top {
			peak = max(peak, p.Count)
		}
		for _, p := range c.Paths.Top {
			g.Paths = append(g.Paths, pathShare{p, float64(p.Count) / float64(peak) * 100})
		}
		out = append(out, g)
	}
	return out
}

var page = template.Must(template.New("report").Funcs(template.FuncMap{
	"bytes":    Bytes,
	"time":     fmtTime,
	"statuses": statuses,
	"robots":   robotsCell,
	"line":     line,
	"dash":     func(s string) string { return dash(shown(s)) },
	"s":        shown,
	"lines":    shownLines,
	"nlines": func(n int64) string {
		if n == 1 {
			return "1 line is"
		}
		return plural(n, "line") + " are"
	},
	"f": func(v float64) string { return fmt.Sprintf("%.1f", v) },
}).Parse(`<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Robots report: {{s .Site.Name}}</title>
<style>
* { box-sizing: border-box; }
body { font: 14px/1.45 system-ui, -apple-system, "Segoe UI", sans-serif; margin: 0; color: #1f2328; background: #f3f4f6; }
main { max-width: 1600px; margin: 0 auto; padding: 1.5em clamp(1em, 3vw, 2.5em) 3em; }
header h1 { font-size: 1.7em; margin: 0 0 .2em; } header h1 small { font-weight: 400; color: #57606a; font-size: .6em; display: block; }
header p { margin: .2em 0; color: #57606a; }
h2 { font-size: 1.15em; margin: 0 0 .6em; } h3 { font-size: 1em; margin: 0 0 .4em; }
section.panel { background: #fff; border: 1px solid #e1e4e8; border-radius: 8px; padding: 1em 1.25em; margin: 1em 0; }
.cols { display: grid; grid-template-columns: repeat(auto-fit, minmax(min(100%, 560px), 1fr)); gap: 0 1em; }
.cols > section.panel { margin: 1em 0 0; min-width: 0; }
.wrap { overflow-x: auto; }
table { border-collapse: collapse; width: 100%; }
th, td { border-bottom: 1px solid #eaecef; padding: .3em .6em; text-align: left; vertical-align: top; }
th { font-weight: 600; color: #57606a; font-size: .9em; background: #fafbfc; }
td.n, th.n { text-align: right; font-variant-numeric: tabular-nums; }
td { white-space: nowrap; } td.path { white-space: normal; }
code, .path { font-family: ui-monospace, SFMono-Regular, Menlo, monospace; font-size: .92em; word-break: break-all; }
.muted { color: #6e7781; }
svg { display: block; } svg.chart { width: 100%; height: auto; }
svg text { font: 12px system-ui, sans-serif; fill: #444; }
.crawlers { fill: #3b6fb6; } .tools { fill: #7c5cc4; } .other { fill: #c3cbd5; } .impostors { fill: #e0a030; } .violations { fill: #d33c2c; }
line.grid { stroke: #eaecef; } line.axis { stroke: #8c959f; }
.refer { fill: #2e9e5b; } .ratio { fill: #3b6fb6; } .infinite { fill: #d33c2c; }
.error { background: #fde8e6; border-left: 4px solid #d33c2c; padding: .5em 1em; }
.note { background: #fff8e1; border-left: 4px solid #e0a030; padding: .5em 1em; }
.legend { margin: 0 0 .5em; color: #57606a; } .legend i { display: inline-block; width: .9em; height: .9em; border-radius: 2px; margin: 0 .35em -.1em 1em; } .legend i:first-child { margin-left: 0; }
dl#summary { display: grid; grid-template-columns: repeat(auto-fit, minmax(128px, 1fr)); gap: .75em; margin: 1em 0; }
dl#summary div { background: #fff; border: 1px solid #e1e4e8; border-radius: 8px; padding: .6em .9em; }
dl#summary dt { color: #57606a; font-size: .85em; } dl#summary dd { margin: 0; font-size: 1.35em; white-space: nowrap; font-weight: 600; font-variant-numeric: tabular-nums; }
dl#summary div.bad dd { color: #d33c2c; }
#paths { display: grid; grid-template-columns: repeat(auto-fill, minmax(min(100%, 380px), 1fr)); gap: 1em; }
#paths section { border: 1px solid #eaecef; border-radius: 6px; padding: .6em .8em; min-width: 0; }
#paths td.bar { width: 30%; } #paths td.bar span { display: block; height: .7em; margin-top: .35em; background: #3b6fb6; border-radius: 2px; }
#paths section.tool td.bar span { background: #7c5cc4; }
pre { background: #f6f8fa; padding: .8em; overflow-x: auto; margin: 0; }
</style>
</head>
<body>
<main>
<header>
<h1>Robots report: {{s .Site.Name}}</h1>
<p>{{if not .Range.First.IsZero}}<strong>{{time .Range.First}} to {{time .Range.Last}} UTC</strong> · {{end}}replayed against <code>{{s .Site.Config}}</code>{{if .Site.Host}}, host {{s .Site.Host}}{{end}}, as configured now</p>
<p class="muted">Logs: {{range $i, $in := .Inputs}}{{if $i}}, {{end}}<code>{{s $in.Name}}</code> ({{$in.Lines}} lines{{if $in.Gzip}}, gzip{{end}}{{if $in.Error}}; {{s $in.Error}}{{end}}){{end}}</p>
</header>
{{range .Notes}}<p class="note">Note: {{s .}}</p>
{{end}}{{range .Inputs}}{{if .Error}}<p class="error" data-k="input-error"><strong>{{s .Name}} could not be read to its end:</strong> {{s .Error}}</p>
{{end}}{{end}}<dl id="summary">
<div><dt>Requests</dt><dd data-k="requests">{{.Totals.Requests}}</dd></div>
<div><dt>Bytes</dt><dd data-k="bytes" data-v="{{.Totals.Bytes}}">{{bytes .Totals.Bytes}}</dd></div>
<div><dt>Crawler requests</dt><dd data-k="crawler_requests">{{.Totals.CrawlerRequests}}</dd></div>
<div><dt>Tool requests</dt><dd data-k="tool_requests">{{.Totals.ToolRequests}}</dd></div>
<div{{if .Totals.Violations}} class="bad"{{end}}><dt>Violations</dt><dd data-k="violations">{{.Totals.Violations}}</dd></div>
<div{{if .Totals.Impostors}} class="bad"{{end}}><dt>Impostor requests</dt><dd data-k="impostors">{{.Totals.Impostors}}</dd></div>
<div><dt>Other requests</dt><dd data-k="other_requests">{{.Totals.OtherRequests}}</dd></div>
<div><dt>Other hosts</dt><dd data-k="other_hosts">{{.Totals.OtherHosts}}</dd></div>
<div><dt>Unreadable lines</dt><dd data-k="unreadable">{{.Unreadable.Count}}</dd></div>
{{if or .Totals.PaymentRequired .Totals.Paid}}<div><dt>Answered 402</dt><dd data-k="payment_required">{{.Totals.PaymentRequired}}</dd></div>
<div><dt>Served paid</dt><dd data-k="paid">{{.Totals.Paid}}</dd></div>
{{end}}</dl>

<section class="panel">
<h2>Requests over time</h2>
<p class="legend"><i class="crawlers" style="background:#3b6fb6"></i>crawlers<i style="background:#7c5cc4"></i>tools<i style="background:#e0a030"></i>impostors<i style="background:#c3cbd5"></i>others<i style="background:#d33c2c"></i>violations</p>
<svg id="timeline" class="chart" xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {{.Timeline.W}} {{.Timeline.H}}" role="img" aria-label="requests over time">
{{range .Timeline.Lines}}<line class="{{.Class}}" x1="{{f .X1}}" y1="{{f .Y1}}" x2="{{f .X2}}" y2="{{f .Y2}}"/>
{{end}}{{range .Timeline.Rects}}<rect class="{{.Class}}" x="{{f .X}}" y="{{f .Y}}" width="{{f .W}}" height="{{f .H}}"><title>{{s .Title}}</title></rect>
{{end}}{{range .Timeline.Labels}}<text x="{{f .X}}" y="{{f .Y}}" text-anchor="{{.Anchor}}"{{if .Class}} class="{{.Class}}"{{end}}>{{s .Text}}</text>
{{end}}</svg>
</section>

<section class="panel">
<h2>Crawlers</h2>
{{if .Crawlers}}<svg id="crawler-bars" class="chart" xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {{.Bars.W}} {{.Bars.H}}" role="img" aria-label="requests per crawler">
{{range .Bars.Rects}}<rect class="{{.Class}}" x="{{f .X}}" y="{{f .Y}}" width="{{f .W}}" height="{{f .H}}"><title>{{s .Title}}</title></rect>
{{end}}{{range .Bars.Labels}}<text x="{{f .X}}" y="{{f .Y}}" text-anchor="{{.Anchor}}">{{s .Text}}</text>
{{end}}</svg>
<div class="wrap"><table id="crawlers">
<thead><tr><th>Crawler</th><th>Operator</th><th>Group</th><th class="n">Requests</th><th class="n">Bytes</th><th>robots.txt</th><th class="n">Violations</th><th>Statuses</th><th>Over time</th></tr></thead>
<tbody>
{{range $i, $c := .Crawlers}}{{with $c}}<tr data-id="{{s .ID}}" data-token="{{s .Token}}"><td data-k="name">{{s .Name}}</td><td>{{dash .Operator}}</td><td>{{if .Token}}{{s .Token}}{{else}}*{{end}}</td><td class="n" data-k="requests">{{.Requests}}</td><td class="n" data-k="bytes" data-v="{{.Bytes}}">{{bytes .Bytes}}</td><td data-k="robots_txt" data-v="{{.RobotsTxt.Fetches}}">{{robots .RobotsTxt}}</td><td class="n" data-k="violations">{{.Violations.Count}}</td><td data-k="statuses">{{statuses .Statuses}}</td><td>{{with index $.Sparks $i}}<svg class="spark" xmlns="http://www.w3.org/2000/svg" width="{{.W}}" height="{{.H}}" viewBox="0 0 {{.W}} {{.H}}" role="img" aria-label="requests over time">{{range .Rects}}<rect class="{{.Class}}" x="{{f .X}}" y="{{f .Y}}" width="{{f .W}}" height="{{f .H}}"><title>{{s .Title}}</title></rect>{{end}}</svg>{{end}}</td></tr>
{{end}}{{end}}</tbody>
</table></div>{{else}}<p>No crawler in these logs.</p>{{end}}
</section>

{{template "crawl-to-refer" .}}
<section class="panel">
<h2>Tools and libraries</h2>
<p class="muted">Command-line tools and HTTP libraries (curl, Wget, python-requests, Go-http-client): someone's script, not a crawler. Counted apart from the crawlers.</p>
{{if .Tools}}<div class="wrap"><table id="tools">
<thead><tr><th>Tool</th><th>Group</th><th class="n">Requests</th><th class="n">Bytes</th><th>robots.txt</th><th class="n">Violations</th><th>Statuses</th><th>Over time</th></tr></thead>
<tbody>
{{range $i, $c := .Tools}}{{with $c}}<tr data-id="{{s .ID}}" data-token="{{s .Token}}"><td data-k="name">{{s .Name}}</td><td>{{if .Token}}{{s .Token}}{{else}}*{{end}}</td><td class="n" data-k="requests">{{.Requests}}</td><td class="n" data-k="bytes" data-v="{{.Bytes}}">{{bytes .Bytes}}</td><td data-k="robots_txt" data-v="{{.RobotsTxt.Fetches}}">{{robots .RobotsTxt}}</td><td class="n" data-k="violations">{{.Violations.Count}}</td><td data-k="statuses">{{statuses .Statuses}}</td><td>{{with index $.ToolSparks $i}}<svg class="spark" xmlns="http://www.w3.org/2000/svg" width="{{.W}}" height="{{.H}}" viewBox="0 0 {{.W}} {{.H}}" role="img" aria-label="requests over time">{{range .Rects}}<rect class="tools" x="{{f .X}}" y="{{f .Y}}" width="{{f .W}}" height="{{f .H}}"><title>{{s .Title}}</title></rect>{{end}}</svg>{{end}}</td></tr>
{{end}}{{end}}</tbody>
</table></div>{{else}}<p>None.</p>{{end}}
</section>

{{if or .Totals.PaymentRequired .Totals.Paid}}<section class="panel">
<h2>Pay per crawl</h2>
<p class="muted">x402: requests answered 402 Payment Required (the price asked, or a payment refused) and requests served with a settled payment (their response carried PAYMENT-RESPONSE; Caddy's JSON log only).</p>
<div class="wrap"><table id="payments">
<thead><tr><th>Crawler</th><th>Group</th><th class="n">402</th><th class="n">Paid</th></tr></thead>
<tbody>
{{range $c := .Crawlers}}{{template "payments" $c}}{{end}}{{range $c := .Tools}}{{template "payments" $c}}{{end}}</tbody>
</table></div>
</section>

{{end}}<section class="panel">
<h2>Impostors</h2>
<p class="muted">Requests that claimed a crawler and that the site's verification disproves from the client address: not the crawler's, so counted in none of its rows. Disallowed: those for paths the group disallows.</p>
{{if .Impostors}}<div class="wrap"><table id="impostors">
<thead><tr><th>Claimed</th><th>Operator</th><th>Group</th><th class="n">Requests</th><th class="n">Bytes</th><th class="n">Disallowed</th><th>First</th><th>Last</th><th>Statuses</th></tr></thead>
<tbody>
{{range .Impostors}}<tr data-id="{{s .ID}}" data-token="{{s .Token}}"><td data-k="name">{{s .Name}}</td><td>{{dash .Operator}}</td><td>{{if .Token}}{{s .Token}}{{else}}*{{end}}</td><td class="n" data-k="requests">{{.Requests}}</td><td class="n" data-k="bytes" data-v="{{.Bytes}}">{{bytes .Bytes}}</td><td class="n" data-k="disallowed">{{.Disallowed}}</td><td>{{time .First}}</td><td>{{time .Last}}</td><td data-k="statuses">{{statuses .Statuses}}</td></tr>
{{end}}</tbody>
</table></div>{{else}}<p>None.</p>{{end}}
</section>

<section class="panel">
<h2>Violations</h2>
<p class="muted">Requests of crawlers that a group of the robots.txt served now names, for paths it disallows them, with the rule's line in that file.</p>
<div class="wrap"><table id="violations">
<thead><tr><th>Crawler</th><th>Path</th><th>Rule</th><th class="n">Line</th><th class="n">Count</th><th>First</th><th>Last</th></tr></thead>
<tbody>
{{range $c := .Crawlers}}{{template "violations" $c}}{{end}}{{range $c := .Tools}}{{template "violations" $c}}{{end}}</tbody>
</table></div>
</section>

<section class="panel">
<h2>Most fetched paths</h2>
<p class="muted">Per crawler, then per tool: its most requested paths (without query).</p>
<div id="paths">
{{range .PathGroups}}<section class="{{if .Tool}}tool{{else}}crawler{{end}}" data-name="{{s .Name}}" data-token="{{s .Token}}"><h3>{{s .Name}} <span class="muted">· {{.Requests}} requests{{if .Tool}} · tool{{end}}</span></h3>
<table class="paths"><tbody>
{{range .Paths}}<tr><td class="path" data-k="path">{{s .Path}}</td><td class="bar"><span style="width:{{f .Percent}}%"></span></td><td class="n" data-k="count">{{.Count}}</td></tr>
{{end}}{{if .Other}}<tr class="other"><td class="muted">(other paths)</td><td></td><td class="n" data-k="other">{{.Other}}</td></tr>
{{end}}</tbody></table>
</section>
{{end}}</div>
</section>

<div class="cols">
<section class="panel">
<h2>Unreadable lines</h2>
<p>{{nlines .Unreadable.Count}} no access log entry{{if .Unreadable.Examples}}; the first:{{end}}</p>
{{if .Unreadable.Examples}}<div class="wrap"><table id="unreadable">
<thead><tr><th>Log</th><th class="n">Line</th><th>Why</th><th>Text</th></tr></thead>
<tbody>
{{range .Unreadable.Examples}}<tr><td>{{s .Input}}</td><td class="n">{{.Line}}</td><td>{{s .Reason}}</td><td><code>{{s .Text}}</code></td></tr>
{{end}}</tbody>
</table></div>{{end}}
</section>

<section class="panel">
<h2>robots.txt served now</h2>
{{if .Site.RobotsTxt}}<pre id="robots-txt">{{lines .Site.RobotsTxt}}</pre>{{else}}<p>The config serves no robots.txt.</p>{{end}}
</section>
</div>
</main>
<script type="application/json" id="report-data">{{.JSON}}</script>
</body>
</html>
{{define "payments"}}{{if or .PaymentRequired .Paid}}<tr data-id="{{s .ID}}" data-token="{{s .Token}}"><td data-k="name">{{s .Name}}</td><td>{{if .Token}}{{s .Token}}{{else}}*{{end}}</td><td class="n" data-k="payment_required">{{.PaymentRequired}}</td><td class="n" data-k="paid">{{.Paid}}</td></tr>
{{end}}{{end}}{{define "violations"}}{{range .Violations.Top}}<tr data-token="{{s $.Token}}"><td>{{s $.Name}}</td><td class="path" data-k="path">{{s .Path}}</td><td><code data-k="rule">{{s .Rule}}</code></td><td class="n" data-k="line">{{line .Line}}</td><td class="n" data-k="count">{{.Count}}</td><td>{{time .First}}</td><td>{{time .Last}}</td></tr>
{{end}}{{if .Violations.Other}}<tr data-token="{{s .Token}}" class="other"><td>{{s .Name}}</td><td>(other)</td><td></td><td></td><td class="n" data-k="count">{{.Violations.Other}}</td><td></td><td></td></tr>
{{end}}{{end}}`))

// shown is a string of the report (from the logs, the config or the file served) as the page
// shows it: printable, as the text shows it, so that a control or bidi character from a log
// is seen escaped instead of acting on the page; nothing is cut (the report keeps paths cut).
func shown(s string) string { return printable([]byte(s), math.MaxInt) }

// shownLines is shown for each line of a multi-line text (robots.txt), keeping its lines.
func shownLines(s string) string {
	lines := strings.Split(s, "\n")
	for i, l := range lines {
		lines[i] = shown(l)
	}
	return strings.Join(lines, "\n")
}

// jsonEscapeHidden writes the characters hidden says act on the text around them as \u
// escapes in a JSON document: the data is the same, and its text in the page holds none.
func jsonEscapeHidden(data []byte) []byte {
	var out []byte
	for i := 0; i < len(data); {
		r, size := utf8.DecodeRune(data[i:])
		if hidden(r) && r >= 0x20 { // below, json.Marshal has escaped them
			if out == nil {
				out = append(make([]byte, 0, len(data)+16), data[:i]...)
			}
			out = fmt.Appendf(out, `\u%04x`, r)
		} else if out != nil {
			out = append(out, data[i:i+size]...)
		}
		i += size
	}
	if out == nil {
		return data
	}
	return out
}
