package caddymodule

import (
	"bytes"
	"encoding/json"
	"encoding/xml"
	"fmt"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/dunglas/httpsfv"
	"github.com/jimsmart/grobotstxt"
	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"

	"github.com/sitepolicy/caddy-robots/caddymodule/internal/command"
	"github.com/sitepolicy/caddy-robots/policycheck/cli"
	"github.com/sitepolicy/caddy-robots/rsl"
)

// licensingPage is the HTML page the backend of TestREADMELicensing answers with.
const licensingPage = "<!doctype html><html><head><title>t</title></head><body><p>x</p></body></html>"

// TestREADMELicensing: the README's "Licensing and legal signals" Caddyfile, in a real Caddy
// in front of an HTML page, serves every signal of its one policy as the README shows it:
//   - robots.txt byte for byte (License line, Content-Usage and Content-Signal lines), read by
//     grobotstxt as the README says;
//   - on a page under /articles/, each header field the README shows, and only those four
//     (Content-Usage, Link, Tdm-Reservation, Tdm-Policy), one line each with the shown value;
//     Content-Usage read as a Structured Field Dictionary (httpsfv) says what robots.txt's
//     Content-Usage line says, and train-ai=n, from which tdm derive reserves (1);
//   - the Link target resolves to the URL of robots.txt's License line, where the RSL
//     document is served (its media type, the policy's permits and prohibits);
//   - the page's <head> gets the README's <link> and <meta> elements, compared as parsed
//     HTML (x/net/html), and is otherwise unchanged;
//   - caddy robots lint's walk over the same Caddyfile finds nothing (the README says so).
//
// nethttp.TestREADMELicensingFields reads the same header block with the root module's
// RFC 8288 parser, which this module may not import (TestPublicAPIOnly).
func TestREADMELicensing(t *testing.T) {
	cfg := docBlock(t, "../README.md", "licensing-caddyfile", "caddyfile")
	site := strings.NewReplacer(
		"example.com {", "http://localhost:@PORT@ {",
		"\treverse_proxy localhost:3000\n", "\theader Content-Type \"text/html; charset=utf-8\"\n\trespond \""+licensingPage+"\"\n",
	).Replace(cfg)
	if strings.Contains(site, "example.com {") || strings.Contains(site, "reverse_proxy") {
		t.Fatalf("the README's Caddyfile no longer has the site address and backend this test replaces:\n%s", cfg)
	}
	startCaddyfile(t, site)
	origin := fmt.Sprintf("http://localhost:%d", sitePort)

	// robots.txt, as the README shows it for https://example.com.
	resp, robots := do(t, "GET", siteURL("/robots.txt"))
	wantStatus(t, resp, 200)
	if want := strings.ReplaceAll(docBlock(t, "../README.md", "licensing-robots-txt", ""), "https://example.com", origin); string(robots) != want {
		t.Errorf("robots.txt\n%s\nthe README shows\n%s", robots, want)
	}
	if grobotstxt.AgentAllowed(string(robots), "GPTBot", origin+"/private/x") || !grobotstxt.AgentAllowed(string(robots), "GPTBot", origin+"/articles/a") {
		t.Errorf("grobotstxt reads /private/ allowed or /articles/ disallowed:\n%s", robots)
	}
	var license, robotsUsage string
	for _, line := range strings.Split(string(robots), "\n") {
		if v, ok := strings.CutPrefix(line, "License: "); ok {
			license = v
		}
		if v, ok := strings.CutPrefix(line, "Content-Usage: "); ok {
			robotsUsage = v
		}
	}

	// A page's header fields, as the README shows them.
	resp, body := do(t, "GET", siteURL("/articles/a"))
	wantStatus(t, resp, 200)
	var shown []string
	for _, line := range strings.Split(strings.TrimSpace(strings.ReplaceAll(docBlock(t, "../README.md", "licensing-headers", "http"), "https://example.com/license.xml", siteURL("/license.xml"))), "\n") {
		name, value, ok := strings.Cut(line, ": ")
		if !ok {
			t.Fatalf("the README's header line %q is not name: value", line)
		}
		if got := resp.Header.Values(name); !slices.Equal(got, []string{value}) {
			t.Errorf("%s: served %q, the README shows %q", name, got, value)
		}
		shown = append(shown, http.CanonicalHeaderKey(name))
	}
	if want := []string{"Content-Usage", "Link", "Tdm-Reservation", "Tdm-Policy"}; !slices.Equal(shown, want) {
		t.Errorf("the README shows the fields %v, want every signal of a page: %v", shown, want)
	}
	prefs := func(field []string) map[string]string {
		d, err := httpsfv.UnmarshalDictionary(field)
		if err != nil {
			t.Fatalf("Content-Usage %q: %v", field, err)
		}
		m := map[string]string{}
		for _, k := range d.Names() {
			v, _ := d.Get(k)
			item, ok := v.(httpsfv.Item)
			if !ok {
				t.Fatalf("Content-Usage %q: %s is not an item", field, k)
			}
			m[k] = fmt.Sprint(item.Value)
		}
		return m
	}
	header := prefs(resp.Header.Values("Content-Usage"))
	if robotsUsage == "" || fmt.Sprint(header) != fmt.Sprint(prefs([]string{robotsUsage})) {
		t.Errorf("the Content-Usage header says %v, robots.txt's line %q", header, robotsUsage)
	}
	if header["train-ai"] != "n" || resp.Header.Get("Tdm-Reservation") != "1" {
		t.Errorf("train-ai=%s, tdm-reservation %q: derive reserves from train-ai=n", header["train-ai"], resp.Header.Get("Tdm-Reservation"))
	}

	// The Link target is the document robots.txt's License line names.
	link := resp.Header.Get("Link")
	target, _, ok := strings.Cut(strings.TrimPrefix(link, "<"), ">")
	if !ok || !strings.HasPrefix(link, "<") {
		t.Fatalf("Link %q has no target", link)
	}
	ref, err := url.Parse(target)
	if err != nil {
		t.Fatal(err)
	}
	if got := resp.Request.URL.ResolveReference(ref).String(); license == "" || got != license {
		t.Errorf("Link target %s resolves to %s, robots.txt's License line is %q", target, got, license)
	}
	resp, doc := do(t, "GET", license)
	wantStatus(t, resp, 200)
	var parsed struct {
		Content []struct {
			URL     string `xml:"url,attr"`
			License struct {
				Permits   string `xml:"permits"`
				Prohibits string `xml:"prohibits"`
			} `xml:"license"`
		} `xml:"content"`
	}
	if err := xml.Unmarshal(doc, &parsed); err != nil || resp.Header.Get("Content-Type") != rsl.MediaType {
		t.Fatalf("license document (%s): %v\n%s", resp.Header.Get("Content-Type"), err, doc)
	}
	if len(parsed.Content) != 1 || parsed.Content[0].URL != "/" || parsed.Content[0].License.Permits != "search ai-input ai-index" || parsed.Content[0].License.Prohibits != "ai-train" {
		t.Errorf("license document:\n%s", doc)
	}

	// The page's head elements, as the README shows them, and nothing else changed.
	got, rest := headSignals(t, body)
	want, _ := headSignals(t, []byte("<!doctype html><html><head>"+strings.ReplaceAll(docBlock(t, "../README.md", "licensing-html", "html"), "https://example.com/license.xml", siteURL("/license.xml"))+"</head></html>"))
	if len(want) != 3 || !slices.Equal(got, want) {
		t.Errorf("the page's head elements\n%s\nthe README shows\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if _, orig := headSignals(t, []byte(licensingPage)); rest != orig {
		t.Errorf("the page differs beyond the elements:\n%s\nwant\n%s", rest, orig)
	}

	// caddy robots lint, over the README's Caddyfile as it is, finds nothing.
	name := filepath.Join(t.TempDir(), "Caddyfile")
	if err := os.WriteFile(name, []byte(cfg), 0o644); err != nil {
		t.Fatal(err)
	}
	lc, err := command.Load(name, "")
	if err != nil {
		t.Fatal(err)
	}
	defer lc.Close()
	var out bytes.Buffer
	status, err := cli.RunLint(&out, lc.Sites(), "json")
	var res cli.LintResult
	if err != nil || status != 0 || json.Unmarshal(out.Bytes(), &res) != nil || len(res.Findings) != 0 {
		t.Errorf("lint: status %d, %v\n%s", status, err, out.String())
	}
}

// headSignals returns the <link> and <meta> elements of doc's head, each rendered by
// x/net/html after parsing, and the document rendered without them.
func headSignals(t *testing.T, doc []byte) ([]string, string) {
	t.Helper()
	root, err := html.Parse(bytes.NewReader(doc))
	if err != nil {
		t.Fatal(err)
	}
	var head *html.Node
	for n := range root.Descendants() {
		if n.Type == html.ElementNode && n.DataAtom == atom.Head {
			head = n
			break
		}
	}
	if head == nil {
		t.Fatalf("no head in %s", doc)
	}
	var elems []string
	for c := head.FirstChild; c != nil; {
		next := c.NextSibling
		if c.Type == html.ElementNode && (c.DataAtom == atom.Link || c.DataAtom == atom.Meta) {
			var b bytes.Buffer
			if err := html.Render(&b, c); err != nil {
				t.Fatal(err)
			}
			elems = append(elems, b.String())
			head.RemoveChild(c)
		}
		c = next
	}
	var b bytes.Buffer
	if err := html.Render(&b, root); err != nil {
		t.Fatal(err)
	}
	return elems, b.String()
}
