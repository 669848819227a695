package rsl

import (
	"math/rand/v2"
	"strings"
	"testing"
)

// parsedLink is a link-value as the test's own RFC 8288 reader sees it.
type parsedLink struct {
	target string
	params map[string]string // lower-case names; the first occurrence wins (RFC 8288 3.3)
}

// parseLinks is an independent RFC 8288 section 3 reader, for tests: it splits the field at
// commas outside <> and quoted strings, then each link-value into target and parameters,
// unescaping quoted strings. ok is false when a link-value does not parse.
func parseLinks(field string) (links []parsedLink, ok bool) {
	var parts []string
	depth, quoted, esc, start := false, false, false, 0
	for i := 0; i < len(field); i++ {
		c := field[i]
		switch {
		case esc:
			esc = false
		case quoted && c == '\\':
			esc = true
		case c == '"' && !depth:
			quoted = !quoted
		case c == '<' && !quoted:
			depth = true
		case c == '>' && !quoted:
			depth = false
		case c == ',' && !quoted && !depth:
			parts = append(parts, field[start:i])
			start = i + 1
		}
	}
	parts = append(parts, field[start:])
	for _, p := range parts {
		p = strings.Trim(p, " \t")
		if p == "" {
			continue
		}
		if !strings.HasPrefix(p, "<") || !strings.Contains(p, ">") {
			return links, false
		}
		end := strings.IndexByte(p, '>')
		l := parsedLink{target: p[1:end], params: map[string]string{}}
		ps := splitParams(p[end+1:])
		if strings.Trim(ps[0], " \t") != "" {
			return links, false // something other than a parameter after the target
		}
		for _, kv := range ps[1:] {
			kv = strings.Trim(kv, " \t")
			name, val, hasVal := strings.Cut(kv, "=")
			name = strings.ToLower(strings.Trim(name, " \t"))
			val = strings.Trim(val, " \t")
			if !allTchar(name) || name == "" {
				return links, false
			}
			if !hasVal {
				continue
			}
			if !strings.HasPrefix(val, `"`) && !allTchar(val) {
				return links, false
			}
			if strings.HasPrefix(val, `"`) {
				if len(val) < 2 || !strings.HasSuffix(val, `"`) {
					return links, false
				}
				var b strings.Builder
				for i := 1; i < len(val)-1; i++ {
					if val[i] == '\\' && i+1 < len(val)-1 {
						i++
					}
					b.WriteByte(val[i])
				}
				val = b.String()
			}
			if _, seen := l.params[name]; !seen {
				l.params[name] = val
			}
		}
		links = append(links, l)
	}
	return links, true
}

func allTchar(s string) bool {
	for i := 0; i < len(s); i++ {
		if !strings.ContainsRune("!#$%&'*+-.^_`|~", rune(s[i])) && !(s[i] >= 'a' && s[i] <= 'z' || s[i] >= 'A' && s[i] <= 'Z' || s[i] >= '0' && s[i] <= '9') {
			return false
		}
	}
	return true
}

func splitParams(s string) []string {
	var out []string
	quoted, esc, start := false, false, 0
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case esc:
			esc = false
		case quoted && c == '\\':
			esc = true
		case c == '"':
			quoted = !quoted
		case c == ';' && !quoted:
			out = append(out, s[start:i])
			start = i + 1
		}
	}
	return append(out, s[start:])
}

func isLicense(l parsedLink) bool {
	for _, r := range strings.Fields(l.params["rel"]) {
		if strings.EqualFold(r, "license") {
			return true
		}
	}
	return false
}

// TestLinkValue: the field value parses back (RFC 8288) to one link with RSL's rel and type.
func TestLinkValue(t *testing.T) {
	for _, target := range []string{"/license.xml", "https://example.com/l.xml?v=1", "https://r.example/a;b,c"} {
		links, ok := parseLinks(LinkValue(target))
		if !ok || len(links) != 1 || links[0].target != target || links[0].params["rel"] != "license" || links[0].params["type"] != MediaType {
			t.Errorf("%q: %+v %v", LinkValue(target), links, ok)
		}
	}
}

func TestHasLicenseLink(t *testing.T) {
	const target, host = "/license.xml", "example.com"
	for _, c := range []struct {
		fields []string
		want   bool
	}{
		{nil, false},
		{[]string{LinkValue(target)}, true},
		{[]string{`</license.xml>; rel=license`}, true},
		{[]string{`</license.xml>;rel="LICENSE"`}, true},
		{[]string{`</license.xml>; rel="alternate license"; type="text/html"`}, true},
		{[]string{`</license.xml>; rel="lic\ense"`}, true},
		{[]string{`</other.xml>; rel="license"`}, false},
		{[]string{`</license.xml>; rel="licensed"`}, false},
		{[]string{`</license.xml>; rel="alternate"`}, false},
		{[]string{`</license.xml>; title="rel=license"`}, false},
		{[]string{`</a>; rel="x, y", </license.xml>; rel="license"`}, true},
		{[]string{`</a>; rel=preload`, `<https://example.com/license.xml>; rel="license"`}, true},
		{[]string{`<http://EXAMPLE.com/license.xml>; rel="license"`}, true},
		{[]string{`<https://example.org/license.xml>; rel="license"`}, false},
		{[]string{`<https://example.com/license.xml/x>; rel="license"`}, false},
		{[]string{`</license.xml; rel="license"`}, false},
		{[]string{`garbage, </license.xml>; rel="license"`}, false}, // the line stops at garbage
	} {
		if got := HasLicenseLink(c.fields, target, host); got != c.want {
			t.Errorf("%q: %v, want %v", c.fields, got, c.want)
		}
	}
}

// TestHasLicenseLinkWitness: on generated Link fields, HasLicenseLink agrees with the
// independent reader wherever that reader parses the whole line.
func TestHasLicenseLinkWitness(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	targets := []string{"/license.xml", "/l", "https://example.com/license.xml", "https://cdn.example/l.xml", "/a,b", "/a;b"}
	rels := []string{"license", "LICENSE", `"license"`, `"alternate license"`, `"licen\se"`, "preload", `"license-x"`, `"x license y"`, `""`}
	params := []string{`type="application/rsl+xml"`, `title="a, b; rel=license"`, "crossorigin", `anchor="#x"`, `title*=UTF-8''x`}
	n, compared := 3000, 0
	for range n {
		var lines []string
		for range 1 + r.IntN(3) {
			var vals []string
			for range 1 + r.IntN(3) {
				v := "<" + targets[r.IntN(len(targets))] + ">"
				for range r.IntN(3) {
					v += pick(r, []string{";", "; ", " ;\t"}) + params[r.IntN(len(params))]
				}
				if r.IntN(3) > 0 {
					v += pick(r, []string{";", "; "}) + "rel=" + rels[r.IntN(len(rels))]
				}
				vals = append(vals, v)
			}
			lines = append(lines, strings.Join(vals, pick(r, []string{",", ", ", " ,  "})))
		}
		for _, target := range []string{"/license.xml", "/a,b", "https://cdn.example/l.xml"} {
			want, all := false, true
			for _, l := range lines {
				links, ok := parseLinks(l)
				all = all && ok
				for _, pl := range links {
					if isLicense(pl) && (pl.target == target || target[0] == '/' && (pl.target == "https://example.com"+target || pl.target == "http://example.com"+target)) {
						want = true
					}
				}
			}
			if !all {
				continue
			}
			if got := HasLicenseLink(lines, target, "example.com"); got != want {
				t.Fatalf("%q %q: %v, reader %v", lines, target, got, want)
			}
			compared++
		}
	}
	if compared < n {
		t.Fatalf("only %d cases compared", compared)
	}
}

func pick(r *rand.Rand, s []string) string { return s[r.IntN(len(s))] }

// FuzzHasLicenseLink: never panics, and agrees with the independent reader on lines it parses.
func FuzzHasLicenseLink(f *testing.F) {
	f.Add(`</license.xml>; rel="license"; type="application/rsl+xml", </x>; rel=preload`, "/license.xml")
	f.Fuzz(func(t *testing.T, field, target string) {
		got := HasLicenseLink([]string{field}, target, "example.com")
		links, ok := parseLinks(field)
		if !ok || strings.ContainsAny(target, "<>\"") || target == "" {
			return
		}
		want := false
		for _, pl := range links {
			if isLicense(pl) && (pl.target == target || strings.HasPrefix(target, "/") && strings.EqualFold(strings.TrimSuffix(pl.target, target), "https://example.com") && strings.HasSuffix(pl.target, target)) {
				want = true
			}
		}
		if got != want && !strings.ContainsAny(field, "\\") {
			t.Fatalf("%q %q: %v, reader %v", field, target, got, want)
		}
	})
}
