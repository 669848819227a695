package httplex

import (
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"
)

// TestIsTokenByte: the tchars of RFC 9110 section 5.6.2, written out from the grammar.
func TestIsTokenByte(t *testing.T) {
	for c := 0; c < 256; c++ {
		want := 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' ||
			strings.IndexByte("!#$%&'*+-.^_`|~", byte(c)) >= 0
		if IsTokenByte(byte(c)) != want {
			t.Errorf("IsTokenByte(%#x) = %v, want %v", c, !want, want)
		}
	}
	for s, want := range map[string]bool{"": false, "a": true, "text": true, "x!#$%&'*+-.^_`|~9": true, "a b": false, "a/b": false, "é": false, "a\x00": false} {
		if IsToken(s) != want {
			t.Errorf("IsToken(%q) = %v", s, !want)
		}
	}
}

func elements(s string) []string { return slices.Collect(Elements(s)) }

// TestElements: RFC 9110 section 5.6 lists, and what a stray quote does.
func TestElements(t *testing.T) {
	for _, c := range []struct {
		in   string
		want []string
	}{
		{"", nil},
		{"a", []string{"a"}},
		{" a ,\tb\t", []string{"a", "b"}},
		{",, a ,, ,b,", []string{"a", "b"}}, // empty elements are ignored (section 5.6.1.2)
		{`private="a, no-transform", max-age=5`, []string{`private="a, no-transform"`, "max-age=5"}},
		{`a="x\", y", b`, []string{`a="x\", y"`, "b"}}, // a quoted-pair
		{`a="x\\", y`, []string{`a="x\\"`, "y"}},
		{`a;p="1,2";q=3, b`, []string{`a;p="1,2";q=3`, "b"}},
		{`(a "b, c"), d`, []string{`(a "b, c")`, "d"}},
		{`a="x" , b`, []string{`a="x"`, "b"}},
		// Stray quotes: no quoted string, so no comma is hidden.
		{`a, x="bad, b=n`, []string{"a", `x="bad`, "b=n"}},
		{`a=x", b=n, c="y"`, []string{`a=x"`, "b=n", `c="y"`}},
		{`a="x"y, b`, []string{`a="x"y`, "b"}},
		{`"`, []string{`"`}},
		{`a\, b`, []string{`a\`, "b"}}, // a backslash outside quotes escapes nothing
	} {
		if got := elements(c.in); !slices.Equal(got, c.want) {
			t.Errorf("Elements(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}

// genList builds a list of n elements as RFC 9110 writes them (tokens, parameters with token
// or quoted-string values holding commas, quotes and escapes), separated by commas with
// optional whitespace and empty elements, and returns it with its non-empty elements.
func genList(r *rand.Rand, n int) (string, []string) {
	const qdtext, tchars = "ab ,;=()\t!~é", "abcXYZ09-!#$%&'*+.^_`|~"
	token := func() string {
		b := make([]byte, 1+r.IntN(5))
		for i := range b {
			b[i] = tchars[r.IntN(len(tchars))]
		}
		return string(b)
	}
	quoted := func() string {
		var b strings.Builder
		b.WriteByte('"')
		for range r.IntN(8) {
			switch r.IntN(4) {
			case 0:
				b.WriteByte('\\')
				b.WriteByte(`"\,a`[r.IntN(4)])
			default:
				b.WriteString(string([]rune(qdtext)[r.IntN(len([]rune(qdtext)))]))
			}
		}
		b.WriteByte('"')
		return b.String()
	}
	ows := func() string { return []string{"", "", " ", "\t", "  "}[r.IntN(5)] }
	var list strings.Builder
	var want []string
	for i := range n {
		if i > 0 {
			list.WriteString(ows() + "," + ows())
		}
		if r.IntN(6) == 0 {
			continue // an empty element
		}
		var e strings.Builder
		if r.IntN(4) == 0 {
			e.WriteString(quoted())
		} else {
			e.WriteString(token())
		}
		for range r.IntN(3) {
			e.WriteString(ows() + ";" + ows() + token())
			if r.IntN(2) == 0 {
				e.WriteString("=")
				if r.IntN(2) == 0 {
					e.WriteString(quoted())
				} else {
					e.WriteString(token())
				}
			}
		}
		list.WriteString(e.String())
		want = append(want, e.String())
	}
	return list.String(), want
}

// TestElementsProperty: a list built from the grammar splits back into its elements, and the
// browsers' reading (NextFetchElement) agrees on it, since it has no stray quote.
func TestElementsProperty(t *testing.T) {
	r := rand.New(rand.NewPCG(1, uint64(time.Now().UnixNano())))
	n := 20000
	if raceEnabled || testing.Short() {
		n = 2000
	}
	for range n {
		list, want := genList(r, 1+r.IntN(6))
		if got := elements(list); !slices.Equal(got, want) {
			t.Fatalf("Elements(%q) = %q, want %q", list, got, want)
		}
		var fetch []string
		for rest := list; ; rest = rest[1:] {
			var e string
			e, rest = NextFetchElement(rest)
			if e != "" {
				fetch = append(fetch, e)
			}
			if rest == "" {
				break
			}
		}
		if !slices.Equal(fetch, want) {
			t.Fatalf("NextFetchElement on %q: %q, want %q", list, fetch, want)
		}
	}
}

// TestFetchDiffers: where the browsers' reading and RFC 9110's recovery differ: a quote
// never closed.
func TestFetchDiffers(t *testing.T) {
	in := `text/html;a="x, text/plain`
	if e, rest := NextFetchElement(in); e != in || rest != "" {
		t.Errorf("NextFetchElement(%q) = %q, %q: Fetch runs an unclosed quoted string to the end", in, e, rest)
	}
	if got := elements(in); !slices.Equal(got, []string{`text/html;a="x`, "text/plain"}) {
		t.Errorf("Elements(%q) = %q", in, got)
	}
}

func TestContainsToken(t *testing.T) {
	for _, c := range []struct {
		lines []string
		want  bool
	}{
		{[]string{"no-transform"}, true},
		{[]string{"public", "max-age=5, No-Transform"}, true},
		{[]string{`private="a, no-transform, b"`}, false},
		{[]string{`no-cache="x", no-transform`}, true},
		{[]string{"no-transforms"}, false},
		{nil, false},
	} {
		if got := ContainsToken(c.lines, "no-transform"); got != c.want {
			t.Errorf("ContainsToken(%q) = %v", c.lines, got)
		}
	}
}

// TestOutsideLinear: quotes that never close or close badly cost one pass, not one per quote:
// a megabyte of them is split at once (a scan per quote, as tagemit's walk was, takes minutes).
func TestOutsideLinear(t *testing.T) {
	const mib = 1 << 20
	for _, c := range []struct {
		s     string
		elems int
	}{
		{`a"` + strings.Repeat(`\", `, mib/4), mib / 4},  // never closed: every later quote escaped
		{`"` + strings.Repeat(`\"`, mib/2) + `"y, b`, 2}, // closed, then not a value
		{strings.Repeat(`a"b"c, `, mib/7), mib / 7},      // closed, then not a value, each
		{strings.Repeat(`"`, mib), 1},
	} {
		start := time.Now()
		n := 0
		for range Elements(c.s) {
			n++
		}
		if n != c.elems {
			t.Errorf("%.10q...: %d elements, want %d", c.s, n, c.elems)
		}
		if d := time.Since(start); d > 5*time.Second {
			t.Errorf("%.10q...: %v for 1 MiB", c.s, d)
		}
	}
}

func TestAbsoluteURL(t *testing.T) {
	for s, want := range map[string]bool{
		"https://example.com/p": true, "HTTP://example.com": true, "http://example.com:8080/a?b#c": true,
		"/p": false, "example.com/p": false, "ftp://example.com/": false, "https:///p": false,
		"https:opaque": false, "http://[::1": false, "mailto:a@example.com": false, "": false,
	} {
		if u, ok := AbsoluteURL(s); ok != want || ok && u == nil {
			t.Errorf("AbsoluteURL(%q) ok = %v, want %v", s, ok, want)
		}
	}
}

func TestAllocs(t *testing.T) {
	lines := []string{`public, private="a, b", max-age=60`, `x="y`}
	if n := testing.AllocsPerRun(100, func() {
		if ContainsToken(lines, "no-transform") {
			t.Fatal("found")
		}
	}); n != 0 {
		t.Errorf("ContainsToken: %v allocations", n)
	}
}

// raceEnabled is set when the tests are built with the race detector (race_test.go): the
// property tests then run fewer cases.
var raceEnabled bool
