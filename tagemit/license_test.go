package tagemit

import (
	"bytes"
	"math/rand"
	"slices"
	"strings"
	"testing"

	"golang.org/x/net/html"

	"github.com/sitepolicy/caddy-robots/rsl"
)

var testLicenses = []string{"/license.xml", `https://rights.example.org/l.xml?a=1&b='2'`}

// checkLicenseDOM: html.Parse of the output is html.Parse of the input plus, as the first
// children of head, our meta elements and then one <link rel="license"
// type="application/rsl+xml"> per license in want, with the href exactly as configured; or the
// output is the input byte for byte when the injector passed through.
func checkLicenseDOM(t *testing.T, input, output []byte, in *Injector, p Policy, want []string) {
	t.Helper()
	if in.State() == PassedThrough {
		if !bytes.Equal(input, output) || in.Inserted() != 0 {
			t.Fatalf("passed through (%s) but changed the bytes", in.Reason())
		}
		return
	}
	if len(output) != len(input)+in.Inserted() {
		t.Fatalf("output %d bytes, input %d, Inserted %d", len(output), len(input), in.Inserted())
	}
	inDoc, outDoc := parseDoc(t, input), parseDoc(t, output)
	head := findElem(outDoc, "head")
	c := firstInserted(t, findElem(inDoc, "head"), head)
	for c != nil && c.Type == html.ElementNode && c.Data == "meta" && !p.IsEmpty() {
		next := c.NextSibling
		head.RemoveChild(c)
		c = next
	}
	for _, w := range want {
		if c == nil || c.Type != html.ElementNode || c.Data != "link" {
			t.Fatalf("no link element for %q at the start of head:\n%s", w, render(t, outDoc))
		}
		rel, _ := attr(c, "rel")
		typ, _ := attr(c, "type")
		href, _ := attr(c, "href")
		if rel != "license" || typ != "application/rsl+xml" || href != w || len(c.Attr) != 3 {
			t.Fatalf("link %+v, want href %q", c.Attr, w)
		}
		next := c.NextSibling
		head.RemoveChild(c)
		c = next
	}
	if a, b := render(t, inDoc), render(t, outDoc); a != b {
		t.Fatalf("DOM differs beyond our elements\ninput:  %s\noutput: %s", a, b)
	}
}

// TestInjectorLicensesCorpus: over the injector's corpus, in every chunking, with and without
// robots rules, the license links are added after the meta elements or the body is left
// byte for byte.
func TestInjectorLicensesCorpus(t *testing.T) {
	l := NewLicenses(testLicenses)
	for _, p := range []Policy{{}, corpusPolicy(t)} {
		for name, doc := range loadCorpus(t) {
			chunks := []int{1, 7, len(doc) + 1} // byte by byte, in 7-byte writes, whole
			if raceEnabled {
				chunks = chunks[2:] // races only: every chunking runs without -race (./test.sh)
			}
			for _, chunk := range chunks {
				in, w := runInjector(t, doc, p, InjectorOptions{Licenses: l}, func() int { return chunk }, false)
				t.Run(name, func(t *testing.T) {
					checkLicenseDOM(t, doc, w.out.Bytes(), in, p, testLicenses)
					if want := corpusPassThrough[name]; want != (in.State() == PassedThrough) {
						t.Fatalf("chunk %d: state %v (%s), want pass-through %v", chunk, in.State(), in.Reason(), want)
					}
				})
			}
		}
	}
}

// TestInjectorLicenseDedup: a license link the page's head already has (rel holding
// "license" in any case, href equal once trimmed) is not added again; other links are.
func TestInjectorLicenseDedup(t *testing.T) {
	l := NewLicenses(testLicenses)
	for _, c := range []struct {
		doc  string
		want []string
	}{
		{`<html><head><link rel="License alternate" href=" /license.xml "><title>x</title></head><body>b</body></html>`, testLicenses[1:]},
		{`<html><head><link rel="stylesheet" href="/license.xml"></head><body>b</body></html>`, testLicenses},
		{`<html><head><link rel="license" href="/other.xml"></head><body>b</body></html>`, testLicenses},
		{`<html><head><link rel=license href="https://rights.example.org/l.xml?a=1&amp;b='2'"><link rel=license href=/license.xml></head><body>b</body></html>`, nil},
		{`<html><head></head><body><link rel="license" href="/license.xml"></body></html>`, testLicenses}, // not in the head
		{`<!-- <link rel="license" href="/license.xml"> --><html><head></head><body>b</body></html>`, testLicenses},
	} {
		in, w := runInjector(t, []byte(c.doc), Policy{}, InjectorOptions{Licenses: l}, func() int { return 5 }, false)
		if c.want == nil {
			if in.State() != PassedThrough || w.out.String() != c.doc {
				t.Errorf("%s: %v, want the page unchanged:\n%s", c.doc, in.State(), w.out.String())
			}
			continue
		}
		checkLicenseDOM(t, []byte(c.doc), w.out.Bytes(), in, Policy{}, c.want)
	}
}

// TestInjectorLicenseSameTargetAsLink: the page's own <link rel="license" href=...> counts as
// the license exactly when the same href in a backend's Link field would (rsl.HasLicenseLink):
// a path license also as its absolute http(s) URL on the request's host, in any case of host.
func TestInjectorLicenseSameTargetAsLink(t *testing.T) {
	const host = "Example.com:8443"
	targets := []string{"/license.xml", "https://rights.example.org/l.xml"}
	l := NewLicenses(targets)
	hrefs := []string{"/license.xml", "http://example.com:8443/license.xml", "https://EXAMPLE.COM:8443/license.xml",
		"https://example.com/license.xml", "https://other.example:8443/license.xml", "ftp://example.com:8443/license.xml",
		"https://example.com:8443/license.xml/", "https://rights.example.org/l.xml", "https://RIGHTS.example.org/l.xml", "/l.xml"}
	for _, href := range hrefs {
		doc := `<html><head><link rel="license" href="` + href + `"></head><body>b</body></html>`
		in, w := runInjector(t, []byte(doc), Policy{}, InjectorOptions{Licenses: l, Host: host}, func() int { return 9 }, false)
		var want []string
		for _, target := range targets {
			if !rsl.HasLicenseLink([]string{"<" + href + `>; rel="license"`}, target, host) {
				want = append(want, target)
			}
		}
		if want == nil {
			if in.State() != PassedThrough || w.out.String() != doc {
				t.Errorf("%s: %v, want the page unchanged:\n%s", href, in.State(), w.out.String())
			}
			continue
		}
		if len(want) == len(targets) && strings.Contains(href, "8443/license.xml") && !strings.HasSuffix(href, "/") && !strings.Contains(href, "other") && !strings.HasPrefix(href, "ftp") {
			t.Fatalf("%s: the Link reader does not take it for the license", href)
		}
		checkLicenseDOM(t, []byte(doc), w.out.Bytes(), in, Policy{}, want)
	}
}

// TestInjectorLicenseXHTML: in an XHTML document the link elements are empty elements and
// the output is well-formed XML.
func TestInjectorLicenseXHTML(t *testing.T) {
	doc := `<?xml version="1.0"?><html xmlns="http://www.w3.org/1999/xhtml"><head><title>t</title></head><body/></html>`
	_, w := runInjector(t, []byte(doc), corpusPolicy(t), InjectorOptions{XML: true, Licenses: NewLicenses(testLicenses)}, func() int { return 1 << 20 }, false)
	out := w.out.String()
	if !strings.Contains(out, `<link rel="license" type="application/rsl+xml" href="/license.xml" />`) {
		t.Fatalf("no empty link element:\n%s", out)
	}
	if msg := wellFormedXML([]byte(out)); msg != "" {
		t.Fatalf("not well-formed: %s\n%s", msg, out)
	}
}

// TestLicensesEscaped: whatever a href holds, it stays one attribute value of one element.
func TestLicensesEscaped(t *testing.T) {
	for _, h := range []string{`/a"><script>x</script>`, `/a'b&c<d`, "/a\x00b"} {
		b := NewLicenses([]string{h}).Elements()
		z := html.NewTokenizer(bytes.NewReader(b))
		if tt := z.Next(); tt != html.StartTagToken {
			t.Fatalf("%q: %v", b, tt)
		}
		if z.Next() != html.ErrorToken {
			t.Fatalf("%q: more than one token", b)
		}
		n := parseDoc(t, append([]byte("<head>"), b...))
		link := findElem(n, "link")
		if got, _ := attr(link, "href"); got != strings.ReplaceAll(h, "\x00", "\ufffd") {
			t.Errorf("href %q, want %q", got, h)
		}
	}
	if l := NewLicenses([]string{"/a", "/a", ""}); len(l.Hrefs()) != 1 {
		t.Errorf("duplicates kept: %q", l.Hrefs())
	}
}

// FuzzInjectorLicenses: for any document and chunking, with or without robots rules, the
// output is the input byte for byte, or the input with one run of our elements inserted whose
// removal from the parsed head gives the input's DOM, and then the head links every license.
func FuzzInjectorLicenses(f *testing.F) {
	for _, s := range []string{"<html><head><title>x</title></head><body></body></html>", `<head><link rel=license href="/license.xml"></head>`, "<!-- <head> --><p>", `<head><link rel="LICENSE" href=" /license.xml"><meta name=robots content=noindex>`} {
		f.Add([]byte(s), int64(1), false)
	}
	l := NewLicenses(testLicenses)
	rules := corpusPolicy(f)
	f.Fuzz(func(t *testing.T, doc []byte, seed int64, withRules bool) {
		p := Policy{}
		if withRules {
			p = rules
		}
		r := rand.New(rand.NewSource(seed))
		in, w := runInjector(t, doc, p, InjectorOptions{Licenses: l}, func() int { return 1 + r.Intn(16) }, seed%3 == 0)
		out := w.out.Bytes()
		if in.State() == PassedThrough {
			if !bytes.Equal(out, doc) {
				t.Fatalf("passed through (%s) but changed", in.Reason())
			}
			return
		}
		ins := in.Inserted()
		if len(out) != len(doc)+ins || ins == 0 {
			t.Fatalf("output %d bytes, input %d, Inserted %d", len(out), len(doc), ins)
		}
		pos := -1
		for i := min(len(doc), len(out)-ins); i >= 0; i-- {
			if bytes.Equal(out[:i], doc[:i]) && bytes.Equal(out[i+ins:], doc[i:]) && (bytes.HasPrefix(out[i:], []byte("<meta ")) || bytes.HasPrefix(out[i:], []byte("<link "))) {
				pos = i
				break
			}
		}
		if pos < 0 {
			t.Fatalf("output is not the input with one inserted run:\n%q\n%q", doc, out)
		}
		z := html.NewTokenizer(bytes.NewReader(out[pos : pos+ins]))
		k := 0
		for tt := z.Next(); tt != html.ErrorToken; tt = z.Next() {
			name, _ := z.TagName()
			if tt != html.StartTagToken || string(name) != "meta" && string(name) != "link" {
				t.Fatalf("inserted %q is not only meta and link elements", out[pos:pos+ins])
			}
			k++
		}
		outDoc := parseDoc(t, out)
		head := findElem(outDoc, "head")
		var have []string
		for c := head.FirstChild; c != nil; c = c.NextSibling {
			rel, _ := attr(c, "rel")
			if c.Type == html.ElementNode && c.Data == "link" && slices.ContainsFunc(strings.Fields(rel), func(r string) bool { return strings.EqualFold(r, "license") }) {
				href, _ := attr(c, "href")
				have = append(have, strings.TrimSpace(href))
			}
		}
		for _, want := range testLicenses {
			if !slices.Contains(have, want) {
				t.Fatalf("head lacks the license %q:\n%s", want, render(t, outDoc))
			}
		}
		c := firstInserted(t, findElem(parseDoc(t, doc), "head"), head)
		for range k {
			next := c.NextSibling
			head.RemoveChild(c)
			c = next
		}
		if a, b := render(t, parseDoc(t, doc)), render(t, outDoc); a != b {
			t.Fatalf("DOM differs beyond our elements\ninput:  %s\noutput: %s", a, b)
		}
	})
}
