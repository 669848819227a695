package caddymodule

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/caddyserver/caddy/v2"
	"github.com/caddyserver/caddy/v2/caddyconfig"

	"github.com/sitepolicy/caddy-robots/configerr"
	"github.com/sitepolicy/caddy-robots/nethttp"
)

// badConfigs are config problems written for every front end: a Caddyfile directive, and the
// handler's JSON, which Caddy's JSON and nethttp.NewFromJSON both read. path is the field the
// core names (relative to the handler), problem a part of what it says.
var badConfigs = []struct {
	name, caddyfile, handler, path, problem string
}{
	{"group token with a slash", "robots_txt {\n\tgroup Bad/Bot {\n\t\tdisallow /\n\t}\n}",
		`{"handler":"robots_txt","groups":[{"user_agents":["Bad/Bot"],"rules":[{"type":"disallow","path":"/"}]}]}`, "groups[0].user_agents[0]", "a product token may contain only"},
	{"group token with its version", "robots_txt {\n\tgroup Googlebot/2.1 {\n\t\tdisallow /\n\t}\n}",
		`{"handler":"robots_txt","groups":[{"user_agents":["Googlebot/2.1"],"rules":[{"type":"disallow","path":"/"}]}]}`, "groups[0].user_agents[0]", `a product token may contain only A-Z, a-z, 0-9, "_" and "-" (RFC 9309 product tokens have no digits; a name with digits is accepted with a warning), or be "*" (did you mean "Googlebot"?)`},
	{"user_agent a whole User-Agent header", "robots_txt {\n\tgroup * {\n\t\tuser_agent \"Mozilla/5.0 (compatible; bingbot/2.0; +http://www.bing.com/bingbot.htm)\"\n\t}\n}",
		`{"handler":"robots_txt","groups":[{"user_agents":["*","Mozilla/5.0 (compatible; bingbot/2.0; +http://www.bing.com/bingbot.htm)"]}]}`, "groups[0].user_agents[1]", `(did you mean "bingbot"?)`},
	{"agent token with its version", "robots_tag {\n\tagent GPTBot/1.2 noindex\n}",
		`{"handler":"robots_tag","rules":{"GPTBot/1.2":["noindex"]}}`, `rules["GPTBot/1.2"]`, `(did you mean "GPTBot"?)`},
	{"user_agent with a dot", "robots_txt {\n\tgroup * {\n\t\tuser_agent Bot2.0\n\t}\n}",
		`{"handler":"robots_txt","groups":[{"user_agents":["*","Bot2.0"]}]}`, "groups[0].user_agents[1]", "a product token may contain only"},
	{"misspelt preset", "robots_txt {\n\tpreset ai-trainnig {\n\t\tdisallow /\n\t}\n}",
		`{"handler":"robots_txt","groups":[{"presets":["ai-trainnig"],"rules":[{"type":"disallow","path":"/"}]}]}`, "groups[0].presets[0]", `a preset is a category of the crawler catalogue: ai-all, ai-assistants, ai-search, ai-training (did you mean "ai-training"?)`},
	{"misspelt preset in a group", "robots_txt {\n\tgroup ExampleBot {\n\t\tpreset ai-search AI-Assistant\n\t}\n}",
		`{"handler":"robots_txt","groups":[{"user_agents":["ExampleBot"],"presets":["ai-search","AI-Assistant"]}]}`, "groups[0].presets[1]", "a preset is a category of the crawler catalogue: ai-all, ai-assistants, ai-search, ai-training"},
	{"category as a user agent", "robots_txt {\n\tgroup ai-training {\n\t\tdisallow /\n\t}\n}",
		`{"handler":"robots_txt","groups":[{"user_agents":["ai-training"],"rules":[{"type":"disallow","path":"/"}]}]}`, "groups[0].user_agents[0]", "is a category of the crawler catalogue, not a crawler"},
	{"purpose naming a crawler", "robots_txt {\n\tgroup {\n\t\tpurpose GPTBot\n\t}\n}",
		`{"handler":"robots_txt","groups":[{"purposes":["GPTBot"]}]}`, "groups[0].purposes[0]", "a purpose token must not be the name of a crawler (GPTBot)"},
	{"misspelt except", "robots_txt {\n\tpreset ai-training {\n\t\texcept GPTBot GoogleOthr\n\t\tdisallow /\n\t}\n}",
		`{"handler":"robots_txt","groups":[{"presets":["ai-training"],"except":["GPTBot","GoogleOthr"],"rules":[{"type":"disallow","path":"/"}]}]}`, "groups[0].except[1]", `no crawler of the presets (ai-training) has this name: except takes crawler names as the catalogue writes them (case aside) (did you mean "GoogleOther"?)`},
	{"except of the group's own agent", "robots_txt {\n\tgroup GPTBot {\n\t\tpreset ai-training\n\t\texcept gptbot\n\t\tdisallow /\n\t}\n}",
		`{"handler":"robots_txt","groups":[{"user_agents":["GPTBot"],"presets":["ai-training"],"except":["gptbot"],"rules":[{"type":"disallow","path":"/"}]}]}`, "groups[0].except[0]", "the group names this crawler as its own user agent too"},
	{"enforce status", "robots_txt {\n\tpreset ai-all {\n\t\tdisallow /\n\t}\n\tenforce 302\n}",
		`{"handler":"robots_txt","groups":[{"presets":["ai-all"],"rules":[{"type":"disallow","path":"/"}]}],"enforce":{"status":302}}`, "enforce.status", "400 to 599"},
	{"enforce without a named crawler", "robots_txt {\n\tgroup * {\n\t\tdisallow /\n\t}\n\tenforce\n}",
		`{"handler":"robots_txt","groups":[{"user_agents":["*"],"rules":[{"type":"disallow","path":"/"}]}],"enforce":{}}`, "enforce", "no group names a crawler or a preset"},
	{"purpose with a dot", "robots_txt {\n\tgroup {\n\t\tpurpose has.dot\n\t}\n}",
		`{"handler":"robots_txt","groups":[{"purposes":["has.dot"]}]}`, "groups[0].purposes[0]", "a purpose token may contain only"},
	{"pattern without slash", "robots_txt {\n\tgroup * {\n\t\tallow private\n\t}\n}",
		`{"handler":"robots_txt","groups":[{"user_agents":["*"],"rules":[{"type":"allow","path":"private"}]}]}`, "groups[0].rules[0].path", `a pattern starts with "/" or "*"`},
	{"pattern with hash", "robots_txt {\n\tgroup * {\n\t\tdisallow /ok \"/a#b\"\n\t}\n}",
		`{"handler":"robots_txt","groups":[{"user_agents":["*"],"rules":[{"type":"disallow","path":"/ok"},{"type":"disallow","path":"/a#b"}]}]}`, "groups[0].rules[1].path", `must not contain "#"`},
	{"stray percent", "robots_txt {\n\tgroup * {\n\t\tdisallow /100%zz\n\t}\n}",
		`{"handler":"robots_txt","groups":[{"user_agents":["*"],"rules":[{"type":"disallow","path":"/100%zz"}]}]}`, "groups[0].rules[0].path", `"%" must start a percent-escape`},
	{"negative crawl delay", "robots_txt {\n\tgroup * {\n\t\tcrawl_delay -1\n\t}\n}",
		`{"handler":"robots_txt","groups":[{"user_agents":["*"],"crawl_delay":-1}]}`, "groups[0].crawl_delay", "a crawl delay is a finite number"},
	{"Host in a group", "robots_txt {\n\tgroup * {\n\t\trecord Host example.com\n\t}\n}",
		`{"handler":"robots_txt","groups":[{"user_agents":["*"],"records":[{"key":"Host","value":"example.com"}]}]}`, "groups[0].records[0].key", "Host is a file-level record"},
	{"record with a core key", "robots_txt {\n\trecord Disallow /x\n}",
		`{"handler":"robots_txt","records":[{"key":"Disallow","value":"/x"}]}`, "records[0].key", "core key"},
	{"record key with a space", "robots_txt {\n\trecord \"Bad Key\" x\n}",
		`{"handler":"robots_txt","records":[{"key":"Bad Key","value":"x"}]}`, "records[0].key", "a record key may contain only"},
	{"record value with hash", "robots_txt {\n\trecord Host \"a#b\"\n}",
		`{"handler":"robots_txt","records":[{"key":"Host","value":"a#b"}]}`, "records[0].value", `must not contain "#"`},
	{"relative sitemap", "robots_txt {\n\tsitemap sitemap.xml\n}",
		`{"handler":"robots_txt","sitemaps":["sitemap.xml"]}`, "sitemaps[0]", "absolute http(s) URL"},
	{"ftp sitemap", "robots_txt {\n\tsitemap /ok.xml\n\tsitemap ftp://example.com/s.xml\n}",
		`{"handler":"robots_txt","sitemaps":["/ok.xml","ftp://example.com/s.xml"]}`, "sitemaps[1]", "absolute http(s) URL"},
	{"max_age over a day", "robots_txt {\n\tmax_age 2d\n}",
		`{"handler":"robots_txt","max_age":"2d"}`, "max_age", "at most 24h"},
	{"max_age under a second", "robots_txt {\n\tmax_age 500ms\n}",
		`{"handler":"robots_txt","max_age":"500ms"}`, "max_age", "at least 1s"},
	{"group without crawler", "robots_txt {\n\tgroup {\n\t\tdisallow /\n\t}\n}",
		`{"handler":"robots_txt","groups":[{"rules":[{"type":"disallow","path":"/"}]}]}`, "groups[0]", "a group needs at least one user agent or purpose"},
	{"robots.txt over 500 KiB", "robots_txt {\n\tgroup * {\n" + strings.Repeat("\t\tdisallow /"+strings.Repeat("a", 2000)+"\n", 300) + "\t}\n}",
		`{"handler":"robots_txt","groups":[{"user_agents":["*"],"rules":[` + strings.TrimSuffix(strings.Repeat(`{"type":"disallow","path":"/`+strings.Repeat("a", 2000)+`"},`, 300), ",") + `]}]}`, "", "over 512000 bytes"},
	{"unknown rule", "robots_tag noindx",
		`{"handler":"robots_tag","rules":{"*":["noindx"]}}`, `rules["*"][0]`, `unknown rule "noindx" (did you mean "noindex"?)`},
	{"rule all", "robots_tag noindex all",
		`{"handler":"robots_tag","rules":{"*":["noindex","all"]}}`, `rules["*"][1]`, "restricts nothing"},
	{"bad integer", "robots_tag max-snippet=lots",
		`{"handler":"robots_tag","rules":{"*":["max-snippet=lots"]}}`, `rules["*"][0]`, "is not an integer"},
	{"bad date", "robots_tag unavailable_after=tomorrow",
		`{"handler":"robots_tag","rules":{"*":["unavailable_after=tomorrow"]}}`, `rules["*"][0]`, "is not RFC 3339"},
	{"agent token with a dot", "robots_tag {\n\tagent Bad.Bot noindex\n}",
		`{"handler":"robots_tag","rules":{"Bad.Bot":["noindex"]}}`, `rules["Bad.Bot"]`, "a product token may contain only"},
	{"misspelt robots_tag preset", "robots_tag {\n\tpreset ai-trainnig noindex\n}",
		`{"handler":"robots_tag","rules":{"preset:ai-trainnig":["noindex"]}}`, `rules["preset:ai-trainnig"]`, `preset: names a category of the crawler catalogue: ai-all, ai-assistants, ai-search, ai-training (did you mean "preset:ai-training"?)`},
	{"robots_tag except of another category", "robots_tag {\n\tpreset ai-search noindex\n\texcept GPTBot\n}",
		`{"handler":"robots_tag","rules":{"preset:ai-search":["noindex"]},"except":["GPTBot"]}`, "except[0]", "GPTBot is a crawler of ai-all, ai-training, not of the presets it would be left out of (ai-search)"},
	{"robots_tag preset over 8 KiB", "robots_tag {\n\tpreset ai-all noindex nosnippet noarchive noimageindex notranslate max-snippet=0 max-image-preview=none max-video-preview=0\n}",
		`{"handler":"robots_tag","rules":{"preset:ai-all":["noindex","nosnippet","noarchive","noimageindex","notranslate","max-snippet=0","max-image-preview=none","max-video-preview=0"]}}`, "rules", "over the 8192-byte limit parsers must honour: the presets add"},
	{"category as a robots_tag agent", "robots_tag {\n\tagent ai-search noindex\n}",
		`{"handler":"robots_tag","rules":{"ai-search":["noindex"]}}`, `rules["ai-search"]`, "write preset:ai-search"},
	{"agent robots", "robots_tag {\n\tagent robots noindex\n}",
		`{"handler":"robots_tag","rules":{"robots":["noindex"]}}`, `rules["robots"]`, "reserved"},
	{"agent bad second rule", "robots_tag {\n\tagent GPTBot noindex nosnipet\n}",
		`{"handler":"robots_tag","rules":{"GPTBot":["noindex","nosnipet"]}}`, `rules["GPTBot"][1]`, `did you mean "nosnippet"`},
	{"content_usage unknown key", "robots_txt {\n\tgroup * {\n\t\tcontent_usage train-ia=n\n\t}\n}",
		`{"handler":"robots_txt","groups":[{"user_agents":["*"],"content_usage":[{"preferences":{"train-ia":"n"}}]}]}`, `groups[0].content_usage[0].preferences["train-ia"]`, `not a Content-Usage key: the keys are train-ai, ai-use, search, and an extension is written +name (did you mean "train-ai"?)`},
	{"content_usage path without slash", "robots_txt {\n\tgroup * {\n\t\tcontent_usage search=y\n\t\tcontent_usage /ok/ search=y\n\t\tcontent_usage /a#b search=n\n\t}\n}",
		`{"handler":"robots_txt","groups":[{"user_agents":["*"],"content_usage":[{"preferences":{"search":"y"}},{"path":"/ok/","preferences":{"search":"y"}},{"path":"/a#b","preferences":{"search":"n"}}]}]}`, "groups[0].content_usage[2].path", `must not contain "#"`},
	{"content_signal Content-Usage value", "robots_txt {\n\tgroup * {\n\t\tcontent_signal /x ai-train=n\n\t}\n}",
		`{"handler":"robots_txt","groups":[{"user_agents":["*"],"content_signal":[{"path":"/x","preferences":{"ai-train":"n"}}]}]}`, `groups[0].content_signal[0].preferences["ai-train"]`, `Content-Signal values are yes (allow) and no (disallow) (did you mean "no"?)`},
	{"content_signal Content-Usage key", "robots_txt {\n\tgroup * {\n\t\tcontent_signal train-ai=no\n\t}\n}",
		`{"handler":"robots_txt","groups":[{"user_agents":["*"],"content_signal":[{"preferences":{"train-ai":"no"}}]}]}`, `groups[0].content_signal[0].preferences["train-ai"]`, `did you mean "ai-train"`},
	{"robots_tag content_usage key", "robots_tag {\n\tcontent_usage Search=y\n}",
		`{"handler":"robots_tag","content_usage":{"Search":"y"}}`, `content_usage["Search"]`, `(keys are lower case) (did you mean "search"?)`},
	{"robots_tag content_usage value", "robots_tag noindex {\n\tcontent_usage train-ai=false\n}",
		`{"handler":"robots_tag","rules":{"*":["noindex"]},"content_usage":{"train-ai":"false"}}`, `content_usage["train-ai"]`, `(did you mean "n"?)`},
	{"meta without rules", "robots_tag {\n\tcontent_usage train-ai=n\n\tmeta\n}",
		`{"handler":"robots_tag","content_usage":{"train-ai":"n"},"meta":true}`, "meta", "the route has none"},
	{"no rules", "robots_tag {\n\tmeta\n}",
		`{"handler":"robots_tag","meta":true}`, "rules", "no rules"},
	{"tdm reservation 2", "robots_tag {\n\ttdm 2\n}",
		`{"handler":"robots_tag","tdm":{"reservation":2}}`, "tdm.reservation", "tdm-reservation is 1 (TDM rights reserved) or 0 (not reserved)"},
	{"tdm relative policy", "robots_tag {\n\ttdm 1 /policies/tdm.json\n}",
		`{"handler":"robots_tag","tdm":{"reservation":1,"policy":"/policies/tdm.json"}}`, "tdm.policy", "a tdm-policy URL must be an absolute http(s) URL"},
	{"tdm derive from silence", "robots_tag noindex {\n\ttdm derive\n}",
		`{"handler":"robots_tag","rules":{"*":["noindex"]},"tdm":{"derive":true}}`, "tdm.derive", "a permission is never derived from silence"},
}

// TestBadConfigsSameVerdictInEveryFrontEnd: each bad config is refused by the Caddyfile
// adapter (with the problem, at a line), by Caddy's JSON loader and by nethttp.NewFromJSON
// (with the same field path and problem): one validation path, three front ends.
func TestBadConfigsSameVerdictInEveryFrontEnd(t *testing.T) {
	adapter := caddyconfig.GetAdapter("caddyfile")
	for _, c := range badConfigs {
		t.Run(c.name, func(t *testing.T) {
			// The handler's fields, for nethttp.
			var obj map[string]any
			if err := json.Unmarshal([]byte(c.handler), &obj); err != nil {
				t.Fatal(err)
			}
			kind := obj["handler"].(string)
			delete(obj, "handler")
			core, _ := json.Marshal(obj)
			var doc, prefix string
			if kind == "robots_txt" {
				doc, prefix = `{"robots_txt":`+string(core)+`}`, "robots_txt"
			} else {
				doc, prefix = `{"robots_tag":[`+string(core)+`]}`, "robots_tag[0]"
			}
			want := configerr.JoinPath(prefix, c.path)
			_, err := nethttp.NewFromJSON([]byte(doc), nethttp.Options{})
			if !hasFieldError(err, want, c.problem) {
				t.Errorf("nethttp: %v; want %s: ...%s", err, want, c.problem)
			}

			// Caddy's JSON: the handler in a route; the path is the handler's own.
			cfgJSON := fmt.Sprintf(`{"admin":{"disabled":true},"apps":{"http":{"servers":{"s":{"listen":["127.0.0.1:0"],"routes":[{"handle":[%s]}]}}}}}`, c.handler)
			var cfg caddy.Config
			if err := json.Unmarshal([]byte(cfgJSON), &cfg); err != nil {
				t.Fatal(err)
			}
			if err = caddy.Validate(&cfg); err == nil {
				t.Fatalf("Caddy JSON accepted %s", c.handler)
			}
			namesPath := c.path == "" || strings.Contains(err.Error(), c.path+" ") || strings.Contains(err.Error(), c.path+":")
			if err == nil || !strings.Contains(err.Error(), c.problem) || !namesPath {
				t.Errorf("Caddy JSON: %v; want %s: ...%s", err, c.path, c.problem)
			}

			// The Caddyfile: same problem, at the directive's line or below.
			site := globals() + "http://localhost:" + fmt.Sprint(sitePort) + " {\n" + c.caddyfile + "\n}\n"
			_, _, err = adapter.Adapt([]byte(site), map[string]any{"filename": "Caddyfile"})
			if err == nil || !strings.Contains(err.Error(), c.problem) || !strings.Contains(err.Error(), "Caddyfile:") {
				t.Errorf("Caddyfile: %v; want ...%s at a Caddyfile line", err, c.problem)
			}
		})
	}
}

// hasFieldError reports whether err holds a *configerr.Error at path whose problem (with its
// suggestion) contains problem.
func hasFieldError(err error, path, problem string) bool {
	for _, e := range configerr.All(err) {
		if e.Path == path && strings.Contains(e.Error(), problem) {
			return true
		}
	}
	return false
}
