package tagemit

import (
	"math/rand"
	"mime"
	"strings"
	"testing"

	"golang.org/x/net/html/charset"

	"github.com/sitepolicy/caddy-robots/tdmrep"
)

// TestInjectorKeepsEncoding: over generated pages whose encoding only a meta element declares
// (title lengths around the 1024-byte prescan window, the declaration before, after or inside
// the title, in a comment, a script or the body, as charset or http-equiv, with or without a
// byte order mark, <head> or <html>), the encoding x/net/html/charset.DetermineEncoding finds
// (what browsers' prescan finds) is the same before and after injection, in every chunking;
// a page that is rewritten keeps its DOM but for the elements inserted in its head.
func TestInjectorKeepsEncoding(t *testing.T) {
	p := corpusPolicy(t)
	opts := InjectorOptions{TDM: tdmrep.Declaration{Reservation: tdmrep.Reserved, Policy: "https://example.com/policies/tdm.json"}}
	decls := []string{`<meta charset="windows-1251">`, `<meta charset=koi8-r>`, `<META CHARSET='iso-8859-5'/>`,
		`<meta http-equiv="Content-Type" content="text/html; charset=windows-1251">`, `<meta content="text/html;charset=koi8-r" http-equiv=content-type>`}
	rng := rand.New(rand.NewSource(11))
	n := 6000
	if testing.Short() || raceEnabled {
		n = 600
	}
	if raceEnabled {
		n = 150 // races only: the first cases of the full-size run without -race (./test.sh)
	}
	moved, kept := 0, 0
	for i := range n {
		var b strings.Builder
		if rng.Intn(6) == 0 {
			b.WriteString("\xEF\xBB\xBF")
		}
		if rng.Intn(2) == 0 {
			b.WriteString("<!DOCTYPE html>\n")
		}
		if rng.Intn(3) > 0 {
			b.WriteString(`<html lang="ru">`)
		}
		if rng.Intn(4) > 0 {
			b.WriteString("<head>")
		}
		decl := decls[rng.Intn(len(decls))]
		title := "<title>" + strings.Repeat("x", 700+rng.Intn(400)) + "</title>"
		if rng.Intn(5) == 0 {
			title = "<title>short</title>"
		}
		where := rng.Intn(7)
		switch where {
		case 0: // before the title
			b.WriteString(decl + title)
		case 1: // after it: the reviewer's page
			b.WriteString(title + decl)
		case 2: // inside the title's text: the prescan sees it, the tokenizer does not
			b.WriteString(title[:len(title)-8] + decl + "</title>")
		case 3: // inside a comment: neither sees it
			b.WriteString(title + "<!-- " + decl + " -->")
		case 4: // inside a script: the prescan sees it
			b.WriteString(title + "<script>var s = '" + decl + "';</script>")
		case 5: // after other head content and a second declaration
			b.WriteString(title + `<link rel="stylesheet" href="/s.css">` + decl + decls[rng.Intn(len(decls))])
		case 6: // in the body
			b.WriteString(title + "</head><body>" + decl)
		}
		if where != 6 {
			b.WriteString("</head><body>")
		}
		// ASCII text: with no declaration in the window, DetermineEncoding's guess (UTF-8 if the
		// first 1024 bytes are valid UTF-8) then cannot depend on where the window cuts a
		// character; that guess is x/net's, not a browser's.
		b.WriteString("<p>text</p></body></html>")
		doc := []byte(b.String())
		// A charset the client does not know leaves the decision to the prescan.
		for _, ct := range []string{"text/html", "text/html; charset=utf-8", "text/html; charset=x-unknown"} {
			o := opts
			if _, params, _ := mime.ParseMediaType(ct); params["charset"] != "" {
				o.Charset = params["charset"]
			}
			chunk := 1 + rng.Intn(300)
			in, w := runInjector(t, doc, p, o, func() int { return chunk }, false)
			out := w.out.Bytes()
			_, before, _ := charset.DetermineEncoding(doc, ct)
			_, after, _ := charset.DetermineEncoding(out, ct)
			if before != after {
				t.Fatalf("case %d, Content-Type %q, chunk %d: encoding %s before, %s after (%v, %s):\n%q", i, ct, chunk, before, after, in.State(), in.Reason(), out)
			}
			checkDOM(t, doc, out, in, p)
			if in.State() == Injected && ct == "text/html" && before != "utf-8" {
				moved++
			}
			if in.State() == Injected {
				kept++
			}
		}
	}
	// Most pages declaring an encoding in their head are still rewritten (after the
	// declaration), not passed through.
	if moved < 2*n/3 || kept < n {
		t.Fatalf("%d pages with a declared encoding rewritten, %d in all, of %d", moved, kept, 2*n)
	}
}
