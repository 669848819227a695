package caddymodule

import (
	"slices"
	"strings"
	"testing"
)

// badTDMCaddyfiles are tdm lines refused at load, each naming its line ("# <-"), checked
// with badCaddyfiles by TestBadCaddyfilesRefusedWithLine.
var badTDMCaddyfiles = []struct {
	name, site, want string
}{
	{"reservation 2", "robots_tag {\n\ttdm 2 # <-\n}", "tdm-reservation is 1 (TDM rights reserved) or 0"},
	{"reservation -1", "robots_tag {\n\ttdm -1 # <-\n}", "tdm-reservation is 1 (TDM rights reserved) or 0"},
	// Only the report's words: what Atoi reads as 1 or 0 is not one.
	{"reservation 01", "robots_tag {\n\ttdm 01 # <-\n}", `e.g. tdm 1 https://example.com/policies/tdm.json; got "01"`},
	{"reservation -0", "robots_tag {\n\ttdm -0 # <-\n}", `e.g. tdm 1 https://example.com/policies/tdm.json; got "-0"`},
	{"reservation +1", "robots_tag {\n\ttdm +1 # <-\n}", `e.g. tdm 1 https://example.com/policies/tdm.json; got "+1"`},
	{"reservation 1.0", "robots_tag {\n\ttdm 1.0 # <-\n}", `e.g. tdm 1 https://example.com/policies/tdm.json; got "1.0"`},
	{"policy with a quote", "robots_tag {\n\ttdm 1 `https://e.com/a\"b` # <-\n}", `a tdm-policy URL must percent-encode '"'`},
	{"policy with a bracket", "robots_tag {\n\ttdm 1 https://e.com/a<b> # <-\n}", `a tdm-policy URL must percent-encode '<'`},
	{"reservation yes", "robots_tag {\n\ttdm yes # <-\n}", `tdm takes a reservation, 1 (TDM rights reserved), 0 (not reserved) or derive`},
	{"bare", "robots_tag {\n\ttdm # <-\n}", "tdm takes a reservation"},
	{"three arguments", "robots_tag {\n\ttdm 1 https://e.com/a https://e.com/b # <-\n}", "(got 3 arguments)"},
	{"relative policy", "robots_tag {\n\ttdm 1 /policies/tdm.json # <-\n}", "a tdm-policy URL must be an absolute http(s) URL"},
	{"policy with a control character", "robots_tag {\n\ttdm 1 \"https://e.com/a\tb\" # <-\n}", "must not contain control characters"},
	{"policy not http", "robots_tag {\n\ttdm 0 ftp://e.com/p # <-\n}", "a tdm-policy URL must be an absolute http(s) URL"},
	{"derive from silence", "robots_tag noindex {\n\ttdm derive # <-\n}", "a permission is never derived from silence"},
	{"derive from y", "robots_tag {\n\tcontent_usage train-ai=y\n\ttdm derive # <-\n}", "a permission is never derived from silence"},
	{"twice", "robots_tag {\n\ttdm 1\n\ttdm 0 # <-\n}", "tdm given twice"},
	{"block", "robots_tag {\n\ttdm 1 {\n\t\tx # <-\n\t}\n}", "it takes no block"},
	{"meta without rules or tdm", "robots_tag { # <-\n\tcontent_usage train-ai=n\n\tmeta\n}", "the route has none"},
}

// headMetaWords is the head's meta elements (metaElements) as "name=content" words, sorted.
func headMetaWords(t *testing.T, body []byte) string {
	metas, _ := metaElements(t, body, nil)
	var words []string
	for name, contents := range metas {
		for _, c := range contents {
			words = append(words, name+"="+c)
		}
	}
	slices.Sort(words)
	return strings.Join(words, " ")
}

// TestREADMETDMCaddyfile: docs/licensing.md's TDMRep block, in a real Caddy in front of an
// HTML page: robots.txt with Content-Usage and Content-Signal, the TDMRep fields
// and meta elements per route, and /.well-known/tdmrep.json (what nethttp.TestTDMOverLoopback
// checks of the same policy); a handler's own tdm-reservation 1 stands over the route's 0.
func TestREADMETDMCaddyfile(t *testing.T) {
	cfg := docBlock(t, "../docs/licensing.md", "tdm-caddyfile", "caddyfile")
	startCaddyfile(t, "http://localhost:@PORT@ {\n"+cfg+`
header /press/own/* Tdm-Reservation 1
header Content-Type "text/html; charset=utf-8"
respond "<!doctype html><title>t</title><p>x"
}
`)
	resp, body := do(t, "GET", siteURL("/robots.txt"))
	wantStatus(t, resp, 200)
	if want := "User-agent: *\nDisallow:\nContent-Usage: train-ai=n, search=y\nContent-Usage: /press/ train-ai=y\nContent-Signal: search=yes, ai-input=yes, ai-train=no\nContent-Signal: /press/ search=yes, ai-input=yes, ai-train=yes\n"; string(body) != want {
		t.Errorf("robots.txt\n%s", body)
	}
	const policyURL = "https://example.com/policies/tdm.json"
	for path, want := range map[string][4]string{
		"/articles/a":  {"train-ai=n, search=y", "1", policyURL, "tdm-policy=" + policyURL + " tdm-reservation=1"},
		"/press/a":     {"", "0", "", ""},
		"/press/own/a": {"", "1", "", ""},
		"/other":       {"", "", "", ""},
	} {
		resp, body := do(t, "GET", siteURL(path))
		wantStatus(t, resp, 200)
		got := [4]string{strings.Join(resp.Header.Values("Content-Usage"), "|"), strings.Join(resp.Header.Values("Tdm-Reservation"), "|"), strings.Join(resp.Header.Values("Tdm-Policy"), "|"), headMetaWords(t, body)}
		if got != want {
			t.Errorf("%s: %q, want %q", path, got, want)
		}
	}
	// robots_txt serves the file generated from the block's routes, as docs/licensing.md
	// shows it for nethttp (nethttp.TestTDMOverLoopback).
	resp, body = do(t, "GET", siteURL("/.well-known/tdmrep.json"))
	wantStatus(t, resp, 200)
	if want := docBlock(t, "../docs/licensing.md", "tdm-tdmrep-json", "json"); strings.TrimSpace(string(body)) != strings.TrimSpace(want) || resp.Header.Get("Content-Type") != "application/json" {
		t.Errorf("tdmrep.json in Caddy: %v\n%s\ndocs/licensing.md shows\n%s", resp.Header, body, want)
	}
}
