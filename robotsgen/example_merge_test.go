package robotsgen_test

import (
	"fmt"

	"github.com/sitepolicy/caddy-robots/robotsgen"
	"github.com/sitepolicy/caddy-robots/usage"
)

// Merge keeps a CMS's robots.txt while the declared rules hold: the CMS's "Allow: /" for
// Googlebot cannot reopen the declared /drafts/, and its /wp-admin/ stays closed to the
// crawlers that read its "*" group (Googlebot reads its own group there, as before the merge).
func ExampleMerge() {
	declared := &robotsgen.File{Groups: []robotsgen.Group{
		{UserAgents: []string{"*"}, Rules: []robotsgen.Rule{{Type: robotsgen.Disallow, Path: "/drafts/"}}},
	}}
	cms, _ := robotsgen.Parse([]byte("User-agent: *\nDisallow: /wp-admin/\n\nUser-agent: Googlebot\nAllow: /\n"))
	merged, diags := robotsgen.Merge(declared, cms)
	m := robotsgen.NewMatcher(merged)
	for _, agent := range []string{"Googlebot", "Bingbot"} {
		for _, path := range []string{"/drafts/x", "/wp-admin/", "/blog/"} {
			fmt.Println(agent, path, m.Decide(agent, "", path).Allowed)
		}
	}
	fmt.Println(len(diags), "diagnostics")
	// Output:
	// Googlebot /drafts/x false
	// Googlebot /wp-admin/ true
	// Googlebot /blog/ true
	// Bingbot /drafts/x false
	// Bingbot /wp-admin/ false
	// Bingbot /blog/ true
	// 0 diagnostics
}

// Preferences answers what a robots.txt says about AI usage for one crawler and path.
func ExampleMatcher_Preferences() {
	f, _ := robotsgen.Parse([]byte("User-agent: *\nDisallow: /private/\nContent-Usage: train-ai=n, search=y\nContent-Usage: /open-data/ train-ai=y\n"))
	m := robotsgen.NewMatcher(f)
	for _, path := range []string{"/articles/a", "/open-data/x.csv", "/private/x"} {
		fmt.Printf("%s: %q\n", path, m.Preferences(usage.ContentUsage, "ExampleBot", "", path))
	}
	// Output:
	// /articles/a: "train-ai=n, search=y"
	// /open-data/x.csv: "train-ai=y"
	// /private/x: ""
}
