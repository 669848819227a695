package rsl_test

import (
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/sitepolicy/caddy-robots/internal/fixture"
	. "github.com/sitepolicy/caddy-robots/rsl"
)

// TestLinkValue: the field value parses back (RFC 8288) to one link with RSL's rel and type.
func TestLinkValue(t *testing.T) {
	for _, target := range []string{"/license.xml", "https://example.com/l.xml?v=1", "https://r.example/a;b,c"} {
		links, ok := fixture.ParseLinks(LinkValue(target))
		if !ok || len(links) != 1 || links[0].Target != target || links[0].Params["rel"] != "license" || links[0].Params["type"] != MediaType {
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
		// An anchor makes the link about another context (RFC 8288 section 3.2).
		{[]string{`</license.xml>; rel=license; anchor="/other"`}, false},
		{[]string{`</license.xml>; ANCHOR="#x"; rel="license"`}, false},
		{[]string{`<https://example.com/license.xml>; anchor=""; rel="license"`}, false},
		{[]string{`</license.xml>; rel=license; anchor="/other", </license.xml>; rel=license`}, true},
		{[]string{`</license.xml>; rel=license; title="anchor=x"`}, true},
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
	params := []string{`type="application/rsl+xml"`, `title="a, b; rel=license"`, "crossorigin", `anchor="#x"`, `title*=UTF-8''x`, `Anchor=/other`, `title="anchor=x"`}
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
				links, ok := fixture.ParseLinks(l)
				all = all && ok
				for _, pl := range links {
					if _, anchored := pl.Params["anchor"]; !anchored && pl.IsLicense() && (pl.Target == target || target[0] == '/' && (pl.Target == "https://example.com"+target || pl.Target == "http://example.com"+target)) {
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
	f.Add(`</license.xml>; rel="license"; anchor="/other"`, "/license.xml")
	f.Fuzz(func(t *testing.T, field, target string) {
		got := HasLicenseLink([]string{field}, target, "example.com")
		links, ok := fixture.ParseLinks(field)
		if !ok || strings.ContainsAny(target, "<>\"") || target == "" {
			return
		}
		want := false
		for _, pl := range links {
			if _, anchored := pl.Params["anchor"]; !anchored && pl.IsLicense() && (pl.Target == target || strings.HasPrefix(target, "/") && strings.EqualFold(strings.TrimSuffix(pl.Target, target), "https://example.com") && strings.HasSuffix(pl.Target, target)) {
				want = true
			}
		}
		if got != want && !strings.ContainsAny(field, "\\") {
			t.Fatalf("%q %q: %v, reader %v", field, target, got, want)
		}
	})
}
