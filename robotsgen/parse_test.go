package robotsgen

import (
	"bytes"
	"reflect"
	"strings"
	"testing"

	"github.com/sitepolicy/caddy-robots/internal/syntax"
)

func TestParseLenient(t *testing.T) {
	in := "\xEF\xBB\xBF# top comment\r\n#second\r\n\r\n" +
		"Sitemap: https://example.com/s.xml\r" +
		"host: example.com\n" +
		"disallow: /before-any-group\n" +
		"USER-AGENT: FooBot/2.1 # a comment\n" +
		"useragent: BarBot\n" +
		"User-Agent-Purpose: EXAMPLE-PURPOSE-1\n" +
		"Disalow: /typo\n" +
		"allow:/x\n" +
		"Disallow: /café\n" +
		"Crawl-delay: 2.5\n" +
		"Clean-param: ref /a\n" +
		"Allowance: /a\n" +
		"no colon here\n" +
		"Sitemap: relative.xml\n" +
		"User-agent: *\n" +
		"Disallow: /a b\n" +
		"Crawl-delay: soon\n" +
		"User-agent: bad.bot\n" +
		"Disallow: /dropped\n" +
		"Disallow: \xff/latin\n"
	f, diags := Parse([]byte(in))
	want := &File{
		Comments: []string{"top comment", "second"},
		Sitemaps: []string{"https://example.com/s.xml"},
		Records:  []Record{{"host", "example.com"}},
		Groups: []Group{
			{UserAgents: []string{"FooBot", "BarBot"}, Purposes: []string{"EXAMPLE-PURPOSE-1"},
				Rules:      []Rule{{Disallow, "/typo"}, {Allow, "/x"}, {Disallow, "/caf%C3%A9"}, {Allow, "/a"}},
				CrawlDelay: 2.5, Records: []Record{{"Clean-param", "ref /a"}}},
			{UserAgents: []string{"*"}},
			// Read as Google's parser reads it: bad.
			{UserAgents: []string{"bad"}, Rules: []Rule{{Disallow, "/dropped"}}},
		},
	}
	if !reflect.DeepEqual(f, want) {
		t.Errorf("got  %#v\nwant %#v", f, want)
	}
	wantDiags := map[int]string{
		6:  "rule before the first user-agent line",
		7:  "cut to its product token \"FooBot\"",
		15: `key "Allowance" read as Allow, as Google's parser does`,
		16: `no ":"`,
		17: "sitemap skipped",
		19: "rule skipped: a pattern holding white space",
		20: "crawl-delay is not",
		21: `user-agent value cut to its product token "bad"`,
		23: `rule skipped: a pattern that does not start with "/" or "*" matches no path`,
	}
	got := map[int]string{}
	for _, d := range diags {
		got[d.Line] += d.Reason + "|"
	}
	for line, ws := range wantDiags {
		for _, w := range strings.Split(ws, "|") {
			if !strings.Contains(got[line], w) {
				t.Errorf("line %d: diagnostics %q, want %q", line, got[line], w)
			}
		}
	}
	if len(diags) != len(wantDiags) {
		t.Errorf("diagnostics: %v", diags)
	}
	if err := f.Validate(); err != nil {
		t.Errorf("parsed file invalid: %v", err)
	}
	if s := diags[0].Error(); !strings.Contains(s, "line 6:") || !strings.Contains(s, "before-any-group") {
		t.Errorf("Diagnostic.Error() = %q", s)
	}
}

// Consecutive user-agent lines (blank lines between allowed) form one group;
// other records do not end it; a user-agent line after a rule starts a new one.
func TestParseGrouping(t *testing.T) {
	f, _ := Parse([]byte("User-agent: a\n\nCrawl-delay: 3\nX-Note: y\nUser-agent: b\nDisallow: /\nSitemap: https://e.example/s\nDisallow: /x\nUser-agent: c\n"))
	if len(f.Groups) != 2 || !reflect.DeepEqual(f.Groups[0].UserAgents, []string{"a", "b"}) ||
		len(f.Groups[0].Rules) != 2 || f.Groups[0].CrawlDelay != 3 || len(f.Groups[0].Records) != 1 ||
		!reflect.DeepEqual(f.Groups[1].UserAgents, []string{"c"}) {
		t.Fatalf("%#v", f)
	}
}

func TestParseSizeLimit(t *testing.T) {
	line := "Disallow: /" + strings.Repeat("a", 1000) + "\n"
	var b bytes.Buffer
	b.WriteString("User-agent: *\n")
	for b.Len() < MaxSize+10*len(line) {
		b.WriteString(line)
	}
	f, diags := Parse(b.Bytes())
	n := (MaxSize - len("User-agent: *\n")) / len(line)
	if len(f.Groups) != 1 || len(f.Groups[0].Rules) != n {
		t.Fatalf("rules %d, want %d", len(f.Groups[0].Rules), n)
	}
	if len(diags) != 1 || !strings.Contains(diags[0].Reason, "500 KiB") || diags[0].Line != n+2 {
		t.Fatalf("diags %v", diags)
	}
}

func roundTripCheck(t *testing.T, f *File, origin string) {
	t.Helper()
	out, err := f.Render(origin)
	if err != nil {
		return
	}
	want, err := f.canonical(origin)
	if err != nil {
		t.Fatalf("Canonical fails where Render works: %v", err)
	}
	got, diags := Parse(out)
	if len(diags) != 0 || !reflect.DeepEqual(got, want) {
		t.Fatalf("round trip\n%s\ndiags %v\ngot  %#v\nwant %#v", out, diags, got, want)
	}
	again, err := got.Render(origin)
	if err != nil || !bytes.Equal(again, out) {
		t.Fatalf("render of parsed file differs: %v\n%s\n---\n%s", err, out, again)
	}
	checkLines(t, out)
}

// checkLines asserts every rendered line is one of the line forms we emit.
func checkLines(t *testing.T, out []byte) {
	t.Helper()
	if len(out) > MaxSize {
		t.Fatalf("output %d bytes", len(out))
	}
	if len(out) > 0 && out[len(out)-1] != '\n' {
		t.Fatalf("output does not end in LF")
	}
	for i, l := range strings.Split(strings.TrimSuffix(string(out), "\n"), "\n") {
		if strings.ContainsAny(l, "\r\x00\u0085\u2028\u2029") || len(l) > maxLineLen {
			t.Fatalf("line %d %q: forbidden character or too long", i+1, l)
		}
		for _, r := range l {
			if syntax.LineBreaking(r) {
				t.Fatalf("line %d %q: control character", i+1, l)
			}
		}
		switch {
		case l == "", l == "#", strings.HasPrefix(l, "# "):
		case strings.HasPrefix(l, "User-agent: "):
			v := l[len("User-agent: "):]
			if !validProductToken(v) && v != PurposeSentinel {
				t.Fatalf("line %q", l)
			}
		case strings.HasPrefix(l, "User-Agent-Purpose: "):
			if !validPurposeToken(l[len("User-Agent-Purpose: "):]) {
				t.Fatalf("line %q", l)
			}
		case l == "Disallow:":
		case strings.HasPrefix(l, "Allow: "), strings.HasPrefix(l, "Disallow: "):
			v := l[strings.IndexByte(l, ' ')+1:]
			if checkPattern(v) != "" {
				t.Fatalf("line %q: %s", l, checkPattern(v))
			}
			for j := 0; j < len(v); j++ {
				if v[j] >= 0x80 {
					t.Fatalf("line %q: non-ASCII pattern", l)
				}
			}
		case strings.HasPrefix(l, "Crawl-delay: "), strings.HasPrefix(l, "Sitemap: "):
		default:
			k, v, ok := strings.Cut(l, ": ")
			if !ok || !validRecordKey(k) || reservedPrefix(k) != "" || checkValue(v) != "" {
				t.Fatalf("line %q: not a valid record", l)
			}
		}
	}
}

func TestRoundTripExamples(t *testing.T) {
	roundTripCheck(t, validFile(), "https://example.com")
	roundTripCheck(t, &File{}, "")
	roundTripCheck(t, &File{Comments: []string{"", " indented", "trailing "}}, "")
	roundTripCheck(t, &File{Groups: []Group{
		{UserAgents: []string{"*"}, Rules: []Rule{{Disallow, "/ツ/*.gif$"}, {Allow, "*"}}},
		{Purposes: []string{"A"}, CrawlDelay: 1e-7},
		{UserAgents: []string{"x"}, Purposes: []string{"B"}, CrawlDelay: 123456789.125},
		{Purposes: []string{"C", "d-1"}, Rules: []Rule{{Allow, "/%2a"}}, Records: []Record{{"Note", ""}}},
	}}, "")
}

func TestRenderDeterministic(t *testing.T) {
	a, err := validFile().Render("https://example.com")
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 10; i++ {
		b, _ := validFile().Render("https://example.com")
		if !bytes.Equal(a, b) {
			t.Fatal("output differs")
		}
	}
}
