package serve

import (
	"net/http"
	"testing"
)

// TestUnrewritableBody: a Content-Type is a page as a browser reads it (malformed parameters,
// case, white space, several values: the last valid one), the charset a browser does not
// know or finds empty is no charset, and application/xhtml+xml is rewritten as XML.
func TestUnrewritableBody(t *testing.T) {
	cases := []struct {
		ct      []string
		reason  string // "" rewritten, "-" not HTML, else a prefix of the reason
		charset string
		xml     bool
	}{
		{[]string{"text/html"}, "", "", false},
		{[]string{"text/html; charset"}, "", "", false},
		{[]string{"text/html;;"}, "", "", false},
		{[]string{`text/html; charset=""`}, "", "", false},
		{[]string{"text/html; charset=utf-8; foo"}, "", "utf-8", false},
		{[]string{"TEXT/HTML"}, "", "", false},
		{[]string{" \ttext/html\t "}, "", "", false},
		{[]string{"text/html ;charset=utf-8"}, "", "utf-8", false},
		{[]string{"text/html; charset=utf-8; charset=utf-16"}, "", "utf-8", false},
		{[]string{"text/html; charset=utf-16; charset=utf-8"}, "Content-Type charset", "", false}, // the first counts
		{[]string{`text/html; charset="utf\-8"`}, "", "utf-8", false},
		{[]string{"text/html; charset=\u00e9t\u00e9"}, "", "\u00e9t\u00e9", false}, // unknown label: the page decides
		{[]string{"text/html; charset=no-such-charset"}, "", "no-such-charset", false},
		{[]string{"text/html; charset= utf-16"}, "Content-Type charset", "", false},
		{[]string{"application/xhtml+xml"}, "", "", true},
		{[]string{"Application/XHTML+XML; charset"}, "", "", true},
		{[]string{"text/plain", "text/html; charset"}, "", "", false},
		{[]string{"text/html; charset=utf-8", "text/plain"}, "-", "", false},
		{[]string{"text/html;charset=utf-16, text/html"}, "Content-Type charset", "", false}, // carried over
		{[]string{"text/html", "*/*"}, "", "", false},
		{[]string{"text/html", "nonsense"}, "", "", false},
		{[]string{"text/html,"}, "", "", false},
		{[]string{"text/plain"}, "-", "", false},
		{[]string{"text /html"}, "-", "", false},
		{[]string{"html"}, "-", "", false},
		{[]string{""}, "-", "", false},
		{[]string{"text/xml"}, "-", "", false},
	}
	for _, c := range cases {
		reason, opts := unrewritableBody(http.Header{"Content-Type": c.ct})
		switch {
		case c.reason == "-" && reason != notHTML,
			c.reason == "" && (reason != "" || opts.Charset != c.charset || opts.XML != c.xml),
			c.reason != "" && c.reason != "-" && (len(reason) < len(c.reason) || reason[:len(c.reason)] != c.reason):
			t.Errorf("Content-Type %q: %q, %+v; want %q, charset %q, XML %v", c.ct, reason, opts, c.reason, c.charset, c.xml)
		}
	}
}
