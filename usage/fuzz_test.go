package usage

import (
	"fmt"
	"strings"
	"testing"

	"github.com/dunglas/httpsfv"
)

// FuzzMergeHeader: never panics; the result is a Dictionary httpsfv accepts, within
// MaxFieldSize; for each key the route knows it is the vocabulary's combination of the route
// and a valid backend field, and an unparsable field can only add n values; every other
// member of a valid backend field is in the result as sent unless the limit was reached
// (which the error then says); merging the result again changes nothing.
func FuzzMergeHeader(f *testing.F) {
	for _, s := range [][3]string{
		{"train-ai=n", "search=y", ""},
		{"", "train-ai=y, train-ai, search=n, search=\"n\"", ""},
		{"search=y", "train-ai;allow=n, train-ai=y", "search=n"},
		{"train-ai=n", "Train-AI=y", ""},
		{"train-ai=y", "Foo=n, foo=n;p, x=(a b);q=\"c, d\"", "Train-AI=n,"},
		{"search=n", "ext=y, zz=?0, ext=n", "a=:AAE=:, b=@1, c=%\"x\", d=1.5"},
	} {
		f.Add(s[0], s[1], s[2])
	}
	ext := mustArgs(f, ContentUsage, "+ext=y", "+zz=n")
	f.Fuzz(func(t *testing.T, routeValue, a, b string) {
		parsed, err := ContentUsage.Parse(routeValue)
		if err != nil {
			return
		}
		for _, route := range []Prefs{parsed, Combine(parsed, ext)} {
			for _, lines := range [][]string{{a}, {a, b}} {
				checkMerge(t, route, lines)
			}
		}
	})
}

func checkMerge(t *testing.T, route Prefs, lines []string) {
	t.Helper()
	got, err := MergeHeader(route, lines)
	if len(got) > MaxFieldSize {
		t.Fatalf("MergeHeader(%q, %q): %d bytes", route, lines, len(got))
	}
	var d *httpsfv.Dictionary
	if got != "" {
		var perr error
		if d, perr = httpsfv.UnmarshalDictionary([]string{got}); perr != nil {
			t.Fatalf("MergeHeader(%q, %q) = %q, which httpsfv refuses: %v", route, lines, got, perr)
		}
	} else if !route.IsEmpty() {
		t.Fatalf("MergeHeader(%q, %q) lost the route's preferences", route, lines)
	}
	backend, berr := httpsfv.UnmarshalDictionary(lines)
	if berr != nil && err == nil {
		t.Fatalf("MergeHeader(%q, %q): no error for a field that does not parse", route, lines)
	}
	pref := func(d *httpsfv.Dictionary, key string) Pref {
		if d == nil {
			return Unknown
		}
		m, _ := d.Get(key)
		item, _ := m.(httpsfv.Item)
		if m == nil {
			return Unknown
		}
		return route.v.def().pref(item)
	}
	keys := route.v.Keys()
	for _, e := range route.ext {
		keys = append(keys, e.key)
	}
	for _, key := range keys {
		r, g := route.Get(key), pref(d, key)
		if berr == nil {
			if want := combine(r, pref(backend, key)); g != want {
				t.Fatalf("MergeHeader(%q, %q) = %q: %s is %v, want %v", route, lines, got, key, g, want)
			}
		} else if g != r && g != Disallow {
			t.Fatalf("MergeHeader(%q, %q) = %q: an unparsable field made %s %v (route %v)", route, lines, got, key, g, r)
		}
	}
	if berr == nil && !strings.Contains(fmt.Sprint(err), "over the") {
		for _, key := range backend.Names() {
			if route.v.index(key) >= 0 || route.hasExt(key) {
				continue
			}
			want, _ := backend.Get(key)
			have, ok := d.Get(key)
			if !ok || serialise(key, have) != serialise(key, want) {
				t.Fatalf("MergeHeader(%q, %q) = %q: member %s not kept as sent", route, lines, got, key)
			}
		}
	}
	if got != "" {
		if again, aerr := MergeHeader(route, []string{got}); again != got || aerr != nil {
			t.Fatalf("MergeHeader(%q, %q) = %q, merged again %q, %v", route, lines, got, again, aerr)
		}
	}
}

func serialise(key string, m httpsfv.Member) string {
	d := httpsfv.NewDictionary()
	d.Add(key, m)
	s, _ := httpsfv.Marshal(d)
	return s
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
