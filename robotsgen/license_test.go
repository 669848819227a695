package robotsgen

import (
	"errors"
	"reflect"
	"strings"
	"testing"

	"github.com/sitepolicy/caddy-robots/configerr"
)

// TestLicenseRender: RSL License lines are written with the sitemaps before every group, a
// path resolved against the origin, and a license that resolves to one already written is
// written once.
func TestLicenseRender(t *testing.T) {
	f := &File{
		Groups:   []Group{{UserAgents: []string{"*"}, Rules: []Rule{{Disallow, "/p"}}}},
		Sitemaps: []string{"/sitemap.xml"},
		Licenses: []string{"/license.xml", "https://example.com/license.xml", "https://rights.example.org/rsl.xml", "/license.xml"},
	}
	got := mustRender(t, f)
	want := "Sitemap: https://example.com/sitemap.xml\n" +
		"License: https://example.com/license.xml\n" +
		"License: https://rights.example.org/rsl.xml\n" +
		"\nUser-agent: *\nDisallow: /p\n"
	if got != want {
		t.Fatalf("got\n%s\nwant\n%s", got, want)
	}
	if !f.NeedsOrigin() {
		t.Error("a license path needs the origin")
	}
	if (&File{Licenses: []string{"https://example.com/l.xml"}}).NeedsOrigin() {
		t.Error("an absolute license needs no origin")
	}
	// Another origin: the absolute URL no longer equals the path's resolution.
	b, err := f.Render("https://www.example.com")
	if err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(string(b), "License: "); n != 3 {
		t.Errorf("%d License lines for another origin, want 3\n%s", n, b)
	}
	rt, diags := Parse(b)
	if len(diags) > 0 {
		t.Fatal(diags)
	}
	if want := []string{"https://www.example.com/license.xml", "https://example.com/license.xml", "https://rights.example.org/rsl.xml"}; !reflect.DeepEqual(rt.Licenses, want) {
		t.Errorf("parsed back %q, want %q", rt.Licenses, want)
	}
}

// TestLicenseValidate: a bad license names its field path; a License record is refused in
// favour of the field.
func TestLicenseValidate(t *testing.T) {
	for _, c := range []struct{ value, path, problem string }{
		{"license.xml", "licenses[0]", "absolute http(s) URL"},
		{"//evil.example/l.xml", "licenses[0]", "another host"},
		{"ftp://example.com/l.xml", "licenses[0]", "absolute http(s) URL"},
		{"/l.xml\nDisallow: /", "licenses[0]", ""},
		{"/l\x01.xml", "licenses[0]", ""},
		{"/l.xml#frag", "licenses[0]", `"#"`},
		{"/a b.xml", "licenses[0]", "percent-encoded"},
		{"/a>b.xml", "licenses[0]", "percent-encode"},
		{`https://example.com/"x`, "licenses[0]", "percent-encode"},
	} {
		err := (&File{Licenses: []string{c.value}}).Validate()
		var ce *configerr.Error
		if !errors.As(err, &ce) || ce.Path != c.path || !strings.Contains(err.Error(), c.problem) {
			t.Errorf("%q: %v, want %s: ...%s...", c.value, err, c.path, c.problem)
		}
	}
	err := (&File{Records: []Record{{"License", "https://example.com/l.xml"}}}).Validate()
	if err == nil || !strings.Contains(err.Error(), "Licenses") {
		t.Errorf("License record: %v", err)
	}
	long := "/" + strings.Repeat("a", maxLineLen-len(licenseKey)-1)
	if err := (&File{Licenses: []string{long}}).Validate(); err != nil {
		t.Fatalf("fits without the origin: %v", err)
	}
	if _, err := (&File{Licenses: []string{long}}).Render("https://example.com"); err == nil || !strings.Contains(err.Error(), "licenses[0]") {
		t.Errorf("too long with the origin: %v", err)
	}
}

// TestLicenseParse: License lines are file-level wherever they stand (RSL: the directive
// belongs to no group), kept once, and a path is skipped with a diagnostic.
func TestLicenseParse(t *testing.T) {
	f, diags := Parse([]byte("User-agent: *\nDisallow: /p\nLicense: https://example.com/l.xml\nlicense:https://example.com/l.xml\nLICENSE: /rel.xml\n\nUser-agent: BarBot\nLicense: https://b.example/l.xml\nDisallow: /\n"))
	if want := []string{"https://example.com/l.xml", "https://b.example/l.xml"}; !reflect.DeepEqual(f.Licenses, want) {
		t.Errorf("licenses %q, want %q", f.Licenses, want)
	}
	for _, g := range f.Groups {
		if len(g.Records) > 0 {
			t.Errorf("group %v kept records %v", g.UserAgents, g.Records)
		}
	}
	if len(diags) != 2 || diags[0].Line != 4 || !strings.Contains(diags[0].Reason, "already") || diags[1].Line != 5 || !strings.Contains(diags[1].Reason, "absolute") {
		t.Errorf("diagnostics %v", diags)
	}
	// Both groups still read as before: "User-agent: BarBot" after the License line opens
	// its own group, and its Disallow belongs to it.
	if len(f.Groups) != 2 || len(f.Groups[1].Rules) != 1 || f.Groups[1].Rules[0].Path != "/" {
		t.Errorf("groups %+v", f.Groups)
	}
}

// TestMergeLicenses: merge_file and merge_upstream keep the other file's License lines after
// the declared ones, and one the config also declares (by path or by URL) is written once.
func TestMergeLicenses(t *testing.T) {
	d := &File{Groups: []Group{{UserAgents: []string{"*"}, Rules: []Rule{{Disallow, "/p"}}}}, Licenses: []string{"/license.xml", "https://rights.example.org/rsl.xml"}}
	o := mustParse(t, "License: https://rights.example.org/rsl.xml\nLicense: https://example.com/license.xml\nLicense: https://other.example/l.xml\n\nUser-agent: *\nDisallow: /q\n")
	m, diags := Merge(d, o)
	if len(diags) > 0 {
		t.Fatal(diags)
	}
	if want := []string{"/license.xml", "https://rights.example.org/rsl.xml", "https://example.com/license.xml", "https://other.example/l.xml"}; !reflect.DeepEqual(m.Licenses, want) {
		t.Errorf("merged %q, want %q", m.Licenses, want)
	}
	body := mustRender(t, m)
	if want := "License: https://example.com/license.xml\nLicense: https://rights.example.org/rsl.xml\nLicense: https://other.example/l.xml\n"; !strings.HasPrefix(body, want) {
		t.Errorf("rendered\n%s\nwant it to start with\n%s", body, want)
	}
}
