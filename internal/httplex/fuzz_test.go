package httplex

import (
	"slices"
	"strings"
	"testing"
)

// The readings the callers had before this package, kept as witnesses: tagemit's walk outside
// strings (the reading Outside keeps) and mimetype's Fetch split (NextFetchElement's).

// tagemitEachTopLevel is tagemit's eachTopLevel as it was (quadratic in the worst case).
func tagemitEachTopLevel(s string, f func(i int)) {
	isOWS := func(c byte) bool { return c == ' ' || c == '\t' }
	inStr, quote := false, 0
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case inStr && c == '\\':
			i++
		case inStr && c == '"':
			inStr = false
			j := i + 1
			for j < len(s) && isOWS(s[j]) {
				j++
			}
			if j < len(s) && s[j] != ';' && s[j] != ',' && s[j] != ')' {
				i = quote
				f(i)
			}
		case c == '"':
			inStr, quote = true, i
		default:
			if !inStr {
				f(i)
			}
		}
		if inStr && i >= len(s)-1 {
			i, inStr = quote, false
			f(i)
		}
	}
}

// mimetypeNextListValue is mimetype's nextListValue as it was, with its quotedString's length.
func mimetypeNextListValue(s string) (value, rest string) {
	quotedLen := func(s string) int {
		for i := 1; i < len(s); i++ {
			switch s[i] {
			case '\\':
				i++
			case '"':
				return i + 1
			}
		}
		return len(s)
	}
	i := 0
	for i < len(s) && s[i] != ',' {
		if s[i] == '"' {
			i += min(quotedLen(s[i:]), len(s)-i)
			continue
		}
		i++
	}
	return strings.Trim(s[:i], " \t"), s[i:]
}

// FuzzOutside: Outside yields what tagemit's walk did, Elements is the list cut at those
// commas, and NextFetchElement splits as mimetype did.
func FuzzOutside(f *testing.F) {
	for _, s := range []string{`a, b`, `private="a, b", c`, `a="x\", y", b`, `a, x="bad, b=n`, `a=x", b=n, c="y"`,
		`(a "b, c"), d`, `"`, `\"`, `"\`, `a="x"y, b`, `text/html;charset="x, text/plain`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		var want []int
		tagemitEachTopLevel(s, func(i int) { want = append(want, i) })
		got := slices.Collect(Outside(s))
		if !slices.Equal(got, want) {
			t.Fatalf("Outside(%q) = %v, tagemit's walk %v", s, got, want)
		}
		var elems []string
		start := 0
		for _, i := range got {
			if s[i] == ',' {
				elems = append(elems, TrimOWS(s[start:i]))
				start = i + 1
			}
		}
		elems = slices.DeleteFunc(append(elems, TrimOWS(s[start:])), func(e string) bool { return e == "" })
		if e := slices.Collect(Elements(s)); !slices.Equal(e, elems) {
			t.Fatalf("Elements(%q) = %q, want %q", s, e, elems)
		}
		first := -1
		for _, i := range got {
			if s[i] == ',' {
				first = i
				break
			}
		}
		if i := Index(s, ','); i != first {
			t.Fatalf("Index(%q) = %d, want %d", s, i, first)
		}
		for rest := s; ; rest = rest[1:] {
			e, r := NextFetchElement(rest)
			we, wr := mimetypeNextListValue(rest)
			if e != we || r != wr {
				t.Fatalf("NextFetchElement(%q) = %q, %q; mimetype's %q, %q", rest, e, r, we, wr)
			}
			if rest = r; rest == "" {
				break
			}
		}
	})
}
