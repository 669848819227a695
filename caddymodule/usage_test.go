package caddymodule

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/caddyserver/caddy/v2/caddyconfig"
	"github.com/caddyserver/caddy/v2/caddytest"

	"github.com/sitepolicy/caddy-robots/robotsgen"
	"github.com/sitepolicy/caddy-robots/usage"
)

// usageSite is the publisher policy: search yes, AI training no, an open-data path
// that may be trained on, in robots.txt (both vocabularies) and in response headers.
const usageSite = `
http://localhost:@PORT@ {
	robots_txt {
		group * {
			disallow /private/
			content_usage train-ai=n search=y
			content_usage /open-data/ train-ai=y search=y
			content_signal search=yes ai-input=yes ai-train=no
			content_signal /open-data/ search=yes ai-train=yes
		}
		group GPTBot {
			disallow /
		}
	}
	robots_tag /articles/* noindex {
		content_usage train-ai=n
	}
	@notOpen not path /open-data/*
	robots_tag @notOpen {
		content_usage search=y train-ai={env.CADDY_ROBOTS_TEST_TRAIN}
	}
	robots_tag /open-data/* {
		content_usage train-ai=y
	}
	header /backend/* Content-Usage "search=n, foo=y"
	header /broken/* Content-Usage "Train-AI=y"
	respond "ok"
}
`

const usageRobotsTxt = `User-agent: *
Disallow: /private/
Content-Usage: train-ai=n, search=y
Content-Usage: /open-data/ train-ai=y, search=y
Content-Signal: search=yes, ai-input=yes, ai-train=no
Content-Signal: /open-data/ search=yes, ai-train=yes

User-agent: GPTBot
Disallow: /
`

// usageResponses checks robots.txt and the Content-Usage field of the site's responses.
func usageResponses(t *testing.T) map[string]string {
	t.Helper()
	resp, body := do(t, "GET", siteURL("/robots.txt"))
	wantStatus(t, resp, 200)
	if string(body) != usageRobotsTxt {
		t.Errorf("robots.txt:\n%s\nwant\n%s", body, usageRobotsTxt)
	}
	f, diags := robotsgen.Parse(body)
	if len(diags) > 0 {
		t.Errorf("diagnostics %v", diags)
	}
	m := robotsgen.NewMatcher(f)
	for _, c := range []struct{ agent, path, cu, cs string }{
		{"Googlebot", "/article", "train-ai=n, search=y", "search=yes, ai-input=yes, ai-train=no"},
		{"Googlebot", "/open-data/a.csv", "train-ai=y, search=y", "search=yes, ai-train=yes"},
		{"Googlebot", "/private/x", "", ""},
		{"GPTBot", "/open-data/a.csv", "", ""},
	} {
		if got := m.Preferences(usage.ContentUsage, c.agent, "", c.path).String(); got != c.cu {
			t.Errorf("%s %s: Content-Usage %q, want %q", c.agent, c.path, got, c.cu)
		}
		if got := m.Preferences(usage.ContentSignal, c.agent, "", c.path).String(); got != c.cs {
			t.Errorf("%s %s: Content-Signal %q, want %q", c.agent, c.path, got, c.cs)
		}
	}
	got := map[string]string{}
	for path, want := range map[string]string{
		"/":                   "train-ai=n, search=y",
		"/articles/a":         "train-ai=n, search=y",
		"/open-data/a.csv":    "train-ai=y",
		"/backend/x":          "train-ai=n, search=n, foo=y", // the backend's own, combined; foo passed on
		"/broken/x":           "train-ai=n, search=y",        // unparsable, and its one member a y: left out
		"/open-data/../x.csv": "train-ai=n, search=y",
	} {
		resp, _ := do(t, "GET", siteURL(path))
		lines := resp.Header.Values("Content-Usage")
		if len(lines) != 1 || lines[0] != want {
			t.Errorf("%s: Content-Usage %q, want %q", path, lines, want)
		}
		got[path] = strings.Join(lines, "|") + " / " + strings.Join(resp.Header.Values("Robots-Tag"), "|")
	}
	// Preferences only: no Robots-Tag.
	if resp, _ := do(t, "GET", siteURL("/open-data/a.csv")); resp.Header.Get("Robots-Tag") != "" {
		t.Errorf("a content_usage-only route sent Robots-Tag %q", resp.Header.Get("Robots-Tag"))
	}
	return got
}

// TestContentUsageCaddy: robots.txt lines and the response header from a Caddyfile, then
// from the JSON that caddy adapt makes of it, with the same responses; the JSON has the
// fields nethttp reads.
func TestContentUsageCaddy(t *testing.T) {
	t.Setenv("CADDY_ROBOTS_TEST_TRAIN", "n")
	startCaddyfile(t, usageSite)
	fromCaddyfile := usageResponses(t)

	cfg := globals() + expand(usageSite)
	adapted, warnings, err := caddyconfig.GetAdapter("caddyfile").Adapt([]byte(cfg), map[string]any{"filename": "Caddyfile"})
	if err != nil || len(warnings) > 0 {
		t.Fatal(err, warnings)
	}
	for _, want := range []string{
		`"content_usage":[{"preferences":{"search":"y","train-ai":"n"}},{"path":"/open-data/","preferences":{"search":"y","train-ai":"y"}}]`,
		`"content_signal":[{"preferences":{"ai-input":"yes","ai-train":"no","search":"yes"}}`,
		`"content_usage":{"train-ai":"n"}`,
	} {
		if !bytes.Contains(adapted, []byte(want)) {
			t.Errorf("adapted JSON lacks %s:\n%s", want, adapted)
		}
	}
	tester := caddytest.NewTester(t)
	tester.InitServer(string(adapted), "json")
	if t.Failed() {
		t.FailNow()
	}
	if fromJSON := usageResponses(t); fmt.Sprint(fromJSON) != fmt.Sprint(fromCaddyfile) {
		t.Errorf("JSON config serves\n%v\nCaddyfile\n%v", fromJSON, fromCaddyfile)
	}
	// The handler JSON is nethttp's: it decodes with unknown fields refused.
	var doc struct {
		Apps struct {
			HTTP struct {
				Servers map[string]json.RawMessage
			}
		}
	}
	if err := json.Unmarshal(adapted, &doc); err != nil || !strings.Contains(string(adapted), `"handler":"robots_txt"`) {
		t.Fatal(err)
	}
}

// TestContentUsageCaddyfileErrors: mistakes are refused at their line.
func TestContentUsageCaddyfileErrors(t *testing.T) {
	adapter := caddyconfig.GetAdapter("caddyfile")
	for _, c := range []struct{ name, block, want string }{
		{"no preferences", "robots_txt {\n\tgroup * {\n\t\tcontent_usage\n\t}\n}", "content_usage needs preferences"},
		{"no equals", "robots_txt {\n\tgroup * {\n\t\tcontent_usage *.pdf train-ai=n\n\t}\n}", `"*.pdf": a preference is written key=value`},
		{"twice", "robots_txt {\n\tgroup * {\n\t\tcontent_signal ai-train=no ai-train=yes\n\t}\n}", `key "ai-train" given more than once`},
		{"tag no preferences", "robots_tag {\n\tcontent_usage\n}", "content_usage needs preferences"},
		{"tag with a path", "robots_tag {\n\tcontent_usage /a train-ai=n\n}", `"/a": robots_tag takes no path here: the route's matcher chooses the paths (robots_tag /a* { content_usage ... })`},
		{"tag no equals", "robots_tag {\n\tcontent_usage train-ai\n}", `"train-ai": a preference is written key=value, e.g. train-ai=y (allow) or train-ai=n (disallow); robots_tag takes no path here`},
		{"group bad key", "robots_txt {\n\tgroup * {\n\t\tcontent_usage /a train-ia=n\n\t}\n}", `not a Content-Usage key: the keys are train-ai, ai-use, search, and an extension is written +name (did you mean "train-ai"?), at Caddyfile:` + fmt.Sprint(strings.Count(globals(), "\n")+4)},
		{"group other vocabulary", "robots_txt {\n\tgroup * {\n\t\tcontent_signal train-ai=no\n\t}\n}", `Content-Usage's train-ai is ai-train in Content-Signal (did you mean "ai-train"?)`},
		{"group bad path", "robots_txt {\n\tgroup * {\n\t\tcontent_usage /a#b train-ai=n\n\t}\n}", `must not contain "#"`},
		{"group disallowed value", "robots_txt {\n\tgroup * {\n\t\tcontent_signal ai-train=n\n\t}\n}", `Content-Signal values are yes (allow) and no (disallow) (did you mean "no"?)`},
		{"tag extension syntax", "robots_tag {\n\tcontent_usage +Ai-Use=n\n}", `did you mean "+ai-use"?`},
		{"tag bad value", "robots_tag {\n\tcontent_usage\ttrain-ai=yes\n}", `"yes": Content-Usage values are y (allow) and n (disallow) (did you mean "y"?), at Caddyfile:` + fmt.Sprint(strings.Count(globals(), "\n")+3)},
	} {
		site := globals() + "http://localhost:" + fmt.Sprint(sitePort) + " {\n" + c.block + "\n}\n"
		_, _, err := adapter.Adapt([]byte(site), map[string]any{"filename": "Caddyfile"})
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want ...%s", c.name, err, c.want)
		}
	}
}

// TestContentUsageCaddyLogs: in a real Caddy, a preference rule for a path its own group
// disallows is logged at warn level when the config loads (it has no effect: preferences
// apply only to crawlable paths), a rule the group reopens with an Allow is not, and of a
// backend's Content-Usage that is not a Structured Field Dictionary only the members with
// the value n are kept (a y is never read from it), with a debug log naming the rest.
func TestContentUsageCaddyLogs(t *testing.T) {
	logFile := filepath.Join(t.TempDir(), "caddy.log")
	caddyTesterWithGlobals(t, `
	log {
		output file "`+logFile+`"
		level DEBUG
	}
`, `
http://localhost:@PORT@ {
	robots_txt {
		group * {
			disallow /private/ /drafts/
			allow /drafts/public/
			content_usage train-ai=n
			content_usage /private/ train-ai=y
			content_usage /drafts/ search=y
			content_signal /private/*.pdf ai-train=yes
		}
	}
	robots_tag {
		content_usage train-ai=n search=y
	}
	header /broken/* Content-Usage "Train-AI=y"
	header /two/* Content-Usage "search=y,"
	header /fine/* Content-Usage "search=n"
	header /keep/* Content-Usage "ai-input=n;src=cms, Search=n"
	respond "ok"
}
`)
	for path, want := range map[string]string{
		"/broken/x": "train-ai=n, search=y",
		"/two/x":    "train-ai=n, search=y",
		"/fine/x":   "train-ai=n, search=n",
		"/keep/x":   "train-ai=n, search=n, ai-input=n;src=cms",
	} {
		resp, _ := do(t, "GET", siteURL(path))
		wantStatus(t, resp, 200)
		if got := resp.Header.Values("Content-Usage"); len(got) != 1 || got[0] != want {
			t.Errorf("%s: Content-Usage %q, want %q", path, got, want)
		}
	}
	lines := func(level, part string) []string {
		b, _ := os.ReadFile(logFile)
		var out []string
		for _, l := range strings.Split(string(b), "\n") {
			if strings.Contains(l, `"level":"`+level+`"`) && strings.Contains(l, part) {
				out = append(out, l)
			}
		}
		return out
	}
	deadline := time.Now().Add(10 * time.Second)
	for len(lines("debug", "Content-Usage from the handler, not all passed on")) < 3 && time.Now().Before(deadline) {
		time.Sleep(100 * time.Millisecond)
	}
	dropped := lines("debug", "Content-Usage from the handler, not all passed on")
	if len(dropped) != 3 || !strings.Contains(strings.Join(dropped, "\n"), `Train-AI=y`) || !strings.Contains(strings.Join(dropped, "\n"), `search=y,`) {
		t.Errorf("debug logs for the dropped values:\n%s", strings.Join(dropped, "\n"))
	}
	if got := lines("debug", "search=n"); len(got) != 0 {
		t.Errorf("a valid backend value was logged:\n%s", strings.Join(got, "\n"))
	}
	var paths []string
	for _, l := range lines("warn", "has no effect") {
		var entry struct{ Path string }
		if err := json.Unmarshal([]byte(l), &entry); err != nil {
			t.Fatal(err)
		}
		paths = append(paths, entry.Path)
	}
	if want := []string{"groups[0].content_usage[1]", "groups[0].content_signal[0]"}; fmt.Sprint(paths) != fmt.Sprint(want) {
		t.Errorf("warnings at %q, want %q", paths, want)
	}
}

// TestREADMEUsageCaddyfile: the publisher policy of docs/ai-usage.md, in a real Caddy, serves
// the robots.txt the page shows and the Content-Usage header it describes.
func TestREADMEUsageCaddyfile(t *testing.T) {
	cfg := docBlock(t, "../docs/ai-usage.md", "usage-caddyfile", "caddyfile")
	served := docBlock(t, "../docs/ai-usage.md", "usage-robots-txt", "")
	startCaddyfile(t, "http://localhost:@PORT@ {\n"+cfg+"respond ok\n}\n")
	resp, body := do(t, "GET", siteURL("/robots.txt"))
	wantStatus(t, resp, 200)
	if string(body) != served {
		t.Errorf("robots.txt\n%s\ndocs/ai-usage.md shows\n%s", body, served)
	}
	for path, want := range map[string]string{
		"/":                  "train-ai=n, search=y",
		"/articles/a":        "train-ai=n, search=y",
		"/open-data/a.csv":   "train-ai=y, search=y",
		"/open-data-x/a.csv": "train-ai=n, search=y",
	} {
		resp, _ := do(t, "GET", siteURL(path))
		if got := resp.Header.Values("Content-Usage"); len(got) != 1 || got[0] != want {
			t.Errorf("%s: Content-Usage %q, want %q", path, got, want)
		}
	}
}
