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

// A Text's decisions carry the line of their rule in the file: as Parse read it (ReadText), or
// as Render wrote it (File.RenderText).
func ExampleText() {
	txt := robotsgen.ReadText([]byte("# shop\nUser-agent: *\nDisallow: /cart\n\nUser-agent: GPTBot\nAllow: /blog/\nDisallow: /\n"))
	for _, q := range [][2]string{{"GPTBot", "/blog/a"}, {"GPTBot", "/cart"}, {"Googlebot", "/cart/1"}} {
		d := txt.Matcher.Decide(q[0], "", q[1])
		fmt.Printf("%s %s: allowed=%v, line %d: %s\n", q[0], q[1], d.Allowed, d.Line, txt.LineText(d.Line))
	}
	f := &robotsgen.File{Groups: []robotsgen.Group{{UserAgents: []string{"GPTBot"}, Rules: []robotsgen.Rule{{Type: robotsgen.Disallow, Path: "/"}}}}}
	rendered, _ := f.RenderText("")
	d := rendered.Matcher.Decide("GPTBot", "", "/x")
	fmt.Printf("rendered: line %d: %s\n", d.Line, rendered.LineText(d.Line))
	// Output:
	// GPTBot /blog/a: allowed=true, line 6: Allow: /blog/
	// GPTBot /cart: allowed=false, line 7: Disallow: /
	// Googlebot /cart/1: allowed=false, line 3: Disallow: /cart
	// rendered: line 2: Disallow: /
}
