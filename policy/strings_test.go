package policy_test

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"os"
	"reflect"
	"strconv"
	"strings"
	"testing"

	"github.com/sitepolicy/caddy-robots/configerr"
	"github.com/sitepolicy/caddy-robots/internal/fieldcover"
	"github.com/sitepolicy/caddy-robots/policy"
)

// full sets every field of the config (TestReplaceStringsFixtureComplete), each string
// different.
const full = `{
	"robots_txt": {
		"comments": ["c0", "c1"],
		"groups": [
			{"user_agents": ["ua0"], "presets": ["pr0"], "except": ["ex0"], "purposes": ["pu0"], "crawl_delay": 2,
			 "rules": [{"type": "disallow", "path": "/p0"}, {"type": "allow", "path": "/p1"}],
			 "records": [{"key": "gk0", "value": "gv0"}],
			 "content_usage": [{"path": "/cu", "preferences": {"train-ai": "n"}}],
			 "content_signal": [{"path": "/cs", "preferences": {"ai-train": "no"}}]},
			{"user_agents": ["ua1", "ua2"]}
		],
		"sitemaps": ["/s0"],
		"records": [{"key": "k0", "value": "v0"}],
		"licenses": ["/l0"],
		"license_documents": [{"path": "/d0", "content": [{"url": "/u0", "permits": ["pe0"], "prohibits": ["ph0"],
			"payment": {"type": "pt0", "standard": "ps0", "custom": "pc0"}}]}],
		"max_age": "2h",
		"enforce": {"status": 429, "impostors": {"status": 410}, "accept_signature": true, "crawl_delay": true},
		"merge_file": "mf",
		"merge_upstream": true,
		"merge_upstream_timeout": "3s",
		"pay": {"facilitator": "https://f0", "network": "n0:x", "asset": "as0", "decimals": 6, "pay_to": "pt1",
			"extra": {"ek0": "ev0"}, "max_timeout": "4s", "facilitator_timeout": "5s", "max_in_flight": 7, "remember_payments": 8,
			"prices": [{"crawlers": ["cr0"], "except": ["pex0"], "paths": ["/pp0"], "amount": "am0", "license": "/pl0"}]}
	},
	"robots_tag": [
		{"paths": ["/a/*", "*.pdf"], "rules": {"*": ["noindex"], "tok": ["nofollow", "nosnippet"]}, "except": ["rex0"],
		 "meta": true, "x_robots_tag": true, "content_usage": {"train-ai": "y"}, "licenses": ["/l1"],
		 "tdm": {"reservation": 1, "derive": true, "policy": "https://tp0"}}
	]
}`

func decodeFull(t *testing.T) policy.Config {
	t.Helper()
	cfg, err := policy.Decode([]byte(full))
	if err != nil {
		t.Fatal(err)
	}
	cfg.RobotsTag[0].Match = func(*http.Request) bool { return true }
	return cfg
}

func TestReplaceStringsFixtureComplete(t *testing.T) {
	set := fieldcover.Set{}
	set.Add(decodeFull(t))
	if missing := set.Missing(reflect.TypeFor[policy.Config]()); len(missing) > 0 {
		t.Errorf("the fixture sets no value for %v: add one, so that ReplaceStrings is tested on it", missing)
	}
}

// TestReplaceStringsEveryString: every string of the JSON form is passed to f once, under a
// path that names it in that JSON, and comes out replaced; nothing else changes.
func TestReplaceStringsEveryString(t *testing.T) {
	cfg := decodeFull(t)
	var doc any
	if err := json.Unmarshal([]byte(full), &doc); err != nil {
		t.Fatal(err)
	}
	seen := map[string]int{}
	out, err := policy.ReplaceStrings(cfg, func(path, s string) (string, error) {
		seen[path+"="+s]++
		if got, err := configerr.Resolve(doc, path); err != nil || (got != s && !isKeyOf(path, s)) {
			t.Errorf("f(%q, %q): the JSON has %v there", path, s, got)
		}
		return "R(" + s + ")", nil
	})
	if err != nil {
		t.Fatal(err)
	}
	for k, n := range seen {
		if n != 1 {
			t.Errorf("%s passed %d times", k, n)
		}
	}
	// Every string in the output's JSON, key or value, is replaced; the numbers, booleans and
	// durations are as they were.
	b, err := json.Marshal(out)
	if err != nil {
		t.Fatal(err)
	}
	var got any
	if err := json.Unmarshal(b, &got); err != nil {
		t.Fatal(err)
	}
	strs := 0
	walkJSON(got, func(s string, key bool) {
		strs++
		if !strings.HasPrefix(s, "R(") && !(key && isFieldName(s)) && s != "2h0m0s" && s != "3s" && s != "4s" && s != "5s" {
			t.Errorf("string %q (key %v) was not replaced", s, key)
		}
	})
	if len(seen) < 30 {
		t.Errorf("only %d strings replaced", len(seen))
	}
	if out.RobotsTxt.Groups[0].CrawlDelay != 2 || !out.RobotsTxt.MergeUpstream || out.RobotsTxt.Enforce.Status != 429 || out.RobotsTxt.Enforce.Impostors.Status != 410 ||
		out.RobotsTxt.MaxAge != cfg.RobotsTxt.MaxAge || !out.RobotsTag[0].Meta || !out.RobotsTag[0].XRobotsTag {
		t.Errorf("a value that is not a string changed: %+v", out)
	}
	if out.RobotsTag[0].Match == nil {
		t.Error("Match, outside the JSON form, was dropped")
	}
	// The input is not modified.
	if again := decodeFull(t); !reflect.DeepEqual(jsonOf(t, again), jsonOf(t, cfg)) {
		t.Errorf("ReplaceStrings modified its input:\n%s", jsonOf(t, cfg))
	}
	if out.RobotsTxt == cfg.RobotsTxt || out.RobotsTxt.Enforce == cfg.RobotsTxt.Enforce {
		t.Error("the copy shares a pointer with the input")
	}
}

func TestReplaceStringsKeys(t *testing.T) {
	tags := policy.Tags{
		Rules:        map[string][]string{"{a}": {"noindex"}, "{b}": {"nofollow"}, "c": {"nosnippet"}},
		ContentUsage: map[string]string{"{a}": "n", "{b}": "y"},
	}
	out, err := policy.ReplaceStrings(tags, func(path, s string) (string, error) {
		if s == "{a}" || s == "{b}" {
			return "tok", nil
		}
		return s, nil
	})
	// Two rule tokens that become one have their rules joined, in key order.
	if got := fmt.Sprint(out.Rules); got != "map[c:[nosnippet] tok:[noindex nofollow]]" {
		t.Errorf("rules %s", got)
	}
	// Two preferences that become one cannot both hold: an error names the entry.
	var ce *configerr.Error
	if !errors.As(err, &ce) || ce.Path != `content_usage["{b}"]` {
		t.Fatalf("error %v, want one naming content_usage[\"{b}\"]", err)
	}
}

func TestReplaceStringsErrors(t *testing.T) {
	cfg := decodeFull(t)
	out, err := policy.ReplaceStrings(cfg, func(path, s string) (string, error) {
		switch s {
		case "/p1":
			return "", errors.New("unknown placeholder")
		case "mf":
			return "", configerr.New("elsewhere", s, "as given")
		}
		return s, nil
	})
	all := configerr.All(err)
	if len(all) != 2 || all[0].Error() != `robots_txt.groups[0].rules[1].path "/p1": unknown placeholder` || all[1].Path != "elsewhere" {
		t.Fatalf("errors %q", err)
	}
	if out.RobotsTxt.Groups[0].Rules[1].Path != "/p1" {
		t.Errorf("a string f failed on became %q, want it unchanged", out.RobotsTxt.Groups[0].Rules[1].Path)
	}
}

// ReplaceStrings expands environment variables in every string of a config.
func ExampleReplaceStrings() {
	os.Setenv("SITEMAP", "https://example.com/sitemap.xml")
	cfg, _ := policy.Decode([]byte(`{"robots_txt": {"sitemaps": ["$SITEMAP"]}}`))
	cfg, err := policy.ReplaceStrings(cfg, func(_, s string) (string, error) {
		return os.ExpandEnv(s), nil
	})
	fmt.Println(cfg.RobotsTxt.Sitemaps, err)
	// Output: [https://example.com/sitemap.xml] <nil>
}

func jsonOf(t *testing.T, v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// isKeyOf reports whether path names a map entry whose key is s.
func isKeyOf(path, s string) bool {
	return strings.HasSuffix(path, "["+strconv.Quote(s)+"]")
}

// walkJSON calls f with every string of a decoded JSON document, keys included.
func walkJSON(v any, f func(s string, key bool)) {
	switch v := v.(type) {
	case string:
		f(v, false)
	case []any:
		for _, e := range v {
			walkJSON(e, f)
		}
	case map[string]any:
		for k, e := range v {
			f(k, true)
			walkJSON(e, f)
		}
	}
}

// isFieldName reports whether a JSON key is one of the config's field names rather than a
// string of the config (a rule token, a preference key).
func isFieldName(k string) bool {
	return strings.Trim(k, "abcdefghijklmnopqrstuvwxyz_") == "" && k != "tok"
}
