package logreport

import (
	"fmt"
	"html/template"
	"math"
	"strconv"
	"time"
)

// The crawl-to-refer panel of the HTML page: a bar per platform of its ratio on a log scale
// (search engines near ten pages per visit, AI platforms hundreds to thousands: a linear
// scale would show one bar), then a table of the counts with, per platform, its pages
// crawled (up) and visits referred (down) over time.

// ratioChart draws each platform's crawl-to-refer ratio (the first 20) as a bar on a log
// scale marked at powers of ten; a platform that referred nothing has a bar to the end,
// red, marked "∞".
func ratioChart(r *Report) chart {
	ps := r.CrawlToRefer.Platforms[:min(len(r.CrawlToRefer.Platforms), 20)]
	const left, right, top, rowH = 160.0, 330.0, 26.0, 26.0
	c := chart{W: 1200, H: int(top + rowH*float64(len(ps)) + 8)}
	plotW := float64(c.W) - left - right
	// The axis runs from a power of ten at or below the smallest ratio (1 at most) to one
	// above the largest, at least 10:1.
	lo, hi := 0.0, 1.0
	for _, p := range ps {
		if p.Ratio != nil && *p.Ratio > 0 {
			lo = math.Min(lo, math.Floor(math.Log10(*p.Ratio)))
			hi = math.Max(hi, math.Ceil(math.Log10(*p.Ratio)+1e-9))
		}
	}
	x := func(v float64) float64 { return left + (math.Log10(v)-lo)/(hi-lo)*plotW }
	for e := lo; e <= hi; e++ {
		v := math.Pow(10, e)
		c.Lines = append(c.Lines, gridLine{X1: x(v), Y1: top - 6, X2: x(v), Y2: float64(c.H) - 4, Class: "grid"})
		c.Labels = append(c.Labels, label{X: x(v), Y: top - 10, Anchor: "middle", Text: strconv.FormatFloat(v, 'f', -1, 64) + ":1", Class: "tick"})
	}
	c.Labels = append(c.Labels, label{X: left + plotW + 40, Y: top - 10, Anchor: "start", Text: "pages crawled per visit referred (log scale)", Class: "tick"})
	for i, p := range ps {
		y := top + float64(i)*rowH
		w, class := 0.0, "ratio"
		switch {
		case p.Ratio == nil:
			w, class = plotW, "infinite"
		case *p.Ratio > 0:
			w = x(*p.Ratio) - left
		}
		what := fmt.Sprintf("%d HTML pages crawled (%d verified), %d visits referred", p.Crawled(), p.Verified, p.Referrals)
		c.Rects = append(c.Rects, rect{X: left, Y: y + 3, W: w, H: rowH - 8, Class: class, Title: fmt.Sprintf("%s: %s: %s", p.Name, fmtRatio(p.Ratio), what)})
		c.Labels = append(c.Labels, label{X: left - 8, Y: y + 17, Anchor: "end", Text: p.Name},
			label{X: left + plotW + 8, Y: y + 17, Anchor: "start", Text: fmt.Sprintf("%s · %d crawled, %d referred", fmtRatio(p.Ratio), p.Crawled(), p.Referrals)})
	}
	return c
}

// referSpark draws a platform's HTML pages crawled per bucket above the line and its
// referred visits below it, each scaled to its own peak (so a trickle of visits still
// shows), small, for its table row.
func referSpark(tl Timeline, p *Platform) chart {
	pt := p.Timeline
	c := chart{W: 160, H: 32}
	mid := float64(c.H) / 2
	n := len(pt.Verified)
	var peakC, peakR int64 = 1, 1
	for i := range n {
		peakC = max(peakC, pt.Verified[i]+pt.Unverified[i])
		peakR = max(peakR, pt.Referrals[i])
	}
	bw := float64(c.W) / float64(max(n, 1))
	width := time.Duration(tl.BucketSeconds) * time.Second
	for i := range n {
		crawled := pt.Verified[i] + pt.Unverified[i]
		if crawled == 0 && pt.Referrals[i] == 0 {
			continue
		}
		title := fmt.Sprintf("%s (%s): %d crawled, %d referred, %s", fmtTime(sinceBucket(tl, i)), fmtWidth(width), crawled, pt.Referrals[i], fmtRatio(pt.Ratio[i]))
		if crawled > 0 {
			h := float64(crawled) / float64(peakC) * (mid - 1)
			c.Rects = append(c.Rects, rect{X: float64(i) * bw, Y: mid - h, W: bw, H: h, Class: "crawlers", Title: title})
		}
		if pt.Referrals[i] > 0 {
			h := float64(pt.Referrals[i]) / float64(peakR) * (mid - 1)
			c.Rects = append(c.Rects, rect{X: float64(i) * bw, Y: mid, W: bw, H: h, Class: "refer", Title: title})
		}
	}
	return c
}

func init() {
	template.Must(page.Funcs(template.FuncMap{
		"ratioChart": ratioChart,
		"referSpark": referSpark,
		"ratio":      fmtRatio,
		"htmlBy":     func(c CrawlToRefer) string { return c.htmlByText() },
		"joined":     func(s []string) string { return shownJoin(s) },
		"half":       func(h int) int { return h / 2 },
	}).New("crawl-to-refer").Parse(`<section class="panel" id="crawl-to-refer-panel">
<h2>Crawl-to-refer: what crawlers give back</h2>
<p class="muted">Per platform: the HTML pages its crawlers fetched (verified and unverified; impostors are never the platform's) per HTML visit its products referred (a browser's request whose <code>Referer</code> is one of the platform's hosts). Lower is better for you; ∞: it referred none. An HTML page is <span data-k="html_by" data-v="{{.CrawlToRefer.HTMLBy.ContentType}},{{.CrawlToRefer.HTMLBy.Path}}">{{htmlBy .CrawlToRefer}}</span>.</p>
{{if .CrawlToRefer.Platforms}}{{with ratioChart .Report}}<svg id="crawl-to-refer" class="chart" xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {{.W}} {{.H}}" role="img" aria-label="crawl-to-refer ratio per platform">
{{range .Lines}}<line class="{{.Class}}" x1="{{f .X1}}" y1="{{f .Y1}}" x2="{{f .X2}}" y2="{{f .Y2}}"/>
{{end}}{{range .Rects}}<rect class="{{.Class}}" x="{{f .X}}" y="{{f .Y}}" width="{{f .W}}" height="{{f .H}}"><title>{{s .Title}}</title></rect>
{{end}}{{range .Labels}}<text x="{{f .X}}" y="{{f .Y}}" text-anchor="{{.Anchor}}"{{if .Class}} class="{{.Class}}"{{end}}>{{s .Text}}</text>
{{end}}</svg>{{end}}
<p class="legend"><i style="background:#3b6fb6"></i>HTML pages crawled<i style="background:#2e9e5b"></i>visits referred (over time: crawled up, referred down, each to its own scale)</p>
<div class="wrap"><table id="platforms">
<thead><tr><th>Platform</th><th>Crawlers</th><th class="n">HTML pages crawled</th><th class="n">Verified</th><th class="n">Unverified</th><th class="n">Visits referred</th><th class="n">Ratio</th><th>Over time</th></tr></thead>
<tbody>
{{range .CrawlToRefer.Platforms}}<tr data-name="{{s .Name}}"><td data-k="name">{{s .Name}}</td><td>{{joined .Crawlers}}</td><td class="n" data-k="crawled">{{.Crawled}}</td><td class="n" data-k="verified">{{.Verified}}</td><td class="n" data-k="unverified">{{.Unverified}}</td><td class="n" data-k="referrals">{{.Referrals}}</td><td class="n" data-k="ratio">{{ratio .Ratio}}</td><td>{{with referSpark $.Report.Timeline .}}<svg class="spark" xmlns="http://www.w3.org/2000/svg" width="{{.W}}" height="{{.H}}" viewBox="0 0 {{.W}} {{.H}}" role="img" aria-label="crawled and referred over time"><line class="axis" x1="0" y1="{{.H | half}}" x2="{{.W}}" y2="{{.H | half}}"/>{{range .Rects}}<rect class="{{.Class}}" x="{{f .X}}" y="{{f .Y}}" width="{{f .W}}" height="{{f .H}}"><title>{{s .Title}}</title></rect>{{end}}</svg>{{end}}</td></tr>
{{end}}</tbody>
</table></div>{{else}}<p>No platform's crawler fetched an HTML page, and no platform referred a visit.</p>{{end}}
</section>
`))
}

// shownJoin is names joined by ", ", each as the page shows it; "-" for none.
func shownJoin(names []string) string {
	out := ""
	for i, n := range names {
		if i > 0 {
			out += ", "
		}
		out += shown(n)
	}
	return dash(out)
}
