package mimetype

import (
	"fmt"
	"mime"
	"strings"
	"testing"
)

// params renders m's parameters as "name=value|name=value" for comparison.
func params(m MIMEType) string {
	var out []string
	for k, v := range m.Params() {
		out = append(out, k+"="+v)
	}
	return strings.Join(out, "|")
}

// TestParse: the members of each class of input a browser still reads as a type, with the
// parameters it keeps, and the inputs it refuses.
func TestParse(t *testing.T) {
	cases := []struct {
		in      string
		essence string // "" for failure
		params  string
	}{
		// Case and white space.
		{"text/html", "text/html", ""},
		{"TEXT/HTML", "text/html", ""},
		{"Text/Html; Charset=UTF-8", "text/html", "charset=UTF-8"},
		{"  text/html  ", "text/html", ""},
		{"\t text/html\t\r\n", "text/html", ""},
		{"text/html ;charset=utf-8", "text/html", "charset=utf-8"},
		{"text/html\t;\tcharset=utf-8\t", "text/html", "charset=utf-8"},
		{"text/html;  charset=utf-8", "text/html", "charset=utf-8"},
		{"text/html;\r\n charset=utf-8", "text/html", "charset=utf-8"},
		{"text/html; charset= utf-8", "text/html", "charset= utf-8"}, // leading space is part of the value
		// Parameters without a value, empty ones, stray separators: skipped, the type stands.
		{"text/html; charset", "text/html", ""},
		{"text/html; charset=", "text/html", ""},
		{"text/html; charset=;", "text/html", ""},
		{"text/html; charset= ;x=y", "text/html", "x=y"},
		{"text/html;", "text/html", ""},
		{"text/html;;", "text/html", ""},
		{"text/html;;;charset=utf-8", "text/html", "charset=utf-8"},
		{"text/html; ;", "text/html", ""},
		{"text/html;=utf-8", "text/html", ""},
		{"text/html; charset=utf-8; foo", "text/html", "charset=utf-8"},
		{"text/html; foo; charset=utf-8", "text/html", "charset=utf-8"},
		{`text/html; charset=""`, "text/html", "charset="},
		{`text/html; charset=""; charset=utf-16`, "text/html", "charset="},
		// Invalid names and values are skipped; the first valid occurrence wins.
		{"text/html; charset=utf-8; charset=utf-16", "text/html", "charset=utf-8"},
		{"text/html; charset=utf-16; charset=utf-8", "text/html", "charset=utf-16"},
		{"text/html; CHARSET=a; charset=b", "text/html", "charset=a"},
		{"text/html; charset=\x01; charset=utf-8", "text/html", "charset=utf-8"},
		{"text/html; charset =utf-8", "text/html", ""},
		{"text/html; ch@rset=utf-8", "text/html", ""},
		{"text/html; ch\u00e4rset=utf-8", "text/html", ""},
		{"text/html; charset=utf\x7f8", "text/html", ""},
		{"text/html; charset=utf 8", "text/html", "charset=utf 8"},
		{"text/html; charset=\u00e9", "text/html", "charset=\u00e9"}, // bytes 0x80-0xFF are allowed
		{"text/html; a=b;c=d; e=f", "text/html", "a=b|c=d|e=f"},
		// Quoted strings.
		{`text/html; charset="utf-8"`, "text/html", "charset=utf-8"},
		{`text/html; charset="utf-8`, "text/html", "charset=utf-8"},
		{`text/html; charset="utf-8"garbage; x=y`, "text/html", "charset=utf-8|x=y"},
		{`text/html; charset="ut\f-8"`, "text/html", "charset=utf-8"},
		{`text/html; a="b;c"; d=e`, "text/html", "a=b;c|d=e"},
		{`text/html; a="\"quoted\" \\ x"`, "text/html", `a="quoted" \ x`},
		{`text/html; a="\`, "text/html", `a=\`},
		{`text/html; a="x\`, "text/html", `a=x\`},
		{`text/html; a="`, "text/html", "a="},
		{`text/html; a=b"c"`, "text/html", `a=b"c"`},
		{"text/html; a=\"\t\"", "text/html", "a=\t"},
		// Other types; the XHTML one.
		{"application/xhtml+xml", "application/xhtml+xml", ""},
		{"Application/XHTML+XML ; charset=utf-8", "application/xhtml+xml", "charset=utf-8"},
		{"*/*", "*/*", ""},
		{"text/plain;charset=gbk", "text/plain", "charset=gbk"},
		{"x!#$%&'*+-.^_`|~9/y", "x!#$%&'*+-.^_`|~9/y", ""},
		// Failures.
		{"", "", ""},
		{"   ", "", ""},
		{"text", "", ""},
		{"text/", "", ""},
		{"/html", "", ""},
		{"text /html", "", ""},
		{"text/ html", "", ""},
		{"text/html/x", "", ""},
		{"text/h tml", "", ""},
		{"text/html\v", "", ""},
		{"text/html\x00", "", ""},
		{"t\u00e9xt/html", "", ""},
		{"text/ht\u00e9ml", "", ""},
		{"text(x)/html", "", ""},
		{"text/html,text/plain", "", ""},
		{";charset=utf-8", "", ""},
		{"text/;charset=utf-8", "", ""},
	}
	for _, c := range cases {
		m, ok := Parse(c.in)
		if ok != (c.essence != "") || m.Essence() != c.essence || params(m) != c.params {
			t.Errorf("Parse(%q) = %q [%s], %v; want %q [%s]", c.in, m.Essence(), params(m), ok, c.essence, c.params)
			continue
		}
		if !ok {
			continue
		}
		if m.Type()+"/"+m.Subtype() != m.Essence() {
			t.Errorf("Parse(%q): type %q, subtype %q, essence %q", c.in, m.Type(), m.Subtype(), m.Essence())
		}
		// The serialisation reads back as the same record.
		back, ok := Parse(m.String())
		if !ok || back.Essence() != m.Essence() || params(back) != params(m) {
			t.Errorf("Parse(%q).String() = %q reads back as %q [%s]", c.in, m.String(), back.Essence(), params(back))
		}
		for k, v := range m.Params() {
			if got, has := m.Param(strings.ToUpper(k)); !has || got != v {
				t.Errorf("Parse(%q).Param(%q) = %q, %v; want %q", c.in, strings.ToUpper(k), got, has, v)
			}
		}
	}
}

// TestParseHTMLWhereMimeRefuses: every member of the class the strict RFC 2045 reading
// (mime.ParseMediaType) refuses or misreads is still HTML here, as in browsers.
func TestParseHTMLWhereMimeRefuses(t *testing.T) {
	for _, ct := range []string{
		"text/html; charset", "text/html;;", `text/html; charset=""`, "text/html; charset=utf-8; foo",
		"text/html; charset=utf-8; charset=utf-8", "text/html; charset=utf-8; charset=utf-16",
		"text/html; charset=\u00e9", "text/html;=x", "text/html; charset=\"utf-8", "text/html; a=\"b\"c",
		"text/html; ;", "text/html; charset=utf-8;;", "TEXT/HTML; foo", "text/html ; charset",
	} {
		if _, _, err := mime.ParseMediaType(ct); err == nil {
			continue // only the refused ones make the point; the table above covers the rest
		}
		m, ok := Parse(ct)
		if !ok || !m.IsHTML() {
			t.Errorf("Parse(%q) = %q, %v; want text/html", ct, m.Essence(), ok)
		}
	}
	m, _ := Parse("application/xhtml+xml; charset")
	if !m.IsXHTML() || m.IsHTML() {
		t.Errorf("application/xhtml+xml: IsXHTML %v, IsHTML %v", m.IsXHTML(), m.IsHTML())
	}
}

// TestExtract: the Fetch Standard's examples and more: the last valid value wins, "*/*" and
// unparsable values are skipped, commas inside quoted strings do not split, and a charset
// carries over to a later value of the same essence.
func TestExtract(t *testing.T) {
	cases := []struct {
		lines []string
		want  string // serialisation, "" for failure
	}{
		{nil, ""},
		{[]string{""}, ""},
		{[]string{"*/*"}, ""},
		{[]string{"nonsense", ", ,"}, ""},
		{[]string{"text/html"}, "text/html"},
		{[]string{"text/plain;charset=gbk, text/html"}, "text/html"},
		{[]string{"text/html;charset=gbk;a=b, text/html;x=y"}, "text/html;x=y;charset=gbk"},
		{[]string{"text/html;charset=gbk;a=b", "text/html;x=y"}, "text/html;x=y;charset=gbk"},
		{[]string{"text/html;charset=gbk", "x/x", "text/html;x=y"}, "text/html;x=y"},
		{[]string{"text/html", "cannot-parse"}, "text/html"},
		{[]string{"text/html", "*/*"}, "text/html"},
		{[]string{"text/html", ""}, "text/html"},
		{[]string{"text/html, "}, "text/html"},
		{[]string{"text/html, text/plain"}, "text/plain"},
		{[]string{"text/plain", "text/html"}, "text/html"},
		{[]string{"text/plain", "TEXT/HTML ; charset"}, "text/html"},
		{[]string{"text/html;charset=gbk, text/html;charset=utf-8"}, "text/html;charset=utf-8"},
		{[]string{"text/html;charset=gbk, text/html;charset=utf-8, text/html"}, "text/html;charset=gbk"},
		{[]string{"text/html;charset=gbk, text/html;charset"}, "text/html;charset=gbk"},
		{[]string{`text/html;x="a,b", text/plain;y="c,d"`}, `text/plain;y="c,d"`},
		{[]string{`text/html;charset="a, text/plain`}, `text/html;charset="a, text/plain"`},
		{[]string{" \ttext/html\t "}, "text/html"},
		{[]string{"text/html;charset=\"\", text/html"}, `text/html;charset=""`},
	}
	for _, c := range cases {
		m, ok := Extract(c.lines)
		if ok != (c.want != "") || m.String() != c.want {
			t.Errorf("Extract(%q) = %q, %v; want %q", c.lines, m.String(), ok, c.want)
		}
	}
	m, _ := Extract([]string{"text/html;charset=gbk", "text/html"})
	if cs, ok := m.Param("CharSet"); !ok || cs != "gbk" {
		t.Errorf("inherited charset: Param = %q, %v", cs, ok)
	}
}

func ExampleParse() {
	for _, ct := range []string{"TEXT/HTML ; charset", `text/html; charset="utf-8"; charset=utf-16`, "text /html"} {
		m, ok := Parse(ct)
		cs, _ := m.Param("charset")
		fmt.Printf("%q: %v %q html=%v charset=%q\n", ct, ok, m.Essence(), m.IsHTML(), cs)
	}
	// Output:
	// "TEXT/HTML ; charset": true "text/html" html=true charset=""
	// "text/html; charset=\"utf-8\"; charset=utf-16": true "text/html" html=true charset="utf-8"
	// "text /html": false "" html=false charset=""
}
