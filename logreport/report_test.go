package logreport_test

import (
	"bytes"
	"compress/gzip"
	"encoding/json"
	"io"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/sitepolicy/caddy-robots/logreport"
	"github.com/sitepolicy/caddy-robots/policycheck"
)

// build replays a log against the site and returns the report through its JSON (what a
// script reads).
func build(t testing.TB, site *policycheck.Site, host string, logs map[string][]byte, order ...string) *logreport.Report {
	t.Helper()
	rp, err := policycheck.NewReplay(site, "https://example.com")
	if err != nil {
		t.Fatal(err)
	}
	defer rp.Close()
	b := logreport.NewBuilder(rp, logreport.Options{Host: host})
	for _, name := range order {
		_ = b.ReadLog(name, bytes.NewReader(logs[name]))
	}
	var out bytes.Buffer
	if err := b.Report().WriteJSON(&out); err != nil {
		t.Fatal(err)
	}
	var rep logreport.Report
	if err := json.Unmarshal(out.Bytes(), &rep); err != nil {
		t.Fatal(err)
	}
	return &rep
}

// compare checks the report against the generator's truth, exactly (the test's logs stay
// under the report's limits).
func compare(t *testing.T, rep *logreport.Report, tr truth) {
	t.Helper()
	lines := ruleLines(t, rep.Site.RobotsTxt)
	tt := rep.Totals
	for _, c := range []struct {
		what      string
		got, want int64
	}{
		{"requests", tt.Requests, tr.requests}, {"bytes", tt.Bytes, tr.bytes},
		{"other requests", tt.OtherRequests, tr.other}, {"other bytes", tt.OtherBytes, tr.otherBytes},
		{"crawler requests", tt.CrawlerRequests, tr.requests - tr.other - tr.impostors - tr.toolRequests},
		{"tool requests", tt.ToolRequests, tr.toolRequests},
		{"impostor bytes", tt.ImpostorBytes, tr.impostorBytes},
		{"violations", tt.Violations, tr.violations}, {"impostors", tt.Impostors, tr.impostors},
		{"other hosts", tt.OtherHosts, tr.otherHosts}, {"unreadable", rep.Unreadable.Count, tr.unreadable},
	} {
		if c.got != c.want {
			t.Errorf("totals: %s = %d, want %d", c.what, c.got, c.want)
		}
	}
	compareRows(t, "crawlers", rep.Crawlers, tr.crawlers, lines)
	compareRows(t, "tools", rep.Tools, tr.tools, lines)
	compareRest(t, rep, tr)
}

// compareRows checks the rows of crawlers (or of tools) against the truth's.
func compareRows(t *testing.T, what string, rows []*logreport.Crawler, want map[string]*crawlerTruth, lines map[string]int) {
	t.Helper()
	if len(rows) != len(want) {
		var got []string
		for _, c := range rows {
			got = append(got, c.ID)
		}
		t.Errorf("%s %v, want %v", what, got, sortedKeys(want))
	}
	for _, c := range rows {
		ct := want[c.ID]
		if ct == nil {
			t.Errorf("crawler %q (%s) in the report, not in the traffic", c.ID, c.Name)
			continue
		}
		if c.Requests != ct.requests || c.Bytes != ct.bytes || c.RobotsTxt.Fetches != ct.robots || c.Violations.Count != ct.violations {
			t.Errorf("%s: requests %d bytes %d robots %d violations %d, want %d %d %d %d", c.ID,
				c.Requests, c.Bytes, c.RobotsTxt.Fetches, c.Violations.Count, ct.requests, ct.bytes, ct.robots, ct.violations)
		}
		if ct.robots > 0 && (!c.RobotsTxt.First.Equal(ct.first) || !c.RobotsTxt.Last.Equal(ct.last)) {
			t.Errorf("%s: robots.txt fetched %v to %v, want %v to %v", c.ID, c.RobotsTxt.First, c.RobotsTxt.Last, ct.first, ct.last)
		}
		if len(c.Statuses) != len(ct.statuses) {
			t.Errorf("%s: statuses %v, want %v", c.ID, c.Statuses, ct.statuses)
		}
		for s, n := range ct.statuses {
			if c.Statuses[s] != n {
				t.Errorf("%s: status %s = %d, want %d", c.ID, s, c.Statuses[s], n)
			}
		}
		var sum int64
		for _, p := range c.Paths.Top {
			sum += p.Count
		}
		if sum+c.Paths.Other > c.Requests {
			t.Errorf("%s: paths count %d, more than its %d requests", c.ID, sum+c.Paths.Other, c.Requests)
		}
		if len(ct.viol) <= logreport.TopViolations && (len(c.Violations.Top) != len(ct.viol) || c.Violations.Other != 0) {
			t.Errorf("%s: %d violation rows (+%d other), want %d", c.ID, len(c.Violations.Top), c.Violations.Other, len(ct.viol))
		}
		for _, v := range c.Violations.Top {
			if want := ct.viol[[2]string{v.Path, v.Rule}]; v.Count != want {
				t.Errorf("%s: violation %s %q counted %d, want %d", c.ID, v.Path, v.Rule, v.Count, want)
			}
			if want := lines[v.Rule]; v.Line != want || want == 0 {
				t.Errorf("%s: violation %s: rule %q on line %d, the served file has it on line %d", c.ID, v.Path, v.Rule, v.Line, want)
			}
			if v.First.After(v.Last) {
				t.Errorf("%s: violation %s: first %v after last %v", c.ID, v.Path, v.First, v.Last)
			}
		}
	}
}

// compareRest checks the impostors and the timeline against the truth.
func compareRest(t *testing.T, rep *logreport.Report, tr truth) {
	t.Helper()
	// The impostors: apart from the crawlers, per crawler claimed.
	if len(rep.Impostors) != len(tr.impostorRows) {
		t.Errorf("%d impostor rows, want %d", len(rep.Impostors), len(tr.impostorRows))
	}
	for _, im := range rep.Impostors {
		it := tr.impostorRows[im.ID]
		if it == nil || im.Requests != it.requests || im.Bytes != it.bytes || im.Disallowed != it.disallowed {
			t.Errorf("impostors claiming %s: %+v, want %+v", im.ID, im, it)
		}
	}
	// The timeline: each request in the bucket its time falls in, as the report defines them
	// (from Start, BucketSeconds wide, Start a multiple of the width).
	tl := rep.Timeline
	if n := len(tl.Crawlers); n > logreport.MaxBuckets || n == 0 || tl.BucketSeconds <= 0 || tl.Start.Unix()%tl.BucketSeconds != 0 {
		t.Fatalf("timeline of %d buckets of %d s from %v", n, tl.BucketSeconds, tl.Start)
	}
	for _, series := range []struct {
		name  string
		got   []int64
		times []time.Time
	}{{"crawlers", tl.Crawlers, tr.crawlerTimes}, {"tools", tl.Tools, tr.toolTimes}, {"other", tl.Other, tr.otherTimes}, {"impostors", tl.Impostors, tr.impostorTimes}} {
		want := make([]int64, len(series.got))
		for _, at := range series.times {
			i := (at.Unix() - tl.Start.Unix()) / tl.BucketSeconds
			if at.Before(tl.Start) || i >= int64(len(want)) {
				t.Fatalf("timeline %s: a request at %v is outside its buckets", series.name, at)
			}
			want[i]++
		}
		if !slices.Equal(series.got, want) {
			t.Errorf("timeline %s:\n got %v\nwant %v", series.name, series.got, want)
		}
	}
}

// TestReportAgainstTruth replays generated logs in the three formats, with malformed lines,
// with and without verification, and with lines from a week before (when the policy was
// other: the report judges them by the config as it is now), and compares every count with
// the generator's.
func TestReportAgainstTruth(t *testing.T) {
	n := 6000
	if raceEnabled {
		n = 1500
	}
	start := time.Date(2026, 11, 20, 0, 0, 0, 0, time.UTC)
	for _, verify := range []bool{false, true} {
		site := loadSite(t, verify)
		for seed, format := range []string{"caddy", "combined", "common"} {
			t.Run(format+map[bool]string{true: "-verify"}[verify], func(t *testing.T) {
				// Two logs: the older one from before the config changed, and today's.
				old := generate(uint64(seed)*7+1, n/3, start.Add(-7*24*time.Hour), 24*time.Hour, format == "caddy")
				now := generate(uint64(seed)*7+2, n, start, 36*time.Hour, format == "caddy")
				oldLog, badOld := render(old, format)
				nowLog, badNow := render(now, format)
				host := ""
				if format == "caddy" {
					host = "example.com"
				}
				rep := build(t, site, host, map[string][]byte{"old.log": oldLog, "now.log": nowLog}, "now.log", "old.log")
				compare(t, rep, expected(append(old, now...), format == "common", verify, host, badOld+badNow))
				if !rep.Range.First.Equal(old[0].t) && rep.Range.First.After(start) {
					t.Errorf("range starts %v, after the old log", rep.Range.First)
				}
				if got := rep.Inputs[0].Formats[format]; got != int64(len(now)) {
					t.Errorf("now.log: %d %s lines, want %d", got, format, len(now))
				}
			})
		}
	}
}

// TestGzip reads gzip-compressed logs (told by their bytes, not their names), several gzip
// members in one file, and a truncated gzip file, whose lines before the cut are kept.
func TestGzip(t *testing.T) {
	site := loadSite(t, false)
	reqs := generate(3, 3000, time.Date(2026, 11, 20, 0, 0, 0, 0, time.UTC), 6*time.Hour, false)
	plain, bad := render(reqs, "combined")
	var gz bytes.Buffer
	half := bytes.IndexByte(plain[len(plain)/2:], '\n') + len(plain)/2 + 1
	for _, part := range [][]byte{plain[:half], plain[half:]} {
		zw := gzip.NewWriter(&gz)
		_, _ = zw.Write(part)
		_ = zw.Close()
	}
	rep := build(t, site, "", map[string][]byte{"access.log": gz.Bytes()}, "access.log")
	compare(t, rep, expected(reqs, false, false, "", bad))
	if !rep.Inputs[0].Gzip || rep.Inputs[0].Error != "" {
		t.Errorf("input %+v, want gzip without error", rep.Inputs[0])
	}

	// Cut the second member in the middle: the first member's lines and those of the second
	// that were decompressed before the cut are counted.
	cut := gz.Bytes()[:gz.Len()-gz.Len()/4]
	zr, _ := gzip.NewReader(bytes.NewReader(cut))
	got, err := io.ReadAll(zr)
	if err == nil {
		t.Fatal("the cut gzip stream reads without error")
	}
	complete := got[:bytes.LastIndexByte(got, '\n')+1]
	n := int64(bytes.Count(complete, []byte("\n")))
	rep = build(t, site, "", map[string][]byte{"cut.log.gz": cut}, "cut.log.gz")
	in := rep.Inputs[0]
	if !strings.Contains(in.Error, "truncated") {
		t.Errorf("cut log: error %q, want it to say truncated", in.Error)
	}
	partial := int64(0)
	if len(got) > len(complete) {
		partial = 1
	}
	if in.Lines != n+partial {
		t.Errorf("cut log: %d lines read, want %d", in.Lines, n+partial)
	}
	if rep.Totals.Requests+rep.Unreadable.Count != n+partial {
		t.Errorf("cut log: %d requests and %d unreadable, want %d lines in all", rep.Totals.Requests, rep.Unreadable.Count, n+partial)
	}
	if rep.Totals.Requests < int64(len(reqs))/2 {
		t.Errorf("cut log: %d requests kept, want at least the first member's %d", rep.Totals.Requests, len(reqs)/2)
	}
}

// TestBounded feeds one crawler many distinct paths over years: the report keeps at most its
// limits, and the counts still add up.
func TestBounded(t *testing.T) {
	site := loadSite(t, false)
	var b bytes.Buffer
	n := 20000
	if raceEnabled {
		n = 5000
	}
	start := time.Date(2020, 1, 1, 0, 0, 0, 0, time.UTC)
	for i := range n {
		r := request{t: start.Add(time.Duration(i) * 3 * time.Hour), c: clients[1], ip: "20.15.240.64", method: "GET", target: "/p/" + strings.Repeat("x", i%3) + string(rune('a'+i%26)) + "/" + strconv.Itoa(i), status: 200, size: 10}
		b.WriteString(combinedLine(r, false) + "\n")
	}
	rep := build(t, site, "", map[string][]byte{"big.log": b.Bytes()}, "big.log")
	c := rep.Crawlers[0]
	if len(c.Paths.Top) != logreport.TopPaths || len(c.Violations.Top) != logreport.TopViolations {
		t.Errorf("%d paths, %d violations shown, want %d and %d", len(c.Paths.Top), len(c.Violations.Top), logreport.TopPaths, logreport.TopViolations)
	}
	var paths, viols int64
	for _, p := range c.Paths.Top {
		paths += p.Count
	}
	for _, v := range c.Violations.Top {
		viols += v.Count
	}
	if paths+c.Paths.Other != int64(n) || viols+c.Violations.Other != int64(n) || c.Violations.Count != int64(n) {
		t.Errorf("paths %d+%d, violations %d+%d of %d, want %d each", paths, c.Paths.Other, viols, c.Violations.Other, c.Violations.Count, n)
	}
	tl := rep.Timeline
	if len(tl.Crawlers) > logreport.MaxBuckets || len(c.Timeline) != len(tl.Crawlers) {
		t.Errorf("timeline of %d buckets (crawler's %d), want at most %d", len(tl.Crawlers), len(c.Timeline), logreport.MaxBuckets)
	}
	span := time.Duration(n) * 3 * time.Hour
	if w := time.Duration(tl.BucketSeconds) * time.Second; w*time.Duration(logreport.MaxBuckets) < span || w > span/time.Duration(logreport.MaxBuckets)*4 {
		t.Errorf("buckets of %v for %v: too narrow to hold it, or wider than needed", w, span)
	}
}

// TestLongLine: a line longer than the longest read is one unreadable line, and the next line
// is read.
func TestLongLine(t *testing.T) {
	good := `1.2.3.4 - - [20/Nov/2026:17:55:36 +0000] "GET /a HTTP/1.1" 200 1 "-" "GPTBot/1.2"` + "\n"
	long := `1.2.3.4 - - [20/Nov/2026:17:55:36 +0000] "GET /` + strings.Repeat("x", 200<<10) + ` HTTP/1.1" 200 1 "-" "GPTBot/1.2"` + "\n"
	rep := build(t, loadSite(t, false), "", map[string][]byte{"long.log": []byte(good + long + good)}, "long.log")
	if rep.Inputs[0].Lines != 3 || rep.Totals.Requests != 2 || rep.Unreadable.Count != 1 || !strings.Contains(rep.Unreadable.Examples[0].Reason, "longer than") || rep.Unreadable.Examples[0].Line != 2 {
		t.Errorf("lines %d, requests %d, unreadable %+v", rep.Inputs[0].Lines, rep.Totals.Requests, rep.Unreadable)
	}
}
