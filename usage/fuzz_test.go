package usage

import (
	"strings"
	"testing"
)

// FuzzMergeHeader: never panics; the result is the canonical form of route combined with
// what the backend lines say, it re-parses to itself, it keeps every preference of route
// at least as restrictive, and an unparsable backend value contributes nothing.
func FuzzMergeHeader(f *testing.F) {
	for _, s := range [][3]string{
		{"train-ai=n", "search=y", ""},
		{"", "train-ai=y, train-ai, search=n, search=\"n\"", ""},
		{"search=y", "train-ai;allow=n, train-ai=y", "search=n"},
		{"train-ai=n", "Train-AI=y", ""},
	} {
		f.Add(s[0], s[1], s[2])
	}
	f.Fuzz(func(t *testing.T, routeValue, a, b string) {
		route, err := ContentUsage.Parse(routeValue)
		if err != nil {
			return
		}
		for _, lines := range [][]string{{a}, {a, b}} {
			got, err := MergeHeader(route, lines)
			backend, perr := ContentUsage.parse(lines)
			if (err == nil) != (perr == nil) {
				t.Fatalf("MergeHeader error %v, parse error %v", err, perr)
			}
			if want := Combine(route, backend).String(); got != want {
				t.Fatalf("MergeHeader(%q, %q) = %q, want %q", route, lines, got, want)
			}
			if err != nil && got != route.String() {
				t.Fatalf("unparsable %q changed %q into %q", lines, route, got)
			}
			q, qerr := ContentUsage.Parse(got)
			if qerr != nil || q.String() != got {
				t.Fatalf("result %q re-parses as %q, %v", got, q, qerr)
			}
			for _, key := range ContentUsage.Keys() {
				if q.Get(key) < route.Get(key) {
					t.Fatalf("%s: route %v, result %v", key, route.Get(key), q.Get(key))
				}
			}
		}
	})
}

// FuzzParseLine: never panics; a path starts with "/" and holds no space, tab, "#", CR or
// LF; a line that parses formats back to a line that parses to the same path and
// preferences, for both vocabularies.
func FuzzParseLine(f *testing.F) {
	for _, s := range []string{
		"train-ai=n", "/ai-ok/ train-ai=y", "/only-path", "  /a\t search=y # c", "*.pdf train-ai=n",
		"search=yes, ai-input=yes, ai-train=no", "/blog/ ai-train=no,search=yes", "/x Train-AI=n",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, line string) {
		for _, v := range []Vocab{ContentUsage, ContentSignal} {
			path, p, err := v.ParseLine(line)
			if path != "" && (path[0] != '/' || strings.ContainsAny(path, " \t#\r\n")) {
				t.Fatalf("%v.ParseLine(%q): path %q", v, line, path)
			}
			if err != nil {
				if !p.IsEmpty() {
					t.Fatalf("%v.ParseLine(%q): error %v with preferences %q", v, line, err, p)
				}
				continue
			}
			out := FormatLine(path, p)
			path2, p2, err := v.ParseLine(out)
			if err != nil || path2 != path || p2.String() != p.String() {
				t.Fatalf("%v: %q formats as %q, which reads as %q, %q, %v", v, line, out, path2, p2, err)
			}
		}
	})
}
