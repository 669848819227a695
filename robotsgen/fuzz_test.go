package robotsgen

import (
	"encoding/json"
	"reflect"
	"regexp"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/sitepolicy/caddy-robots/usage"
)

// FuzzRoundTrip: any File (decoded from JSON) that renders must parse back to
// its canonical form, re-render to the same bytes and emit only valid lines.
func FuzzRoundTrip(f *testing.F) {
	f.Add([]byte(`{"groups":[{"user_agents":["*"],"rules":[{"type":"disallow","path":"/x"}]}]}`), "")
	f.Fuzz(func(t *testing.T, data []byte, origin string) {
		var file File
		if json.Unmarshal(data, &file) != nil {
			return
		}
		roundTripCheck(t, &file, origin)
	})
}

// FuzzRender: Render never panics, never emits an invalid line, and rejects
// any value carrying a line-ending character.
func FuzzRender(f *testing.F) {
	f.Add("c", "Bot", "P-1", "/a*$", "/s.xml", "Key", "v", 1.5, uint8(0))
	f.Fuzz(func(t *testing.T, comment, ua, purpose, pattern, sitemap, key, value string, delay float64, shape uint8) {
		file := &File{}
		if shape&1 != 0 {
			file.Comments = []string{comment}
		}
		g := Group{CrawlDelay: delay}
		if shape&2 != 0 || purpose == "" {
			g.UserAgents = []string{ua}
		}
		if purpose != "" {
			g.Purposes = []string{purpose}
		}
		if shape&4 != 0 {
			g.Rules = []Rule{{Disallow, pattern}, {Allow, pattern + "x"}}
		}
		if shape&8 != 0 {
			g.Records = []Record{{key, value}}
		} else {
			file.Records = []Record{{key, value}}
		}
		file.Groups = []Group{g, {UserAgents: []string{"*"}, Rules: []Rule{{Disallow, "/"}}}}
		if shape&16 != 0 {
			file.Groups[0], file.Groups[1] = file.Groups[1], file.Groups[0]
		}
		file.Sitemaps = []string{sitemap}
		out, err := file.Render("https://example.com")
		all := purpose + sitemap + key + value // the fields always used
		if shape&1 != 0 {
			all += comment
		}
		if shape&2 != 0 || purpose == "" {
			all += ua
		}
		if shape&4 != 0 {
			all += pattern
		}
		if err == nil {
			checkLines(t, out)
			if strings.ContainsAny(all, "\r\n\x00\u0085\u2028\u2029") || !utf8.ValidString(all) {
				t.Fatalf("accepted a line-ending character or invalid UTF-8:\n%q", out)
			}
			roundTripCheck(t, file, "https://example.com")
		}
	})
}

// FuzzParse: Parse never panics; what it returns validates, renders, and
// parses back to itself (Parse is idempotent through Render).
func FuzzParse(f *testing.F) {
	f.Add([]byte("User-agent: *\nDisallow: /\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		file, diags := Parse(data)
		lines := 1 + strings.Count(string(data), "\n") + strings.Count(string(data), "\r")
		for _, d := range diags {
			if d.Line < 1 || d.Line > lines+1 {
				t.Fatalf("diagnostic line %d out of range (%d lines)", d.Line, lines)
			}
		}
		err := file.Validate()
		if err != nil && !strings.Contains(err.Error(), "exceeds") {
			t.Fatalf("parsed file invalid: %v", err)
		}
		if err == nil {
			roundTripCheck(t, file, "")
			out, _ := file.Render("")
			// The matcher must agree on the parsed and the reparsed file.
			again, _ := Parse(out)
			m1, m2 := NewMatcher(file), NewMatcher(again)
			for _, a := range []string{"*", "bot", "Googlebot"} {
				for _, p := range []string{"/", "/a", "/robots.txt", string(data[:min(len(data), 20)])} {
					if d1, d2 := m1.Decide(a, "", p), m2.Decide(a, "", p); d1.Allowed != d2.Allowed {
						t.Fatalf("decision changed after render: %s %q", a, p)
					}
					for _, v := range []usage.Vocab{usage.ContentUsage, usage.ContentSignal} {
						if u1, u2 := m1.Preferences(v, a, "", p), m2.Preferences(v, a, "", p); u1.String() != u2.String() {
							t.Fatalf("%v changed after render: %s %q: %q, %q", v, a, p, u1, u2)
						}
					}
				}
			}
		}
	})
}

// FuzzMatcher: pattern matching agrees with an independent regexp
// reference on normalised pattern and path, and Decide never panics.
func FuzzMatcher(f *testing.F) {
	f.Add("/a*b$", "/axxb", "Bot", "P")
	f.Fuzz(func(t *testing.T, pattern, path, agent, purpose string) {
		np := normalise(path, false)
		pat := normalise(pattern, true)
		end := strings.HasSuffix(pat, "$")
		pat = strings.TrimSuffix(pat, "$")
		var re strings.Builder
		re.WriteString(`(?s)^`)
		for i, part := range strings.Split(pat, "*") {
			if i > 0 {
				re.WriteString(`.*`)
			}
			re.WriteString(regexp.QuoteMeta(part))
		}
		if end {
			re.WriteString(`$`)
		}
		want := regexp.MustCompile(re.String()).MatchString(np)
		if got := matchPattern(pat, end, []byte(np)); got != want {
			t.Fatalf("pattern %q path %q (normalised %q %q): got %v want %v", pattern, path, pat, np, got, want)
		}
		// Normalisation is idempotent and yields printable ASCII.
		if normalise(np, false) != np {
			t.Fatalf("normalise not idempotent on %q", np)
		}
		for i := 0; i < len(np); i++ {
			if np[i] <= ' ' || np[i] >= 0x7f {
				t.Fatalf("normalised path %q has octet %#x", np, np[i])
			}
		}
		file := &File{Groups: []Group{
			{UserAgents: []string{agent}, Rules: []Rule{{Disallow, pattern}}},
			{Purposes: []string{purpose}, Rules: []Rule{{Allow, pattern}}},
			{UserAgents: []string{"*"}, Rules: []Rule{{Disallow, pattern}, {Allow, pattern}}},
		}}
		m := NewMatcher(file)
		d := m.Decide(agent, purpose, path)
		if d.Rule != nil && !reflect.DeepEqual(*d.Rule, Rule{d.Rule.Type, pattern}) {
			t.Fatalf("rule %v not from the file", d.Rule)
		}
		// Tie between allow and disallow of the same pattern: allow wins.
		if d2 := m.Decide("zz-other", "", path); path != "/robots.txt" && d2.Rule != nil && !d2.Allowed {
			t.Fatalf("tie not won by allow: %+v", d2)
		}
	})
}
