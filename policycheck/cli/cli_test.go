package cli

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/sitepolicy/caddy-robots/configerr"
	"github.com/sitepolicy/caddy-robots/identity"
	"github.com/sitepolicy/caddy-robots/policy"
	"github.com/sitepolicy/caddy-robots/policycheck"
)

// TestWriteErrorJSON: a FileError reports its problems with their locations; other errors
// report their configerr.Errors by field path; anything else is one problem.
func TestWriteErrorJSON(t *testing.T) {
	fileProblems := []Problem{
		{Value: "dissallow", Problem: "unknown sub-directive", Suggestion: "disallow", Location: &policycheck.Location{File: "Caddyfile", Line: 4}},
		{Path: "max_age", Value: "2d", Problem: "at most 24h", Location: &policycheck.Location{File: "Caddyfile", Line: 7}},
	}
	for _, c := range []struct {
		name string
		err  error
		want []Problem
	}{
		{"file error", fmt.Errorf("loading: %w", &FileError{Err: errors.New("adapting config: ..., at Caddyfile:4"), Problems: fileProblems}), fileProblems},
		{"field errors", configerr.Join(&configerr.Error{Path: `robots_tag[0].rules["*"][0]`, Value: "noindx", Problem: "unknown rule", Suggestion: "noindex"}, configerr.New("robots_txt.max_age", "48h0m0s", "at most 24h")),
			[]Problem{{Path: `robots_tag[0].rules["*"][0]`, Value: "noindx", Problem: "unknown rule", Suggestion: "noindex"}, {Path: "robots_txt.max_age", Value: "48h0m0s", Problem: "at most 24h"}}},
		{"file error without problems", &FileError{Err: errors.New("open Caddyfile: no such file")}, []Problem{{Problem: "open Caddyfile: no such file"}}},
		{"plain error", errors.New("--url is required"), []Problem{{Problem: "--url is required"}}},
	} {
		var b bytes.Buffer
		if err := WriteErrorJSON(&b, c.err); err != nil {
			t.Fatal(err)
		}
		var r ErrorReport
		dec := json.NewDecoder(&b)
		dec.DisallowUnknownFields()
		if err := dec.Decode(&r); err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		if r.Error != c.err.Error() {
			t.Errorf("%s: error %q, want %q", c.name, r.Error, c.err.Error())
		}
		got, _ := json.Marshal(r.Problems)
		want, _ := json.Marshal(c.want)
		if !bytes.Equal(got, want) {
			t.Errorf("%s: problems\n%s\nwant\n%s", c.name, got, want)
		}
	}
	// Without a location the member is left out, as the Go doc of Problem says.
	var b bytes.Buffer
	_ = WriteErrorJSON(&b, errors.New("x"))
	if strings.Contains(b.String(), "location") {
		t.Errorf("a problem without a location has one: %s", b.String())
	}
}

func TestCheckFormat(t *testing.T) {
	for format, want := range map[string]string{
		"text": "", "json": "",
		"jsno":  `--format "jsno": want text or json (did you mean "json"?)`,
		"JSON":  `--format "JSON": want text or json (did you mean "json"?)`,
		"txt":   `--format "txt": want text or json (did you mean "text"?)`,
		"xml":   `--format "xml": want text or json`,
		"yaml!": `--format "yaml!": want text or json`,
	} {
		err := CheckFormat(format)
		if got := fmt.Sprint(err); (want == "" && err != nil) || (want != "" && got != want) {
			t.Errorf("CheckFormat(%q) = %v, want %q", format, err, want)
		}
	}
}

// TestLintResultJSON checks the JSON of lint's output and its failure rule.
func TestLintResultJSON(t *testing.T) {
	for _, tc := range []struct {
		fs   []policycheck.Finding
		fail bool
	}{
		{nil, false},
		{[]policycheck.Finding{{Lint: policycheck.LintDuplicateRule, Severity: policycheck.SeverityInfo}}, false},
		{[]policycheck.Finding{{Lint: policycheck.LintDuplicateRule, Severity: policycheck.SeverityInfo}, {Lint: policycheck.LintShadowedRule, Severity: policycheck.SeverityWarning}}, true},
		{[]policycheck.Finding{{Lint: policycheck.LintXRobotsTagAlone, Severity: policycheck.SeverityError}}, true},
	} {
		var b bytes.Buffer
		if err := newLintResult(tc.fs).writeJSON(&b); err != nil {
			t.Fatal(err)
		}
		var got struct {
			Findings []map[string]any `json:"findings"`
			Failed   *bool            `json:"failed"`
		}
		if err := json.Unmarshal(b.Bytes(), &got); err != nil || got.Findings == nil || got.Failed == nil || *got.Failed != tc.fail || len(got.Findings) != len(tc.fs) {
			t.Fatalf("%s: %v", b.String(), err)
		}
		for _, f := range got.Findings {
			for _, k := range []string{"lint", "severity", "location", "message", "fix"} {
				if _, ok := f[k]; !ok {
					t.Fatalf("finding without %q: %s", k, b.String())
				}
			}
		}
	}
}

// TestCheckNamesFlags: policycheck.Check names the Request field at fault; the commands name
// the flag that gave it.
func TestCheckNamesFlags(t *testing.T) {
	site := &policycheck.Site{}
	for _, c := range []struct {
		req      policycheck.Request
		lib, cmd string
		libField string
	}{
		{policycheck.Request{URL: "/x"}, `URL "/x": must be an absolute http(s) URL, e.g. https://example.com/page.html`,
			`--url "/x": must be an absolute http(s) URL, e.g. https://example.com/page.html`, "URL"},
		{policycheck.Request{URL: "https://example.com/", BackendHeaders: []string{"nope"}}, `backend header line "nope": give a header line, e.g. 'Robots-Tag: noindex'`,
			`--backend-header "nope": give a header line, e.g. 'Robots-Tag: noindex'`, "BackendHeaders"},
		{policycheck.Request{URL: "https://example.com/", ClientIP: "66.249.64"}, `ClientIP "66.249.64": give the client's IP address as the server sees it (after its trusted proxies), e.g. 66.249.66.1 or 2001:db8::1`,
			`--client-ip "66.249.64": give the client's IP address as the server sees it (after its trusted proxies), e.g. 66.249.66.1 or 2001:db8::1`, "ClientIP"},
	} {
		_, err := policycheck.Check(site, c.req)
		var re *policycheck.RequestError
		if !errors.As(err, &re) || re.Field != c.libField || err.Error() != c.lib {
			t.Errorf("policycheck.Check: %v, want %q", err, c.lib)
		}
		if _, err := Check(site, c.req); fmt.Sprint(err) != c.cmd {
			t.Errorf("Check: %v, want %q", err, c.cmd)
		}
	}
	if rep, err := Check(site, policycheck.Request{URL: "https://example.com/"}); err != nil || !rep.Allowed {
		t.Errorf("Check: %v %v", rep, err)
	}
	// A config error is returned as it is.
	bad := policycheck.FromConfig(policy.Config{RobotsTag: []policy.Route{{Tags: policy.Tags{Rules: map[string][]string{"*": {"noindx"}}}}}})
	if rep, err := Check(bad, policycheck.Request{URL: "https://example.com/"}); rep != nil || err == nil || !strings.Contains(err.Error(), "noindx") {
		t.Errorf("Check with a config error: %v %v", rep, err)
	}
}

// TestCheckClientIPNote: a crawler's claim left pending for want of an address says which flag
// gives one; with an address, or a claim that needs none, there is no such note.
func TestCheckClientIPNote(t *testing.T) {
	svc := identity.NewService(identity.ServiceOptions{NoLists: true, NoDNS: true})
	site := &policycheck.Site{Crawlers: svc}
	for _, c := range []struct {
		agent, ip string
		note      bool
	}{
		{"Googlebot", "", true},
		{"Googlebot", "203.0.113.9", false},
		{"Barkrowler", "", false}, // unverifiable: an address would not help
		{"Mozilla/5.0 Chrome/131.0", "", false},
	} {
		rep, err := Check(site, policycheck.Request{URL: "https://example.com/", Agent: c.agent, ClientIP: c.ip})
		if err != nil {
			t.Fatal(err)
		}
		got := slices.ContainsFunc(rep.Notes, func(n string) bool { return strings.Contains(n, "--client-ip") })
		if got != c.note {
			t.Errorf("%s from %q: notes %q", c.agent, c.ip, rep.Notes)
		}
	}
}

// TestRunCheckPlace: with a Place (caddy robots check), the JSON is the report's members and
// the place's, and the text starts with the server and its handlers; without one, the report
// alone. The status follows the decision.
func TestRunCheckPlace(t *testing.T) {
	site := policycheck.FromConfig(policy.Config{RobotsTxt: &policy.RobotsTxt{}})
	rep, err := Check(site, policycheck.Request{URL: "https://example.com/x", Agent: "GPTBot"})
	if err != nil {
		t.Fatal(err)
	}
	at := &Place{Server: "srv0", Handlers: []string{"robots_txt at Caddyfile:3"}}
	var plain, placed bytes.Buffer
	if st, err := RunCheck(&plain, rep, nil, "json"); err != nil || st != ExitOK {
		t.Fatalf("status %d, %v", st, err)
	}
	if _, err := RunCheck(&placed, rep, at, "json"); err != nil {
		t.Fatal(err)
	}
	var a, b map[string]any
	if err := json.Unmarshal(plain.Bytes(), &a); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(placed.Bytes(), &b); err != nil {
		t.Fatal(err)
	}
	if _, ok := a["server"]; ok || b["server"] != "srv0" || fmt.Sprint(b["handlers"]) != "[robots_txt at Caddyfile:3]" {
		t.Errorf("server %v, %v; handlers %v", a["server"], b["server"], b["handlers"])
	}
	delete(b, "server")
	delete(b, "handlers")
	if fmt.Sprint(a) != fmt.Sprint(b) {
		t.Errorf("the report's members differ with a place:\n%v\n%v", a, b)
	}
	var text bytes.Buffer
	if _, err := RunCheck(&text, rep, at, "text"); err != nil || !strings.HasPrefix(text.String(), "Server:   srv0 (robots_txt at Caddyfile:3)\n") {
		t.Errorf("text %q, %v", text.String(), err)
	}
	rep.Allowed = false
	if st, _ := RunCheck(&text, rep, at, "text"); st != ExitFail {
		t.Errorf("disallowed: status %d, want %d", st, ExitFail)
	}
}
