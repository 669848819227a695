package robotsgen

import (
	"errors"
	"math"
	"strings"
	"testing"

	"github.com/sitepolicy/caddy-robots/crawlers"
)

func validFile() *File {
	return &File{
		Comments: []string{"hello"},
		Groups: []Group{
			{UserAgents: []string{"GoodBot"}, Purposes: []string{"EXAMPLE-PURPOSE-1"}, Rules: []Rule{{Disallow, "/private"}}, CrawlDelay: 1, Records: []Record{{"Clean-param", "ref"}}},
			{UserAgents: []string{"*"}, Rules: []Rule{{Allow, "/"}}},
		},
		Sitemaps: []string{"https://example.com/sitemap.xml", "/s.xml"},
		Records:  []Record{{"Host", "example.com"}},
	}
}

func TestValidateAcceptsValid(t *testing.T) {
	if err := validFile().Validate(); err != nil {
		t.Fatal(err)
	}
	if err := (&File{}).Validate(); err != nil {
		t.Fatal(err)
	}
}

func TestValidateRejects(t *testing.T) {
	cases := []struct {
		name   string
		mutate func(f *File)
		want   []string // substrings of the error
	}{
		{"reserved guard token", func(f *File) { f.Groups[0].UserAgents[0] = "RobotsGen-Purpose-Groups" },
			[]string{`groups[0].user_agents[0] "RobotsGen-Purpose-Groups": this product token is reserved`}},
		{"space in product token", func(f *File) { f.Groups[0].UserAgents[0] = "Google Bot" },
			[]string{`groups[0].user_agents[0] "Google Bot": a product token may contain only A-Z, a-z, 0-9, "_" and "-"`}},
		{"dot in product token", func(f *File) { f.Groups[1].UserAgents[0] = "Bot2.0" }, []string{`groups[1].user_agents[0] "Bot2.0"`, "product token"}},
		{"category as user agent", func(f *File) { f.Groups[1].UserAgents[0] = "AI-Training" }, []string{`groups[1].user_agents[0] "AI-Training"`, "name it as a preset"}},
		{"unknown preset", func(f *File) { f.Groups[1].Presets = []string{"ai-search", "ai-trainnig"} },
			[]string{`groups[1].presets[1] "ai-trainnig": a preset is a category of the crawler catalogue: ai-all, ai-assistants, ai-search, ai-training (did you mean "ai-training"?)`}},
		{"purpose is a crawler", func(f *File) { f.Groups[0].Purposes[0] = "gptbot" }, []string{`groups[0].purposes[0] "gptbot": a purpose token must not be the name of a crawler (GPTBot)`}},
		{"purpose is a crawler and a digit", func(f *File) { f.Groups[0].Purposes[0] = "GPTBot2x" }, []string{`groups[0].purposes[0] "GPTBot2x": a purpose token must not start with the name of a crawler followed by a digit (GPTBot)`}},
		{"preset adds no crawler", func(f *File) {
			f.Groups = append(f.Groups, Group{UserAgents: []string{"GPTBot", "ChatGPT-User", "OAI-SearchBot"}}, Group{Presets: []string{"ai-assistants"}})
			cs, _ := crawlers.Category("ai-assistants")
			w, _ := crawlers.RobotsTxtNames(cs)
			f.Groups[len(f.Groups)-2].UserAgents = w
		}, []string{"presets: the presets add no crawler"}},
		{"empty product token", func(f *File) { f.Groups[0].UserAgents[0] = "" }, []string{`groups[0].user_agents[0]: a product token`}},
		{"slash in product token", func(f *File) { f.Groups[0].UserAgents[0] = "Googlebot/2.1" }, []string{`user_agents[0] "Googlebot/2.1": a product token`, `(did you mean "Googlebot"?)`}},
		{"token and version", func(f *File) { f.Groups[0].UserAgents[0] = "Googlebot 2.1" }, []string{`user_agents[0] "Googlebot 2.1"`, `(did you mean "Googlebot"?)`}},
		{"whole User-Agent header", func(f *File) {
			f.Groups[1].UserAgents[0] = "Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko; compatible; bingbot/2.0; +http://www.bing.com/bingbot.htm) Chrome/116.0.1938.76 Safari/537.36"
		}, []string{`groups[1].user_agents[0] "Mozilla/5.0`, `(did you mean "bingbot"?)`}},
		{"version alone", func(f *File) { f.Groups[0].UserAgents[0] = "2.1" }, []string{`user_agents[0] "2.1"`, "looks like a version number"}},
		{"browser product", func(f *File) { f.Groups[0].UserAgents[0] = "Mozilla/5.0" }, []string{`"Mozilla/5.0"`, "Mozilla is the browser a User-Agent header claims to be compatible with"}},
		{"bad purpose", func(f *File) { f.Groups[0].Purposes[0] = "ai training" },
			[]string{`groups[0].purposes[0] "ai training": a purpose token may contain only A-Z, a-z, 0-9, "_" and "-"`}},
		{"star purpose", func(f *File) { f.Groups[0].Purposes[0] = "*" }, []string{"purposes[0]"}},
		{"group without agent", func(f *File) { f.Groups[1].UserAgents = nil },
			[]string{"groups[1]: a group needs at least one user agent or purpose"}},
		{"empty pattern", func(f *File) { f.Groups[0].Rules[0].Path = "" }, []string{`groups[0].rules[0].path: a pattern must not be empty`}},
		{"relative pattern", func(f *File) { f.Groups[0].Rules[0].Path = "private" }, []string{`a pattern starts with "/" or "*"`}},
		{"space in pattern", func(f *File) { f.Groups[0].Rules[0].Path = "/a b" }, []string{"must not contain whitespace", "%20"}},
		{"hash in pattern", func(f *File) { f.Groups[0].Rules[0].Path = "/a#b" }, []string{`must not contain "#"`}},
		{"bad escape", func(f *File) { f.Groups[0].Rules[0].Path = "/100%" }, []string{"%25"}},
		{"bad rule type", func(f *File) { f.Groups[0].Rules[0].Type = "deny" }, []string{`groups[0].rules[0].type "deny": a rule type is "allow" or "disallow"`}},
		{"capitalised rule type", func(f *File) { f.Groups[0].Rules[0].Type = "Disallow" }, []string{`groups[0].rules[0].type "Disallow": a rule type is "allow" or "disallow" (did you mean "disallow"?)`}},
		{"misspelt rule type", func(f *File) { f.Groups[0].Rules[0].Type = "alow" }, []string{`(did you mean "allow"?)`}},
		{"invalid utf8 pattern", func(f *File) { f.Groups[0].Rules[0].Path = "/\xff" }, []string{"valid UTF-8"}},
		{"negative delay", func(f *File) { f.Groups[0].CrawlDelay = -1 }, []string{`groups[0].crawl_delay "-1"`, "finite number"}},
		{"NaN delay", func(f *File) { f.Groups[0].CrawlDelay = math.NaN() }, []string{`crawl_delay "NaN"`}},
		{"Inf delay", func(f *File) { f.Groups[0].CrawlDelay = math.Inf(1) }, []string{`crawl_delay "+Inf"`}},
		{"relative sitemap", func(f *File) { f.Sitemaps[0] = "sitemap.xml" }, []string{`sitemaps[0] "sitemap.xml": a sitemap is an absolute http(s) URL`}},
		{"ftp sitemap", func(f *File) { f.Sitemaps[0] = "ftp://example.com/s.xml" }, []string{"sitemaps[0]"}},
		{"scheme-relative sitemap", func(f *File) { f.Sitemaps[1] = "//evil.example/s.xml" }, []string{"sitemaps[1]", `"//" would name another host`}},
		{"sitemap with space", func(f *File) { f.Sitemaps[0] = "https://example.com/a b.xml" }, []string{"sitemaps[0]", "percent-encoded"}},
		{"sitemap without host", func(f *File) { f.Sitemaps[0] = "https:///s.xml" }, []string{"sitemaps[0]"}},
		{"record key core", func(f *File) { f.Records[0].Key = "Disallow" }, []string{`records[0].key "Disallow": a record key must not be (or start with) the core key "disallow"`}},
		{"record key prefix of core", func(f *File) { f.Groups[0].Records[0].Key = "Allowance" }, []string{`groups[0].records[0].key "Allowance"`, `"allow"`}},
		{"record key purpose", func(f *File) { f.Records[0].Key = "User-Agent-Purpose" }, []string{`"user-agent"`}},
		{"record key crawl-delay", func(f *File) { f.Groups[0].Records[0].Key = "Crawl-delay" }, []string{"use the dedicated field"}},
		{"record key sitemap typo", func(f *File) { f.Records[0].Key = "Site-map" }, []string{`"site-map"`}},
		{"record key chars", func(f *File) { f.Records[0].Key = "X_Key1" }, []string{`a record key may contain only A-Z, a-z and "-"`}},
		{"group-level host", func(f *File) { f.Groups[0].Records[0].Key = "Host" }, []string{"Host is a file-level record"}},
		{"record value hash", func(f *File) { f.Records[0].Value = "a#b" }, []string{`records[0].value "a#b": a record value must not contain "#"`}},
		{"record value padded", func(f *File) { f.Records[0].Value = " a" }, []string{"whitespace"}},
		{"comment control", func(f *File) { f.Comments[0] = "a\tb" }, []string{"comments[0]", "control characters"}},
		{"comment invalid utf8", func(f *File) { f.Comments[0] = "\xc3" }, []string{"comments[0]", "valid UTF-8"}},
	}
	if len(cases) < 20 {
		t.Fatal("need at least 20 cases")
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			f := validFile()
			c.mutate(f)
			err := f.Validate()
			if err == nil {
				t.Fatal("accepted")
			}
			for _, w := range c.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q does not contain %q", err, w)
				}
			}
			if _, rerr := f.Render("https://example.com"); rerr == nil {
				t.Error("Render accepted an invalid file")
			}
		})
	}
}

func TestValidateReportsAll(t *testing.T) {
	f := validFile()
	f.Groups[0].UserAgents[0] = "a b"
	f.Groups[1].Rules[0].Path = "x"
	f.Sitemaps[0] = "x"
	err := f.Validate()
	var joined interface{ Unwrap() []error }
	if !errors.As(err, &joined) || len(joined.Unwrap()) != 3 {
		t.Fatalf("want 3 joined errors, got %v", err)
	}
}

func TestValidateSizeLimit(t *testing.T) {
	f := &File{}
	g := Group{UserAgents: []string{"*"}}
	for i := 0; len(g.Rules)*(len("Disallow: ")+1+1000) <= MaxSize; i++ {
		g.Rules = append(g.Rules, Rule{Disallow, "/" + strings.Repeat("a", 1000)})
	}
	f.Groups = append(f.Groups, g)
	err := f.Validate()
	if err == nil || !strings.Contains(err.Error(), "over 512000 bytes (500 KiB)") {
		t.Fatalf("got %v", err)
	}
	if _, err := f.Render(""); err == nil {
		t.Fatal("Render accepted an oversized file")
	}
	// Just under the limit renders.
	g.Rules = g.Rules[:len(g.Rules)-2]
	f.Groups[0] = g
	out, err := f.Render("")
	if err != nil || len(out) > MaxSize {
		t.Fatalf("len %d err %v", len(out), err)
	}
}

func TestRenderOrigin(t *testing.T) {
	f := &File{Sitemaps: []string{"/s.xml"}}
	if !f.NeedsOrigin() {
		t.Fatal("NeedsOrigin false")
	}
	for _, bad := range []string{"", "example.com", "ftp://example.com", "https://example.com/path", "https://example.com?q", "https://u@example.com", "https://example.com\n/x", "https://exa mple.com"} {
		if _, err := f.Render(bad); err == nil || !strings.Contains(err.Error(), "origin") {
			t.Errorf("origin %q accepted (%v)", bad, err)
		}
	}
	out, err := f.Render("https://example.com:8443/")
	if err != nil || string(out) != "Sitemap: https://example.com:8443/s.xml\n" {
		t.Fatalf("%q %v", out, err)
	}
	if (&File{Sitemaps: []string{"https://a.example/s.xml"}}).NeedsOrigin() {
		t.Fatal("absolute sitemap needs no origin")
	}
}

// Every string field must reject the characters that end a line in some
// reader: CR, LF, NUL, NEL (U+0085), LS (U+2028), PS (U+2029).
func TestInjectionRejected(t *testing.T) {
	bad := map[string]string{"CR": "\r", "LF": "\n", "NUL": "\x00", "NEL": "\u0085", "LS": "\u2028", "PS": "\u2029"}
	fields := map[string]func(f *File, s string){
		"comment":         func(f *File, s string) { f.Comments[0] += s + "Disallow: /" },
		"user_agent":      func(f *File, s string) { f.Groups[0].UserAgents[0] += s + "Disallow: /" },
		"purpose":         func(f *File, s string) { f.Groups[0].Purposes[0] += s + "Disallow: /" },
		"rule path":       func(f *File, s string) { f.Groups[0].Rules[0].Path += s + "Disallow: /" },
		"rule type":       func(f *File, s string) { f.Groups[0].Rules[0].Type += RuleType(s) },
		"sitemap abs":     func(f *File, s string) { f.Sitemaps[0] += s + "Disallow: /" },
		"sitemap path":    func(f *File, s string) { f.Sitemaps[1] += s + "Disallow: /" },
		"file record key": func(f *File, s string) { f.Records[0].Key += s },
		"file record val": func(f *File, s string) { f.Records[0].Value += s + "Disallow: /" },
		"group rec key":   func(f *File, s string) { f.Groups[0].Records[0].Key += s },
		"group rec val":   func(f *File, s string) { f.Groups[0].Records[0].Value += s + "Disallow: /" },
	}
	for fname, set := range fields {
		for cname, c := range bad {
			f := validFile()
			set(f, c)
			err := f.Validate()
			if err == nil {
				t.Errorf("%s with %s accepted", fname, cname)
				continue
			}
			out, rerr := f.Render("https://example.com")
			if rerr == nil {
				t.Errorf("%s with %s rendered:\n%s", fname, cname, out)
			}
		}
	}
	// The origin is a string too.
	for cname, c := range bad {
		if _, err := validFile().Render("https://example.com" + c + "x"); err == nil {
			t.Errorf("origin with %s accepted", cname)
		}
	}
}
