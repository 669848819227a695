package caddymodule

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/jimsmart/grobotstxt"

	"github.com/sitepolicy/caddy-robots/docs"
	"github.com/sitepolicy/caddy-robots/policycheck"
	"github.com/sitepolicy/caddy-robots/policycheck/cli"
)

// caddyBinary builds cmd/caddy-robots once for the tests that run it as users do, with the
// race detector when the tests have it (see raceEnabled).
var caddyBinary = sync.OnceValues(func() (string, error) {
	dir, err := os.MkdirTemp("", "caddy-robots-cmd")
	if err != nil {
		return "", err
	}
	binDir = dir // TestMain removes it
	bin := filepath.Join(dir, "caddy")
	cmd := exec.Command("go", goBuild("-o", bin, "./cmd/caddy-robots")...)
	cmd.Env = toolEnv()
	out, err := cmd.CombinedOutput()
	if err != nil {
		return "", fmt.Errorf("go build: %v\n%s", err, out)
	}
	return bin, nil
})

// raceEnabled is set when the tests are built with the race detector (race_test.go). It is a
// variable, not a constant of a file built only without -race, so that ./test.sh does not
// take this package for one with tests that run only without -race.
var raceEnabled bool

// binDir holds the binary caddyBinary built, if any.
var binDir string

// goBuild is the arguments of "go build args...", with -race when the tests have it.
func goBuild(args ...string) []string {
	if raceEnabled {
		return append([]string{"build", "-race"}, args...)
	}
	return append([]string{"build"}, args...)
}

// runCaddy runs the built binary in dir and returns stdout, stderr and the exit status.
func runCaddy(t *testing.T, dir string, args ...string) (string, string, int) {
	t.Helper()
	bin, err := caddyBinary()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(bin, args...)
	cmd.Dir = dir
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err = cmd.Run()
	status := 0
	if ee, ok := err.(*exec.ExitError); ok {
		status = ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	return stdout.String(), stderr.String(), status
}

// checkJSON is check's JSON output.
type checkJSON struct {
	policycheck.Report
	Server   string   `json:"server"`
	Handlers []string `json:"handlers"`
}

func TestRobotsCommandHelp(t *testing.T) {
	out, _, st := runCaddy(t, ".", "help")
	if st != 0 || !regexpLine(out, "robots", "Shows what a crawler sees at a URL") {
		t.Fatalf("caddy help (status %d) does not list robots:\n%s", st, out)
	}
	out, _, st = runCaddy(t, ".", "help", "robots")
	for _, want := range []string{"caddy robots check --config Caddyfile --url", "check ", "lint ", "Explains what a crawler sees at a URL", "Finds robots policies that defeat themselves"} {
		if st != 0 || !strings.Contains(out, want) {
			t.Errorf("caddy help robots (status %d) lacks %q:\n%s", st, want, out)
		}
	}
}

// TestModulesRegistered checks that the command the README runs carries this project's
// handlers and the standard modules the example site uses: the built binary's
// list-modules (here, not in a test of cmd/caddy-robots, whose test binary would be a
// second link of Caddy with -race).
func TestModulesRegistered(t *testing.T) {
	out, errOut, st := runCaddy(t, ".", "list-modules")
	if st != 0 {
		t.Fatalf("caddy list-modules: status %d\n%s", st, errOut)
	}
	listed := map[string]bool{}
	for _, l := range strings.Split(out, "\n") {
		listed[strings.TrimSpace(l)] = true
	}
	for _, id := range []string{
		"http.handlers.robots_txt",
		"http.handlers.robots_tag",
		"http.handlers.file_server",
		"http.handlers.encode",
		"http.handlers.reverse_proxy",
		"caddy.adapters.caddyfile",
	} {
		if !listed[id] {
			t.Errorf("module %s is not in caddy-robots (list-modules):\n%s", id, out)
		}
	}
}

func regexpLine(out, name, short string) bool {
	for _, l := range strings.Split(out, "\n") {
		f := strings.Fields(l)
		if len(f) > 1 && f[0] == name && strings.Contains(l, short) {
			return true
		}
	}
	return false
}

// exampleLine returns the line of Caddyfile.example (from 1) whose text, trimmed, starts with
// prefix, so that the expectations below follow the example when it is edited.
func exampleLine(t *testing.T, prefix string) int {
	t.Helper()
	b, err := os.ReadFile("../Caddyfile.example")
	if err != nil {
		t.Fatal(err)
	}
	for i, line := range strings.Split(string(b), "\n") {
		if strings.HasPrefix(strings.TrimSpace(line), prefix) {
			return i + 1
		}
	}
	t.Fatalf("Caddyfile.example has no line starting with %q", prefix)
	return 0
}

// TestRobotsCommandExample runs check and lint on Caddyfile.example.
func TestRobotsCommandExample(t *testing.T) {
	at := func(prefix string) string { return fmt.Sprintf("Caddyfile.example:%d", exampleLine(t, prefix)) }
	robotsTxt := at("robots_txt {")
	siteWide, drafts, pdf, articles := at("robots_tag max-image-preview=large {"), at("robots_tag /drafts/*"), at("robots_tag @pdf"), at("robots_tag /articles/*")
	usageRoute := at("robots_tag @notOpenData")
	for _, tc := range []struct {
		args   []string
		status int
		want   []string
	}{
		{[]string{"check", "--url", "http://localhost:8080/drafts/x", "--agent", "Googlebot"}, 1, []string{
			"Server:   srv0 (robots_txt at " + robotsTxt + ", robots_tag at " + drafts + ", robots_tag at " + usageRoute + ", robots_tag at " + siteWide + ")",
			"robots.txt: DISALLOWED for /drafts/x (file from " + robotsTxt + ", as served at http://localhost:8080/robots.txt)",
			"rule:   line 13: Disallow: /drafts/",
			`HTML <head>:    <meta name="robots" content="noindex, nosnippet, max-image-preview:large"><meta name="gptbot" content="noindex">`,
			"Content-Usage:  train-ai=n, search=y",
			"Enforcement: passes",
		}},
		{[]string{"check", "--url", "http://localhost:8080/articles/a.html", "--agent", "Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)"}, 0, []string{
			"robots.txt: ALLOWED for /articles/a.html",
			"robots_tag at " + articles,
			"rules for Googlebot: max-image-preview=large, max-snippet=50, unavailable_after=2027-01-01T00:00:00Z",
			"Content-Signal: ai-input=yes, ai-train=no, search=yes",
		}},
		{[]string{"check", "--url", "http://localhost:8080/open-data/stations.csv", "--agent", "Googlebot"}, 0, []string{
			"robots_tag at " + at("robots_tag /open-data/*"),
			"Content-Usage:  train-ai=y, search=y",
		}},
		{[]string{"check", "--url", "http://localhost:8080/reports/a.pdf", "--agent", "GPTBot", "--backend-header", "Robots-Tag: noarchive"}, 1, []string{
			"(User-agent: GPTBot, User-agent: CCBot, User-agent: Google-Extended, User-agent: Bytespider)",
			"robots_tag at " + pdf,
			"backend sends   Robots-Tag: noarchive",
			"Robots-Tag:     *;noindex;max-image-preview=large;noarchive, gptbot;noindex",
			"Enforcement: BLOCKED with 403",
		}},
		{[]string{"check", "--url", "http://localhost:8080/robots.txt"}, 0, []string{"Response tags: none (the robots.txt responder answers this URL itself)"}},
		{[]string{"lint"}, 1, []string{
			siteWide[:len("Caddyfile.example:")] + fmt.Sprint(exampleLine(t, "agent GPTBot noindex")) + ": warning: robots_tag gives GPTBot noindex on every path",
			drafts + ": warning: robots_tag gives every crawler (*) noindex on /drafts/*",
			at("sitemap https://news.example.com/") + ": info: sitemap \"https://news.example.com/news-sitemap.xml\"",
			at("except Applebot") + ": info: Applebot, left out of the preset group by except, reads the * group instead",
			"0 errors, 2 warnings, 3 infos",
		}},
	} {
		args := append(append([]string{"robots"}, tc.args...), "--config", "Caddyfile.example")
		out, errOut, st := runCaddy(t, "..", args...)
		if st != tc.status {
			t.Errorf("%v: status %d, want %d\n%s\n%s", tc.args, st, tc.status, out, errOut)
			continue
		}
		for _, w := range tc.want {
			if !strings.Contains(out, w) {
				t.Errorf("%v: output lacks %q:\n%s", tc.args, w, out)
			}
		}
	}
}

// TestLintPresetUserFetchersFix: Caddyfile.example with its preset widened to ai-all, as it
// once was, gets lint's warning naming the link previews and user-triggered fetchers that
// enforce refuses; the except line of the fix, pasted into the preset block, is a Caddyfile
// that loads, and lint then says nothing of them; a real Caddy serving it lets them read
// articles.
func TestLintPresetUserFetchersFix(t *testing.T) {
	const narrow = "preset ai-training ai-search {"
	src := exampleCaddyfile(t, 8080, "off")
	if strings.Count(src, narrow) != 1 {
		t.Fatalf("Caddyfile.example has no line %q", narrow)
	}
	wide := strings.Replace(src, narrow, "preset ai-all {", 1)
	dir := t.TempDir()
	lint := func(cfg string) policycheck.Finding {
		t.Helper()
		if err := os.WriteFile(filepath.Join(dir, "Caddyfile"), []byte(cfg), 0o644); err != nil {
			t.Fatal(err)
		}
		out, errOut, _ := runCaddy(t, dir, "robots", "lint", "--config", "Caddyfile", "--format", "json")
		var r struct{ Findings []policycheck.Finding }
		if err := json.Unmarshal([]byte(out), &r); err != nil {
			t.Fatalf("%v\n%s\n%s", err, out, errOut)
		}
		for _, f := range r.Findings {
			if f.Lint == policycheck.LintPresetUserFetchers {
				return f
			}
		}
		return policycheck.Finding{}
	}
	f := lint(wide)
	for _, name := range []string{"facebookexternalhit", "Meta-ExternalFetcher", "ChatGPT-User", `"ChatGPT Agent"`} {
		if !strings.Contains(f.Message+f.Fix, name) {
			t.Errorf("the warning does not name %s: %+v", name, f)
		}
	}
	if f.Location.Line != 1+strings.Count(wide[:strings.Index(wide, "preset ai-all {")], "\n") {
		t.Errorf("the warning is at line %d, not the preset's", f.Location.Line)
	}
	except, ok := strings.CutPrefix(f.Fix, "to keep them, add to the preset block: ")
	if !ok {
		t.Fatalf("fix %q", f.Fix)
	}
	fixed := strings.Replace(wide, "preset ai-all {", "preset ai-all {\n\t\t\t"+except, 1)
	if err := loadCaddyfile(fixed, "Caddyfile"); err != nil {
		t.Fatalf("the fix does not load: %v", err)
	}
	if f := lint(fixed); f.Lint != "" {
		t.Errorf("with the fix: %+v", f)
	}
	startCaddyfile(t, strings.Replace(fixed[strings.Index(fixed, "http://localhost:8080 {"):], "http://localhost:8080 {", "http://localhost:@PORT@ {", 1))
	for _, ua := range personFetchers() {
		if resp, _ := do(t, "GET", siteURL("/articles/first.html"), "User-Agent: "+ua+"/1.0"); resp.StatusCode == 403 {
			t.Errorf("%q is refused an article with the fix", ua)
		}
	}
}

// TestRobotsCommandAgreesWithCaddy serves a config in the in-process Caddy and checks that
// check's JSON output for the same Caddyfile says what the server sends: the Robots-Tag and
// X-Robots-Tag fields, the meta elements of the page, and (by Google's parser) the
// robots.txt decision; and that enforcement blocks what check says it blocks.
func TestRobotsCommandAgreesWithCaddy(t *testing.T) {
	site := `
http://localhost:@PORT@ {
	robots_txt {
		group * {
			disallow /private/
			content_usage train-ai=n
		}
		group GPTBot {
			disallow /articles/
		}
		enforce 451
	}
	robots_tag max-image-preview=large
	robots_tag /drafts/* noindex {
		agent Googlebot nosnippet
		meta
		x_robots_tag
	}
	@pdf path *.pdf
	robots_tag @pdf noindex
	handle_path /blog/* {
		robots_tag /drafts/* noarchive
	}
	header Content-Type text/html
	respond "<html><head><title>t</title></head><body>x</body></html>" 200
}
`
	startCaddyfile(t, site)
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "Caddyfile"), []byte(globals()+expand(site)), 0o644); err != nil {
		t.Fatal(err)
	}
	_, robots := do(t, "GET", siteURL("/robots.txt"))
	for _, path := range []string{"/", "/drafts/a", "/drafts/a.pdf", "/private/x", "/articles/y", "/a.PDF", "/robots.txt", "/blog/drafts/a", "/blog/x"} {
		for _, agent := range []string{"Googlebot", "GPTBot", "Mozilla/5.0 (compatible; GPTBot/1.1; +https://openai.com/gptbot)"} {
			out, errOut, st := runCaddy(t, dir, "robots", "check", "--format", "json", "--url", siteURL(path), "--agent", agent)
			var rep checkJSON
			if err := json.Unmarshal([]byte(out), &rep); err != nil || st > 1 {
				t.Fatalf("%s %s: status %d, %v\n%s\n%s", path, agent, st, err, out, errOut)
			}
			if (st == 0) != rep.Allowed {
				t.Errorf("%s %s: status %d but allowed %v", path, agent, st, rep.Allowed)
			}
			if path != "/robots.txt" {
				if g := grobotstxt.AgentAllowed(string(robots), rep.ProductToken, siteURL(path)); g != rep.Allowed {
					t.Errorf("%s %s: check %v, grobotstxt %v", path, agent, rep.Allowed, g)
				}
			}
			resp, body := do(t, "GET", siteURL(path), "User-Agent: "+agent)
			if rep.Enforcement.Blocked != (resp.StatusCode == 451) {
				t.Errorf("%s %s: served %d %s, check's enforcement %+v", path, agent, resp.StatusCode, body, rep.Enforcement)
			}
			if resp.StatusCode != http.StatusOK {
				continue
			}
			if got := strings.Join(resp.Header.Values("Robots-Tag"), ", "); got != rep.Response.RobotsTag {
				t.Errorf("%s %s: served Robots-Tag %q, check %q", path, agent, got, rep.Response.RobotsTag)
			}
			if got := strings.Join(resp.Header.Values("X-Robots-Tag"), "|"); got != strings.Join(rep.Response.XRobotsTag, "|") {
				t.Errorf("%s %s: served X-Robots-Tag %q, check %q", path, agent, got, rep.Response.XRobotsTag)
			}
			if got := strings.Join(resp.Header.Values("Content-Usage"), ", "); got != rep.Response.ContentUsage {
				t.Errorf("%s %s: served Content-Usage %q, check %q", path, agent, got, rep.Response.ContentUsage)
			}
			if path == "/blog/drafts/a" && !strings.Contains(rep.Response.RobotsTag, "noarchive") {
				t.Errorf("%s: the route inside handle_path is missing: %q", path, rep.Response.RobotsTag)
			}
			if path != "/robots.txt" && !strings.Contains(string(body), "<head>"+rep.Response.Meta+"<title>") {
				t.Errorf("%s %s: page %s, check's meta %q", path, agent, body, rep.Response.Meta)
			}
		}
	}
}

// TestRobotsCommandErrors runs the commands on bad configs and bad usage: status 2 and a
// message naming the problem (the Caddyfile line for a config error).
func TestRobotsCommandErrors(t *testing.T) {
	dir := t.TempDir()
	write := func(name, content string) {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("bad-rule.caddyfile", "http://localhost:9999 {\n\trobots_tag /a/* noindex\n\trobots_tag /b/* noindx\n\trespond ok\n}\n")
	write("syntax.caddyfile", "http://localhost:9999 {\n\trobots_txt {\n\t\tgroup * {\n\t\t\tdisallow\n\t\t}\n\t}\n")
	write("theirs.txt", "User-agent: FooBot\nAllow: /open\nDisallow: /private\n")
	write("clean.caddyfile", "http://localhost:9999 {\n\trobots_txt {\n\t\tgroup * {\n\t\t\tdisallow /admin/\n\t\t\tcontent_usage train-ai=n\n\t\t}\n\t}\n\trobots_tag /drafts/* noindex\n\trespond ok\n}\n")
	write("site.json", `{"apps": {"http": {"servers": {"s": {"listen": [":9999"], "routes": [{"handle": [
		{"handler": "robots_txt", "groups": [{"user_agents": ["Googlebto"], "rules": [{"type": "disallow", "path": "/"}]}]},
		{"handler": "static_response", "body": "ok"}]}]}}}}}`)
	for _, tc := range []struct {
		args   []string
		status int
		stdout string
		stderr string
	}{
		{[]string{"lint", "--config", "bad-rule.caddyfile"}, 2, "", "bad-rule.caddyfile:3"},
		{[]string{"check", "--config", "bad-rule.caddyfile", "--url", "http://localhost:9999/"}, 2, "", "noindx"},
		{[]string{"lint", "--config", "syntax.caddyfile"}, 2, "", "syntax.caddyfile:4"},
		{[]string{"lint", "--config", "missing.caddyfile"}, 2, "", "missing.caddyfile"},
		{[]string{"check", "--config", "clean.caddyfile"}, 2, "", "--url is required"},
		{[]string{"check", "--config", "clean.caddyfile", "--url", "/x"}, 2, "", "absolute http or https URL"},
		{[]string{"check", "--config", "clean.caddyfile", "--url", "http://localhost:8081/x"}, 2, "", "no server of the config listens on port 8081"},
		{[]string{"check", "--config", "clean.caddyfile", "--url", "http://localhost:9999/x", "--nope"}, 2, "", "unknown flag: --nope"},
		{[]string{"lint", "--config", "clean.caddyfile", "--format", "xml"}, 2, "", `--format "xml"`},
		{[]string{"lint", "--config", "clean.caddyfile", "extra"}, 2, "", `unexpected argument "extra"`},
		{[]string{"lint", "--config", "clean.caddyfile"}, 0, "no findings", ""},
		// With --format json an error is JSON on stdout too (found by review).
		{[]string{"lint", "--config", "bad-rule.caddyfile", "--format", "json"}, 2, `"error": `, "bad-rule.caddyfile:3"},
		{[]string{"check", "--config", "missing.caddyfile", "--url", "http://localhost:9999/", "--format", "json"}, 2, `"problems": [`, "missing.caddyfile"},
		{[]string{"check", "--robots-file", "theirs.txt", "--url", "https://other.example/private/x", "--agent", "FooBot"}, 1, "rule:   line 3: Disallow: /private", ""},
		{[]string{"check", "--robots-file", "theirs.txt", "--url", "https://other.example/open", "--agent", "FooBot"}, 0, "robots.txt: ALLOWED for /open (file theirs.txt)", ""},
		{[]string{"check", "--config", "clean.caddyfile", "--url", "http://localhost:9999/admin/x"}, 1, "rule:   line 2: Disallow: /admin/", ""},
		{[]string{"lint", "--config", "site.json"}, 1, `apps.http.servers.s.routes[0].handle[0].groups[0].user_agents[0]: warning: robots.txt group for "Googlebto"`, ""},
	} {
		out, errOut, st := runCaddy(t, dir, append([]string{"robots"}, tc.args...)...)
		if st != tc.status || !strings.Contains(out, tc.stdout) || !strings.Contains(errOut, tc.stderr) {
			t.Errorf("%v: status %d (want %d)\nstdout (want %q):\n%s\nstderr (want %q):\n%s", tc.args, st, tc.status, tc.stdout, out, tc.stderr, errOut)
		}
	}
}

// TestRobotsCommandLintLines: findings name the Caddyfile line of the field at fault, also
// for handlers with equal JSON in two sites, and lint works per site block.
func TestRobotsCommandLintLines(t *testing.T) {
	dir := t.TempDir()
	caddyfile := `http://a.example:9999 {
	robots_txt {
		sitemap /sitemap.xml
		group Googlebot {
			disallow /x
			crawl_delay 3
		}
		group Bingbot {
			allow /shop/
			disallow /shop/*
		}
	}
	robots_tag noindex nofollow
	robots_tag /drafts/* noindex
	respond ok
}

http://b.example:9999, http://c.example:9999 {
	robots_txt {
		sitemap /sitemap.xml
		group * {
			disallow /x
		}
	}
	robots_tag {
		agent GTPBot noindex
	}
	respond ok
}
`
	if err := os.WriteFile(filepath.Join(dir, "Caddyfile"), []byte(caddyfile), 0o644); err != nil {
		t.Fatal(err)
	}
	out, errOut, st := runCaddy(t, dir, "robots", "lint", "--format", "json")
	if st != 1 {
		t.Fatalf("status %d\n%s\n%s", st, out, errOut)
	}
	var res cli.LintResult
	if err := json.Unmarshal([]byte(out), &res); err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	for _, f := range res.Findings {
		got[f.Lint+"@"+fmt.Sprint(f.Location.Line)] = f.Site
	}
	for _, want := range []string{
		policycheck.LintCrawlDelayGoogle + "@6",
		policycheck.LintShadowedRule + "@9",
		policycheck.LintRedundantRoute + "@14",
		policycheck.LintMisspeltCrawler + "@26",
		policycheck.LintRelativeSitemap + "@20",
		policycheck.LintTrainingUnstated + "@2",
		policycheck.LintTrainingUnstated + "@19",
	} {
		if _, ok := got[want]; !ok {
			t.Errorf("no finding %s in %v\n%s", want, got, out)
		}
	}
	if _, ok := got[policycheck.LintRelativeSitemap+"@3"]; ok {
		t.Errorf("relative sitemap reported for the one-host site: %v", got)
	}
	if len(res.Findings) != 7 {
		t.Errorf("%d findings, want 7:\n%s", len(res.Findings), out)
	}
}

// docBlockCommand returns the "$ prefix ..." command of the console block after the marker
// <!-- test: name --> of the Markdown file at path, with its output and the exit status the
// block ends with ("[exit status N]").
func docBlockCommand(t *testing.T, path, name, prefix string) consoleBlock {
	t.Helper()
	block := docBlock(t, path, name, "console")
	cmdLine, out, _ := strings.Cut(block, "\n")
	args, ok := strings.CutPrefix(cmdLine, "$ "+prefix+" ")
	if !ok {
		t.Fatalf("%s, block %s: %q does not run %s", path, name, cmdLine, prefix)
	}
	i := strings.LastIndex(out, "[exit status ")
	if i < 0 {
		t.Fatalf("%s, block %s: %q has no exit status", path, name, cmdLine)
	}
	var st int
	if _, err := fmt.Sscanf(out[i:], "[exit status %d]", &st); err != nil {
		t.Fatal(err)
	}
	return consoleBlock{args: shellWords(t, args), out: out[:i], status: st}
}

type consoleBlock struct {
	args   []string
	out    string
	status int
}

// shellWords splits a command line at spaces, keeping 'single-quoted' words whole.
func shellWords(t *testing.T, s string) []string {
	var words []string
	var w strings.Builder
	inWord, quoted := false, false
	for _, r := range s {
		switch {
		case r == '\'':
			quoted, inWord = !quoted, true
		case r == ' ' && !quoted:
			if inWord {
				words = append(words, w.String())
				w.Reset()
			}
			inWord = false
		default:
			w.WriteRune(r)
			inWord = true
		}
	}
	if quoted {
		t.Fatalf("unbalanced quote in %q", s)
	}
	if inWord {
		words = append(words, w.String())
	}
	return words
}

// checkMarkers name the console blocks of docs/check.md that run "./caddy-robots robots".
var checkMarkers = []string{"check-drafts", "check-backend-header", "check-identity", "check-signature", "lint-example", "check-pay", "lint-pay"}

// TestREADMECheckOutput runs the "./caddy-robots robots" commands of docs/check.md from the
// repository root and compares their output and exit status with the page, so the
// documentation shows real output. A console block that runs ./caddy-robots without one of
// checkMarkers, anywhere in the documentation, fails the test: none goes unchecked.
func TestREADMECheckOutput(t *testing.T) {
	for _, page := range docPages(t) {
		blocks, err := docs.Blocks(page.src)
		if err != nil {
			t.Fatalf("%s: %v", page.path, err)
		}
		for _, b := range blocks {
			if b.Info == "console" && strings.HasPrefix(b.Text, "$ ./caddy-robots ") && (page.path != "../docs/check.md" || !slices.Contains(checkMarkers, b.Marker)) {
				t.Errorf("%s:%d: a console block runs ./caddy-robots without a marker this test checks (%v in docs/check.md)", page.path, b.Line, checkMarkers)
			}
		}
	}
	for _, name := range checkMarkers {
		b := docBlockCommand(t, "../docs/check.md", name, "./caddy-robots")
		out, errOut, st := runCaddy(t, "..", b.args...)
		if out != b.out || st != b.status {
			t.Errorf("caddy %s: status %d (docs/check.md: %d); output:\n%s\ndocs/check.md:\n%s\nstderr:\n%s", strings.Join(b.args, " "), st, b.status, out, b.out, errOut)
		}
	}
}

// TestRobotsCommandCaddyfileErrorJSON: with --format json, a Caddyfile the adapter refuses
// gives one problem per error, each with its file and line, the token or value at fault, the
// field when the problem concerns one, and the suggestion, whether the error comes from the
// robots directives or from Caddy itself.
func TestRobotsCommandCaddyfileErrorJSON(t *testing.T) {
	dir := t.TempDir()
	site := func(body string) string { return "http://localhost:9999 {\n" + body + "\trespond ok\n}\n" }
	for _, tc := range []struct {
		name, caddyfile string
		want            []cli.Problem // Problem holds a part of the problem text
	}{
		{"misspelt sub-directive", site("\trobots_txt {\n\t\tgroup * {\n\t\t\tdissallow /x\n\t\t}\n\t}\n"), []cli.Problem{
			{Value: "dissallow", Suggestion: "disallow", Problem: `unknown sub-directive "dissallow"`, Location: &policycheck.Location{Line: 4}}}},
		{"rule at the top of robots_txt", site("\trobots_txt {\n\t\tdisallow /x\n\t}\n"), []cli.Problem{
			{Value: "disallow", Problem: "disallow goes inside a group", Location: &policycheck.Location{Line: 3}}}},
		{"not a duration", site("\trobots_txt {\n\t\tmax_age soon\n\t}\n"), []cli.Problem{
			{Value: "soon", Problem: `invalid duration "soon"`, Location: &policycheck.Location{Line: 3}}}},
		{"duration", site("\trobots_txt {\n\t\tmax_age 2d\n\t}\n"), []cli.Problem{
			{Path: "max_age", Value: "2d", Problem: "max_age must be at least 1s", Location: &policycheck.Location{Line: 3}}}},
		{"merge timeout", site("\trobots_txt {\n\t\tgroup * {\n\t\t\tdisallow /x\n\t\t}\n\t\tmerge_upstream 90s\n\t}\n"), []cli.Problem{
			{Path: "merge_upstream_timeout", Value: "90s", Problem: "a fetch timeout is more than 0 and at most 1m0s", Location: &policycheck.Location{Line: 6}}}},
		{"two user agents with versions", site("\trobots_txt {\n\t\tgroup Googlebot/2.1 {\n\t\t\tuser_agent bingbot/2.0\n\t\t\tdisallow /\n\t\t}\n\t}\n"), []cli.Problem{
			{Path: "groups[0].user_agents[0]", Value: "Googlebot/2.1", Suggestion: "Googlebot", Problem: "a product token may contain only", Location: &policycheck.Location{Line: 3}},
			{Path: "groups[0].user_agents[1]", Value: "bingbot/2.0", Suggestion: "bingbot", Problem: "a product token may contain only", Location: &policycheck.Location{Line: 4}}}},
		{"unknown rule", site("\trobots_tag /a/* noindex\n\trobots_tag /b/* noindx\n"), []cli.Problem{
			{Path: `rules["*"][0]`, Value: "noindx", Suggestion: "noindex", Problem: "unknown rule", Location: &policycheck.Location{Line: 3}}}},
		{"missing argument", site("\trobots_txt {\n\t\tgroup * {\n\t\t\tdisallow\n\t\t}\n\t}\n"), []cli.Problem{
			{Value: "disallow", Problem: "disallow needs at least one path pattern", Location: &policycheck.Location{Line: 4}}}},
		{"unknown directive", site("\trobots_txtt {\n\t\tgroup * {\n\t\t\tdisallow /x\n\t\t}\n\t}\n"), []cli.Problem{
			{Value: "robots_txtt", Problem: "unrecognized directive: robots_txtt", Location: &policycheck.Location{Line: 2}}}},
		{"another directive's error", site("\tencode bogus\n"), []cli.Problem{
			{Problem: "bogus", Location: &policycheck.Location{Line: 2}}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			name := strings.ReplaceAll(tc.name, " ", "-") + ".caddyfile"
			if err := os.WriteFile(filepath.Join(dir, name), []byte(tc.caddyfile), 0o644); err != nil {
				t.Fatal(err)
			}
			for _, args := range [][]string{
				{"robots", "lint", "--config", name, "--format", "json"},
				{"robots", "check", "--config", name, "--url", "http://localhost:9999/x", "--format", "json"},
			} {
				out, errOut, st := runCaddy(t, dir, args...)
				if st != 2 {
					t.Fatalf("%v: status %d, want 2\n%s\n%s", args, st, out, errOut)
				}
				var r cli.ErrorReport
				dec := json.NewDecoder(strings.NewReader(out))
				dec.DisallowUnknownFields()
				if err := dec.Decode(&r); err != nil {
					t.Fatalf("%v: %v\n%s", args, err, out)
				}
				if !strings.Contains(errOut, r.Error) {
					t.Errorf("%v: error %q is not the message on stderr %q", args, r.Error, errOut)
				}
				if len(r.Problems) != len(tc.want) {
					t.Fatalf("%v: problems %+v, want %d", args, r.Problems, len(tc.want))
				}
				for i, w := range tc.want {
					p := r.Problems[i]
					if p.Path != w.Path || p.Value != w.Value || p.Suggestion != w.Suggestion || !strings.Contains(p.Problem, w.Problem) ||
						p.Location == nil || p.Location.File != name || p.Location.Line != w.Location.Line || p.Location.JSONPath != "" {
						t.Errorf("%v: problem %d is %+v at %+v; want %+v at %s:%d", args, i, p, p.Location, w, name, w.Location.Line)
					}
				}
			}
		})
	}
}
