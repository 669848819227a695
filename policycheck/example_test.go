package policycheck_test

import (
	"fmt"

	"github.com/sitepolicy/caddy-robots/nethttp"
	"github.com/sitepolicy/caddy-robots/policycheck"
	"github.com/sitepolicy/caddy-robots/robotsgen"
)

// exampleConfig keeps drafts out of robots.txt and also tags them noindex: the classic
// policy that defeats itself.
var exampleConfig = nethttp.Config{
	RobotsTxt: &nethttp.RobotsTxtConfig{Groups: []robotsgen.Group{
		{UserAgents: []string{"*"}, Rules: []robotsgen.Rule{{Type: robotsgen.Disallow, Path: "/drafts/"}}},
	}},
	RobotsTag: []nethttp.Route{{Paths: []string{"/drafts/*"}, Tags: nethttp.TagConfig{Rules: map[string][]string{"*": {"noindex"}}}}},
}

// Check explains what a crawler sees at one URL.
func ExampleCheck() {
	site := policycheck.FromConfig(exampleConfig, "example.com")
	rep, err := policycheck.Check(site, policycheck.Request{URL: "https://example.com/drafts/a", Agent: "Googlebot"})
	if err != nil {
		panic(err)
	}
	fmt.Println("allowed:", rep.Allowed)
	fmt.Println("rule:", rep.RobotsTxt.Rule.Text)
	fmt.Println("Robots-Tag:", rep.Response.RobotsTag)
	fmt.Println(len(rep.Notes), "note")
	// Output:
	// allowed: false
	// rule: Disallow: /drafts/
	// Robots-Tag: *;noindex
	// 1 note
}

// Lint finds the policies that defeat themselves.
func ExampleLint() {
	findings, err := policycheck.Lint(policycheck.FromConfig(exampleConfig, "example.com"))
	if err != nil {
		panic(err)
	}
	for _, f := range findings {
		fmt.Println(f.Lint, f.Severity, f.Location.JSONPath)
	}
	// Output:
	// unseen-tags warning robots_tag[0].rules["*"]
	// training-unstated info robots_txt
}
