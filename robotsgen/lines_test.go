package robotsgen

import (
	"strings"
	"testing"
)

// Every rendered line fits Google's line limit (maxLineLen): Validate names
// each field that would not, Render checks sitemap lines with the origin,
// and a value exactly at the limit is read whole by Google's parser.
func TestLineLimits(t *testing.T) {
	over := func(keyLen int) string { return strings.Repeat("a", maxLineLen-keyLen+1) }
	cases := []struct {
		name   string
		mutate func(f *File)
		want   string
	}{
		{"user agent", func(f *File) { f.Groups[1].UserAgents[0] = over(len(uaKey)) }, `groups[1].user_agents[0] "aaa`},
		{"purpose", func(f *File) { f.Groups[0].Purposes[0] = over(len(purposeKey)) }, `groups[0].purposes[0] "aaa`},
		{"file record", func(f *File) { f.Records[0].Value = over(len("Host: ")) }, `records[0].value "aaa`},
		{"group record", func(f *File) { f.Groups[0].Records[0].Value = over(len("Clean-param: ")) }, `groups[0].records[0].value "aaa`},
		{"record key", func(f *File) { f.Records[0].Key = "X" + strings.Repeat("a", maxLineLen-len(": example.com")) }, `records[0].value "example.com"`},
		{"sitemap", func(f *File) {
			f.Sitemaps[0] = "https://example.com/" + over(len(sitemapKey)+len("https://example.com/"))
		}, `sitemaps[0] "https://example.com/aaa`},
		{"comment", func(f *File) { f.Comments[0] = over(len("# ")) }, `comments[0] "aaa`},
		{"pattern", func(f *File) { f.Groups[0].Rules[0].Path = "/" + over(len(disallowKey)+1) }, `groups[0].rules[0].path "/aaa`},
		{"non-ASCII pattern", func(f *File) {
			f.Groups[0].Rules[0].Path = "/" + strings.Repeat("é", (maxLineLen-len(disallowKey))/6+1)
		}, `groups[0].rules[0].path`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			f := validFile()
			c.mutate(f)
			err := f.Validate()
			if err == nil || !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), "truncates lines") {
				t.Fatalf("error %v, want %q", err, c.want)
			}
			// One byte less fits.
			f = validFile()
			c.mutate(f)
			trim(f)
			out, err := f.Render("https://e.x")
			if err != nil {
				t.Fatalf("at the limit: %v", err)
			}
			checkLines(t, out)
			longest := 0
			for _, l := range strings.Split(string(out), "\n") {
				longest = max(longest, len(l))
			}
			if longest != maxLineLen && c.name != "non-ASCII pattern" {
				t.Errorf("longest line %d, want %d", longest, maxLineLen)
			}
		})
	}

	// Google reads a line of exactly maxLineLen bytes whole.
	pat := "/" + strings.Repeat("p", maxLineLen-len(disallowKey)-2) + "q"
	f := &File{Groups: []Group{{UserAgents: []string{"Bot"}, Rules: []Rule{{Disallow, pat}}}}}
	out, err := f.Render("")
	if err != nil {
		t.Fatal(err)
	}
	if googleAllowed(string(out), "Bot", pat) || !googleAllowed(string(out), "Bot", pat[:len(pat)-1]) {
		t.Error("google did not read the longest line whole")
	}

	// Path sitemaps: Validate counts them without origin, Render and
	// Canonical with it.
	sm := "/" + strings.Repeat("s", maxLineLen-len(sitemapKey)-1)
	f = &File{Sitemaps: []string{"https://example.com/s.xml", sm}}
	if err := f.Validate(); err != nil {
		t.Fatal(err)
	}
	if _, err := f.Render("https://example.com"); err == nil || !strings.Contains(err.Error(), "sitemaps[1]") || !strings.Contains(err.Error(), "truncates lines") {
		t.Errorf("Render: %v", err)
	}
	if _, err := f.canonical("https://example.com"); err == nil || !strings.Contains(err.Error(), "sitemaps[1]") {
		t.Errorf("Canonical: %v", err)
	}
	f.Sitemaps[1] = sm[:len(sm)-len("https://example.com")]
	if out, err := f.Render("https://example.com/"); err != nil {
		t.Errorf("at the limit: %v", err)
	} else {
		checkLines(t, out)
	}
}

// trim shortens every over-long value of the mutated validFile by one unit.
func trim(f *File) {
	cut := func(s string) string {
		if len(s) > 100 {
			if strings.HasSuffix(s, "é") {
				return s[:len(s)-len("é")]
			}
			return s[:len(s)-1]
		}
		return s
	}
	for i := range f.Comments {
		f.Comments[i] = cut(f.Comments[i])
	}
	for i := range f.Sitemaps {
		f.Sitemaps[i] = cut(f.Sitemaps[i])
	}
	for i := range f.Records {
		f.Records[i].Key = cut(f.Records[i].Key)
		f.Records[i].Value = cut(f.Records[i].Value)
	}
	for gi := range f.Groups {
		g := &f.Groups[gi]
		for i := range g.UserAgents {
			g.UserAgents[i] = cut(g.UserAgents[i])
		}
		for i := range g.Purposes {
			g.Purposes[i] = cut(g.Purposes[i])
		}
		for i := range g.Rules {
			g.Rules[i].Path = cut(g.Rules[i].Path)
		}
		for i := range g.Records {
			g.Records[i].Value = cut(g.Records[i].Value)
		}
	}
}

// Parse cuts long lines where Google's parser does, and never returns a
// value that would not fit on a rendered line.
func TestParseLongLines(t *testing.T) {
	long := strings.Repeat("z", maxLineLen)
	in := "User-agent: " + long + "\n" + // token too long for our line once cut: skipped
		"User-agent: *\n" +
		"Disallow: /" + long + "\n" + // cut, fits
		"Clean-param:" + long + "\n" + // cut, "Clean-param: " + value does not fit
		"Sitemap:https://example.com/" + long + "\n"
	f, diags := Parse([]byte(in))
	if err := f.Validate(); err != nil {
		t.Fatalf("%v", err)
	}
	if len(f.Groups) != 1 || len(f.Groups[0].Rules) != 1 || len(f.Groups[0].Rules[0].Path) != maxLineLen-len(disallowKey) ||
		len(f.Groups[0].Records) != 0 || len(f.Sitemaps) != 0 {
		t.Fatalf("parsed %d groups", len(f.Groups))
	}
	cuts := 0
	for _, d := range diags {
		if strings.Contains(d.Reason, "cut there") {
			cuts++
		}
	}
	if cuts != 4 {
		t.Errorf("diagnostics %v", diags)
	}
	out, err := f.Render("")
	if err != nil {
		t.Fatal(err)
	}
	checkLines(t, out)
}
