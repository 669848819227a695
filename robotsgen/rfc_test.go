package robotsgen

import (
	"strings"
	"testing"
)

type decideCase struct {
	agent, purpose, path string
	allowed              bool
	rule                 string // "allow /x", "disallow /y" or "" for no rule
}

func runDecide(t *testing.T, robots string, cases []decideCase) {
	t.Helper()
	f, diags := Parse([]byte(robots))
	for _, d := range diags {
		t.Logf("diagnostic: %v", d)
	}
	m := NewMatcher(f)
	for _, c := range cases {
		d := m.Decide(c.agent, c.purpose, c.path)
		got := ""
		if d.Rule != nil {
			got = string(d.Rule.Type) + " " + d.Rule.Path
		}
		if d.Allowed != c.allowed || got != c.rule {
			t.Errorf("%s/%s %q: allowed=%v rule=%q, want allowed=%v rule=%q", c.agent, c.purpose, c.path, d.Allowed, got, c.allowed, c.rule)
		}
	}
}

// RFC 9309 section 5.1.
func TestRFC9309Section5_1SimpleExample(t *testing.T) {
	runDecide(t, `User-Agent: *
Disallow: *.gif$
Disallow: /example/
Allow: /publications/

User-Agent: foobot
Disallow:/
Allow:/example/page.html
Allow:/example/allowed.gif

User-Agent: barbot
User-Agent: bazbot
Disallow: /example/page.html

User-Agent: quxbot

EOF
`, []decideCase{
		{"OtherBot", "", "/publications/x", true, "allow /publications/"},
		{"OtherBot", "", "/example/x", false, "disallow /example/"},
		{"OtherBot", "", "/a/b.gif", false, "disallow *.gif$"},
		{"OtherBot", "", "/a/b.gif?x", true, ""},
		{"OtherBot", "", "/", true, ""},
		{"foobot", "", "/example/page.html", true, "allow /example/page.html"},
		{"foobot", "", "/example/allowed.gif", true, "allow /example/allowed.gif"},
		{"foobot", "", "/example/other", false, "disallow /"},
		{"FOOBOT", "", "/", false, "disallow /"},
		{"barbot", "", "/example/page.html", false, "disallow /example/page.html"},
		{"bazbot", "", "/example/page.html", false, "disallow /example/page.html"},
		{"bazbot", "", "/example/other.gif", true, ""},
		{"quxbot", "", "/example/page.html", true, ""},
		{"quxbot", "", "/x.gif", true, ""},
	})
}

// RFC 9309 section 5.2. The RFC's prose names the URI
// ".../disallow.gif", which the rule ".../disallowed.gif" does not match (a
// typo in the RFC); both URIs are tested.
func TestRFC9309Section5_2LongestMatch(t *testing.T) {
	runDecide(t, `User-Agent: foobot
Allow: /example/page/
Disallow: /example/page/disallowed.gif
`, []decideCase{
		{"foobot", "", "/example/page/disallowed.gif", false, "disallow /example/page/disallowed.gif"},
		{"foobot", "", "/example/page/disallow.gif", true, "allow /example/page/"},
		{"foobot", "", "/example/page/", true, "allow /example/page/"},
	})
}

// RFC 9309 section 2.2.1, figures 2 and 3 (merging and "*" fallback) and
// case-insensitive product tokens.
func TestRFC9309Figure2MergeGroups(t *testing.T) {
	robots := `user-agent: ExampleBot
disallow: /foo
disallow: /bar

user-agent: ExampleBot
disallow: /baz
`
	runDecide(t, robots, []decideCase{
		{"ExampleBot", "", "/foo", false, "disallow /foo"},
		{"examplebot", "", "/bar/x", false, "disallow /bar"},
		{"EXAMPLEBOT", "", "/baz", false, "disallow /baz"},
		{"ExampleBot", "", "/qux", true, ""},
		{"Example", "", "/foo", true, ""}, // no prefix matching of tokens
	})
	f, _ := Parse([]byte(robots))
	if d := NewMatcher(f).Decide("ExampleBot", "", "/baz"); d.Group != 0 {
		t.Errorf("merged group index %d, want first group 0", d.Group)
	}
}

func TestRFC9309Figure3StarFallback(t *testing.T) {
	robots := `user-agent: *
disallow: /foo
disallow: /bar

user-agent: BazBot
disallow: /baz
`
	runDecide(t, robots, []decideCase{
		{"ExampleBot", "", "/foo", false, "disallow /foo"},
		{"ExampleBot", "", "/bar", false, "disallow /bar"},
		{"ExampleBot", "", "/baz", true, ""},
		{"BazBot", "", "/foo", true, ""},
		{"BazBot", "", "/baz", false, "disallow /baz"},
	})
	// No "*" group and no match: no rules apply.
	runDecide(t, "user-agent: BazBot\ndisallow: /\n", []decideCase{{"ExampleBot", "", "/x", true, ""}})
	m := NewMatcher(&File{})
	if d := m.Decide("ExampleBot", "", "/x"); !d.Allowed || d.Group != -1 || d.Rule != nil {
		t.Errorf("empty file: %+v", d)
	}
}

// RFC 9309 section 2.2.2, figure 4 and section 2.2.3, figure 6: percent-
// encoding, in patterns and in URIs.
func TestRFC9309Figure4PercentEncoding(t *testing.T) {
	cases := []struct {
		pattern, path string
		match         bool
	}{
		// Figure 4 rows: a rule written in any column matches a URI sent in
		// the encoded form.
		{"/foo/bar?baz=quz", "/foo/bar?baz=quz", true},
		{"/foo/bar?baz=https%3A%2F%2Ffoo.bar", "/foo/bar?baz=https%3A%2F%2Ffoo.bar", true},
		{"/foo/bar/ツ", "/foo/bar/%E3%83%84", true},
		{"/foo/bar/%E3%83%84", "/foo/bar/%E3%83%84", true},
		{"/foo/bar/%e3%83%84", "/foo/bar/%E3%83%84", true},
		{"/foo/bar/ツ", "/foo/bar/ツ", true},
		{"/foo/bar/%62%61%7A", "/foo/bar/baz", true},
		{"/foo/bar/baz", "/foo/bar/%62%61%7A", true},
		{"/foo/bar/baz", "/foo/bar/%62%61%7a", true},
		// Reserved characters: encoded and literal differ (RFC 3986 2.2).
		{"/foo/bar?baz=https%3A%2F%2Ffoo.bar", "/foo/bar?baz=https://foo.bar", false},
		{"/a%2Fb", "/a/b", false},
		{"/a%2fb", "/a%2Fb", true},
		// Figure 6: literal "*" and "$" in URIs are matched by %2A / %24.
		{"/path/file-with-a-%2A.html", "/path/file-with-a-*.html", true},
		{"/path/file-with-a-%2A.html", "/path/file-with-a-%2A.html", true},
		{"/path/foo-%24", "/path/foo-$", true},
		{"/path/foo-%24", "/path/foo-x", false},
		{"/path/file-with-a-*.html", "/path/file-with-a-xyz.html", true},
		// Special characters (section 2.2.3).
		{"/this/path/exactly$", "/this/path/exactly", true},
		{"/this/path/exactly$", "/this/path/exactly/", false},
		{"/this/*/exactly", "/this/a/b/exactly", true},
		{"/this/*/exactly", "/this/exactly", false},
		{"*", "/anything", true},
		{"/*$", "/", true},
		{"/$", "/x", false},
		// Matching is case sensitive (SHOULD) and starts at the first octet.
		{"/Foo", "/foo", false},
		{"/foo", "/x/foo", false},
	}
	for _, c := range cases {
		f := &File{Groups: []Group{{UserAgents: []string{"*"}, Rules: []Rule{{Disallow, c.pattern}}}}}
		d := NewMatcher(f).Decide("bot", "", c.path)
		if got := !d.Allowed; got != c.match {
			t.Errorf("pattern %q path %q: match=%v want %v", c.pattern, c.path, got, c.match)
		}
	}
}

// RFC 9309 section 2.2.2: allow wins a tie; /robots.txt is always allowed;
// rules outside a group are ignored; empty disallow allows all.
func TestRFC9309RulePrecedence(t *testing.T) {
	runDecide(t, `Disallow: /outside
User-agent: *
Disallow: /page
Allow: /page
Disallow: /robots.txt
Disallow: /x*
Allow: /xy
`, []decideCase{
		{"bot", "", "/page", true, "allow /page"},
		{"bot", "", "/outside", true, ""},
		{"bot", "", "/robots.txt", true, ""},
		{"bot", "", "/robots.txt?x=1", false, "disallow /robots.txt"},
		{"bot", "", "/xy", true, "allow /xy"},     // equal length 3: allow wins
		{"bot", "", "/xz", false, "disallow /x*"}, // only the wildcard matches
	})
	runDecide(t, "User-agent: *\nDisallow:\n", []decideCase{{"bot", "", "/", true, ""}})
}

// draft-illyes-rep-purpose-00 section 6 example, and section 2.2 rules.
func TestPurposeDraftExample(t *testing.T) {
	robots := `# robots.txt with purpose
# FooBot and all bots that are crawling for EXAMPLE-PURPOSE-1 are disallowed.
User-Agent: FooBot
User-Agent-Purpose: EXAMPLE-PURPOSE-1
Disallow: /

# EXAMPLE-PURPOSE-2 crawlers are allowed.
User-Agent-Purpose: EXAMPLE-PURPOSE-2
`
	runDecide(t, robots, []decideCase{
		{"FooBot", "", "/", false, "disallow /"},
		{"BarBot", "EXAMPLE-PURPOSE-1", "/", false, "disallow /"},
		{"BarBot", "example-purpose-1", "/", false, "disallow /"}, // case-insensitive
		{"BarBot", "EXAMPLE-PURPOSE-2", "/private", true, ""},
		{"BarBot", "EXAMPLE-PURPOSE-3", "/private", true, ""},     // no group, no "*"
		{"FooBot", "EXAMPLE-PURPOSE-2", "/", false, "disallow /"}, // product group wins (SHOULD)
	})
	// With a "*" group after it, the draft's rule-less purpose group would
	// join the "*" group (consecutive header lines form one group); "*"
	// fallback applies to unknown purposes.
	runDecide(t, robots+"User-agent: *\nDisallow: /private\n", []decideCase{
		{"BarBot", "EXAMPLE-PURPOSE-2", "/private", false, "disallow /private"},
		{"BarBot", "EXAMPLE-PURPOSE-3", "/private", false, "disallow /private"},
		{"BarBot", "", "/private", false, "disallow /private"},
		{"BarBot", "", "/public", true, ""},
	})
	// Merging of groups naming the same purpose.
	runDecide(t, `User-Agent-Purpose: Train
Disallow: /a
User-agent: x
Disallow: /
User-Agent-Purpose: TRAIN
Disallow: /b
`, []decideCase{
		{"Bot", "train", "/a", false, "disallow /a"},
		{"Bot", "train", "/b", false, "disallow /b"},
		{"Bot", "train", "/c", true, ""},
	})
}

// Rendering a file with a rule-less group before "*" must keep the group
// apart in every reader (the GoodBot example).
func TestRenderRulelessGroupStaysApart(t *testing.T) {
	f := &File{Groups: []Group{
		{UserAgents: []string{"GoodBot"}},
		{UserAgents: []string{"*"}, Rules: []Rule{{Disallow, "/"}}},
	}}
	out, err := f.Render("")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(out), "User-agent: GoodBot\nDisallow:\n") {
		t.Fatalf("no explicit allow-all:\n%s", out)
	}
	for _, w := range allWitnesses {
		if !w.allowed(string(out), "GoodBot", "/x") {
			t.Errorf("%s: GoodBot disallowed", w.name)
		}
		if w.allowed(string(out), "OtherBot", "/x") {
			t.Errorf("%s: OtherBot allowed", w.name)
		}
	}
	if !NewMatcher(f).Decide("GoodBot", "", "/x").Allowed {
		t.Error("ours: GoodBot disallowed")
	}
}
