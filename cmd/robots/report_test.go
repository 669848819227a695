package main

import (
	"bytes"
	"compress/gzip"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sitepolicy/caddy-robots/logreport"
	"github.com/sitepolicy/caddy-robots/policycheck"
	"github.com/sitepolicy/caddy-robots/policycheck/cli"
)

// TestReport runs "robots report" as a user does: logs from files (gzip told by its bytes)
// and from standard input, the three output formats, -o, verification from a local list,
// and the usage errors, with their exit statuses.
func TestReport(t *testing.T) {
	dir := t.TempDir()
	site := "../../logreport/testdata/site.json"
	sample, err := os.ReadFile("../../logreport/testdata/sample.log")
	if err != nil {
		t.Fatal(err)
	}
	var gz bytes.Buffer
	zw := gzip.NewWriter(&gz)
	_, _ = zw.Write(sample)
	_ = zw.Close()
	gzFile := write(t, dir, "access.log.1", gz.String()) // no .gz: told by its bytes
	report := func(stdin string, args ...string) (int, string, string) {
		var out, errOut bytes.Buffer
		st := runWith(append([]string{"report"}, args...), strings.NewReader(stdin), &out, &errOut)
		return st, out.String(), errOut.String()
	}
	decode := func(s string) logreport.Report {
		var r logreport.Report
		dec := json.NewDecoder(strings.NewReader(s))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&r); err != nil {
			t.Fatalf("%v\n%s", err, s)
		}
		return r
	}

	// The same log from a file, gzip-compressed, and from standard input: the same counts.
	st, out, _ := report("", "--config", site, "--format", "json", "../../logreport/testdata/sample.log")
	plain := decode(out)
	if st != cli.ExitFail || plain.Totals.Violations == 0 || plain.Totals.Requests != 64 || plain.Unreadable.Count != 1 {
		t.Fatalf("status %d, totals %+v", st, plain.Totals)
	}
	// The report is titled with the site's host (the config's sitemap's, without --host),
	// names the config apart, and has curl and python-requests as tools, not crawlers.
	var tools []string
	for _, c := range plain.Tools {
		tools = append(tools, c.Name)
	}
	if plain.Site.Name != "example.com" || plain.Site.Config != site || strings.Join(tools, ",") != "curl,python-requests" || plain.Totals.ToolRequests != 4 || plain.Totals.CrawlerRequests != 43 {
		t.Errorf("site %+v, tools %v, totals %+v", plain.Site, tools, plain.Totals)
	}
	for _, c := range plain.Crawlers {
		if c.Name == "curl" || c.Name == "python-requests" {
			t.Errorf("%s is a crawler's row", c.Name)
		}
	}
	if _, out, _ := report("", "--config", site, "--host", "www.example.org", "--format", "json", "../../logreport/testdata/sample.log"); decode(out).Site.Name != "www.example.org" {
		t.Errorf("--host www.example.org: site %+v", decode(out).Site)
	}
	for _, args := range [][]string{{gzFile}, {}, {"-"}} {
		st, out, errOut := report(string(sample), append([]string{"--config", site, "--format", "json"}, args...)...)
		r := decode(out)
		if st != cli.ExitFail || r.Totals != plain.Totals || len(r.Crawlers) != len(plain.Crawlers) {
			t.Errorf("%v: status %d, totals %+v, want %+v\n%s", args, st, r.Totals, plain.Totals, errOut)
		}
	}

	// -o writes the page to a file, nothing to standard output.
	page := filepath.Join(dir, "report.html")
	st, out, _ = report("", "--config", site, "--format", "html", "-o", page, "../../logreport/testdata/sample.log")
	b, err := os.ReadFile(page)
	if st != cli.ExitFail || out != "" || err != nil || !bytes.Contains(b, []byte(`<script type="application/json" id="report-data">`)) {
		t.Errorf("html: status %d, stdout %q, %v", st, out, err)
	}

	// A log without violations exits 0; an impostor (from the local list) exits 1.
	list := write(t, dir, "googlebot.json", `{"prefixes":[{"ipv4Prefix":"66.249.66.0/24"}]}`)
	clean := "66.249.66.7 - - [20/Nov/2026:10:00:00 +0000] \"GET /news/1 HTTP/1.1\" 200 10 \"-\" \"Googlebot/2.1\"\n"
	if st, out, _ := report(clean, "--config", site); st != cli.ExitOK || !strings.Contains(out, "Violations: 0; impostors: 0") {
		t.Errorf("clean log: status %d\n%s", st, out)
	}
	impostor := strings.Replace(clean, "66.249.66.7", "203.0.113.5", 1)
	flag := "https://developers.google.com/static/search/apis/ipranges/googlebot.json=" + list
	if st, out, errOut := report(impostor+clean, "--config", site, "--crawler-list-file", flag); st != cli.ExitFail || !strings.Contains(out, "impostors: 1") {
		t.Errorf("impostor: status %d\n%s\n%s", st, out, errOut)
	}

	// Usage errors: status 2, and JSON on standard output with --format json.
	for _, c := range []struct {
		args []string
		msg  string
	}{
		{[]string{"--config", site, "--format", "htm"}, `did you mean "html"`},
		{[]string{"--config", site, filepath.Join(dir, "missing.log")}, "no such file"},
		{[]string{"--format", "json"}, "--config is required"},
		{[]string{"--config", site, "--host", "a", "--host", "b"}, "give --host once"},
	} {
		st, out, errOut := report("", c.args...)
		if st != cli.ExitUsage || !strings.Contains(errOut, c.msg) {
			t.Errorf("%v: status %d, stderr %q, want %q", c.args, st, errOut, c.msg)
		}
		if slicesContains(c.args, "json") && !strings.Contains(out, `"problems"`) {
			t.Errorf("%v: stdout %q, want the JSON error report", c.args, out)
		}
	}

	// A truncated gzip log: reported on stderr and in the report, its lines before the cut
	// counted, and exit status 2.
	cut := write(t, dir, "cut.gz", gz.String()[:gz.Len()*2/3])
	st, out, errOut := report("", "--config", site, "--format", "json", cut)
	r := decode(out)
	if st != cli.ExitUsage || !strings.Contains(errOut, "truncated") || !strings.Contains(errOut, "1 of 1 logs could not be read") || !strings.Contains(r.Inputs[0].Error, "truncated") || r.Totals.Requests == 0 || r.Totals.Requests >= plain.Totals.Requests {
		t.Errorf("cut log: status %d, stderr %q, input %+v, %d requests", st, errOut, r.Inputs[0], r.Totals.Requests)
	}
}

func slicesContains(s []string, v string) bool {
	for _, x := range s {
		if x == v {
			return true
		}
	}
	return false
}

// reportCmd runs "robots report" with args and stdin.
func reportCmd(stdin io.Reader, args ...string) (int, string, string) {
	var out, errOut bytes.Buffer
	st := runWith(append([]string{"report"}, args...), stdin, &out, &errOut)
	return st, out.String(), errOut.String()
}

// unread is a standard input that must not be read.
type unread struct{ t *testing.T }

func (u unread) Read([]byte) (int, error) {
	u.t.Error("standard input read before the usage error")
	return 0, io.EOF
}

// TestReportArguments: arguments that cannot make a report are usage errors (status 2) said
// before any log is read; logs that cannot be read to their end, or are no log, make status 2
// after the report is written, which says so; flags may follow the logs.
func TestReportArguments(t *testing.T) {
	dir := t.TempDir()
	site := "../../logreport/testdata/site.json"
	sample := "../../logreport/testdata/sample.log"
	for _, c := range []struct {
		args []string
		msg  string
	}{
		{[]string{"--config", site, dir}, "is a directory, not a log"},
		{[]string{"--config", site, "--host", "example.com:443", sample}, "without the port"},
		{[]string{"--config", site, "--host", "https://example.com", sample}, "without scheme"},
		{[]string{"--config", site, "--host", "[::1]:8080", sample}, "without the port"},
		{[]string{"--config", site, "-o", filepath.Join(dir, "missing", "r.html"), "-"}, "no such file or directory"},
		{[]string{"--config", site, "-", "-"}, "given twice"},
		{[]string{"--config", site, "-", sample, "--format", "json", "-"}, "given twice"},
		{[]string{"--config", site, "-o", sample, sample}, "would overwrite it"},
		{[]string{"--config", site, "--robots-file", filepath.Join(dir, "none.txt"), "-"}, "no such file"},
	} {
		st, _, errOut := reportCmd(unread{t}, c.args...)
		if st != cli.ExitUsage || !strings.Contains(errOut, c.msg) {
			t.Errorf("%v: status %d, stderr %q, want 2 and %q", c.args, st, errOut, c.msg)
		}
	}
	if b, err := os.ReadFile(sample); err != nil || len(b) == 0 {
		t.Fatalf("the sample log was emptied: %v", err)
	}

	// Logs read but not to their end, or no log at all: the report is written, says it
	// prominently in each format, and the status is 2.
	var gz bytes.Buffer
	zw := gzip.NewWriter(&gz)
	_, _ = zw.Write([]byte("66.249.66.7 - - [20/Nov/2026:10:00:00 +0000] \"GET /search HTTP/1.1\" 200 10 \"-\" \"Googlebot/2.1\"\n"))
	_ = zw.Close()
	badCRC := gz.Bytes()
	badCRC[len(badCRC)-6] ^= 0xff
	for name, content := range map[string]string{
		"header.gz":  "\x1f\x8b\n0",
		"crc.gz":     string(badCRC),
		"config.log": "{\"robots_txt\": {}}\n",
	} {
		file := write(t, dir, name, content)
		for _, format := range []string{"text", "json", "html"} {
			st, out, errOut := reportCmd(unread{t}, "--config", site, "--format", format, file)
			want := map[string]string{"text": "ERROR:      " + file + " could not be read to its end", "json": `"error": "`, "html": `<p class="error" data-k="input-error">`}[format]
			if st != cli.ExitUsage || !strings.Contains(out, want) || !strings.Contains(errOut, "could not be read to their end") || strings.Contains(out, `"problems"`) {
				t.Errorf("%s as %s: status %d, stderr %q, want 2 and %q in\n%.600s", name, format, st, errOut, want, out)
			}
		}
	}

	// Flags after the logs, and "--" before a log named like a flag.
	want, _ := os.ReadFile(sample)
	dash := write(t, dir, "-x.log", string(want))
	for _, args := range [][]string{
		{"--config", site, sample, "--format", "json"},
		{sample, "--config", site, "--format=json"},
		{"--config", site, "--format", "json", "--", dash},
	} {
		st, out, errOut := reportCmd(unread{t}, args...)
		var r logreport.Report
		if err := json.Unmarshal([]byte(out), &r); err != nil || st != cli.ExitFail || len(r.Inputs) != 1 || r.Totals.Requests != 64 {
			t.Errorf("%v: status %d, %v, stderr %q", args, st, err, errOut)
		}
	}
}

// TestReportAgreesWithCheck: a request nginx logged escaped (a path outside ASCII, \xHH) is
// the URL check is asked about: the same decision, rule and line, for every path of a set.
func TestReportAgreesWithCheck(t *testing.T) {
	dir := t.TempDir()
	site := write(t, dir, "site.json", `{"robots_txt": {"groups": [
	  {"user_agents": ["*"], "rules": [{"type": "disallow", "path": "/private/"}]},
	  {"user_agents": ["Googlebot"], "rules": [{"type": "disallow", "path": "/café/"}, {"type": "allow", "path": "/café/open"},
	    {"type": "disallow", "path": "/naïve$"}, {"type": "disallow", "path": "/a%20b/"}]}]}}`)
	for _, path := range []string{"/café/menu", "/café/open/x", "/naïve", "/naïve/x", "/a b/c", "/menü", "/café/menu?x=ü"} {
		var logged strings.Builder
		for _, c := range []byte(path) {
			switch {
			case c >= 0x80:
				fmt.Fprintf(&logged, `\x%02X`, c)
			case c == '"':
				logged.WriteString(`\x22`)
			default:
				logged.WriteByte(c)
			}
		}
		line := fmt.Sprintf("66.249.66.1 - - [20/Nov/2026:10:00:00 +0000] \"GET %s HTTP/1.1\" 200 10 \"-\" \"Googlebot/2.1\"\n", logged.String())
		st, out, errOut := reportCmd(strings.NewReader(line), "--config", site, "--format", "json")
		var r logreport.Report
		if err := json.Unmarshal([]byte(out), &r); err != nil || len(r.Crawlers) != 1 {
			t.Fatalf("%s: status %d, %v, %s", path, st, err, errOut)
		}
		var cout, cerr bytes.Buffer
		cst := run([]string{"check", "--config", site, "--url", "http://localhost" + path, "--agent", "Googlebot", "--format", "json"}, &cout, &cerr)
		var rep policycheck.Report
		if err := json.Unmarshal(cout.Bytes(), &rep); err != nil {
			t.Fatalf("%s: check: %v\n%s", path, err, cerr.String())
		}
		v := r.Crawlers[0].Violations
		if rep.Allowed != (v.Count == 0) || (cst == cli.ExitFail) != (st == cli.ExitFail) {
			t.Errorf("%s: check allowed %v (status %d), report %d violations (status %d)", path, rep.Allowed, cst, v.Count, st)
			continue
		}
		if !rep.Allowed && (len(v.Top) != 1 || rep.RobotsTxt.Rule == nil || v.Top[0].Line != rep.RobotsTxt.Rule.Line || v.Top[0].Rule != rep.RobotsTxt.Rule.Text || v.Top[0].Line == 0) {
			t.Errorf("%s: report's violation %+v, check's rule %+v", path, v.Top, rep.RobotsTxt.Rule)
		}
	}
}

// TestReportMergeUpstream: a config that merges the backend's robots.txt is replayed with a
// note that the report cannot see it; with --robots-file, against the file as served, its
// violations naming the lines of that file.
func TestReportMergeUpstream(t *testing.T) {
	dir := t.TempDir()
	site := write(t, dir, "site.json", `{"robots_txt": {"merge_upstream": true, "groups": [
	  {"user_agents": ["GPTBot"], "rules": [{"type": "disallow", "path": "/a/"}]}]}}`)
	served := write(t, dir, "robots.txt", "# as served\n\nUser-agent: *\nDisallow: /private/\n\nUser-agent: GPTBot\nDisallow: /a/\nDisallow: /from-backend/\n")
	log := "20.15.240.64 - - [20/Nov/2026:10:00:00 +0000] \"GET /from-backend/x HTTP/1.1\" 200 10 \"-\" \"GPTBot/1.2\"\n" +
		"20.15.240.64 - - [20/Nov/2026:10:00:00 +0000] \"GET /a/x HTTP/1.1\" 200 10 \"-\" \"GPTBot/1.2\"\n"
	st, out, _ := reportCmd(strings.NewReader(log), "--config", site)
	if st != cli.ExitFail || !strings.Contains(out, "Note:       robots_txt merges the backend's own robots.txt") || !strings.Contains(out, "Violations: 1;") {
		t.Errorf("without the file: status %d\n%s", st, out)
	}
	st, out, errOut := reportCmd(strings.NewReader(log), "--config", site, "--robots-file", served, "--format", "json")
	var r logreport.Report
	if err := json.Unmarshal([]byte(out), &r); err != nil || st != cli.ExitFail {
		t.Fatalf("with the file: status %d, %v, %s", st, err, errOut)
	}
	lines := map[string]int{"/a/x": 7, "/from-backend/x": 8}
	if len(r.Notes) != 0 || r.Totals.Violations != 2 || len(r.Crawlers) != 1 || len(r.Crawlers[0].Violations.Top) != 2 || !strings.Contains(r.Site.RobotsTxt, "# as served") {
		t.Fatalf("with the file: %+v", r)
	}
	for _, v := range r.Crawlers[0].Violations.Top {
		if v.Line != lines[v.Path] {
			t.Errorf("%s: line %d, want %d, the line of the file as saved", v.Path, v.Line, lines[v.Path])
		}
	}
}

// TestReportFleet: the logs of several instances, named as files and as patterns the tool
// expands itself (quoted, so the shell does not), gzip-compressed or not, read with any
// number of workers and in any order, make the same report as the one log they were cut
// from, but for its list of logs; a pattern that matches nothing, a bad pattern and a bad
// --workers are usage errors; a file whose name looks like a pattern is read as named.
func TestReportFleet(t *testing.T) {
	dir := t.TempDir()
	site := "../../logreport/testdata/site.json"
	sample, err := os.ReadFile("../../logreport/testdata/sample.log")
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.SplitAfter(string(sample), "\n")
	third := len(lines) / 3
	var gz bytes.Buffer
	zw := gzip.NewWriter(&gz)
	_, _ = zw.Write([]byte(strings.Join(lines[third:2*third], "")))
	_ = zw.Close()
	for i, part := range []string{strings.Join(lines[:third], ""), gz.String(), strings.Join(lines[2*third:], "")} {
		if err := os.MkdirAll(filepath.Join(dir, fmt.Sprintf("web%d", i)), 0o755); err != nil {
			t.Fatal(err)
		}
		write(t, dir, fmt.Sprintf("web%d/access.log", i), part)
	}
	odd := write(t, dir, "odd[1].log", string(sample)) // no pattern: a file so named
	withoutInputs := func(out string) string {
		var r map[string]any
		if err := json.Unmarshal([]byte(out), &r); err != nil {
			t.Fatalf("%v\n%.300s", err, out)
		}
		delete(r, "inputs")
		delete(r, "unreadable") // its examples name the log and line
		b, _ := json.Marshal(r)
		return string(b)
	}
	st, whole, _ := reportCmd(unread{t}, "--config", site, "--format", "json", "../../logreport/testdata/sample.log")
	if st != cli.ExitFail {
		t.Fatalf("status %d", st)
	}
	var first string
	for _, args := range [][]string{
		{"--workers", "1", filepath.Join(dir, "web*/access.log")},
		{"--workers", "2", filepath.Join(dir, "web2/access.log"), filepath.Join(dir, "web[01]/*.log")},
		{filepath.Join(dir, "web1/access.log"), filepath.Join(dir, "web0/access.log"), filepath.Join(dir, "web2/access.log"), filepath.Join(dir, "web?/access.log"), "--workers", "3"},
	} {
		st, out, errOut := reportCmd(unread{t}, append([]string{"--config", site, "--format", "json"}, args...)...)
		var r logreport.Report
		if err := json.Unmarshal([]byte(out), &r); err != nil || st != cli.ExitFail || len(r.Inputs) != 3 || !r.Inputs[1].Gzip {
			t.Fatalf("%v: status %d, %v, stderr %q, inputs %+v", args, st, err, errOut, r.Inputs)
		}
		if first == "" {
			first = out
			if withoutInputs(out) != withoutInputs(whole) {
				t.Errorf("the fleet's report differs from the whole log's:\n%s\n%s", out, whole)
			}
		} else if out != first {
			t.Errorf("%v: the report differs from the first's", args)
		}
	}
	if st, out, errOut := reportCmd(unread{t}, "--config", site, "--format", "json", odd); st != cli.ExitFail || withoutInputs(out) != withoutInputs(whole) {
		t.Errorf("%s: status %d, stderr %q", odd, st, errOut)
	}
	for _, c := range []struct {
		args []string
		msg  string
	}{
		{[]string{filepath.Join(dir, "web*/error.log")}, "no log matches"},
		{[]string{filepath.Join(dir, "web[/access.log")}, "syntax error in pattern"},
		{[]string{"--workers", "0", "-"}, "at least 1"},
		{[]string{"--workers", "many", "-"}, "at least 1"},
	} {
		st, _, errOut := reportCmd(unread{t}, append([]string{"--config", site}, c.args...)...)
		if st != cli.ExitUsage || !strings.Contains(errOut, c.msg) {
			t.Errorf("%v: status %d, stderr %q, want 2 and %q", c.args, st, errOut, c.msg)
		}
	}
}
