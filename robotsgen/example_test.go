package robotsgen_test

import (
	"fmt"

	"github.com/sitepolicy/caddy-robots/robotsgen"
)

func ExampleFile_Render() {
	f := &robotsgen.File{
		Comments: []string{"robots.txt for example.com"},
		Groups: []robotsgen.Group{
			{UserAgents: []string{"GoodBot"}},
			{Purposes: []string{"EXAMPLE-PURPOSE-1"}, Rules: []robotsgen.Rule{{Type: robotsgen.Disallow, Path: "/"}}},
			{UserAgents: []string{"*"}, Rules: []robotsgen.Rule{
				{Type: robotsgen.Disallow, Path: "/private/"},
				{Type: robotsgen.Allow, Path: "/private/café"},
			}, CrawlDelay: 2.5},
		},
		Sitemaps: []string{"/sitemap.xml"},
	}
	out, err := f.Render("https://example.com")
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Print(string(out))
	// Output:
	// # robots.txt for example.com
	//
	// Sitemap: https://example.com/sitemap.xml
	//
	// # Groups for crawlers by purpose (User-Agent-Purpose, draft-illyes-rep-purpose). No crawler is named robotsgen-purpose-groups: that line keeps parsers that do not read User-Agent-Purpose from adding these rules to another group.
	// User-agent: robotsgen-purpose-groups
	// User-Agent-Purpose: EXAMPLE-PURPOSE-1
	// Disallow: /
	//
	// User-agent: GoodBot
	// Disallow:
	//
	// User-agent: *
	// Disallow: /private/
	// Allow: /private/caf%C3%A9
	// Crawl-delay: 2.5
}

func ExampleMatcher_Decide() {
	f, _ := robotsgen.Parse([]byte(`
User-agent: FooBot
User-Agent-Purpose: EXAMPLE-PURPOSE-1
Disallow: /

User-agent: *
Disallow: /private
Allow: /private/public$
`))
	m := robotsgen.NewMatcher(f)
	show := func(agent, purpose, path string) {
		d := m.Decide(agent, purpose, path)
		rule := "no rule"
		if d.Rule != nil {
			rule = string(d.Rule.Type) + " " + d.Rule.Path
		}
		fmt.Printf("%s/%s %s: allowed=%v group=%d (%s)\n", agent, purpose, path, d.Allowed, d.Group, rule)
	}
	show("foobot", "", "/index.html")
	show("BarBot", "EXAMPLE-PURPOSE-1", "/index.html")
	show("BarBot", "", "/private/public")
	show("BarBot", "", "/private/public/x")
	show("BarBot", "", "/robots.txt")
	// Output:
	// foobot/ /index.html: allowed=false group=0 (disallow /)
	// BarBot/EXAMPLE-PURPOSE-1 /index.html: allowed=false group=0 (disallow /)
	// BarBot/ /private/public: allowed=true group=1 (allow /private/public$)
	// BarBot/ /private/public/x: allowed=false group=1 (disallow /private)
	// BarBot/ /robots.txt: allowed=true group=1 (no rule)
}
