package tagemit

import (
	"bytes"
	"math/rand"
	"strings"
	"testing"

	"golang.org/x/net/html"

	"github.com/sitepolicy/caddy-robots/tdmrep"
)

// tdmDecls are the declarations FuzzInjectorTDM inserts.
var tdmDecls = []tdmrep.Declaration{
	{Reservation: tdmrep.Reserved, Policy: "https://e.example/p?a=1&b=\"2\""},
	{Reservation: tdmrep.Reserved},
	{Reservation: tdmrep.NotReserved, Policy: "https://e.example/p"},
}

// FuzzInjectorTDM: with a TDMRep declaration (and no robots rules), the body passes through
// unchanged or gets exactly one insertion, which is the declaration's elements or the part
// of them the page lacks, and the rest of the body is kept byte for byte; where the
// reservation element is inserted, it is the first tdm-reservation element x/net/html's
// parser finds in the head.
func FuzzInjectorTDM(f *testing.F) {
	for _, s := range []string{
		"<!doctype html><html><head><title>x</title></head><body></body></html>",
		`<head><meta name="tdm-reservation" content="1"></head>`,
		`<head><meta name="tdm-reservation" content="0"><meta name="tdm-policy" content="x"></head>`,
		`<head><meta name=TDM-RESERVATION content=" 1 "></head>`,
		`<head><!-- <meta name="tdm-reservation" content="1"> --><title>`,
		`<head><template><meta name="tdm-reservation" content="1"></template></head>`,
		"<p>no head",
	} {
		f.Add([]byte(s), int64(1), uint8(0))
	}
	f.Fuzz(func(t *testing.T, doc []byte, seed int64, which uint8) {
		d := tdmDecls[int(which)%len(tdmDecls)]
		r := rand.New(rand.NewSource(seed))
		in, w := runInjector(t, doc, Policy{}, InjectorOptions{TDM: d}, func() int { return 1 + r.Intn(16) }, seed%3 == 0)
		out := w.out.Bytes()
		if in.State() == PassedThrough {
			if !bytes.Equal(out, doc) {
				t.Fatalf("passed through but changed:\n%q\n%q", doc, out)
			}
			return
		}
		ins := out[:0]
		for _, part := range []tdmrep.Declaration{d, {Policy: d.Policy}, {Reservation: d.Reservation}} {
			if m := part.MetaElements(); len(m) > 0 && len(m) == in.Inserted() {
				ins = m
			}
		}
		if len(ins) == 0 {
			t.Fatalf("inserted %d bytes, which are not the declaration's elements %q", in.Inserted(), d.MetaElements())
		}
		if !insertedOnce(doc, out, ins) {
			t.Fatalf("the body around the insertion changed:\n%q\n%q", doc, out)
		}
		if before, after := countHeadMeta(t, doc, "tdm-policy"), countHeadMeta(t, out, "tdm-policy"); seed%3 != 0 && after > max(before, 1) {
			t.Fatalf("%d tdm-policy elements in the head, %d before:\n%q", after, before, out)
		}
		if bytes.HasPrefix(ins, []byte(`<meta name="tdm-reservation"`)) {
			if got := firstTDMReservation(t, out); got != d.Reservation.Value() {
				t.Fatalf("first tdm-reservation in the head is %q, want %q:\n%q", got, d.Reservation.Value(), out)
			}
		}
	})
}

// insertedOnce reports whether out is doc with ins inserted at one place.
func insertedOnce(doc, out, ins []byte) bool {
	if len(out) != len(doc)+len(ins) {
		return false
	}
	for i := 0; i <= len(doc); i++ {
		if bytes.Equal(out[i:i+len(ins)], ins) && bytes.Equal(out[:i], doc[:i]) && bytes.Equal(out[i+len(ins):], doc[i:]) {
			return true
		}
	}
	return false
}

// countHeadMeta counts the meta elements named name (without case) with a content attribute
// among the children of the head html.Parse builds.
func countHeadMeta(t *testing.T, b []byte, name string) int {
	n := 0
	head := findElem(parseDoc(t, b), "head")
	for c := head.FirstChild; head != nil && c != nil; c = c.NextSibling {
		v, _ := attr(c, "name")
		if _, content := attr(c, "content"); content && c.Type == html.ElementNode && c.Data == "meta" && strings.EqualFold(strings.Trim(v, htmlSpace), name) {
			n++
		}
	}
	return n
}

// TestInjectorTDMPagePolicy: a page with its own tdm-policy element never gets a second one,
// whatever it states of the reservation; the reservation it lacks is still inserted.
func TestInjectorTDMPagePolicy(t *testing.T) {
	d := tdmrep.Declaration{Reservation: tdmrep.Reserved, Policy: "https://r.example/p"}
	for doc, want := range map[string]string{
		`<html><head><meta name="tdm-policy" content="https://page.example/p"></head><body>b</body></html>`:                                          `<meta name="tdm-reservation" content="1">`,
		`<html><head><meta name="tdm-reservation" content="0"><meta name=TDM-Policy content="https://page.example/p"></head><body>b</body></html>`:   `<meta name="tdm-reservation" content="1">`,
		`<html><head><meta name="tdm-reservation" content="1"><meta name="tdm-policy" content="https://page.example/p"></head><body>b</body></html>`: "",
		`<html><head><meta name="tdm-reservation" content="1"></head><body>b</body></html>`:                                                          `<meta name="tdm-policy" content="https://r.example/p">`,
		`<html><head><title>t</title></head><body>b</body></html>`:                                                                                   string(d.MetaElements()),
	} {
		for _, chunk := range []int{1, 5, len(doc)} {
			in, w := runInjector(t, []byte(doc), Policy{}, InjectorOptions{TDM: d}, func() int { return chunk }, false)
			if want == "" {
				if in.State() != PassedThrough || w.out.String() != doc {
					t.Errorf("%s: %v, want it unchanged: %s", doc, in.State(), w.out.String())
				}
				continue
			}
			if in.State() != Injected || !insertedOnce([]byte(doc), w.out.Bytes(), []byte(want)) {
				t.Errorf("%s: %v, want %s inserted: %s", doc, in.State(), want, w.out.String())
			}
			if n := countHeadMeta(t, w.out.Bytes(), "tdm-policy"); n != 1 {
				t.Errorf("%s: %d tdm-policy elements", w.out.String(), n)
			}
		}
	}
}

// firstTDMReservation is the content of the first tdm-reservation meta element among the
// children of the head html.Parse builds.
func firstTDMReservation(t *testing.T, b []byte) string {
	head := findElem(parseDoc(t, b), "head")
	for c := head.FirstChild; head != nil && c != nil; c = c.NextSibling {
		if name, _ := attr(c, "name"); c.Type == html.ElementNode && c.Data == "meta" && strings.EqualFold(name, "tdm-reservation") {
			content, _ := attr(c, "content")
			return content
		}
	}
	return ""
}
