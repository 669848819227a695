package caddymodule

import (
	"encoding/json"
	"fmt"
	"net/http"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/caddyserver/caddy/v2"
	"github.com/caddyserver/caddy/v2/caddyconfig"
	"github.com/caddyserver/caddy/v2/caddyconfig/caddyfile"
	_ "github.com/caddyserver/caddy/v2/caddyconfig/httpcaddyfile"

	"github.com/sitepolicy/caddy-robots/policy"
	"github.com/sitepolicy/caddy-robots/robotsgen"
)

// badCaddyfiles are configs that must be refused when Caddy loads them. The line the error must
// name is the one marked "# <-"; want is a part of the message that names the problem.
var badCaddyfiles = []struct {
	name, site, want string
}{
	{"robots_txt argument", `robots_txt everything # <-`, `unexpected argument "everything"`},
	{"robots_txt unknown sub-directive", "robots_txt {\n\tsitemapz /s.xml # <-\n}", `unknown sub-directive "sitemapz"`},
	{"comment without text", "robots_txt {\n\tcomment # <-\n}", "comment needs the text"},
	{"sitemap missing", "robots_txt {\n\tsitemap # <-\n}", "sitemap takes one absolute URL"},
	{"sitemap two", "robots_txt {\n\tsitemap /a.xml /b.xml # <-\n}", "got 2 arguments"},
	{"sitemap relative", "robots_txt {\n\tsitemap sitemap.xml # <-\n}", "absolute http(s) URL"},
	{"sitemap ftp", "robots_txt {\n\tsitemap ftp://example.com/s.xml # <-\n}", "absolute http(s) URL"},
	{"record one argument", "robots_txt {\n\trecord Host # <-\n}", "takes a key and a value"},
	{"record core key", "robots_txt {\n\trecord Disallow /x # <-\n}", "core key"},
	{"record bad key", "robots_txt {\n\trecord \"Bad Key\" x # <-\n}", "record key may contain only"},
	{"max_age bad", "robots_txt {\n\tmax_age soon # <-\n}", `invalid duration "soon"`},
	{"max_age zero", "robots_txt {\n\tmax_age 0s # <-\n}", "would mean the default"},
	{"max_age under a second", "robots_txt {\n\tmax_age 500ms # <-\n}", "must be at least 1s"},
	{"max_age over a day", "robots_txt {\n\tmax_age 2d # <-\n}", "at most 24h"},
	{"max_age twice", "robots_txt {\n\tmax_age 1h\n\tmax_age 2h # <-\n}", "max_age given twice"},
	{"group without crawler", "robots_txt {\n\tgroup { # <-\n\t\tdisallow /\n\t}\n}", "a group needs at least one user agent or purpose"},
	{"group bare", "robots_txt {\n\tgroup # <-\n}", "a group needs at least one user agent or purpose"},
	{"group bad token", "robots_txt {\n\tgroup Bad/Bot { # <-\n\t\tdisallow /\n\t}\n}", `"Bad/Bot": a product token may contain only`},
	{"group unknown sub-directive", "robots_txt {\n\tgroup * {\n\t\tdeny / # <-\n\t}\n}", `unknown sub-directive "deny"`},
	{"group User-Agent header unquoted", "robots_txt {\n\tgroup Mozilla/5.0 (compatible; bingbot/2.0; +http://www.bing.com/bingbot.htm) { # <-\n\t\tdisallow /\n\t}\n}", `"bingbot/2.0;": a product token may contain only A-Z, a-z, 0-9, "_" and "-" (RFC 9309 product tokens have no digits; a name with digits is accepted with a warning), or be "*" (did you mean "bingbot"?)`},
	{"group token and version", "robots_txt {\n\tgroup Googlebot 2.1 { # <-\n\t\tdisallow /\n\t}\n}", `"2.1": a product token may contain only A-Z, a-z, 0-9, "_" and "-" (RFC 9309 product tokens have no digits; a name with digits is accepted with a warning), or be "*"; this looks like a version number, which the token leaves out: name the crawler alone`},
	{"agent with version", "robots_tag {\n\tagent Googlebot-Image/1.0 noindex # <-\n}", `"Googlebot-Image/1.0": a product token may contain only A-Z, a-z, 0-9, "_" and "-" (RFC 9309 product tokens have no digits; a name with digits is accepted with a warning), or be "*" (did you mean "Googlebot-Image"?)`},
	{"user_agent missing", "robots_txt {\n\tgroup * {\n\t\tuser_agent # <-\n\t}\n}", "user_agent needs at least one product token"},
	{"user_agent dot", "robots_txt {\n\tgroup * {\n\t\tuser_agent Bot.2 # <-\n\t}\n}", `"Bot.2": a product token may contain only`},
	{"preset unknown", "robots_txt {\n\tpreset ai-trainnig { # <-\n\t\tdisallow /\n\t}\n}", `"ai-trainnig": a preset is a category of the crawler catalogue: ai-all, ai-assistants, ai-search, ai-training (did you mean "ai-training"?)`},
	{"preset bare", "robots_txt {\n\tpreset # <-\n}", "preset needs at least one category of the crawler catalogue: ai-all, ai-assistants, ai-search, ai-training"},
	{"preset in group unknown", "robots_txt {\n\tgroup ExampleBot {\n\t\tpreset ai-serch # <-\n\t}\n}", `"ai-serch": a preset is a category`},
	{"except misspelt", "robots_txt {\n\tpreset ai-training {\n\t\texcept GPTBot GoogleOthr # <-\n\t\tdisallow /\n\t}\n}", `"GoogleOthr": no crawler of the presets (ai-training) has this name: except takes crawler names as the catalogue writes them (case aside) (did you mean "GoogleOther"?)`},
	{"except of another category", "robots_txt {\n\tgroup ExampleBot {\n\t\tpreset ai-search\n\t\texcept GPTBot # <-\n\t\tdisallow /\n\t}\n}", `"GPTBot": GPTBot is a crawler of ai-all, ai-training, not of the presets it would be left out of (ai-search)`},
	{"except of the group's own agent", "robots_txt {\n\tgroup gptbot {\n\t\tpreset ai-training\n\t\tdisallow /\n\t\texcept GPTBot # <-\n\t}\n}", `the group names this crawler as its own user agent too (user_agents[0])`},
	{"except without preset", "robots_txt {\n\tgroup * {\n\t\texcept GPTBot # <-\n\t}\n}", `except leaves crawlers out of the presets beside it, and there are none here`},
	{"except bare", "robots_txt {\n\tpreset ai-training {\n\t\texcept # <-\n\t}\n}", "except needs at least one crawler of the group's presets"},
	{"enforce bad status", "robots_txt {\n\tpreset ai-all {\n\t\tdisallow /\n\t}\n\tenforce 302 # <-\n}", "400 to 599"},
	{"enforce not a number", "robots_txt {\n\tenforce forbidden # <-\n}", "the status is a number"},
	{"enforce twice", "robots_txt {\n\tpreset ai-all\n\tenforce\n\tenforce # <-\n}", "enforce given twice"},
	{"robots_tag preset unknown", "robots_tag {\n\tpreset ai-trainnig noindex # <-\n}", `did you mean "preset:ai-training"`},
	{"robots_tag except misspelt", "robots_tag {\n\tpreset ai-search noindex\n\texcept Aplebot # <-\n}", `"Aplebot": no crawler of the presets (ai-search) has this name: except takes crawler names as the catalogue writes them (case aside) (did you mean "Applebot"?)`},
	{"robots_tag except never a token", "robots_tag {\n\tpreset ai-assistants noindex\n\texcept \"ChatGPT Agent\" # <-\n}", `"ChatGPT Agent": this name is never a Robots-Tag token`},
	{"robots_tag except bare", "robots_tag {\n\tpreset ai-search noindex\n\texcept # <-\n}", "except needs at least one crawler of the presets"},
	{"robots_tag preset without rules", "robots_tag {\n\tpreset ai-training # <-\n}", "preset takes a category"},
	{"purpose bad token", "robots_txt {\n\tgroup {\n\t\tpurpose has.dot # <-\n\t}\n}", "purpose token may contain only"},
	{"allow missing", "robots_txt {\n\tgroup * {\n\t\tallow # <-\n\t}\n}", "allow needs at least one path pattern"},
	{"allow without slash", "robots_txt {\n\tgroup * {\n\t\tallow private # <-\n\t}\n}", `a pattern starts with "/" or "*"`},
	{"disallow with hash", "robots_txt {\n\tgroup * {\n\t\tdisallow \"/a#b\" # <-\n\t}\n}", `must not contain "#"`},
	{"disallow stray percent", "robots_txt {\n\tgroup * {\n\t\tdisallow /100%zz # <-\n\t}\n}", `"%" must start a percent-escape`},
	{"crawl_delay negative", "robots_txt {\n\tgroup * {\n\t\tcrawl_delay -1 # <-\n\t}\n}", "a crawl delay is a finite number of seconds >= 0"},
	{"crawl_delay not a number", "robots_txt {\n\tgroup * {\n\t\tcrawl_delay soon # <-\n\t}\n}", "a crawl delay is a finite number of seconds >= 0"},
	{"crawl_delay infinite", "robots_txt {\n\tgroup * {\n\t\tcrawl_delay +Inf # <-\n\t}\n}", "a crawl delay is a finite number of seconds >= 0"},
	{"crawl_delay twice", "robots_txt {\n\tgroup * {\n\t\tcrawl_delay 1\n\t\tcrawl_delay 2 # <-\n\t}\n}", "crawl_delay given twice"},
	{"group record Host", "robots_txt {\n\tgroup * {\n\t\trecord Host example.com # <-\n\t}\n}", "Host is a file-level record"},
	{"robots_tag without rules", "robots_tag # <-", "robots_tag: no rules"},
	{"robots_tag block without rules", "robots_tag { # <-\n\tmeta\n}", "robots_tag: no rules"},
	{"robots_tag unknown rule", "robots_tag noindx # <-", `noindx`},
	{"robots_tag rule all", "robots_tag all # <-", `rule "all"`},
	{"robots_tag bad value", "robots_tag max-snippet=lots # <-", `max-snippet`},
	{"robots_tag bad date", "robots_tag unavailable_after=tomorrow # <-", `unavailable_after`},
	{"robots_tag path pattern as a rule", "robots_tag *.pdf noindex # <-", "define a named matcher"},
	{"robots_tag unknown sub-directive", "robots_tag {\n\tnoindex # <-\n}", `unknown sub-directive "noindex"`},
	{"agent without rules", "robots_tag {\n\tagent GPTBot # <-\n}", "agent takes a product token (or *) and at least one rule"},
	{"agent bad token", "robots_tag {\n\tagent Bad.Bot noindex # <-\n}", `"Bad.Bot": a product token may contain only`},
	{"agent reserved token", "robots_tag {\n\tagent robots noindex # <-\n}", `is reserved`},
	{"agent bad rule", "robots_tag {\n\tagent GPTBot noindex nosnipet # <-\n}", `nosnipet`},
	{"meta with argument", "robots_tag noindex {\n\tmeta yes # <-\n}", "meta takes no arguments"},
	{"meta twice", "robots_tag noindex {\n\tmeta\n\tmeta # <-\n}", "meta given twice"},
	{"x_robots_tag with argument", "robots_tag noindex {\n\tx_robots_tag on # <-\n}", "x_robots_tag takes no arguments"},
	{"x_robots_tag twice", "robots_tag noindex {\n\tx_robots_tag\n\tx_robots_tag # <-\n}", "x_robots_tag given twice"},
	{"robots.txt over 500 KiB", "robots_txt { # <-\n\tgroup * {\n" + strings.Repeat("\t\tdisallow /"+strings.Repeat("a", 2000)+"\n", 300) + "\t}\n}", "over 512000 bytes"},
}

// badCaddyfile returns the whole Caddyfile of a case and the line the error must name.
func badCaddyfile(t *testing.T, site string) (string, int) {
	t.Helper()
	cfg := globals() + "http://localhost:" + fmt.Sprint(sitePort) + " {\n" + site + "\n}\n"
	line := 0
	for i, l := range strings.Split(cfg, "\n") {
		if strings.HasSuffix(l, "# <-") {
			if line != 0 {
				t.Fatal("two marked lines")
			}
			line = i + 1
		}
	}
	if line == 0 {
		t.Fatal("no line is marked")
	}
	return cfg, line
}

func TestBadCaddyfilesRefusedWithLine(t *testing.T) {
	if len(badCaddyfiles) < 20 {
		t.Fatalf("only %d bad Caddyfiles", len(badCaddyfiles))
	}
	adapter := caddyconfig.GetAdapter("caddyfile")
	for _, c := range slices.Concat(badCaddyfiles, badTDMCaddyfiles, badPayCaddyfiles) {
		t.Run(c.name, func(t *testing.T) {
			cfg, line := badCaddyfile(t, c.site)
			_, _, err := adapter.Adapt([]byte(cfg), map[string]any{"filename": "Caddyfile"})
			if err == nil {
				t.Fatalf("adapted without error:\n%s", cfg)
			}
			msg := err.Error()
			t.Log(msg)
			if !strings.Contains(msg, c.want) {
				t.Errorf("error %q does not name the problem %q", msg, c.want)
			}
			if !strings.Contains(msg, fmt.Sprintf("Caddyfile:%d", line)) {
				t.Errorf("error %q does not name the line Caddyfile:%d", msg, line)
			}
		})
	}
}

// loadRaw loads a config into the running Caddy as the admin endpoint's /load does (caddy
// reload), and returns the status the endpoint would answer and the error message.
func loadRaw(t *testing.T, cfg, contentType string) (int, string) {
	t.Helper()
	// Loaded in-process, as the admin API's /load loads it, rather than over HTTP: every load
	// replaces Caddy's admin server, stopping the old one asynchronously, so the next POST
	// could reach the old listener as it closed and be reset (a flaky test, not a bug).
	if contentType == "text/caddyfile" {
		adapted, _, err := caddyconfig.GetAdapter("caddyfile").Adapt([]byte(cfg), map[string]any{"filename": "Caddyfile"})
		if err != nil {
			return http.StatusBadRequest, err.Error()
		}
		cfg = string(adapted)
	}
	if err := caddy.Load([]byte(cfg), true); err != nil {
		return http.StatusBadRequest, err.Error()
	}
	return http.StatusOK, ""
}

// TestBadReloadKeepsServing loads a good config, then bad Caddyfiles and bad JSON configs
// as the admin API's /load does: each is refused with a message naming the problem (and, for a
// Caddyfile, its line), and the running config keeps serving.
func TestBadReloadKeepsServing(t *testing.T) {
	startCaddyfile(t, `
http://localhost:@PORT@ {
	robots_tag noindex
	robots_txt {
		group * {
			disallow /private/
		}
	}
	respond "still serving"
}
`)
	stillServing := func() {
		t.Helper()
		resp, body := do(t, "GET", siteURL("/"))
		if resp.StatusCode != 200 || string(body) != "still serving" || resp.Header.Get("Robots-Tag") != "*;noindex" {
			t.Fatalf("the running config stopped serving: %d %q %v", resp.StatusCode, body, resp.Header)
		}
		_, rb := do(t, "GET", siteURL("/robots.txt"))
		if !strings.Contains(string(rb), "Disallow: /private/") {
			t.Fatalf("robots.txt changed: %q", rb)
		}
	}
	stillServing()

	for _, c := range badCaddyfiles[:8] {
		cfg, line := badCaddyfile(t, c.site)
		status, msg := loadRaw(t, cfg, "text/caddyfile")
		if status == 200 {
			t.Fatalf("%s: loaded", c.name)
		}
		if !strings.Contains(msg, c.want) || !strings.Contains(msg, fmt.Sprintf("Caddyfile:%d", line)) {
			t.Errorf("%s: load error %q; want %q at Caddyfile:%d", c.name, msg, c.want, line)
		}
		stillServing()
	}

	// Provision errors, from JSON configs (and from placeholders, which are replaced there).
	t.Setenv("CADDY_ROBOTS_BAD_SITEMAP", "not a url")
	t.Setenv("CADDY_ROBOTS_BAD_AGENT", "bad.bot")
	t.Setenv("CADDY_ROBOTS_BAD_RULE", "noindexx")
	t.Setenv("CADDY_ROBOTS_BAD_KEY", "train-aii")
	t.Setenv("CADDY_ROBOTS_BAD_FILE", "/nonexistent/robots.txt")
	jsonCases := []struct {
		name, handler, want string
	}{
		{"unknown rule", `{"handler":"robots_tag","rules":{"*":["noindx"]}}`, `unknown rule "noindx"`},
		{"no rules", `{"handler":"robots_tag","rules":{}}`, "no rules"},
		{"misspelt field", `{"handler":"robots_tag","rule":{"*":["noindex"]}}`, `unknown field "rule"`},
		{"bad product token", `{"handler":"robots_tag","rules":{"Bad Bot":["noindex"]}}`, `rules["Bad Bot"] "Bad Bot": a product token may contain only`},
		{"placeholder rule", `{"handler":"robots_tag","rules":{"*":["{env.CADDY_ROBOTS_BAD_RULE}"]}}`, `noindexx`},
		{"placeholder token", `{"handler":"robots_tag","rules":{"{env.CADDY_ROBOTS_BAD_AGENT}":["noindex"]}}`, `rules["bad.bot"] "bad.bot": a product token may contain only`},
		{"robots.txt bad user agent", `{"handler":"robots_txt","groups":[{"user_agents":["bad bot"]}]}`, "a product token may contain only"},
		{"robots.txt rule type", `{"handler":"robots_txt","groups":[{"user_agents":["*"],"rules":[{"type":"deny","path":"/"}]}]}`, `"deny": a rule type is "allow" or "disallow"`},
		{"robots.txt negative max_age", `{"handler":"robots_txt","max_age":"-1h"}`, `max_age "-1h0m0s": max_age must be at least 1s`},
		{"robots.txt bad max_age", `{"handler":"robots_txt","max_age":"soon"}`, `invalid duration "soon"`},
		{"robots.txt max_age over a day", `{"handler":"robots_txt","max_age":"48h"}`, "at most 24h"},
		{"robots.txt placeholder sitemap", `{"handler":"robots_txt","sitemaps":["{env.CADDY_ROBOTS_BAD_SITEMAP}"]}`, `"not a url": a sitemap is an absolute http(s) URL`},
		{"robots.txt request placeholder", `{"handler":"robots_txt","groups":[{"user_agents":["*"],"rules":[{"type":"disallow","path":"/s/{http.request.host}"}]}]}`, `groups[0].rules[0].path "/s/{http.request.host}": unrecognized placeholder {http.request.host}`},
		{"request placeholder rule", `{"handler":"robots_tag","rules":{"*":["{http.request.uri.query}"]}}`, `unrecognized placeholder {http.request.uri.query}`},
		// Every string is replaced: preference keys, a group's preferences, merge_file.
		{"placeholder preference key", `{"handler":"robots_tag","content_usage":{"{env.CADDY_ROBOTS_BAD_KEY}":"n"}}`, `content_usage["train-aii"]`},
		{"robots.txt placeholder preference", `{"handler":"robots_txt","groups":[{"user_agents":["*"],"content_usage":[{"path":"/","preferences":{"{env.CADDY_ROBOTS_BAD_KEY}":"n"}}]}]}`, `groups[0].content_usage[0].preferences["train-aii"]`},
		{"robots.txt placeholder merge_file", `{"handler":"robots_txt","merge_file":"{env.CADDY_ROBOTS_BAD_FILE}"}`, `merge_file "/nonexistent/robots.txt"`},
		{"robots.txt misspelt field", `{"handler":"robots_txt","sitemap":["/s.xml"]}`, `unknown field "sitemap"`},
	}
	for _, c := range jsonCases {
		cfg := fmt.Sprintf(`{"admin":{"listen":"localhost:%d"},"apps":{"http":{"servers":{"s":{"listen":[":%d"],"routes":[{"handle":[%s]}]}}}}}`, adminPort, sitePort, c.handler)
		status, msg := loadRaw(t, cfg, "application/json")
		if status == 200 {
			t.Fatalf("%s: loaded", c.name)
		}
		if !strings.Contains(msg, c.want) {
			t.Errorf("%s: load error %q does not say %q", c.name, msg, c.want)
		}
		stillServing()
	}
}

// TestCaddyfileJSON checks that the Caddyfile produces exactly the core's JSON (the handler
// structs embed the core's config types), by adapting a Caddyfile and decoding each handler
// into the core's config types.
func TestCaddyfileJSON(t *testing.T) {
	cfg := globals() + `
http://localhost:8080 {
	robots_txt {
		comment hello world
		sitemap /s.xml
		record Host example.com
		group GPTBot {
			user_agent CCBot
			purpose EXAMPLE-PURPOSE-1
			disallow /a /b
			allow /a/ok
			crawl_delay 0.5
			record Clean-param ref
		}
		preset ai-training ai-search {
			except GoogleOther Applebot
			disallow /
		}
		max_age 90m
	}
	robots_tag noindex {
		agent GPTBot nosnippet max-snippet=3
		agent * noarchive
		preset ai-search nosnippet
		except Applebot
		meta
		x_robots_tag
	}
}
`
	out, _, err := caddyconfig.GetAdapter("caddyfile").Adapt([]byte(cfg), nil)
	if err != nil {
		t.Fatal(err)
	}
	var handlers []json.RawMessage
	var walk func(any)
	walk = func(v any) {
		switch v := v.(type) {
		case map[string]any:
			if h, ok := v["handler"].(string); ok && (h == "robots_txt" || h == "robots_tag") {
				b, _ := json.Marshal(v)
				handlers = append(handlers, b)
			}
			for _, x := range v {
				walk(x)
			}
		case []any:
			for _, x := range v {
				walk(x)
			}
		}
	}
	var doc any
	if err := json.Unmarshal(out, &doc); err != nil {
		t.Fatal(err)
	}
	walk(doc)
	if len(handlers) != 2 {
		t.Fatalf("found %d robots handlers in %s", len(handlers), out)
	}
	for _, raw := range handlers {
		var kind struct {
			Handler string `json:"handler"`
		}
		_ = json.Unmarshal(raw, &kind)
		// The core's types must read the handler JSON (less "handler") with no unknown field.
		var obj map[string]json.RawMessage
		_ = json.Unmarshal(raw, &obj)
		delete(obj, "handler")
		core, _ := json.Marshal(obj)
		dec := json.NewDecoder(strings.NewReader(string(core)))
		dec.DisallowUnknownFields()
		switch kind.Handler {
		case "robots_txt":
			var got policy.RobotsTxt
			if err := dec.Decode(&got); err != nil {
				t.Fatalf("robots_txt JSON %s is not policy.RobotsTxt JSON: %v", core, err)
			}
			want := policy.RobotsTxt{
				Comments: []string{"hello world"},
				Sitemaps: []string{"/s.xml"},
				Records:  []robotsgen.Record{{Key: "Host", Value: "example.com"}},
				Groups: []robotsgen.Group{{
					UserAgents: []string{"GPTBot", "CCBot"},
					Purposes:   []string{"EXAMPLE-PURPOSE-1"},
					Rules: []robotsgen.Rule{
						{Type: robotsgen.Disallow, Path: "/a"},
						{Type: robotsgen.Disallow, Path: "/b"},
						{Type: robotsgen.Allow, Path: "/a/ok"},
					},
					CrawlDelay: 0.5,
					Records:    []robotsgen.Record{{Key: "Clean-param", Value: "ref"}},
				}, {
					Presets: []string{"ai-training", "ai-search"},
					Except:  []string{"GoogleOther", "Applebot"},
					Rules:   []robotsgen.Rule{{Type: robotsgen.Disallow, Path: "/"}},
				}},
				MaxAge: policy.Duration(90 * 60 * 1e9),
			}
			if !reflect.DeepEqual(got, want) {
				t.Errorf("robots_txt config\n got %+v\nwant %+v", got, want)
			}
		case "robots_tag":
			var got policy.Tags
			if err := dec.Decode(&got); err != nil {
				t.Fatalf("robots_tag JSON %s is not policy.Tags JSON: %v", core, err)
			}
			want := policy.Tags{
				Rules:  map[string][]string{"*": {"noindex", "noarchive"}, "GPTBot": {"nosnippet", "max-snippet=3"}, "preset:ai-search": {"nosnippet"}},
				Except: []string{"Applebot"},
				Meta:   true, XRobotsTag: true,
			}
			if !reflect.DeepEqual(got, want) {
				t.Errorf("robots_tag config\n got %+v\nwant %+v", got, want)
			}
		}
	}
}

// TestUnmarshalCaddyfileDirect exercises the Unmarshalers on a bare dispenser, as other
// Caddyfile-based tools call them.
func TestUnmarshalCaddyfileDirect(t *testing.T) {
	var tag RobotsTag
	if err := tag.UnmarshalCaddyfile(caddyfile.NewTestDispenser(`robots_tag noindex nosnippet`)); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(tag.Rules, map[string][]string{"*": {"noindex", "nosnippet"}}) || tag.Meta || tag.XRobotsTag {
		t.Errorf("got %+v", tag.Tags)
	}
	var txt RobotsTxt
	if err := txt.UnmarshalCaddyfile(caddyfile.NewTestDispenser("robots_txt {\n\tgroup * {\n\t\tdisallow /x\n\t}\n}")); err != nil {
		t.Fatal(err)
	}
	if len(txt.Groups) != 1 || txt.Groups[0].Rules[0] != (robotsgen.Rule{Type: robotsgen.Disallow, Path: "/x"}) {
		t.Errorf("got %+v", txt.RobotsTxt)
	}
	err := txt.UnmarshalCaddyfile(caddyfile.NewTestDispenser("robots_txt {\n\tgroup * {\n\t\tdisallow x\n\t}\n}"))
	if err == nil || !strings.Contains(err.Error(), "Testfile:3") {
		t.Errorf("error %v does not name Testfile:3", err)
	}
}
