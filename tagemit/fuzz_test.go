package tagemit

import (
	"bytes"
	"math/rand"
	"strings"
	"testing"

	"github.com/dunglas/httpsfv"
)

// FuzzParseRobotsTag: never panics; what it returns emits a header httpsfv accepts, and
// re-parsing that header gives the same policy.
func FuzzParseRobotsTag(f *testing.F) {
	for _, s := range []string{"*;nosnippet, ExampleBot;noindex", "*=noindex, nosnippet; ExampleBot=;", `"-x";max-snippet=5, a;unavailable_after="Fri, 01 Jan 2027 00:00:00 GMT"`, "noindex", "a;b;c, (x y), \"", "*;max-image-preview=LARGE;NONE",
		"googlebot;noindex, bingbot;nosnippet;", "googlebot;noindex, bingbot=nosnippet;", "Googlebot/2.1 ;noindex ; max-snippet = 5",
		"googlebot: noindex, nosnippet, bingbot:noarchive", "a;unavailable_after=2027-01-01, \"x, *;noindex", "*=noindex, noai;, b=;"} {
		f.Add(s, "")
	}
	f.Fuzz(func(t *testing.T, a, b string) {
		p, _ := ParseRobotsTag([]string{a, b})
		checkReparse(t, p)
		pa, _ := ParseRobotsTag([]string{a})
		pb, _ := ParseRobotsTag([]string{b})
		checkFitUnion(t, pa, pb)
	})
}

// checkFitUnion: FitUnion's result fits, is all of the union when that fits, and, when the
// declared policy fits on its own, keeps every restriction of it.
func checkFitUnion(t *testing.T, declared, received Policy) {
	t.Helper()
	for _, legacy := range []bool{false, true} {
		fitted, dropped := FitUnion(declared, received, legacy)
		f := fitter{legacy: legacy}
		if !f.fits(fitted) {
			t.Fatalf("legacy=%v: FitUnion left %d bytes, lines %d", legacy, len(fitted.RobotsTag()), legacySize(fitted.XRobotsTag()))
		}
		if all := declared.Union(received); f.fits(all) != (dropped == nil) || dropped == nil && !fitted.Equal(all) {
			t.Fatalf("legacy=%v: the union fits=%v, dropped %q", legacy, f.fits(all), dropped)
		}
		if declared.IsEmpty() || !f.fits(declared) {
			continue
		}
		got := fitted.toMap()
		for i, tok := range declared.d.tokens {
			rest := declared.d.rules[i].minus(got[tok])
			rest.flags &^= flagIndexifembedded // relaxes: the union may rightly lose it
			if !rest.isEmpty() {
				t.Fatalf("legacy=%v: declared %s lost %q (fitted %s)", legacy, tok, rest.strings("="), fitted)
			}
		}
	}
}

// FuzzParseXRobotsTag: same for the legacy syntax, and the legacy serialisation reads
// back to the same policy.
func FuzzParseXRobotsTag(f *testing.F) {
	for _, s := range []string{"noindex, nosnippet", "examplebot: noindex, max-snippet: 20", "unavailable_after: Friday, 25-Jun-10 15:00:00 EST, noindex", "a: b: c, d:, :e"} {
		f.Add(s, "")
	}
	f.Fuzz(func(t *testing.T, a, b string) {
		p, _ := ParseXRobotsTag([]string{a, b})
		checkReparse(t, p)
		x, errs := ParseXRobotsTag(p.XRobotsTag())
		if len(errs) != 0 || !x.Equal(p) {
			t.Fatalf("X-Robots-Tag %q reads back as %s, %v; want %s", p.XRobotsTag(), x, errs, p)
		}
	})
}

func checkReparse(t *testing.T, p Policy) {
	t.Helper()
	rt := p.RobotsTag()
	if strings.ContainsAny(rt, "\r\n\x00") {
		t.Fatalf("header %q contains control characters", rt)
	}
	if rt != "" {
		if _, err := httpsfv.UnmarshalList([]string{rt}); err != nil {
			t.Fatalf("httpsfv rejects %q: %v", rt, err)
		}
	}
	if len(rt) <= MaxFieldSize {
		q, errs := ParseRobotsTag([]string{rt})
		if len(errs) != 0 || !q.Equal(p) {
			t.Fatalf("%q re-parses as %s, %v", rt, q, errs)
		}
	}
	if fitted, _ := p.FitFieldSize(); len(fitted.RobotsTag()) > MaxFieldSize {
		t.Fatalf("FitFieldSize left %d bytes", len(fitted.RobotsTag()))
	}
	if _, err := NewPolicy(p.Rules()); err != nil && len(rt) <= MaxFieldSize && !p.hasExtensions() {
		t.Fatalf("Rules() of a parsed policy is not a valid configuration: %v", err)
	}
}

// FuzzInjector: for any document and any chunking, the DOM property holds and the
// wrapper's contract is kept.
func FuzzInjector(f *testing.F) {
	for _, s := range []string{"<html><head><title>x</title></head><body></body></html>", "<!-- <head> --><p>", "\ufeff<head>", "<script><head></script>", "<head><meta name=robots content=noindex></head>", "&#32; x", "<!--", "<template><p></template>"} {
		f.Add([]byte(s), int64(1), uint16(0))
	}
	p := corpusPolicy(f)
	f.Fuzz(func(t *testing.T, doc []byte, seed int64, maxBuf uint16) {
		r := rand.New(rand.NewSource(seed))
		in, w := runInjector(t, doc, p, InjectorOptions{MaxBuffer: int(maxBuf)}, func() int { return 1 + r.Intn(16) }, seed%3 == 0)
		checkDOM(t, doc, w.out.Bytes(), in, p)
	})
}

// hasExtensions reports whether the policy carries unknown rules kept by a parser, which
// NewPolicy (a configuration) does not accept.
func (p Policy) hasExtensions() bool {
	if p.d != nil {
		for _, rs := range p.d.rules {
			if len(rs.ext) > 0 {
				return true
			}
		}
	}
	return false
}

// FuzzInjectorXML: with InjectorOptions.XML, a well-formed XML document stays well-formed
// whatever the injector does, and a document it passes through is unchanged.
func FuzzInjectorXML(f *testing.F) {
	const ns = `<html xmlns="http://www.w3.org/1999/xhtml">`
	for _, s := range []string{
		`<?xml version="1.0"?><!DOCTYPE html>` + ns + `<head><title>t</title></head><body/></html>`,
		ns + `<head/></html>`, ns + `<body><p>x</p></body></html>`, `<svg><title>x</title></svg>`,
		`<html/>`, `<!-- <head> -->` + ns + `<head><script src="a"/></head></html>`,
		ns + `<head><![CDATA[ x ]]></head></html>`, ns + `<?pi x?><head><title><![CDATA[<]]></title></head></html>`,
	} {
		f.Add([]byte(s), int64(1))
	}
	p := corpusPolicy(f)
	f.Fuzz(func(t *testing.T, doc []byte, seed int64) {
		r := rand.New(rand.NewSource(seed))
		in, w := runInjector(t, doc, p, InjectorOptions{XML: true}, func() int { return 1 + r.Intn(16) }, seed%3 == 0)
		out := w.out.Bytes()
		if in.State() == PassedThrough && !bytes.Equal(out, doc) {
			t.Fatalf("passed through, but changed:\n%q\n%q", doc, out)
		}
		if wellFormedXML(doc) == "" {
			if why := wellFormedXML(out); why != "" {
				t.Fatalf("%q became %q: %s", doc, out, why)
			}
		}
	})
}
