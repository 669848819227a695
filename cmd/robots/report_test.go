package main

import (
	"bytes"
	"compress/gzip"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sitepolicy/caddy-robots/logreport"
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
	if st != cli.ExitFail || plain.Totals.Violations == 0 || plain.Totals.Requests != 60 || plain.Unreadable.Count != 1 {
		t.Fatalf("status %d, totals %+v", st, plain.Totals)
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
	// counted.
	cut := write(t, dir, "cut.gz", gz.String()[:gz.Len()*2/3])
	st, out, errOut := report("", "--config", site, "--format", "json", cut)
	r := decode(out)
	if st == cli.ExitUsage || !strings.Contains(errOut, "truncated") || !strings.Contains(r.Inputs[0].Error, "truncated") || r.Totals.Requests == 0 || r.Totals.Requests >= plain.Totals.Requests {
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
