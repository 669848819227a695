package logreport_test

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"golang.org/x/net/html"

	"github.com/sitepolicy/caddy-robots/logreport"
)

// htmlReport is a report on generated traffic with a hostile path (markup in it) and every
// kind of row, as HTML and as JSON.
func htmlReport(t *testing.T) (page []byte, rep *logreport.Report) {
	t.Helper()
	site := loadSite(t, true)
	reqs := generate(11, 2000, time.Date(2026, 11, 20, 0, 0, 0, 0, time.UTC), 48*time.Hour, false)
	reqs = append(reqs, request{t: reqs[0].t, c: clients[1], ip: clients[1].ip, method: "GET", target: `/x</script><script>alert(1)</script><b>"&amp;`, status: 200, size: 1})
	log, _ := render(reqs, "combined")
	rep = build(t, site, "", map[string][]byte{"access.log": log}, "access.log")
	var b bytes.Buffer
	if err := rep.WriteHTML(&b); err != nil {
		t.Fatal(err)
	}
	return b.Bytes(), rep
}

// checkPage checks a page (as written, or as a browser's DOM) against the report: the JSON
// it embeds is the report's, and the numbers of its summary and tables are the JSON's.
func checkPage(t *testing.T, page []byte, rep *logreport.Report) {
	t.Helper()
	doc, err := html.Parse(bytes.NewReader(page))
	if err != nil {
		t.Fatal(err)
	}
	var scripts, svgs []*html.Node
	byID := map[string]*html.Node{}
	var walk func(*html.Node)
	walk = func(n *html.Node) {
		if n.Type == html.ElementNode {
			switch n.Data {
			case "script":
				scripts = append(scripts, n)
			case "svg":
				svgs = append(svgs, n)
			}
			if id := attr(n, "id"); id != "" {
				byID[id] = n
			}
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			walk(c)
		}
	}
	walk(doc)
	if len(scripts) != 1 || attr(scripts[0], "type") != "application/json" {
		t.Fatalf("the page has %d script elements, want only the report's JSON: markup got in", len(scripts))
	}
	var embedded logreport.Report
	if err := json.Unmarshal([]byte(text(scripts[0])), &embedded); err != nil {
		t.Fatalf("embedded JSON: %v", err)
	}
	if !reflect.DeepEqual(normalize(t, &embedded), normalize(t, rep)) {
		t.Error("the JSON embedded in the page is not the report's")
	}
	// The summary.
	want := map[string]int64{"requests": rep.Totals.Requests, "crawler_requests": rep.Totals.CrawlerRequests, "tool_requests": rep.Totals.ToolRequests, "other_requests": rep.Totals.OtherRequests,
		"violations": rep.Totals.Violations, "impostors": rep.Totals.Impostors, "other_hosts": rep.Totals.OtherHosts, "unreadable": rep.Unreadable.Count, "bytes": rep.Totals.Bytes}
	for _, dd := range cells(byID["summary"]) {
		k := attr(dd, "data-k")
		if got := number(t, dd); got != want[k] {
			t.Errorf("summary %s: page says %d, JSON %d", k, got, want[k])
		}
		delete(want, k)
	}
	if len(want) > 0 {
		t.Errorf("summary lacks %v", want)
	}
	// The crawlers' table and the tools': a row per crawler (tool), in order.
	rows := checkRows(t, "crawlers", byID["crawlers"], rep.Crawlers)
	toolRows := checkRows(t, "tools", byID["tools"], rep.Tools)
	// The impostors' table: a row per crawler claimed, in order.
	irows := rowsOf(byID["impostors"])
	if len(irows) != len(rep.Impostors) {
		t.Fatalf("impostors table has %d rows, JSON %d", len(irows), len(rep.Impostors))
	}
	for i, row := range irows {
		im := rep.Impostors[i]
		if attr(row, "data-token") != im.Token || attr(row, "data-id") != im.ID {
			t.Errorf("impostor row %d: data-id %q data-token %q, JSON %q %q", i, attr(row, "data-id"), attr(row, "data-token"), im.ID, im.Token)
		}
		want := map[string]int64{"requests": im.Requests, "bytes": im.Bytes, "disallowed": im.Disallowed}
		for _, td := range cells(row) {
			switch k := attr(td, "data-k"); k {
			case "", "name", "statuses":
			default:
				if got := number(t, td); got != want[k] {
					t.Errorf("impostor %s: %s is %d on the page, %d in the JSON", im.Name, k, got, want[k])
				}
			}
		}
	}
	// The violations' table: the rows of every crawler, in order, then its other.
	var wantRows [][3]string
	for _, c := range slices.Concat(rep.Crawlers, rep.Tools) {
		for _, v := range c.Violations.Top {
			wantRows = append(wantRows, [3]string{escaped(v.Path), strconv.Itoa(v.Line), strconv.FormatInt(v.Count, 10)})
		}
		if c.Violations.Other > 0 {
			wantRows = append(wantRows, [3]string{"", "", strconv.FormatInt(c.Violations.Other, 10)})
		}
	}
	vrows := rowsOf(byID["violations"])
	if len(vrows) != len(wantRows) || len(wantRows) == 0 {
		t.Fatalf("violations table has %d rows, JSON %d", len(vrows), len(wantRows))
	}
	for i, row := range vrows {
		got := [3]string{}
		for _, td := range cells(row) {
			switch attr(td, "data-k") {
			case "path":
				got[0] = text(td)
			case "line":
				got[1] = text(td)
			case "count":
				got[2] = text(td)
			}
		}
		if got != wantRows[i] {
			t.Errorf("violation row %d: %q, JSON %q", i, got, wantRows[i])
		}
	}
	// The charts: a bar per bucket and crawler (tool).
	if want := 2 + len(rep.Crawlers) + len(rep.Tools) + referCharts(rep); len(svgs) != want {
		t.Fatalf("%d SVG charts, want %d: 2, one per crawler and tool, and the crawl-to-refer panel's", len(svgs), want)
	}
	checkCrawlToReferPage(t, byID, rep)
	for i, row := range slices.Concat(rows, toolRows) {
		c := slices.Concat(rep.Crawlers, rep.Tools)[i]
		var bars int64
		for _, v := range c.Timeline {
			if v > 0 {
				bars++
			}
		}
		if n := countRects(findSVG(row)); int64(n) != bars {
			t.Errorf("%s: %d bars in its timeline, JSON has %d buckets with requests", c.Name, n, bars)
		}
	}
	checkPaths(t, byID["paths"], rep)
	if n := countRects(byID["timeline"]); n < 2*len(rep.Timeline.Crawlers) {
		t.Errorf("timeline chart has %d bars for %d buckets", n, len(rep.Timeline.Crawlers))
	}
	if n := countRects(byID["crawler-bars"]); n < len(rep.Crawlers) {
		t.Errorf("crawler chart has %d bars for %d crawlers", n, len(rep.Crawlers))
	}
}

// checkRows checks the rows of a table of crawlers (or tools) against the JSON's, and
// returns them.
func checkRows(t *testing.T, what string, table *html.Node, want []*logreport.Crawler) []*html.Node {
	t.Helper()
	rows := rowsOf(table)
	if len(rows) != len(want) {
		t.Fatalf("%s table has %d rows, JSON %d", what, len(rows), len(want))
	}
	for i, row := range rows {
		c := want[i]
		if attr(row, "data-id") != c.ID {
			t.Errorf("%s row %d: data-id %q, JSON %q", what, i, attr(row, "data-id"), c.ID)
		}
		want := map[string]int64{"requests": c.Requests, "bytes": c.Bytes, "robots_txt": c.RobotsTxt.Fetches, "violations": c.Violations.Count}
		for _, td := range cells(row) {
			k := attr(td, "data-k")
			switch k {
			case "name":
				if text(td) != escaped(c.Name) {
					t.Errorf("%s row %d: name %q, JSON %q", what, i, text(td), c.Name)
				}
			case "statuses":
				var parts []string
				for s, n := range c.Statuses {
					parts = append(parts, s+":"+strconv.FormatInt(n, 10))
				}
				if got := strings.Fields(text(td)); len(got) != len(parts) {
					t.Errorf("%s: statuses %q, JSON %v", c.Name, text(td), c.Statuses)
				}
			case "":
			default:
				if got := number(t, td); got != want[k] {
					t.Errorf("%s: %s is %d on the page, %d in the JSON", c.Name, k, got, want[k])
				}
			}
		}
	}
	return rows
}

// checkPaths checks the most fetched paths: a group per crawler, then per tool, in the
// tables' order, each with that row's paths and counts.
func checkPaths(t *testing.T, n *html.Node, rep *logreport.Report) {
	t.Helper()
	var groups []*html.Node
	for c := n.FirstChild; n != nil && c != nil; c = c.NextSibling {
		if c.Type == html.ElementNode && c.Data == "section" {
			groups = append(groups, c)
		}
	}
	var want []*logreport.Crawler
	for _, c := range slices.Concat(rep.Crawlers, rep.Tools) {
		if len(c.Paths.Top) > 0 {
			want = append(want, c)
		}
	}
	if len(groups) != len(want) || len(want) == 0 {
		t.Fatalf("%d groups of paths, want one per crawler and tool with paths: %d", len(groups), len(want))
	}
	for i, g := range groups {
		c := want[i]
		isTool := i >= len(want)-countWithPaths(rep.Tools)
		if attr(g, "data-name") != escaped(c.Name) || attr(g, "data-token") != escaped(c.Token) || (attr(g, "class") == "tool") != isTool {
			t.Errorf("paths group %d: %q %q class %q, want %q %q tool %v", i, attr(g, "data-name"), attr(g, "data-token"), attr(g, "class"), c.Name, c.Token, isTool)
		}
		var got []logreport.PathCount
		var other int64
		var p logreport.PathCount
		for _, td := range cells(g) {
			switch attr(td, "data-k") {
			case "path":
				p.Path = text(td)
			case "count":
				p.Count = number(t, td)
				got = append(got, p)
			case "other":
				other = number(t, td)
			}
		}
		wantTop := []logreport.PathCount{}
		for _, p := range c.Paths.Top {
			wantTop = append(wantTop, logreport.PathCount{Path: escaped(p.Path), Count: p.Count})
		}
		if got == nil {
			got = []logreport.PathCount{}
		}
		if !reflect.DeepEqual(got, wantTop) || other != c.Paths.Other {
			t.Errorf("paths of %s: %v + %d, JSON %v + %d", c.Name, got, other, c.Paths.Top, c.Paths.Other)
		}
	}
}

func countWithPaths(rows []*logreport.Crawler) int {
	n := 0
	for _, c := range rows {
		if len(c.Paths.Top) > 0 {
			n++
		}
	}
	return n
}

// normalize is a report as its JSON decodes, so that two reports compare field by field.
func normalize(t *testing.T, r *logreport.Report) any {
	b, err := json.Marshal(r)
	if err != nil {
		t.Fatal(err)
	}
	var v any
	_ = json.Unmarshal(b, &v)
	return v
}

func attr(n *html.Node, k string) string {
	if n == nil {
		return ""
	}
	for _, a := range n.Attr {
		if a.Key == k {
			return a.Val
		}
	}
	return ""
}

func text(n *html.Node) string {
	var b strings.Builder
	var walk func(*html.Node)
	walk = func(n *html.Node) {
		if n.Type == html.TextNode {
			b.WriteString(n.Data)
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			walk(c)
		}
	}
	walk(n)
	return strings.TrimSpace(b.String())
}

// cells returns the elements with a data-k attribute under n.
func cells(n *html.Node) []*html.Node {
	var out []*html.Node
	var walk func(*html.Node)
	walk = func(n *html.Node) {
		if n.Type == html.ElementNode && attr(n, "data-k") != "" {
			out = append(out, n)
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			walk(c)
		}
	}
	if n != nil {
		walk(n)
	}
	return out
}

func rowsOf(table *html.Node) []*html.Node {
	var out []*html.Node
	var walk func(*html.Node, bool)
	walk = func(n *html.Node, body bool) {
		if n.Type == html.ElementNode && n.Data == "tr" && body {
			out = append(out, n)
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			walk(c, body || (n.Type == html.ElementNode && n.Data == "tbody"))
		}
	}
	if table != nil {
		walk(table, false)
	}
	return out
}

func findSVG(n *html.Node) *html.Node {
	if n.Type == html.ElementNode && n.Data == "svg" {
		return n
	}
	for c := n.FirstChild; c != nil; c = c.NextSibling {
		if s := findSVG(c); s != nil {
			return s
		}
	}
	return nil
}

func countRects(n *html.Node) int {
	if n == nil {
		return 0
	}
	k := 0
	for c := n.FirstChild; c != nil; c = c.NextSibling {
		if c.Type == html.ElementNode && c.Data == "rect" {
			k++
		}
	}
	return k
}

// number reads a cell's number: its data-v when it has one (a size written with a unit),
// else its text.
func number(t *testing.T, n *html.Node) int64 {
	s := attr(n, "data-v")
	if s == "" {
		s = text(n)
	}
	v, err := strconv.ParseInt(s, 10, 64)
	if err != nil {
		t.Errorf("%s %q: not a number", attr(n, "data-k"), s)
	}
	return v
}

// TestHTMLNumbers parses the page with x/net/html's full parser: the numbers it shows are the
// JSON's, and markup from the log stays text.
func TestHTMLNumbers(t *testing.T) {
	page, rep := htmlReport(t)
	if rep.Totals.Violations == 0 || rep.Totals.Impostors == 0 || rep.Unreadable.Count == 0 {
		t.Fatalf("the traffic lacks a kind of row: %+v", rep.Totals)
	}
	checkPage(t, page, rep)
	for _, ref := range []string{"src=", "href=", "<link", "@import", "url("} {
		if bytes.Contains(page, []byte(ref)) {
			t.Errorf("the page refers to another file (%s): it must read offline, alone", ref)
		}
	}
}

// chromium is the browser of the HTML checks: /usr/bin/chromium (Debian's package
// chromium), or the one named by $CHROMIUM.
func chromium(t *testing.T) string {
	for _, c := range []string{os.Getenv("CHROMIUM"), "chromium", "chromium-browser", "google-chrome"} {
		if c == "" {
			continue
		}
		if p, err := exec.LookPath(c); err == nil {
			return p
		}
	}
	t.Skip("no chromium on this machine (install Debian's package chromium): the HTML report is not opened in a browser; TestHTMLNumbers still checks it")
	return ""
}

// TestHTMLInChromium opens the page in headless Chromium from a file (offline): no console
// message (no error), and the DOM the browser built shows the JSON's numbers. It also takes
// a screenshot, to prove the page renders.
func TestHTMLInChromium(t *testing.T) {
	bin := chromium(t)
	page, rep := htmlReport(t)
	dir := t.TempDir()
	file := filepath.Join(dir, "report.html")
	if err := os.WriteFile(file, page, 0o644); err != nil {
		t.Fatal(err)
	}
	run := func(args ...string) ([]byte, string) {
		// The page is a file; the browser's own traffic (component updates, field trials,
		// safe browsing) is turned off, and any host name it would still resolve resolves to
		// nothing: a test never reaches the real network.
		cmd := exec.Command(bin, append([]string{"--headless", "--disable-gpu", "--no-sandbox", "--no-first-run", "--user-data-dir=" + filepath.Join(dir, "profile"),
			"--disable-background-networking", "--disable-component-update", "--disable-sync", "--no-pings", "--disable-domain-reliability",
			"--host-resolver-rules=MAP * ~NOTFOUND",
			"--enable-logging=stderr", "--v=0", "--allow-file-access-from-files"}, args...)...)
		var stdout, stderr bytes.Buffer
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		if err := cmd.Run(); err != nil {
			t.Fatalf("chromium %v: %v\n%s", args, err, stderr.String())
		}
		return stdout.Bytes(), stderr.String()
	}
	dom, log := run("--dump-dom", "file://"+file)
	for _, l := range strings.Split(log, "\n") {
		if strings.Contains(l, ":CONSOLE") {
			t.Errorf("console: %s", l)
		}
	}
	checkPage(t, dom, rep)
	shot := filepath.Join(dir, "report.png")
	run("--screenshot="+shot, "--window-size=1100,1600", "file://"+file)
	png, err := os.ReadFile(shot)
	if err != nil || !bytes.HasPrefix(png, []byte("\x89PNG")) || len(png) < 10000 {
		t.Errorf("screenshot: %d bytes, %v", len(png), err)
	}
}

// TestHTMLPage checks the page as a publisher reads it, over generated logs of spans from a
// few minutes to a year: titled with the site's name, tools in their table and not the
// crawlers', a time axis with more than its two ends marked whenever the timeline has more
// than one bucket, and a chart that scales to the window (a viewBox, no fixed width).
func TestHTMLPage(t *testing.T) {
	site := loadSite(t, true)
	spans := []time.Duration{3 * time.Minute, 90 * time.Minute, 20 * time.Hour, 48 * time.Hour, 9 * 24 * time.Hour, 45 * 24 * time.Hour, 365 * 24 * time.Hour}
	for i, span := range spans {
		reqs := generate(uint64(20+i), 400, time.Date(2026, 3, 7, 5, 13, 0, 0, time.UTC), span, false)
		log, _ := render(reqs, "combined")
		rep := build(t, site, "", map[string][]byte{"access.log": log}, "access.log")
		rep.Site.Name = "example.com, www.example.com"
		var b bytes.Buffer
		if err := rep.WriteHTML(&b); err != nil {
			t.Fatal(err)
		}
		doc, err := html.Parse(&b)
		if err != nil {
			t.Fatal(err)
		}
		byID := map[string]*html.Node{}
		var titles, h1s []string
		var ticks int
		var walk func(*html.Node, bool)
		walk = func(n *html.Node, inTimeline bool) {
			if n.Type == html.ElementNode {
				if id := attr(n, "id"); id != "" {
					byID[id] = n
				}
				inTimeline = inTimeline || attr(n, "id") == "timeline"
				switch {
				case n.Data == "title" && n.Parent.Data == "head":
					titles = append(titles, text(n))
				case n.Data == "h1":
					h1s = append(h1s, text(n))
				case n.Data == "text" && inTimeline && attr(n, "class") == "tick":
					ticks++
				}
			}
			for c := n.FirstChild; c != nil; c = c.NextSibling {
				walk(c, inTimeline)
			}
		}
		walk(doc, false)
		want := "Robots report: example.com, www.example.com"
		if len(titles) != 1 || titles[0] != want || len(h1s) != 1 || h1s[0] != want {
			t.Errorf("span %v: title %q, h1 %q, want %q", span, titles, h1s, want)
		}
		if n := len(rep.Timeline.Crawlers); n > 1 && ticks <= 2 {
			t.Errorf("span %v: %d buckets of %d s, and %d ticks on the time axis", span, n, rep.Timeline.BucketSeconds, ticks)
		}
		if tl := byID["timeline"]; attr(tl, "width") != "" || attr(tl, "viewBox") == "" {
			t.Errorf("span %v: the timeline is %q wide, viewBox %q: it does not scale to the window", span, attr(tl, "width"), attr(tl, "viewBox"))
		}
		if len(rep.Tools) == 0 || byID["tools"] == nil {
			t.Fatalf("span %v: no tools in the traffic (%d) or no tools table", span, len(rep.Tools))
		}
		for _, row := range rowsOf(byID["crawlers"]) {
			if id := attr(row, "data-id"); id == "curl" || id == "python-requests" {
				t.Errorf("span %v: %s is a row of the crawlers' table", span, id)
			}
		}
		var tools []string
		for _, row := range rowsOf(byID["tools"]) {
			tools = append(tools, attr(row, "data-id"))
		}
		if strings.Join(tools, ",") != "curl,python-requests" && strings.Join(tools, ",") != "python-requests,curl" {
			t.Errorf("span %v: tools table %v", span, tools)
		}
	}
}
