package logreport

import (
	"encoding/json"
	"fmt"
	"html/template"
	"io"
	"math"
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
	sparks := make([]chart, len(r.Crawlers))
	for i, c := range r.Crawlers {
		sparks[i] = sparkline(c.Timeline)
	}
	return page.Execute(w, struct {
		*Report
		JSON     template.JS
		Timeline chart
		Bars     chart
		Sparks   []chart
	}{r, template.JS(data), timelineChart(r), barsChart(r), sparks})
}

// chart is an SVG chart: its size, rectangles and labels, in SVG user units.
type chart struct {
	W, H   int
	Rects  []rect
	Labels []label
}

type rect struct {
	X, Y, W, H float64
	Class      string
	Title      string
}

type label struct {
	X, Y   float64
	Anchor string
	Text   string
}

// timelineChart draws the timeline: per bucket a bar of the crawlers' requests with the
// other clients' stacked on it, and the violations as a red bar in front.
func timelineChart(r *Report) chart {
	tl := r.Timeline
	c := chart{W: 900, H: 240}
	const left, top, bottom = 60.0, 10.0, 30.0
	plotW, plotH := float64(c.W)-left-10, float64(c.H)-top-bottom
	var peak int64 = 1
	for i := range tl.Crawlers {
		peak = max(peak, tl.Crawlers[i]+tl.Impostors[i]+tl.Other[i])
	}
	n := len(tl.Crawlers)
	if n == 0 {
		c.Labels = append(c.Labels, label{X: float64(c.W) / 2, Y: float64(c.H) / 2, Anchor: "middle", Text: "no requests"})
		return c
	}
	bw := plotW / float64(n)
	scale := func(v int64) float64 { return float64(v) / float64(peak) * plotH }
	for i := range n {
		x := left + float64(i)*bw
		from := tl.Start.Add(time.Duration(int64(i)*tl.BucketSeconds) * time.Second)
		when := fmtTime(from)
		hc, hi, ho, hv := scale(tl.Crawlers[i]), scale(tl.Impostors[i]), scale(tl.Other[i]), scale(tl.Violations[i])
		base := top + plotH
		c.Rects = append(c.Rects,
			rect{X: x, Y: base - hc, W: bw * 0.9, H: hc, Class: "crawlers", Title: fmt.Sprintf("%s: %d crawler requests", when, tl.Crawlers[i])},
			rect{X: x, Y: base - hc - hi, W: bw * 0.9, H: hi, Class: "impostors", Title: fmt.Sprintf("%s: %d impostor requests", when, tl.Impostors[i])},
			rect{X: x, Y: base - hc - hi - ho, W: bw * 0.9, H: ho, Class: "other", Title: fmt.Sprintf("%s: %d other requests", when, tl.Other[i])})
		if tl.Violations[i] > 0 {
			c.Rects = append(c.Rects, rect{X: x + bw*0.2, Y: base - hv, W: bw * 0.5, H: hv, Class: "violations", Title: fmt.Sprintf("%s: %d violations", when, tl.Violations[i])})
		}
	}
	end := tl.Start.Add(time.Duration(int64(n)*tl.BucketSeconds) * time.Second)
	c.Labels = append(c.Labels,
		label{X: left - 5, Y: top + 10, Anchor: "end", Text: fmt.Sprint(peak)},
		label{X: left - 5, Y: top + plotH, Anchor: "end", Text: "0"},
		label{X: left, Y: float64(c.H) - 8, Anchor: "start", Text: fmtTime(tl.Start)},
		label{X: left + plotW, Y: float64(c.H) - 8, Anchor: "end", Text: fmtTime(end) + " UTC"},
		label{X: left + plotW/2, Y: float64(c.H) - 8, Anchor: "middle", Text: fmt.Sprintf("buckets of %s", time.Duration(tl.BucketSeconds)*time.Second)})
	return c
}

// barsChart draws the requests of each crawler (the first 20), its violations in front.
func barsChart(r *Report) chart {
	cs := r.Crawlers[:min(len(r.Crawlers), 20)]
	c := chart{W: 900, H: 20 + 22*len(cs)}
	const left = 180.0
	plotW := float64(c.W) - left - 120
	var peak int64 = 1
	for _, cr := range cs {
		peak = max(peak, cr.Requests)
	}
	for i, cr := range cs {
		y := 10 + float64(i)*22
		w := float64(cr.Requests) / float64(peak) * plotW
		c.Labels = append(c.Labels, label{X: left - 6, Y: y + 14, Anchor: "end", Text: cr.Name},
			label{X: left + w + 6, Y: y + 14, Anchor: "start", Text: fmt.Sprintf("%d (%d violations)", cr.Requests, cr.Violations.Count)})
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

var page = template.Must(template.New("report").Funcs(template.FuncMap{
	"bytes":    Bytes,
	"time":     fmtTime,
	"statuses": statuses,
	"robots":   robotsCell,
	"line":     line,
	"dash":     func(s string) string { return dash(shown(s)) },
	"s":        shown,
	"lines":    shownLines,
	"f":        func(v float64) string { return fmt.Sprintf("%.1f", v) },
}).Parse(`<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Robots report: {{s .Site.Name}}</title>
<style>
body { font: 14px/1.4 system-ui, sans-serif; margin: 2em; color: #222; }
h1 { font-size: 1.4em; } h2 { font-size: 1.15em; margin-top: 2em; }
table { border-collapse: collapse; margin: .5em 0; }
th, td { border-bottom: 1px solid #ddd; padding: .25em .6em; text-align: left; vertical-align: top; }
td.n, th.n { text-align: right; font-variant-numeric: tabular-nums; }
td { white-space: nowrap; } td.path { white-space: normal; }
code, .path { font-family: ui-monospace, monospace; word-break: break-all; }
svg text { font: 11px system-ui, sans-serif; fill: #444; }
.crawlers { fill: #3b6fb6; } .other { fill: #b9c3cf; } .impostors { fill: #e0a030; } .violations { fill: #d33c2c; }
.error { background: #fde8e6; border-left: 4px solid #d33c2c; padding: .5em 1em; }
.legend span { display: inline-block; width: 1em; height: .8em; margin: 0 .3em 0 1em; }
dl { display: grid; grid-template-columns: max-content auto; gap: .2em 1em; }
dt { font-weight: 600; } dd { margin: 0; }
pre { background: #f6f6f6; padding: .6em; overflow-x: auto; }
</style>
</head>
<body>
<h1>Robots report: {{s .Site.Name}}</h1>
{{range .Notes}}<p class="note">Note: {{s .}}</p>
{{end}}{{range .Inputs}}{{if .Error}}<p class="error" data-k="input-error"><strong>{{s .Name}} could not be read to its end:</strong> {{s .Error}}</p>
{{end}}{{end}}<dl id="summary">
<dt>Logs</dt><dd>{{range $i, $in := .Inputs}}{{if $i}}, {{end}}<code>{{s $in.Name}}</code> ({{$in.Lines}} lines{{if $in.Gzip}}, gzip{{end}}{{if $in.Error}}; {{s $in.Error}}{{end}}){{end}}</dd>
{{if .Site.Host}}<dt>Host</dt><dd>{{s .Site.Host}}</dd>{{end}}
{{if not .Range.First.IsZero}}<dt>Period</dt><dd>{{time .Range.First}} to {{time .Range.Last}} UTC</dd>{{end}}
<dt>Requests</dt><dd data-k="requests">{{.Totals.Requests}}</dd>
<dt>Bytes</dt><dd data-k="bytes" data-v="{{.Totals.Bytes}}">{{bytes .Totals.Bytes}}</dd>
<dt>Crawler requests</dt><dd data-k="crawler_requests">{{.Totals.CrawlerRequests}}</dd>
<dt>Impostor requests</dt><dd data-k="impostors">{{.Totals.Impostors}}</dd>
<dt>Other requests</dt><dd data-k="other_requests">{{.Totals.OtherRequests}}</dd>
<dt>Violations</dt><dd data-k="violations">{{.Totals.Violations}}</dd>
<dt>Other hosts</dt><dd data-k="other_hosts">{{.Totals.OtherHosts}}</dd>
<dt>Unreadable lines</dt><dd data-k="unreadable">{{.Unreadable.Count}}</dd>
</dl>

<h2>Requests over time</h2>
<p class="legend"><span class="crawlers" style="background:#3b6fb6"></span>crawlers<span style="background:#e0a030"></span>impostors<span style="background:#b9c3cf"></span>others<span style="background:#d33c2c"></span>violations</p>
<svg id="timeline" xmlns="http://www.w3.org/2000/svg" width="{{.Timeline.W}}" height="{{.Timeline.H}}" viewBox="0 0 {{.Timeline.W}} {{.Timeline.H}}" role="img" aria-label="requests over time">
{{range .Timeline.Rects}}<rect class="{{.Class}}" x="{{f .X}}" y="{{f .Y}}" width="{{f .W}}" height="{{f .H}}"><title>{{s .Title}}</title></rect>
{{end}}{{range .Timeline.Labels}}<text x="{{f .X}}" y="{{f .Y}}" text-anchor="{{.Anchor}}">{{s .Text}}</text>
{{end}}</svg>

<h2>Crawlers</h2>
{{if .Crawlers}}<svg id="crawler-bars" xmlns="http://www.w3.org/2000/svg" width="{{.Bars.W}}" height="{{.Bars.H}}" viewBox="0 0 {{.Bars.W}} {{.Bars.H}}" role="img" aria-label="requests per crawler">
{{range .Bars.Rects}}<rect class="{{.Class}}" x="{{f .X}}" y="{{f .Y}}" width="{{f .W}}" height="{{f .H}}"><title>{{s .Title}}</title></rect>
{{end}}{{range .Bars.Labels}}<text x="{{f .X}}" y="{{f .Y}}" text-anchor="{{.Anchor}}">{{s .Text}}</text>
{{end}}</svg>
<table id="crawlers">
<thead><tr><th>Crawler</th><th>Operator</th><th>Group</th><th class="n">Requests</th><th class="n">Bytes</th><th>robots.txt</th><th class="n">Violations</th><th>Statuses</th><th>Over time</th></tr></thead>
<tbody>
{{range $i, $c := .Crawlers}}{{with $c}}<tr data-id="{{s .ID}}" data-token="{{s .Token}}"><td data-k="name">{{s .Name}}</td><td>{{dash .Operator}}</td><td>{{if .Token}}{{s .Token}}{{else}}*{{end}}</td><td class="n" data-k="requests">{{.Requests}}</td><td class="n" data-k="bytes" data-v="{{.Bytes}}">{{bytes .Bytes}}</td><td data-k="robots_txt" data-v="{{.RobotsTxt.Fetches}}">{{robots .RobotsTxt}}</td><td class="n" data-k="violations">{{.Violations.Count}}</td><td data-k="statuses">{{statuses .Statuses}}</td><td>{{with index $.Sparks $i}}<svg class="spark" xmlns="http://www.w3.org/2000/svg" width="{{.W}}" height="{{.H}}" viewBox="0 0 {{.W}} {{.H}}" role="img" aria-label="requests over time">{{range .Rects}}<rect class="{{.Class}}" x="{{f .X}}" y="{{f .Y}}" width="{{f .W}}" height="{{f .H}}"><title>{{s .Title}}</title></rect>{{end}}</svg>{{end}}</td></tr>
{{end}}{{end}}</tbody>
</table>{{else}}<p>No crawler in these logs.</p>{{end}}

<h2>Violations</h2>
<p>Requests of crawlers that a group of the robots.txt served now names, for paths it disallows them, with the rule's line in that file.</p>
<table id="violations">
<thead><tr><th>Crawler</th><th>Path</th><th>Rule</th><th class="n">Line</th><th class="n">Count</th><th>First</th><th>Last</th></tr></thead>
<tbody>
{{range $c := .Crawlers}}{{range .Violations.Top}}<tr data-token="{{s $c.Token}}"><td>{{s $c.Name}}</td><td class="path" data-k="path">{{s .Path}}</td><td><code data-k="rule">{{s .Rule}}</code></td><td class="n" data-k="line">{{line .Line}}</td><td class="n" data-k="count">{{.Count}}</td><td>{{time .First}}</td><td>{{time .Last}}</td></tr>
{{end}}{{if .Violations.Other}}<tr data-token="{{s $c.Token}}" class="other"><td>{{s $c.Name}}</td><td>(other)</td><td></td><td></td><td class="n" data-k="count">{{.Violations.Other}}</td><td></td><td></td></tr>
{{end}}{{end}}</tbody>
</table>

<h2>Impostors</h2>
<p>Requests that claimed a crawler and that the site's verification disproves from the client address: not the crawler's, so counted in none of its rows above. Disallowed: those for paths the group disallows.</p>
{{if .Impostors}}<table id="impostors">
<thead><tr><th>Claimed</th><th>Operator</th><th>Group</th><th class="n">Requests</th><th class="n">Bytes</th><th class="n">Disallowed</th><th>First</th><th>Last</th><th>Statuses</th></tr></thead>
<tbody>
{{range .Impostors}}<tr data-id="{{s .ID}}" data-token="{{s .Token}}"><td data-k="name">{{s .Name}}</td><td>{{dash .Operator}}</td><td>{{if .Token}}{{s .Token}}{{else}}*{{end}}</td><td class="n" data-k="requests">{{.Requests}}</td><td class="n" data-k="bytes" data-v="{{.Bytes}}">{{bytes .Bytes}}</td><td class="n" data-k="disallowed">{{.Disallowed}}</td><td>{{time .First}}</td><td>{{time .Last}}</td><td data-k="statuses">{{statuses .Statuses}}</td></tr>
{{end}}</tbody>
</table>{{else}}<p>None.</p>{{end}}

<h2>Most fetched paths</h2>
<table id="paths">
<thead><tr><th>Crawler</th><th>Path</th><th class="n">Requests</th></tr></thead>
<tbody>
{{range $c := .Crawlers}}{{range .Paths.Top}}<tr><td>{{s $c.Name}}</td><td class="path">{{s .Path}}</td><td class="n">{{.Count}}</td></tr>
{{end}}{{if .Paths.Other}}<tr><td>{{s $c.Name}}</td><td>(other)</td><td class="n">{{.Paths.Other}}</td></tr>
{{end}}{{end}}</tbody>
</table>

<h2>Unreadable lines</h2>
<p>{{.Unreadable.Count}} lines are no access log entry{{if .Unreadable.Examples}}; the first:{{end}}</p>
{{if .Unreadable.Examples}}<table id="unreadable">
<thead><tr><th>Log</th><th class="n">Line</th><th>Why</th><th>Text</th></tr></thead>
<tbody>
{{range .Unreadable.Examples}}<tr><td>{{s .Input}}</td><td class="n">{{.Line}}</td><td>{{s .Reason}}</td><td><code>{{s .Text}}</code></td></tr>
{{end}}</tbody>
</table>{{end}}

<h2>robots.txt served now</h2>
{{if .Site.RobotsTxt}}<pre id="robots-txt">{{lines .Site.RobotsTxt}}</pre>{{else}}<p>The config serves no robots.txt.</p>{{end}}
<script type="application/json" id="report-data">{{.JSON}}</script>
</body>
</html>
`))

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
