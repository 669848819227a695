package policycheck

import (
	"encoding/json"
	"fmt"
	"net/http"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/sitepolicy/caddy-robots/crawlers"
	"github.com/sitepolicy/caddy-robots/nethttp"
)

// site reads a nethttp JSON config, as cmd/robots does.
func site(t *testing.T, config string, hosts ...string) *Site {
	t.Helper()
	var cfg nethttp.Config
	dec := json.NewDecoder(strings.NewReader(config))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&cfg); err != nil {
		t.Fatalf("config: %v\n%s", err, config)
	}
	return FromConfig(cfg, hosts...)
}

func lint(t *testing.T, config string, hosts ...string) []Finding {
	t.Helper()
	f, err := Lint(site(t, config, hosts...))
	if err != nil {
		t.Fatalf("Lint: %v", err)
	}
	return f
}

func only(fs []Finding, lint string) []Finding {
	var out []Finding
	for _, f := range fs {
		if f.Lint == lint {
			out = append(out, f)
		}
	}
	return out
}

// TestLints gives each lint a config that triggers it (want is the JSON path of the finding)
// and one that does not.
func TestLints(t *testing.T) {
	for _, tc := range []struct {
		name, lint, config string
		hosts              []string
		want               string // location of the one finding; "" for none
		sev                Severity
	}{
		{"noindex on disallowed path", LintUnseenTags,
			`{"robots_txt": {"groups": [{"user_agents": ["*"], "rules": [{"type": "disallow", "path": "/drafts/"}]}]},
			  "robots_tag": [{"paths": ["/drafts/*"], "rules": {"*": ["noindex"]}}]}`, nil, `robots_tag[0].rules["*"]`, SeverityWarning},
		{"noindex on allowed path", LintUnseenTags,
			`{"robots_txt": {"groups": [{"user_agents": ["*"], "rules": [{"type": "disallow", "path": "/drafts/"}]}]},
			  "robots_tag": [{"paths": ["/draft-notes/*", "/public/*"], "rules": {"*": ["noindex"]}}]}`, nil, "", ""},
		{"noindex for the crawler the file blocks", LintUnseenTags,
			`{"robots_txt": {"groups": [{"user_agents": ["GPTBot"], "rules": [{"type": "disallow", "path": "/"}]}]},
			  "robots_tag": [{"rules": {"GPTBot": ["noindex"], "Googlebot": ["noindex"]}}]}`, nil, `robots_tag[0].rules["GPTBot"]`, SeverityWarning},
		{"noindex for another crawler than the blocked one", LintUnseenTags,
			`{"robots_txt": {"groups": [{"user_agents": ["GPTBot"], "rules": [{"type": "disallow", "path": "/"}]}]},
			  "robots_tag": [{"rules": {"Googlebot": ["noindex"], "*": ["noindex"]}}]}`, nil, "", ""},
		{"noindex for a crawler a preset blocks", LintUnseenTags,
			`{"robots_txt": {"groups": [{"presets": ["ai-training"], "rules": [{"type": "disallow", "path": "/"}]}]},
			  "robots_tag": [{"rules": {"GPTBot": ["noindex"]}}]}`, nil, `robots_tag[0].rules["GPTBot"]`, SeverityWarning},
		{"meta on disallowed path", LintUnseenTags,
			`{"robots_txt": {"groups": [{"user_agents": ["*"], "rules": [{"type": "disallow", "path": "/private"}]}]},
			  "robots_tag": [{"paths": ["/private/*"], "rules": {"*": ["nosnippet"]}, "meta": true}]}`, nil, `robots_tag[0].rules["*"]`, SeverityWarning},
		{"nosnippet header on disallowed path", LintUnseenTags,
			`{"robots_txt": {"groups": [{"user_agents": ["*"], "rules": [{"type": "disallow", "path": "/private"}]}]},
			  "robots_tag": [{"paths": ["/private/*"], "rules": {"*": ["nosnippet"]}}]}`, nil, "", ""},

		{"shorter allow under a longer disallow", LintShadowedRule,
			`{"robots_txt": {"groups": [{"user_agents": ["*"], "rules": [{"type": "allow", "path": "/shop/"}, {"type": "disallow", "path": "/shop/*"}]}]}}`,
			nil, "robots_txt.groups[0].rules[0]", SeverityWarning},
		{"disallow equal to an allow", LintShadowedRule,
			`{"robots_txt": {"groups": [{"user_agents": ["*"], "rules": [{"type": "disallow", "path": "/a"}, {"type": "allow", "path": "/a"}]}]}}`,
			nil, "robots_txt.groups[0].rules[0]", SeverityWarning},
		{"allow exception in a disallow", LintShadowedRule,
			`{"robots_txt": {"groups": [{"user_agents": ["*"], "rules": [{"type": "disallow", "path": "/a/"}, {"type": "allow", "path": "/a/b"}, {"type": "disallow", "path": "/c$"}, {"type": "allow", "path": "/c/*"}]}]}}`,
			nil, "", ""},
		{"anchored disallow under an equally long allow", LintShadowedRule,
			`{"robots_txt": {"groups": [{"user_agents": ["*"], "rules": [{"type": "disallow", "path": "/c$"}, {"type": "allow", "path": "/c*"}]}]}}`,
			nil, "robots_txt.groups[0].rules[0]", SeverityWarning},

		{"repeated rule", LintDuplicateRule,
			`{"robots_txt": {"groups": [{"user_agents": ["*"], "rules": [{"type": "disallow", "path": "/a"}, {"type": "disallow", "path": "/b"}, {"type": "disallow", "path": "/a"}]}]}}`,
			nil, "robots_txt.groups[0].rules[2]", SeverityInfo},
		{"same path, other kind or group", LintDuplicateRule,
			`{"robots_txt": {"groups": [{"user_agents": ["*"], "rules": [{"type": "disallow", "path": "/a"}]}, {"user_agents": ["x-bot"], "rules": [{"type": "disallow", "path": "/a"}]}]}}`,
			nil, "", ""},

		{"misspelt group token", LintMisspeltCrawler,
			`{"robots_txt": {"groups": [{"user_agents": ["Googlebto"], "rules": [{"type": "disallow", "path": "/"}]}]}}`,
			nil, "robots_txt.groups[0].user_agents[0]", SeverityWarning},
		{"misspelt robots_tag token", LintMisspeltCrawler,
			`{"robots_tag": [{"rules": {"GTPBot": ["noindex"]}}]}`, nil, `robots_tag[0].rules["GTPBot"]`, SeverityWarning},
		{"well-known and own tokens", LintMisspeltCrawler,
			`{"robots_txt": {"groups": [{"user_agents": ["googlebot", "Bingbot", "ExampleBot"], "rules": [{"type": "disallow", "path": "/"}]}]},
			  "robots_tag": [{"rules": {"GPTBot": ["noindex"], "my-crawler": ["noindex"]}}]}`, nil, "", ""},

		{"crawl-delay for Google only", LintCrawlDelayGoogle,
			`{"robots_txt": {"groups": [{"user_agents": ["Googlebot", "Googlebot-Image"], "rules": [{"type": "disallow", "path": "/x"}], "crawl_delay": 5}]}}`,
			nil, "robots_txt.groups[0].crawl_delay", SeverityWarning},
		{"crawl-delay for Google and Bing", LintCrawlDelayGoogle,
			`{"robots_txt": {"groups": [{"user_agents": ["Googlebot", "Bingbot"], "rules": [{"type": "disallow", "path": "/x"}], "crawl_delay": 5}]}}`,
			nil, "", ""},

		{"sitemap on another host", LintSitemapHost,
			`{"robots_txt": {"sitemaps": ["https://cdn.example.net/sitemap.xml"], "groups": [{"user_agents": ["*"], "rules": [{"type": "disallow", "path": "/x"}]}]}}`,
			[]string{"example.com"}, "robots_txt.sitemaps[0]", SeverityInfo},
		{"sitemap on the site's host", LintSitemapHost,
			`{"robots_txt": {"sitemaps": ["https://www.example.com/sitemap.xml", "https://a.example.org/s.xml"], "groups": [{"user_agents": ["*"], "rules": [{"type": "disallow", "path": "/x"}]}]}}`,
			[]string{"www.example.com", "*.example.org"}, "", ""},
		{"relative sitemap, several hosts", LintRelativeSitemap,
			`{"robots_txt": {"sitemaps": ["/sitemap.xml"], "groups": [{"user_agents": ["*"], "rules": [{"type": "disallow", "path": "/x"}]}]}}`,
			[]string{"example.com", "www.example.com"}, "robots_txt.sitemaps[0]", SeverityInfo},
		{"relative sitemap, one host", LintRelativeSitemap,
			`{"robots_txt": {"sitemaps": ["/sitemap.xml"], "groups": [{"user_agents": ["*"], "rules": [{"type": "disallow", "path": "/x"}]}]}}`,
			[]string{"example.com"}, "", ""},

		{"x_robots_tag with rules", LintXRobotsTagAlone,
			`{"robots_tag": [{"rules": {"*": ["noindex"]}, "x_robots_tag": true}]}`, nil, "", ""},

		{"route implied by a broader one", LintRedundantRoute,
			`{"robots_tag": [{"rules": {"*": ["noindex", "nofollow"]}}, {"paths": ["/drafts/*"], "rules": {"*": ["noindex"]}}]}`, nil, "robots_tag[1]", SeverityInfo},
		{"narrower route adding Content-Usage", LintRedundantRoute,
			`{"robots_tag": [{"rules": {"*": ["noindex"]}}, {"paths": ["/open-data/*"], "content_usage": {"train-ai": "y"}}, {"paths": ["/a/*"], "rules": {"*": ["noindex"]}, "content_usage": {"search": "n"}}]}`, nil, "", ""},
		{"narrower Content-Usage implied", LintRedundantRoute,
			`{"robots_tag": [{"content_usage": {"train-ai": "n", "search": "y"}}, {"paths": ["/a/*"], "content_usage": {"search": "y"}}]}`, nil, "robots_tag[1]", SeverityInfo},
		{"y overridden by a broader n", LintOverriddenUsage,
			`{"robots_tag": [{"content_usage": {"train-ai": "n", "search": "y"}}, {"paths": ["/open-data/*"], "content_usage": {"train-ai": "y", "search": "y"}}]}`, nil, "robots_tag[1].content_usage", SeverityWarning},
		{"y on paths the n does not cover", LintOverriddenUsage,
			`{"robots_tag": [{"paths": ["/articles/*"], "content_usage": {"train-ai": "n"}}, {"paths": ["/open-data/*"], "content_usage": {"train-ai": "y"}}, {"content_usage": {"search": "n"}}]}`, nil, "", ""},
		{"Content-Usage under a disallowed path", LintUsageUnreachable,
			`{"robots_txt": {"groups": [{"user_agents": ["*"], "rules": [{"type": "disallow", "path": "/private/"}],
			  "content_usage": [{"path": "/private/x", "preferences": {"train-ai": "n"}}]}]}}`, nil, `robots_txt.groups[0].content_usage[0]`, SeverityWarning},
		{"Content-Usage on a crawlable path", LintUsageUnreachable,
			`{"robots_txt": {"groups": [{"user_agents": ["*"], "rules": [{"type": "disallow", "path": "/private/"}],
			  "content_usage": [{"path": "/public/", "preferences": {"train-ai": "n"}}]}]}}`, nil, "", ""},
		{"same path, y and n", LintOverriddenUsage,
			`{"robots_txt": {"groups": [{"user_agents": ["*"], "rules": [{"type": "disallow", "path": "/x/"}],
			  "content_usage": [{"preferences": {"train-ai": "n", "search": "y"}}, {"preferences": {"train-ai": "y"}}]}]}}`, nil, `robots_txt.groups[0].content_usage[1]`, SeverityWarning},
		{"different paths, y and n", LintOverriddenUsage,
			`{"robots_txt": {"groups": [{"user_agents": ["*"], "rules": [{"type": "disallow", "path": "/x/"}],
			  "content_signal": [{"preferences": {"ai-train": "no"}}, {"path": "/open/", "preferences": {"ai-train": "yes"}}]}]}}`, nil, "", ""},
		{"preset group without rules", LintEmptyPreset,
			`{"robots_txt": {"groups": [{"presets": ["ai-training"]}]}}`, nil, `robots_txt.groups[0].presets`, SeverityWarning},
		{"preset group with a rule", LintEmptyPreset,
			`{"robots_txt": {"groups": [{"presets": ["ai-training"], "rules": [{"type": "disallow", "path": "/"}]}]}}`, nil, "", ""},
		{"left out of a preset, then allowed by *", LintExceptToStar,
			`{"robots_txt": {"groups": [{"presets": ["ai-training"], "except": ["GPTBot", "googleother"], "rules": [{"type": "disallow", "path": "/"}]},
			  {"user_agents": ["GPTBot"], "rules": [{"type": "allow", "path": "/"}]},
			  {"user_agents": ["*"], "rules": [{"type": "disallow", "path": "/admin/"}]}]}}`, nil, `robots_txt.groups[0].except[1]`, SeverityInfo},
		{"left out of a preset, no * group", LintExceptToStar,
			`{"robots_txt": {"groups": [{"presets": ["ai-training"], "except": ["GoogleOther"], "rules": [{"type": "disallow", "path": "/*.pdf$"}]}]}}`, nil, `robots_txt.groups[0].except[0]`, SeverityInfo},
		{"left out of a preset, * as strict", LintExceptToStar,
			`{"robots_txt": {"groups": [{"presets": ["ai-training"], "except": ["GoogleOther"], "rules": [{"type": "disallow", "path": "/private/"}]},
			  {"user_agents": ["*"], "rules": [{"type": "disallow", "path": "/"}]}]}}`, nil, "", ""},
		{"left out of one preset, kept by another", LintExceptToStar,
			`{"robots_txt": {"groups": [{"presets": ["ai-all"], "except": ["GoogleOther"], "rules": [{"type": "disallow", "path": "/"}]},
			  {"presets": ["ai-training"], "rules": [{"type": "disallow", "path": "/training/"}]}]}}`, nil, "", ""},
		{"name with a digit", LintDigitToken,
			`{"robots_txt": {"groups": [{"user_agents": ["AI2Bot"], "rules": [{"type": "disallow", "path": "/"}]}]}}`, nil, `robots_txt.groups[0].user_agents[0]`, SeverityInfo},
		{"name without digits", LintDigitToken,
			`{"robots_txt": {"groups": [{"user_agents": ["GPTBot"], "rules": [{"type": "disallow", "path": "/"}]}]}}`, nil, "", ""},
		{"narrower route giving a preset another rule", LintRedundantRoute,
			`{"robots_tag": [{"rules": {"preset:ai-search": ["noindex"]}}, {"paths": ["/a/*"], "rules": {"preset:ai-search": ["noindex", "nosnippet"]}}]}`, nil, "", ""},
		{"narrower route giving a crawler the broader one leaves out", LintRedundantRoute,
			`{"robots_tag": [{"rules": {"preset:ai-search": ["noindex"]}, "except": ["Applebot"]}, {"paths": ["/a/*"], "rules": {"preset:ai-search": ["noindex"]}}]}`, nil, "", ""},
		{"narrower route leaving out a crawler", LintRedundantRoute,
			`{"robots_tag": [{"rules": {"preset:ai-search": ["noindex"]}}, {"paths": ["/a/*"], "rules": {"preset:ai-search": ["noindex"]}, "except": ["Applebot"]}]}`, nil, "robots_tag[1]", SeverityInfo},
		{"narrower route adding a rule", LintRedundantRoute,
			`{"robots_tag": [{"rules": {"*": ["noindex"]}}, {"paths": ["/drafts/*"], "rules": {"*": ["noindex", "nosnippet"]}}, {"paths": ["/a/*"], "rules": {"*": ["noindex"]}, "meta": true}]}`, nil, "", ""},

		{"Content-Usage header allows training that robots.txt Content-Signal refuses", LintSignalConflict,
			`{"robots_txt": {"groups": [{"user_agents": ["*"], "rules": [{"type": "disallow", "path": "/admin/"}],
			  "content_signal": [{"preferences": {"ai-train": "no", "search": "yes"}}]}]},
			  "robots_tag": [{"paths": ["/open-data/*"], "content_usage": {"train-ai": "y"}}]}`, nil, `robots_tag[0].content_usage["train-ai"]`, SeverityWarning},
		{"robots.txt Content-Usage allows, header refuses, for one crawler", LintSignalConflict,
			`{"robots_txt": {"groups": [{"user_agents": ["GPTBot"], "rules": [{"type": "disallow", "path": "/admin/"}],
			  "content_usage": [{"path": "/docs/", "preferences": {"train-ai": "y"}}]}]},
			  "robots_tag": [{"content_usage": {"train-ai": "n"}}]}`, nil, `robots_txt.groups[0].content_usage[0]`, SeverityWarning},
		{"signals agree", LintSignalConflict,
			`{"robots_txt": {"groups": [{"user_agents": ["*"], "rules": [{"type": "disallow", "path": "/admin/"}],
			  "content_signal": [{"preferences": {"ai-train": "no", "search": "yes"}}], "content_usage": [{"preferences": {"train-ai": "n"}}]}]},
			  "robots_tag": [{"content_usage": {"train-ai": "n", "search": "y"}}]}`, nil, "", ""},
		{"signals on paths that do not meet", LintSignalConflict,
			`{"robots_txt": {"groups": [{"user_agents": ["*"], "rules": [{"type": "disallow", "path": "/admin/"}],
			  "content_signal": [{"path": "/articles/", "preferences": {"ai-train": "no"}}]}]},
			  "robots_tag": [{"paths": ["/open-data/*"], "content_usage": {"train-ai": "y"}}]}`, nil, "", ""},
		{"a refusal robots.txt keeps the crawler from reading", LintSignalConflict,
			`{"robots_txt": {"groups": [{"user_agents": ["*"], "rules": [{"type": "disallow", "path": "/open-data/"}],
			  "content_usage": [{"preferences": {"train-ai": "n"}}]}]},
			  "robots_tag": [{"paths": ["/open-data/*"], "content_usage": {"train-ai": "y"}}]}`, nil, "", ""},
		{"a purpose group allows what the header refuses", LintSignalConflict,
			`{"robots_txt": {"groups": [{"purposes": ["search"], "rules": [{"type": "disallow", "path": "/admin/"}],
			  "content_usage": [{"preferences": {"train-ai": "y"}}]}, {"user_agents": ["*"], "rules": [{"type": "disallow", "path": "/admin/"}]}]},
			  "robots_tag": [{"content_usage": {"train-ai": "n"}}]}`, nil, `robots_txt.groups[0].content_usage[0]`, SeverityWarning},
		{"a capitalised robots.txt path, a route matching without case", LintSignalConflict,
			`{"robots_txt": {"groups": [{"user_agents": ["*"], "rules": [{"type": "disallow", "path": "/admin/"}],
			  "content_usage": [{"preferences": {"train-ai": "y"}}, {"path": "/Docs/", "preferences": {"train-ai": "n"}}]}]},
			  "robots_tag": [{"paths": ["/Docs/*"], "content_usage": {"train-ai": "n"}}]}`, nil, `robots_txt.groups[0].content_usage[0]`, SeverityWarning},
		{"training refused only in the merged file", LintTrainingUnstated,
			`{"robots_txt": {"merge_file": "testdata/refuses-training.txt", "groups": [{"user_agents": ["*"], "rules": [{"type": "disallow", "path": "/admin/"}]}]}}`, nil, "", ""},
		{"Content-Usage allows training where TDMRep reserves it", LintSignalConflict,
			`{"robots_txt": {"groups": [{"user_agents": ["*"], "rules": [{"type": "disallow", "path": "/admin/"}],
			  "content_usage": [{"path": "/articles/", "preferences": {"train-ai": "y"}}]}]},
			  "robots_tag": [{"paths": ["/articles/*"], "tdm": {"reservation": 1}}]}`, nil, `robots_txt.groups[0].content_usage[0]`, SeverityWarning},
		{"TDMRep does not reserve where the header refuses training", LintSignalConflict,
			`{"robots_tag": [{"paths": ["/press/*"], "tdm": {"reservation": 0}}, {"content_usage": {"train-ai": "n"}}]}`, nil, `robots_tag[0].tdm`, SeverityWarning},
		{"TDMRep derived from the same route's train-ai=n", LintSignalConflict,
			`{"robots_txt": {"groups": [{"user_agents": ["*"], "rules": [{"type": "disallow", "path": "/admin/"}],
			  "content_signal": [{"preferences": {"ai-train": "no", "search": "yes"}}]}]},
			  "robots_tag": [{"content_usage": {"train-ai": "n", "search": "y"}, "tdm": {"derive": true}}]}`, nil, "", ""},
		{"an RSL license permits training Content-Signal refuses", LintSignalConflict,
			`{"robots_txt": {"groups": [{"user_agents": ["*"], "rules": [{"type": "disallow", "path": "/admin/"}],
			  "content_signal": [{"preferences": {"ai-train": "no"}}]}],
			  "license_documents": [{"path": "/license.xml", "content": [{"url": "/", "permits": ["ai-all"]}]}]}}`, nil, `robots_txt.license_documents[0].content[0].permits`, SeverityWarning},
		{"an RSL license prohibits what Content-Signal refuses", LintSignalConflict,
			`{"robots_txt": {"groups": [{"user_agents": ["*"], "rules": [{"type": "disallow", "path": "/admin/"}],
			  "content_signal": [{"preferences": {"ai-train": "no", "search": "yes"}}]}],
			  "license_documents": [{"path": "/license.xml", "content": [{"url": "/", "permits": ["search"], "prohibits": ["ai-train", "ai-input"]}]}]}}`, nil, "", ""},
		{"an RSL license for other content than the refusal", LintSignalConflict,
			`{"robots_txt": {"groups": [{"user_agents": ["*"], "rules": [{"type": "disallow", "path": "/admin/"}],
			  "content_signal": [{"path": "/articles/", "preferences": {"ai-train": "no"}}]}],
			  "license_documents": [{"path": "/license.xml", "content": [{"url": "https://example.com/open-data/", "permits": ["ai-train"]}]}]}}`, nil, "", ""},
		{"a license path the config does not serve", LintLicenseNotServed,
			`{"robots_txt": {"licenses": ["/terms.xml", "https://collective.example/l.xml"], "groups": [{"user_agents": ["*"], "rules": [{"type": "disallow", "path": "/admin/"}]}]}}`, nil, "robots_txt.licenses[0]", SeverityInfo},
		{"a route's license on the site's host, not served", LintLicenseNotServed,
			`{"robots_tag": [{"licenses": ["https://example.com/terms.xml"]}]}`, []string{"example.com"}, "robots_tag[0].licenses[0]", SeverityInfo},
		{"licenses served by a license document, or elsewhere", LintLicenseNotServed,
			`{"robots_txt": {"licenses": ["https://collective.example/l.xml"], "groups": [{"user_agents": ["*"], "rules": [{"type": "disallow", "path": "/admin/"}]}],
			  "license_documents": [{"path": "/license.xml", "content": [{"url": "/", "prohibits": ["ai-train"]}]}]},
			  "robots_tag": [{"licenses": ["/license.xml", "https://example.com/license.xml"]}]}`, []string{"example.com"}, "", ""},
		{"training refused by TDMRep only", LintTrainingUnstated,
			`{"robots_txt": {"groups": [{"user_agents": ["*"], "rules": [{"type": "disallow", "path": "/admin/"}]}]},
			  "robots_tag": [{"paths": ["/articles/*"], "tdm": {"reservation": 1}}]}`, nil, "", ""},
		{"training refused by an RSL license only", LintTrainingUnstated,
			`{"robots_txt": {"groups": [{"user_agents": ["*"], "rules": [{"type": "disallow", "path": "/admin/"}]}],
			  "license_documents": [{"path": "/license.xml", "content": [{"url": "/", "prohibits": ["ai-all"]}]}]}}`, nil, "", ""},
		{"training crawlers allowed everywhere, training refused nowhere", LintTrainingUnstated,
			`{"robots_txt": {"groups": [{"user_agents": ["*"], "rules": [{"type": "disallow", "path": "/admin/"}]}]}}`, nil, "robots_txt", SeverityInfo},
		{"training refused on some path", LintTrainingUnstated,
			`{"robots_txt": {"groups": [{"user_agents": ["*"], "rules": [{"type": "disallow", "path": "/admin/"}]}]},
			  "robots_tag": [{"paths": ["/articles/*"], "content_usage": {"train-ai": "n"}}]}`, nil, "", ""},
		{"training crawlers disallowed", LintTrainingUnstated,
			`{"robots_txt": {"groups": [{"presets": ["ai-training"], "rules": [{"type": "disallow", "path": "/"}]}]}}`, nil, "", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			fs := lint(t, tc.config, tc.hosts...)
			got := only(fs, tc.lint)
			if tc.want == "" {
				if len(got) > 0 {
					t.Fatalf("unexpected %s: %v", tc.lint, got)
				}
				return
			}
			if len(got) != 1 {
				t.Fatalf("want one %s at %s, got %v (all: %v)", tc.lint, tc.want, got, fs)
			}
			f := got[0]
			if f.Location.JSONPath != tc.want || f.Severity != tc.sev || f.Message == "" || f.Fix == "" || strings.Contains(f.Fix, "\n") {
				t.Fatalf("finding %+v: want at %s with severity %s, a message and a one-line fix", f, tc.want, tc.sev)
			}
		})
	}
}

// TestLintSize checks the size lint at both sides of 80 % of 500 KiB.
func TestLintSize(t *testing.T) {
	build := func(n int) string {
		var rules []string
		for i := range n {
			rules = append(rules, fmt.Sprintf(`{"type": "disallow", "path": "/%s/%06d"}`, strings.Repeat("p", 80), i))
		}
		return `{"robots_txt": {"groups": [{"user_agents": ["*"], "rules": [` + strings.Join(rules, ",") + `]}]}}`
	}
	// Each rule renders as "Disallow: /" + 80 + "/" + 6 + "\n" = 99 bytes.
	small, big := build(sizeWarning/99-20), build(sizeWarning/99+20)
	if fs := only(lint(t, small), LintRobotsTxtSize); len(fs) != 0 {
		t.Fatalf("under 80%%: %v", fs)
	}
	fs := only(lint(t, big), LintRobotsTxtSize)
	if len(fs) != 1 || fs[0].Severity != SeverityWarning || fs[0].Location.JSONPath != "robots_txt" {
		t.Fatalf("over 80%%: %v", fs)
	}
}

// TestLintInvalid: an invalid config is an error naming the field, not findings.
func TestLintInvalid(t *testing.T) {
	_, err := Lint(site(t, `{"robots_tag": [{"paths": ["/a"], "rules": {"*": ["noindx"]}}]}`))
	if err == nil || !strings.Contains(err.Error(), `robots_tag[0].rules`) {
		t.Fatalf("err = %v", err)
	}
}

// TestLintXRobotsTagAlone: the core refuses x_robots_tag on a route without robots rules, so
// Lint never sees one; the lint itself is checked on such a route directly, to keep it true
// should the core change.
func TestLintXRobotsTagAlone(t *testing.T) {
	bad := `{"robots_tag": [{"content_usage": {"train-ai": "n"}, "x_robots_tag": true}]}`
	if _, err := Lint(site(t, bad)); err == nil || !strings.Contains(err.Error(), "robots_tag[0].x_robots_tag") {
		t.Fatalf("Lint accepted x_robots_tag without rules: %v", err)
	}
	s := site(t, bad)
	l := &linter{site: s}
	l.xRobotsTagAlone(&s.Routes[0])
	if len(l.out) != 1 || l.out[0].Lint != LintXRobotsTagAlone || l.out[0].Severity != SeverityError || l.out[0].Location.JSONPath != "robots_tag[0].x_robots_tag" {
		t.Fatalf("findings %v", l.out)
	}
	good := site(t, `{"robots_tag": [{"content_usage": {"train-ai": "n"}, "rules": {"*": ["noarchive"]}, "x_robots_tag": true}]}`)
	l = &linter{site: good}
	l.xRobotsTagAlone(&good.Routes[0])
	if len(l.out) != 0 {
		t.Fatalf("findings %v", l.out)
	}
}

// TestCheckSignalConflicts: check lists, for its URL and crawler, the conflicts lint finds
// there, and none where the signals agree; a route whose matcher excludes the URL (which lint
// does not compare) takes no part.
func TestCheckSignalConflicts(t *testing.T) {
	s := site(t, `{"robots_txt": {"groups": [{"user_agents": ["*"], "rules": [{"type": "disallow", "path": "/admin/"}],
	  "content_signal": [{"preferences": {"ai-train": "no", "search": "yes"}}]}]},
	  "robots_tag": [{"paths": ["/open-data/*"], "content_usage": {"train-ai": "y", "search": "y"}}]}`)
	rep, err := Check(s, Request{URL: "https://example.com/open-data/x.csv", Agent: "GPTBot"})
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.SignalConflicts) != 1 {
		t.Fatalf("conflicts %+v", rep.SignalConflicts)
	}
	c := rep.SignalConflicts[0]
	if c.Use != "AI training" || c.Allows.Value != "train-ai=y" || c.Allows.Location.JSONPath != `robots_tag[0].content_usage["train-ai"]` ||
		c.Refuses.Value != "ai-train=no" || c.Refuses.Location.JSONPath != "robots_txt.groups[0].content_signal[0]" {
		t.Fatalf("conflict %+v", c)
	}
	var b strings.Builder
	if err := rep.WriteText(&b); err != nil || !strings.Contains(b.String(), "AI training: the Content-Usage header says train-ai=y") {
		t.Fatalf("text %v:\n%s", err, b.String())
	}
	for _, u := range []string{"https://example.com/articles/x", "https://example.com/robots.txt"} {
		rep, err := Check(s, Request{URL: u, Agent: "GPTBot"})
		if err != nil || len(rep.SignalConflicts) != 0 {
			t.Fatalf("%s: %v %+v", u, err, rep.SignalConflicts)
		}
	}
	// The same route behind a matcher that excludes the path: check runs it, and it does not
	// apply.
	s.Routes[0].Match = func(r *http.Request) bool { return !strings.HasPrefix(r.URL.Path, "/open-data/") }
	rep, err = Check(s, Request{URL: "https://example.com/open-data/x.csv", Agent: "GPTBot"})
	if err != nil || len(rep.SignalConflicts) != 0 {
		t.Fatalf("excluded route: %v %+v", err, rep.SignalConflicts)
	}
}

// TestCheckSignalConflictsAIUse: Content-Usage's ai-use (draft-ietf-aipref-vocab-08) is
// compared with Content-Signal's ai-input, which it holds.
func TestCheckSignalConflictsAIUse(t *testing.T) {
	s := site(t, `{"robots_txt": {"groups": [{"user_agents": ["*"], "rules": [{"type": "disallow", "path": "/admin/"}],
	  "content_signal": [{"preferences": {"ai-input": "yes"}}]}]},
	  "robots_tag": [{"paths": ["/x/*"], "content_usage": {"ai-use": "n"}}]}`)
	rep, err := Check(s, Request{URL: "https://example.com/x/y", Agent: "GPTBot"})
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.SignalConflicts) != 1 || rep.SignalConflicts[0].Use != "AI input" || rep.SignalConflicts[0].Refuses.Value != "ai-use=n" {
		t.Fatalf("conflicts %+v", rep.SignalConflicts)
	}
}

// TestLintPresetUserFetchers: over every set of categories in a preset group with enforce,
// the warning names the link-preview agents and the user-triggered fetchers that only
// ai-all brings in, and its fix, the except line, is a config
// that validates and silences it. Without enforce, without a disallow rule, or with those
// crawlers named by a group of their own, there is no warning.
func TestLintPresetUserFetchers(t *testing.T) {
	cats := crawlers.Categories()
	warned := 0
	for mask := 1; mask < 1<<len(cats); mask++ {
		var presets []string
		for i, c := range cats {
			if mask&(1<<i) != 0 {
				presets = append(presets, c)
			}
		}
		group := func(except []string) string {
			g := map[string]any{"presets": presets, "rules": []map[string]string{{"type": "disallow", "path": "/articles/"}}}
			if except != nil {
				g["except"] = except
			}
			b, _ := json.Marshal(g)
			return string(b)
		}
		cfg := `{"robots_txt": {"groups": [` + group(nil) + `], "enforce": {}}}`
		fs := only(lint(t, cfg), LintPresetUserFetchers)
		// ai-all and ai-assistants hold link previews (facebookexternalhit,
		// meta-externalfetcher); ai-training holds neither kind.
		previews := slices.Contains(presets, crawlers.AIAll) || slices.Contains(presets, crawlers.AIAssistants)
		if len(fs) > 1 || previews != (len(fs) == 1) {
			t.Errorf("%v: %d findings: %v", presets, len(fs), fs)
		}
		if len(fs) == 0 {
			continue
		}
		warned++
		f := fs[0]
		if f.Location.JSONPath != "robots_txt.groups[0].presets[0]" || f.Severity != SeverityWarning {
			t.Errorf("%v: %+v", presets, f)
		}
		if strings.Contains(f.Message, "facebookexternalhit") != slices.Contains(presets, crawlers.AIAll) {
			t.Errorf("%v: facebookexternalhit (ai-all's link previews): %s", presets, f.Message)
		}
		if strings.Contains(f.Message, "ChatGPT-User") != (slices.Contains(presets, crawlers.AIAll) && !slices.Contains(presets, crawlers.AIAssistants)) {
			t.Errorf("%v: ChatGPT-User is named unless ai-assistants is chosen: %s", presets, f.Message)
		}
		// The fix, applied: the except line's names (a Caddyfile line, quoted names whole).
		line, ok := strings.CutPrefix(f.Fix, "to keep them, add to the preset block: except ")
		if !ok {
			t.Fatalf("fix %q", f.Fix)
		}
		var except []string
		for _, m := range regexp.MustCompile(`"[^"]*"|\S+`).FindAllString(line, -1) {
			if u, err := strconv.Unquote(m); err == nil {
				m = u
			}
			except = append(except, m)
		}
		fixed := `{"robots_txt": {"groups": [` + group(except) + `], "enforce": {}}}`
		if fs := only(lint(t, fixed), LintPresetUserFetchers); len(fs) != 0 {
			t.Errorf("%v: the fix does not silence the warning: %v", presets, fs)
		}
		// No enforce, or no disallow: nothing is refused.
		if fs := only(lint(t, `{"robots_txt": {"groups": [`+group(nil)+`]}}`), LintPresetUserFetchers); len(fs) != 0 {
			t.Errorf("%v without enforce: %v", presets, fs)
		}
		// The crawlers named in a group of their own keep it.
		own, _ := json.Marshal(map[string]any{"user_agents": except[:1], "rules": []map[string]string{{"type": "allow", "path": "/"}}})
		fs = only(lint(t, `{"robots_txt": {"groups": [`+group(nil)+`,`+string(own)+`], "enforce": {}}}`), LintPresetUserFetchers)
		if len(fs) != min(1, len(except)-1) || len(fs) == 1 && slices.Contains(strings.Fields(fs[0].Fix), except[0]) {
			t.Errorf("%v with %s named: %v", presets, except[0], fs)
		}
	}
	if warned < 8 {
		t.Errorf("warned for %d sets of categories", warned)
	}
}
