package caddymodule

import (
	"bytes"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/caddyserver/caddy/v2/caddyconfig"
	"github.com/caddyserver/caddy/v2/caddytest"

	"github.com/sitepolicy/caddy-robots/robotsgen"
	"github.com/sitepolicy/caddy-robots/rsl"
)

// licenseSite declares RSL licenses in robots.txt and per route, as nethttp's
// TestLicensesOverLoopback does, behind backends that send Link fields of their own.
const licenseSite = `
http://localhost:@PORT@ {
	robots_txt {
		sitemap /sitemap.xml
		license /license.xml
		license https://rights.example.org/rsl.xml
		group * {
			disallow /private/
		}
	}
	robots_tag /articles/* noindex {
		meta
		license /license.xml
	}
	@paid path /articles/paid/* /data/*
	robots_tag @paid {
		license https://rights.example.org/rsl.xml
	}
	header /articles/preload/* Link "</style.css>; rel=preload; as=style"
	header /articles/own/* Link "</license.xml>; rel=\"license\""
	header /data/terms/* Link "</terms.xml>; rel=license"
	@page path /articles/page /data/page
	header @page Content-Type "text/html; charset=utf-8"
	respond @page "<!doctype html><html><head><title>t</title></head><body>x</body></html>"
	respond "ok"
}
`

// licenseResponses checks robots.txt, the Link fields and the page heads of licenseSite.
func licenseResponses(t *testing.T) {
	t.Helper()
	origin := fmt.Sprintf("http://localhost:%d", sitePort)
	resp, body := do(t, "GET", siteURL("/robots.txt"))
	wantStatus(t, resp, 200)
	want := "Sitemap: " + origin + "/sitemap.xml\nLicense: " + origin + "/license.xml\nLicense: https://rights.example.org/rsl.xml\n\nUser-agent: *\nDisallow: /private/\n"
	if string(body) != want {
		t.Errorf("robots.txt:\n%s\nwant\n%s", body, want)
	}
	if f, diags := robotsgen.Parse(body); len(diags) > 0 || len(f.Licenses) != 2 {
		t.Errorf("parsed back: %v %v", f.Licenses, diags)
	}
	ours := func(target string) string { return rsl.LinkValue(target) }
	for _, c := range []struct {
		path string
		want []string // the Link field lines, in order
	}{
		{"/", nil},
		// A path license as its URL on the request's origin (RSL 1.0: absolute).
		{"/articles/a", []string{ours(siteURL("/license.xml"))}},
		{"/articles/paid/a", []string{ours(siteURL("/license.xml")), ours("https://rights.example.org/rsl.xml")}},
		{"/data/x.csv", []string{ours("https://rights.example.org/rsl.xml")}},
		{"/articles/preload/a", []string{"</style.css>; rel=preload; as=style", ours(siteURL("/license.xml"))}},
		{"/articles/own/a", []string{`</license.xml>; rel="license"`}},
		{"/data/terms/a", []string{"</terms.xml>; rel=license", ours("https://rights.example.org/rsl.xml")}},
	} {
		resp, _ := do(t, "GET", siteURL(c.path))
		if got := resp.Header.Values("Link"); !slices.Equal(got, c.want) {
			t.Errorf("%s: Link %q, want %q", c.path, got, c.want)
		}
	}
	_, body = do(t, "GET", siteURL("/articles/page"))
	if want := `<head><meta name="robots" content="noindex"><link rel="license" type="application/rsl+xml" href="` + siteURL("/license.xml") + `"><title>`; !bytes.Contains(body, []byte(want)) {
		t.Errorf("/articles/page head:\n%s\nwant %s", body, want)
	}
	if _, body = do(t, "GET", siteURL("/data/page")); bytes.Contains(body, []byte("<link")) {
		t.Errorf("/data/page (no meta) changed:\n%s", body)
	}
}

// TestLicensesCaddy: the same site from the Caddyfile and from the JSON caddy adapt makes of
// it, whose handler JSON has nethttp's "licenses" fields.
func TestLicensesCaddy(t *testing.T) {
	startCaddyfile(t, licenseSite)
	licenseResponses(t)

	adapted, warnings, err := caddyconfig.GetAdapter("caddyfile").Adapt([]byte(globals()+expand(licenseSite)), map[string]any{"filename": "Caddyfile"})
	if err != nil || len(warnings) > 0 {
		t.Fatal(err, warnings)
	}
	for _, want := range []string{
		`"licenses":["/license.xml","https://rights.example.org/rsl.xml"]`,
		`"licenses":["/license.xml"]`,
		`"licenses":["https://rights.example.org/rsl.xml"]`,
	} {
		if !bytes.Contains(adapted, []byte(want)) {
			t.Errorf("adapted JSON lacks %s:\n%s", want, adapted)
		}
	}
	tester := caddytest.NewTester(t)
	tester.InitServer(string(adapted), "json")
	if t.Failed() {
		t.FailNow()
	}
	licenseResponses(t)
}

// TestLicenseCaddyfileErrors: bad license values are refused at load, at their line, with
// the field path.
func TestLicenseCaddyfileErrors(t *testing.T) {
	adapter := caddyconfig.GetAdapter("caddyfile")
	base := strings.Count(globals(), "\n")
	for _, c := range []struct{ name, block, want string }{
		{"relative", "robots_txt {\n\tlicense license.xml\n}", fmt.Sprintf(`robots_txt: "license.xml": a license is an absolute http(s) URL, or a path starting with "/" that the server resolves against the request's scheme and host, at Caddyfile:%d`, base+3)},
		{"relative at its line", "robots_txt {\n\tsitemap /s.xml\n\tlicense rsl.xml\n}", fmt.Sprintf("at Caddyfile:%d", base+4)},
		{"control character", "robots_txt {\n\tlicense \"/l\x01.xml\"\n}", `"/l\x01.xml": must not contain control characters`},
		{"no argument", "robots_txt {\n\tlicense\n}", "license takes one absolute URL or one path"},
		{"two arguments", "robots_tag {\n\tlicense /a /b\n}", "license takes one absolute URL or one path"},
		{"tag relative", "robots_tag {\n\tmeta\n\tlicense a.xml\n}", fmt.Sprintf(`robots_tag: "a.xml": a license is an absolute http(s) URL, or a path starting with "/" that the server resolves against the request's scheme and host, at Caddyfile:%d`, base+4)},
		{"tag bracket", "robots_tag {\n\tlicense /a>b\n}", fmt.Sprintf("a license URL must percent-encode '>', which URIs do not allow (RFC 3986 section 2), at Caddyfile:%d", base+3)},
		{"in a group", "robots_txt {\n\tgroup * {\n\t\tlicense /l.xml\n\t}\n}", "license applies to the whole robots.txt, not to one group"},
		{"tag license only x_robots_tag", "robots_tag {\n\tlicense /l.xml\n\tx_robots_tag\n}", "x_robots_tag sends the route's robots rules as X-Robots-Tag, and the route has none"},
	} {
		site := globals() + "http://localhost:" + fmt.Sprint(sitePort) + " {\n" + c.block + "\n}\n"
		_, _, err := adapter.Adapt([]byte(site), map[string]any{"filename": "Caddyfile"})
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want ...%s", c.name, err, c.want)
		}
	}
}

// documentSite serves an RSL license document from a Caddyfile block.
const documentSite = `
http://localhost:@PORT@ {
	robots_txt {
		license_document /license.xml {
			content / {
				permits search ai-index
				prohibits ai-train
				payment attribution
				custom mailto:licensing@example.com
			}
			content /data/* {
				permits all
			}
		}
		group GPTBot {
			disallow /
		}
		enforce
	}
	respond "ok"
}
`

// TestLicenseDocumentCaddy: the document is served by the robots_txt handler at its path,
// before enforcement, with RSL's media type and robots.txt's cache headers; robots.txt lists
// it; the adapted JSON is the policy's.
func TestLicenseDocumentCaddy(t *testing.T) {
	startCaddyfile(t, documentSite)
	origin := fmt.Sprintf("http://localhost:%d", sitePort)
	resp, body := do(t, "GET", siteURL("/robots.txt"))
	wantStatus(t, resp, 200)
	if want := "License: " + origin + "/license.xml\n\nUser-agent: GPTBot\nDisallow: /\n"; string(body) != want {
		t.Errorf("robots.txt:\n%s\nwant\n%s", body, want)
	}
	resp, body = do(t, "GET", siteURL("/license.xml"), "User-Agent: GPTBot/1.0")
	wantStatus(t, resp, 200)
	if resp.Header.Get("Content-Type") != rsl.MediaType || resp.Header.Get("Cache-Control") != "max-age=3600" {
		t.Errorf("headers %v", resp.Header)
	}
	want := `<?xml version="1.0" encoding="UTF-8"?>
<rsl xmlns="https://rslstandard.org/rsl">
  <content url="/">
    <license>
      <permits type="usage">search ai-index</permits>
      <prohibits type="usage">ai-train</prohibits>
      <payment type="attribution">
        <custom>mailto:licensing@example.com</custom>
      </payment>
    </license>
  </content>
  <content url="/data/*">
    <license>
      <permits type="usage">all</permits>
    </license>
  </content>
</rsl>
`
	if string(body) != want {
		t.Errorf("document:\n%s\nwant\n%s", body, want)
	}
	if resp, _ := do(t, "GET", siteURL("/other"), "User-Agent: GPTBot/1.0"); resp.StatusCode != 403 {
		t.Errorf("GPTBot elsewhere: %d", resp.StatusCode)
	}
	adapted, _, err := caddyconfig.GetAdapter("caddyfile").Adapt([]byte(globals()+expand(documentSite)), map[string]any{"filename": "Caddyfile"})
	if err != nil {
		t.Fatal(err)
	}
	if w := `"license_documents":[{"content":[{"payment":{"custom":"mailto:licensing@example.com","type":"attribution"},"permits":["search","ai-index"],"prohibits":["ai-train"],"url":"/"},{"permits":["all"],"url":"/data/*"}],"path":"/license.xml"}]`; !bytes.Contains(adapted, []byte(w)) {
		t.Errorf("adapted JSON lacks %s:\n%s", w, adapted)
	}
}

// TestLicenseDocumentCaddyfileErrors: mistakes in a license_document block are refused at
// their line.
func TestLicenseDocumentCaddyfileErrors(t *testing.T) {
	adapter := caddyconfig.GetAdapter("caddyfile")
	base := strings.Count(globals(), "\n")
	doc := func(body string) string {
		return "robots_txt {\n\tlicense_document /l.xml {\n\t\tcontent / {\n" + body + "\t\t}\n\t}\n}"
	}
	for _, c := range []struct{ name, block, want string }{
		{"bad usage", doc("\t\t\tprohibits ai-train\n\t\t\tpermits train-ai\n"), fmt.Sprintf(`robots_txt: "train-ai": not an RSL usage: the usages are all, ai-all, ai-train, ai-input, ai-index, search (did you mean "ai-train"?), at Caddyfile:%d`, base+6)},
		{"bad payment", doc("\t\t\tpayment subscripton\n"), fmt.Sprintf(`(did you mean "subscription"?), at Caddyfile:%d`, base+5)},
		{"relative standard", doc("\t\t\tstandard /terms\n"), fmt.Sprintf(`"/terms": must be an absolute http(s) URL, at Caddyfile:%d`, base+5)},
		{"empty license", doc(""), fmt.Sprintf(`a license with no permits, prohibits or payment says nothing: give at least one, at Caddyfile:%d`, base+4)},
		{"bad path", "robots_txt {\n\tlicense_document license.xml {\n\t\tcontent / {\n\t\t\tpermits all\n\t\t}\n\t}\n}", fmt.Sprintf(`"license.xml": must be a path such as "/license.xml" where the document is served, at Caddyfile:%d`, base+3)},
		{"no content", "robots_txt {\n\tlicense_document /l.xml {\n\t}\n}", "an RSL document needs at least one content element"},
		{"tdmrep.json path", "robots_txt {\n\tlicense_document /.well-known/tdmrep.json {\n\t\tcontent / {\n\t\t\tpermits all\n\t\t}\n\t}\n}", fmt.Sprintf(`"/.well-known/tdmrep.json": is the TDMRep file's path, which the document would replace, at Caddyfile:%d`, base+3)},
		{"home page", "robots_txt {\n\tlicense_document / {\n\t\tcontent / {\n\t\t\tpermits all\n\t\t}\n\t}\n}", fmt.Sprintf(`"/": is the site's home page, which the document would replace: give it a path of its own, e.g. /license.xml, at Caddyfile:%d`, base+3)},
		{"dot segment", "robots_txt {\n\tlicense_document /x/../license.xml {\n\t\tcontent / {\n\t\t\tpermits all\n\t\t}\n\t}\n}", fmt.Sprintf(`without dot segments (".", ".."): a client resolves them away and never asks for the path as written, at Caddyfile:%d`, base+3)},
		{"empty segment", "robots_txt {\n\tlicense_document /a//l.xml {\n\t\tcontent / {\n\t\t\tpermits all\n\t\t}\n\t}\n}", fmt.Sprintf(`would also name another host in a License line, at Caddyfile:%d`, base+3)},
		{"same path twice", "robots_txt {\n\tlicense_document /l.xml {\n\t\tcontent / {\n\t\t\tpermits all\n\t\t}\n\t}\n\tlicense_document /l.xml {\n\t\tcontent / {\n\t\t\tpermits all\n\t\t}\n\t}\n}", fmt.Sprintf(`license_documents[0] is served there already, at Caddyfile:%d`, base+8)},
		{"unknown", doc("\t\t\tallow /x\n"), `content's block takes permits, prohibits, payment, standard, custom (got "allow")`},
	} {
		site := globals() + "http://localhost:" + fmt.Sprint(sitePort) + " {\n" + c.block + "\n}\n"
		_, _, err := adapter.Adapt([]byte(site), map[string]any{"filename": "Caddyfile"})
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want ...%s", c.name, err, c.want)
		}
	}
}

// TestRSLReadme: docs/licensing.md's RSL Caddyfile, in a real Caddy, serves the robots.txt,
// the document and the Link field the page shows, and the <link> element in HTML pages.
func TestRSLReadme(t *testing.T) {
	block := docBlock(t, "../docs/licensing.md", "rsl-caddyfile", "caddyfile")
	startCaddyfile(t, "http://localhost:@PORT@ {\n"+block+"\n\t@page path /articles/page\n\theader @page Content-Type \"text/html; charset=utf-8\"\n\trespond @page \"<html><head><title>t</title></head><body>x</body></html>\"\n\trespond \"ok\"\n}\n")
	origin := fmt.Sprintf("http://localhost:%d", sitePort)
	resp, body := do(t, "GET", siteURL("/robots.txt"))
	wantStatus(t, resp, 200)
	if want := strings.ReplaceAll(docBlock(t, "../docs/licensing.md", "rsl-robots-txt", ""), "https://example.com", origin); string(body) != want {
		t.Errorf("robots.txt:\n%s\ndocs/licensing.md shows\n%s", body, want)
	}
	resp, body = do(t, "GET", siteURL("/license.xml"))
	if want := docBlock(t, "../docs/licensing.md", "rsl-document", "xml"); string(body) != want || resp.Header.Get("Content-Type") != rsl.MediaType {
		t.Errorf("document (%s):\n%s\ndocs/licensing.md shows\n%s", resp.Header.Get("Content-Type"), body, want)
	}
	resp, _ = do(t, "GET", siteURL("/articles/a"))
	if want := strings.ReplaceAll(strings.TrimSpace(docBlock(t, "../docs/licensing.md", "rsl-link", "http")), "https://example.com", origin); "Link: "+resp.Header.Get("Link") != want {
		t.Errorf("Link %q, docs/licensing.md shows %q", resp.Header.Values("Link"), want)
	}
	_, body = do(t, "GET", siteURL("/articles/page"))
	if !bytes.Contains(body, []byte(`<link rel="license" type="application/rsl+xml" href="`+origin+`/license.xml">`)) {
		t.Errorf("page without the license link:\n%s", body)
	}
}
