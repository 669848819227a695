package caddymodule

import (
	"encoding/json"
	"fmt"
	"io"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/sitepolicy/caddy-robots/logreport"
	"github.com/sitepolicy/caddy-robots/policycheck/cli"
)

// TestRobotsCommandReport serves requests with a real Caddy whose access log (its default
// JSON encoder) goes to a file, then runs "caddy robots report" on that log with the same
// Caddyfile: the report counts what was sent, and names the lines of the robots.txt the
// server served.
func TestRobotsCommandReport(t *testing.T) {
	dir := t.TempDir()
	logFile := filepath.Join(dir, "access.log")
	isoLog := filepath.Join(dir, "iso.log") // the second site logs "ts" as ISO 8601
	site := fmt.Sprintf(`http://localhost:@PORT@, http://127.0.0.1:@PORT@ {
	log {
		output file %s
	}
	robots_txt {
		group * {
			disallow /private/
		}
		group GPTBot {
			disallow /
		}
		group Googlebot {
			disallow /search
			allow /search/about
		}
	}
	respond "ok"
}

http://localhost:@PORT2@ {
	log {
		output file %s
		format json {
			time_format iso8601
		}
	}
	robots_txt {
		group GPTBot {
			disallow /
		}
	}
	respond "ok"
}
`, logFile, isoLog)
	caddyTesterWithGlobals(t, "", site)
	gpt := "User-Agent: Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko; compatible; GPTBot/1.2; +https://openai.com/gptbot)"
	google := "User-Agent: Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)"
	bing := "User-Agent: Mozilla/5.0 (compatible; bingbot/2.0; +http://www.bing.com/bingbot.htm)"
	browser := "User-Agent: Mozilla/5.0 (X11; Linux x86_64; rv:120.0) Gecko/20100101 Firefox/120.0"
	curl := "User-Agent: curl/8.5.0"
	sent := []struct{ ua, path string }{
		{gpt, "/robots.txt"}, {gpt, "/a"}, {gpt, "/private/b"}, {gpt, "/a"},
		{google, "/robots.txt"}, {google, "/search?q=x"}, {google, "/search/about"}, {google, "/news"},
		{bing, "/private/b"}, {bing, "/robots.txt"},
		{browser, "/"}, {browser, "/private/b"},
		{curl, "/news"}, {curl, "/private/b"},
	}
	var served string
	for _, s := range sent {
		resp, body := do(t, "GET", siteURL(s.path), s.ua)
		if s.path == "/robots.txt" {
			served = string(body)
		}
		resp.Body.Close()
	}
	// An absolute-form request (a proxy's, "curl --request-target http://..."): Caddy logs
	// its "uri" as sent, and the report reads the path from it.
	conn, err := net.Dial("tcp", fmt.Sprintf("localhost:%d", sitePort))
	if err != nil {
		t.Fatal(err)
	}
	fmt.Fprintf(conn, "GET http://localhost:%d/a HTTP/1.1\r\nHost: localhost:%d\r\n%s\r\nConnection: close\r\n\r\n", sitePort, sitePort, gpt)
	if resp, _ := io.ReadAll(conn); !strings.HasPrefix(string(resp), "HTTP/1.1 200") {
		t.Fatalf("absolute-form request: %q", resp)
	}
	conn.Close()
	sent = append(sent, struct{ ua, path string }{gpt, "/a"})
	lineOf := func(text string) int {
		for i, l := range strings.Split(served, "\n") {
			if strings.TrimSpace(l) == text {
				return i + 1
			}
		}
		t.Fatalf("the served robots.txt has no line %q:\n%s", text, served)
		return 0
	}
	raw, err := os.ReadFile(logFile)
	if err != nil || strings.Count(string(raw), "\n") < len(sent) {
		t.Fatalf("Caddy's access log: %v\n%s", err, raw)
	}
	if err := os.WriteFile(filepath.Join(dir, "Caddyfile"), []byte(globalsWith("")+expand(site)), 0o644); err != nil {
		t.Fatal(err)
	}
	out, errOut, st := runCaddy(t, dir, "robots", "report", "--config", "Caddyfile", "--site", siteURL(""), "--format", "json", "access.log")
	if st != cli.ExitFail {
		t.Fatalf("status %d, want %d (violations)\n%s\n%s", st, cli.ExitFail, out, errOut)
	}
	var rep logreport.Report
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	if rep.Totals.Requests != int64(len(sent)) || rep.Totals.OtherRequests != 2 || rep.Unreadable.Count != 0 || rep.Inputs[0].Formats["caddy"] != int64(len(sent)) {
		t.Errorf("totals %+v, unreadable %+v, inputs %+v; want %d requests, 2 others", rep.Totals, rep.Unreadable, rep.Inputs[0], len(sent))
	}
	// Titled with the host names the site block serves, the config named apart; curl is a
	// tool, not a crawler.
	if rep.Site.Name != "localhost, 127.0.0.1" || !strings.HasPrefix(rep.Site.Config, "Caddyfile, server ") {
		t.Errorf("site %q, config %q: want the site block's host names and the config", rep.Site.Name, rep.Site.Config)
	}
	if len(rep.Tools) != 1 || rep.Tools[0].Name != "curl" || rep.Tools[0].Requests != 2 || rep.Totals.ToolRequests != 2 {
		t.Errorf("tools %+v, totals %+v: want curl's 2 requests", rep.Tools, rep.Totals)
	}
	if rep.Site.RobotsTxt != served {
		t.Errorf("the report replays\n%s\nthe server served\n%s", rep.Site.RobotsTxt, served)
	}
	type row struct {
		requests, robots, violations int64
	}
	want := map[string]row{"openai-crawler": {5, 1, 4}, "google-crawler": {4, 1, 1}, "bing-crawler": {2, 1, 0}}
	wantViol := map[string]struct {
		rule  string
		count int64
	}{"/a": {"Disallow: /", 3}, "/private/b": {"Disallow: /", 1}, "/search": {"Disallow: /search", 1}}
	for _, c := range rep.Crawlers {
		w, ok := want[c.ID]
		if !ok || (row{c.Requests, c.RobotsTxt.Fetches, c.Violations.Count}) != w {
			t.Errorf("%s: requests %d, robots.txt %d, violations %d; want %+v", c.ID, c.Requests, c.RobotsTxt.Fetches, c.Violations.Count, w)
		}
		delete(want, c.ID)
		for _, v := range c.Violations.Top {
			wv := wantViol[v.Path]
			if v.Rule != wv.rule || v.Count != wv.count || v.Line != lineOf(wv.rule) {
				t.Errorf("%s: violation %+v, want %q (line %d) %d times", c.ID, v, wv.rule, lineOf(wv.rule), wv.count)
			}
		}
	}
	if len(want) > 0 {
		t.Errorf("crawlers missing from the report: %v", want)
	}

	// The log named by a pattern the command expands, read with two workers: the same
	// report.
	if again, errOut, _ := runCaddy(t, dir, "robots", "report", "--config", "Caddyfile", "--site", siteURL(""), "--format", "json", "--workers", "2", "acc*.log"); again != out {
		t.Errorf("the log as acc*.log with 2 workers: another report (%s)\n%s", errOut, again)
	}

	// The second site's log, with ISO 8601 times, against its own robots.txt.
	for _, p := range []string{"/robots.txt", "/a", "/b"} {
		resp, _ := do(t, "GET", site2URL(p), gpt)
		resp.Body.Close()
	}
	if b, _ := os.ReadFile(isoLog); !strings.Contains(string(b), `"ts":"20`) {
		t.Fatalf("the second site's log has no ISO 8601 ts:\n%s", b)
	}
	if !strings.Contains(string(raw), `"ts":1`) {
		t.Fatalf("the first site's log has no numeric ts:\n%s", raw)
	}
	out, errOut, _ = runCaddy(t, dir, "robots", "report", "--config", "Caddyfile", "--site", site2URL(""), "--format", "json", "iso.log")
	rep = logreport.Report{}
	if err := json.Unmarshal([]byte(out), &rep); err != nil || rep.Totals.Requests != 3 || rep.Totals.Violations != 2 || rep.Inputs[0].Formats["caddy"] != 3 || rep.Range.First.IsZero() || rep.Range.Last.Sub(rep.Range.First) > time.Minute {
		t.Errorf("iso8601 log: %v, totals %+v, range %+v\n%s", err, rep.Totals, rep.Range, errOut)
	}

	// Another host's requests are counted apart; a site no server listens for is an error.
	out, _, _ = runCaddy(t, dir, "robots", "report", "--config", "Caddyfile", "--site", fmt.Sprintf("http://other.example:%d", sitePort), "--format", "json", "access.log")
	rep = logreport.Report{}
	if err := json.Unmarshal([]byte(out), &rep); err != nil || rep.Totals.OtherHosts != int64(len(sent)) || rep.Totals.Requests != 0 {
		t.Errorf("other host: %v, totals %+v", err, rep.Totals)
	}
	_, errOut, st = runCaddy(t, dir, "robots", "report", "--config", "Caddyfile", "--site", "http://localhost:1", "access.log")
	if st != cli.ExitUsage || !strings.Contains(errOut, "no server of the config listens on port 1") {
		t.Errorf("no server: status %d, %s", st, errOut)
	}
	_, errOut, st = runCaddy(t, dir, "robots", "report", "--config", "Caddyfile", "access.log")
	if st != cli.ExitUsage || !strings.Contains(errOut, "--site is required") {
		t.Errorf("no --site: status %d, %s", st, errOut)
	}
	// Flags after the log; standard input twice; a log that is a directory.
	out, errOut, st = runCaddy(t, dir, "robots", "report", "access.log", "--config", "Caddyfile", "--site", siteURL(""), "--format", "json")
	rep = logreport.Report{}
	if err := json.Unmarshal([]byte(out), &rep); err != nil || st != cli.ExitFail || rep.Totals.Requests != int64(len(sent)) {
		t.Errorf("flags after the log: status %d, %v, %s", st, err, errOut)
	}
	for _, c := range []struct{ arg, msg string }{{"-", "given twice"}, {".", "is a directory"}} {
		args := []string{"robots", "report", "--config", "Caddyfile", "--site", siteURL(""), "-", c.arg}
		if c.arg == "." {
			args = args[:len(args)-2]
			args = append(args, ".")
		}
		_, errOut, st = runCaddy(t, dir, args...)
		if st != cli.ExitUsage || !strings.Contains(errOut, c.msg) {
			t.Errorf("%v: status %d, %s", args, st, errOut)
		}
	}
}
