package rsl_test

import (
	"encoding/json"
	"encoding/xml"
	"errors"
	"math/rand/v2"
	"net/url"
	"path"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/sitepolicy/caddy-robots/configerr"
	"github.com/sitepolicy/caddy-robots/internal/fixture"
	. "github.com/sitepolicy/caddy-robots/rsl"
	"github.com/sitepolicy/caddy-robots/tdmrep"
)

// decoded is the document as encoding/xml reads it back.
type decoded struct {
	XMLName xml.Name `xml:"https://rslstandard.org/rsl rsl"`
	Content []struct {
		URL     string `xml:"url,attr"`
		License struct {
			Permits   *usageList `xml:"permits"`
			Prohibits *usageList `xml:"prohibits"`
			Payment   *struct {
				Type     string `xml:"type,attr"`
				Standard string `xml:"standard"`
				Custom   string `xml:"custom"`
			} `xml:"payment"`
		} `xml:"license"`
	} `xml:"content"`
}

type usageList struct {
	Type string `xml:"type,attr"`
	Text string `xml:",chardata"`
}

func genDocument(r *rand.Rand) Document {
	urls := []string{"/", "/articles/*", "/data/*.csv$", "https://example.com/a?x=1&y=2", "*/private/", "https://example.com/a'b"}
	d := Document{Path: pickOne(r, []string{"/license.xml", "/.well-known/rsl.xml", "/l"})}
	perm := r.Perm(len(urls))
	for _, i := range perm[:1+r.IntN(len(urls))] {
		c := Content{URL: urls[i]}
		us := slices.Clone(Usages)
		r.Shuffle(len(us), func(i, j int) { us[i], us[j] = us[j], us[i] })
		np := r.IntN(3)
		c.Permits = us[:np]
		c.Prohibits = us[np : np+r.IntN(3)]
		if r.IntN(2) == 0 || len(c.Permits)+len(c.Prohibits) == 0 {
			c.Payment = &Payment{Type: pickOne(r, append([]string{"", "inference"}, PaymentTypes...))}
			if r.IntN(2) == 0 {
				c.Payment.Standard = "https://rights.example.org/standard?a=1&b=<2>"[:35]
			}
			if r.IntN(2) == 0 {
				c.Payment.Custom = pickOne(r, []string{"mailto:licensing@example.com", "https://example.com/contact"})
			}
		}
		d.Content = append(d.Content, c)
	}
	return d
}

func pickOne(r *rand.Rand, s []string) string { return s[r.IntN(len(s))] }

// TestDocumentStructure: generated documents render to XML that has the specification's
// structure and reads back to the declared values.
func TestDocumentStructure(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	for i := range 2000 {
		d := genDocument(r)
		b, err := d.Render()
		if err != nil {
			t.Fatalf("%d: %v\n%+v", i, err, d)
		}
		if err := fixture.RSLStructure(b); err != nil {
			t.Fatalf("%d: %v\n%s", i, err, b)
		}
		var back decoded
		if err := xml.Unmarshal(b, &back); err != nil || len(back.Content) != len(d.Content) {
			t.Fatalf("%d: read back %v\n%s", i, err, b)
		}
		for j, c := range d.Content {
			bc := back.Content[j]
			split := func(p *usageList) []string {
				if p == nil {
					return nil
				}
				if p.Type != "usage" {
					t.Fatalf("type %q", p.Type)
				}
				return strings.Fields(p.Text)
			}
			if bc.URL != c.URL || !reflect.DeepEqual(split(bc.License.Permits), nilIfEmpty(c.Permits)) || !reflect.DeepEqual(split(bc.License.Prohibits), nilIfEmpty(c.Prohibits)) {
				t.Fatalf("%d: content %d read back as %+v, want %+v\n%s", i, j, bc, c, b)
			}
			wantType := ""
			if c.Payment != nil {
				wantType = c.Payment.Type
				if n, ok := OldPaymentTypes[wantType]; ok {
					wantType = n // the drafts' name, written as RSL 1.0 names it
				}
			}
			if (bc.License.Payment == nil) != (c.Payment == nil) || c.Payment != nil && (bc.License.Payment.Type != wantType || bc.License.Payment.Standard != c.Payment.Standard || bc.License.Payment.Custom != c.Payment.Custom) {
				t.Fatalf("%d: payment read back as %+v, want %+v\n%s", i, bc.License.Payment, c.Payment, b)
			}
		}
	}
}

func nilIfEmpty(s []string) []string {
	if len(s) == 0 {
		return nil
	}
	return s
}

// TestDocumentExample: the specification's own example of a license for AI training, as a
// Document, renders to the same elements.
func TestDocumentExample(t *testing.T) {
	d := Document{Path: "/license.xml", Content: []Content{{URL: "/", Prohibits: []string{"ai-train"}, Permits: []string{"search", "ai-index"}, Payment: &Payment{Type: "attribution", Custom: "https://example.com/contact"}}}}
	b, err := d.Render()
	if err != nil {
		t.Fatal(err)
	}
	want := `<?xml version="1.0" encoding="UTF-8"?>
<rsl xmlns="https://rslstandard.org/rsl">
  <content url="/">
    <license>
      <permits type="usage">search ai-index</permits>
      <prohibits type="usage">ai-train</prohibits>
      <payment type="attribution">
        <custom>https://example.com/contact</custom>
      </payment>
    </license>
  </content>
</rsl>
`
	if string(b) != want {
		t.Errorf("got\n%s\nwant\n%s", b, want)
	}
}

// TestServedPathAsRequested: over generated paths, one Validate accepts as a document's path is the path a
// client requests for its URL as written (url.Parse and path cleaning, as net/http and Caddy
// read a request, leave it alone, trailing slash aside), and none of the paths the site or
// this module answers otherwise.
func TestServedPathAsRequested(t *testing.T) {
	parts := []string{"/", "/", "a", "license.xml", ".", "..", "//", ".well-known", "tdmrep.json", "robots.txt", "?", "#", "%2e", "x.y", "~"}
	r := rand.New(rand.NewPCG(5, 6))
	accepted := 0
	for range 20000 {
		var b strings.Builder
		for range 1 + r.IntN(6) {
			b.WriteString("/"[:r.IntN(3)%2] + parts[r.IntN(len(parts))])
		}
		p := b.String()
		d := Document{Path: p, Content: []Content{{URL: "/", Prohibits: []string{"ai-train"}}}}
		if pathRefused(d.Validate()) {
			continue
		}
		accepted++
		u, err := url.Parse("http://example.com" + p)
		clean := path.Clean(p)
		if strings.HasSuffix(p, "/") && clean != "/" {
			clean += "/"
		}
		if err != nil || u.Path != p || u.RawQuery != "" || u.Fragment != "" || clean != p || p == "/" || p == "/robots.txt" || p == tdmrep.WellKnownPath {
			t.Fatalf("Validate accepts path %q: parsed %v %v, cleaned %q", p, u, err, clean)
		}
	}
	if accepted < 1000 {
		t.Fatalf("only %d paths accepted", accepted)
	}
}

func pathRefused(err error) bool {
	for _, e := range configerr.All(err) {
		if e.Path == "path" {
			return true
		}
	}
	return false
}

// TestDocumentErrors: each problem is named by its field path.
func TestDocumentErrors(t *testing.T) {
	ok := Content{URL: "/", Prohibits: []string{"ai-train"}}
	for _, c := range []struct {
		d    Document
		path string
		msg  string
	}{
		{Document{Path: "license.xml", Content: []Content{ok}}, "path", "a path such as"},
		{Document{Path: "/l.xml?v=1", Content: []Content{ok}}, "path", `'?'`},
		{Document{Path: "/robots.txt", Content: []Content{ok}}, "path", "robots.txt"},
		{Document{Path: "/.well-known/tdmrep.json", Content: []Content{ok}}, "path", "TDMRep"},
		{Document{Path: "/", Content: []Content{ok}}, "path", "home page"},
		{Document{Path: "/x/../license.xml", Content: []Content{ok}}, "path", "dot segments"},
		{Document{Path: "/./license.xml", Content: []Content{ok}}, "path", "dot segments"},
		{Document{Path: "/l/..", Content: []Content{ok}}, "path", "dot segments"},
		{Document{Path: "/a//license.xml", Content: []Content{ok}}, "path", `"//"`},
		{Document{Path: "//license.xml", Content: []Content{ok}}, "path", `"//"`},
		{Document{Path: "/l.xml"}, "content", "at least one content"},
		{Document{Path: "/l.xml", Content: []Content{{URL: "articles", Prohibits: []string{"ai-train"}}}}, "content[0].url", "absolute http(s) URL"},
		{Document{Path: "/l.xml", Content: []Content{{URL: "/a\x01", Prohibits: []string{"ai-train"}}}}, "content[0].url", "control characters"},
		{Document{Path: "/l.xml", Content: []Content{{URL: `/a"><x`, Prohibits: []string{"ai-train"}}}}, "content[0].url", "percent-encoded"},
		{Document{Path: "/l.xml", Content: []Content{ok, ok}}, "content[1].url", "distinct"},
		{Document{Path: "/l.xml", Content: []Content{{URL: "/"}}}, "content[0]", "says nothing"},
		{Document{Path: "/l.xml", Content: []Content{{URL: "/", Permits: []string{"train-ai"}}}}, "content[0].permits[0]", "not an RSL usage"},
		{Document{Path: "/l.xml", Content: []Content{{URL: "/", Permits: []string{"search", "search"}}}}, "content[0].permits[1]", "twice"},
		{Document{Path: "/l.xml", Content: []Content{{URL: "/", Permits: []string{"search"}, Prohibits: []string{"search"}}}}, "content[0].prohibits[0]", "both"},
		{Document{Path: "/l.xml", Content: []Content{{URL: "/", Payment: &Payment{Type: "subscribe"}}}}, "content[0].payment.type", "not an RSL payment type"},
		{Document{Path: "/l.xml", Content: []Content{{URL: "/", Payment: &Payment{Standard: "/terms"}}}}, "content[0].payment.standard", "absolute"},
		{Document{Path: "/l.xml", Content: []Content{{URL: "/", Payment: &Payment{Custom: "javascript:alert(1)"}}}}, "content[0].payment.custom", "mailto"},
	} {
		err := c.d.Validate()
		var ce *configerr.Error
		if !errors.As(err, &ce) || ce.Path != c.path || !strings.Contains(err.Error(), c.msg) {
			t.Errorf("%+v: %v, want %s: ...%s", c.d, err, c.path, c.msg)
		}
		if _, rerr := c.d.Render(); rerr == nil {
			t.Errorf("%+v rendered", c.d)
		}
	}
}

// FuzzDocument: whatever JSON a config holds, a document that validates renders to XML with
// the specification's structure, and one that does not is refused.
func FuzzDocument(f *testing.F) {
	f.Add([]byte(`{"path":"/license.xml","content":[{"url":"/","permits":["search"],"prohibits":["ai-train"],"payment":{"type":"free","custom":"mailto:a@example.com"}}]}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		var d Document
		if json.Unmarshal(data, &d) != nil {
			return
		}
		b, err := d.Render()
		if err != nil {
			return
		}
		if err := fixture.RSLStructure(b); err != nil {
			t.Fatalf("%v\n%s", err, b)
		}
	})
}

// TestDocumentRSL10Forms: what RSL 1.0 changed from the drafts is written as 1.0 has it:
// usage lists separated by spaces (a comma-joined "ai-train,ai-input" is one unknown token to
// a 1.0 reader), the payment types "use" (the drafts' "inference", still accepted and written
// "use") and "contribution".
func TestDocumentRSL10Forms(t *testing.T) {
	for _, c := range []struct {
		typ, want string
	}{{"use", "use"}, {"contribution", "contribution"}, {"inference", "use"}} {
		d := Document{Path: "/l.xml", Content: []Content{{URL: "/", Permits: []string{"search", "ai-index"}, Prohibits: []string{"ai-train", "ai-input"}, Payment: &Payment{Type: c.typ}}}}
		b, err := d.Render()
		if err != nil {
			t.Fatalf("%s: %v", c.typ, err)
		}
		if err := fixture.RSLStructure(b); err != nil {
			t.Fatalf("%s: %v\n%s", c.typ, err, b)
		}
		var back decoded
		if err := xml.Unmarshal(b, &back); err != nil {
			t.Fatal(err)
		}
		l := back.Content[0].License
		if got := strings.Fields(l.Permits.Text); !reflect.DeepEqual(got, []string{"search", "ai-index"}) || strings.Contains(l.Prohibits.Text, ",") ||
			!reflect.DeepEqual(strings.Fields(l.Prohibits.Text), []string{"ai-train", "ai-input"}) {
			t.Errorf("%s: permits %q prohibits %q", c.typ, l.Permits.Text, l.Prohibits.Text)
		}
		if l.Payment.Type != c.want {
			t.Errorf("payment %q written %q, want %q", c.typ, l.Payment.Type, c.want)
		}
	}
	// The witness refuses the drafts' comma-joined list.
	old := []byte(`<rsl xmlns="https://rslstandard.org/rsl"><content url="/"><license><permits type="usage">ai-train,ai-input</permits></license></content></rsl>`)
	if err := fixture.RSLStructure(old); err == nil {
		t.Error("a comma-joined usage list passes the RSL 1.0 witness")
	}
}
