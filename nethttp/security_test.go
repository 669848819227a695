package nethttp_test

import (
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/dunglas/httpsfv"

	"github.com/sitepolicy/caddy-robots/nethttp"
	"github.com/sitepolicy/caddy-robots/robotsgen"
)

// lineBreakers are the characters that end a line somewhere: in robots.txt parsers, HTTP
// field parsers, or Unicode-aware tools that display or re-save the file.
var lineBreakers = []string{"\r", "\n", "\r\n", "\x00", "\u2028", "\u2029", "\u0085", "\x0b", "\x0c"}

// TestSecurityConfigInjection: every config value that becomes a robots.txt line, a header
// field or HTML is refused when it could end its line, field or attribute.
func TestSecurityConfigInjection(t *testing.T) {
	group := func(g robotsgen.Group) *nethttp.RobotsTxtConfig {
		return &nethttp.RobotsTxtConfig{Groups: []robotsgen.Group{g}}
	}
	for _, br := range lineBreakers {
		inj := "x" + br + "Disallow: /"
		cfgs := map[string]nethttp.Config{
			"user agent":   {RobotsTxt: group(robotsgen.Group{UserAgents: []string{"Bot" + inj}})},
			"purpose":      {RobotsTxt: group(robotsgen.Group{Purposes: []string{"P" + inj}})},
			"allow":        {RobotsTxt: group(robotsgen.Group{UserAgents: []string{"*"}, Rules: []robotsgen.Rule{{Type: robotsgen.Allow, Path: "/" + inj}}})},
			"disallow":     {RobotsTxt: group(robotsgen.Group{UserAgents: []string{"*"}, Rules: []robotsgen.Rule{{Type: robotsgen.Disallow, Path: "/" + inj}}})},
			"group record": {RobotsTxt: group(robotsgen.Group{UserAgents: []string{"*"}, Records: []robotsgen.Record{{Key: "Note", Value: inj}}})},
			"file record": {RobotsTxt: &nethttp.RobotsTxtConfig{
				Groups: []robotsgen.Group{{UserAgents: []string{"*"}}}, Records: []robotsgen.Record{{Key: "Host", Value: "a" + inj}}}},
			"sitemap": {RobotsTxt: &nethttp.RobotsTxtConfig{
				Groups: []robotsgen.Group{{UserAgents: []string{"*"}}}, Sitemaps: []string{"https://a.example/s.xml" + inj}}},
			"comment": {RobotsTxt: &nethttp.RobotsTxtConfig{
				Groups: []robotsgen.Group{{UserAgents: []string{"*"}}}, Comments: []string{"hello" + inj}}},
			"tag token":      {RobotsTag: []nethttp.Route{{Tags: nethttp.TagConfig{Rules: map[string][]string{"bot" + br + "x": {"noindex"}}}}}},
			"tag rule":       {RobotsTag: []nethttp.Route{{Tags: nethttp.TagConfig{Rules: map[string][]string{"*": {"noindex" + br + "x: y"}}}}}},
			"tag rule value": {RobotsTag: []nethttp.Route{{Tags: nethttp.TagConfig{Rules: map[string][]string{"*": {"unavailable_after=2027-01-01" + br + "X: y"}}}}}},
			"tag path":       {RobotsTag: []nethttp.Route{{Paths: []string{"/a" + br}, Tags: nethttp.TagConfig{Rules: map[string][]string{"*": {"noindex"}}}}}},
		}
		for name, cfg := range cfgs {
			if _, err := nethttp.New(cfg, nethttp.Options{}); err == nil {
				t.Errorf("%s with %q: accepted", name, br)
			}
		}
	}
	// Markup in values that reach HTML attributes: tokens and rule values cannot carry it.
	for _, bad := range []map[string][]string{
		{`bot"><script>`: {"noindex"}},
		{"*": {`max-image-preview=large"><script>`}},
		{"*": {`unavailable_after="><b>`}},
		{"<meta>": {"noindex"}},
	} {
		if _, err := nethttp.New(nethttp.Config{RobotsTag: []nethttp.Route{{Tags: nethttp.TagConfig{Rules: bad}}}}, nethttp.Options{}); err == nil {
			t.Errorf("%v: accepted", bad)
		}
	}
}

// TestSecurityUpstreamHeaders: whatever a backend puts in its robots headers, the response
// carries one valid SF List that keeps every restriction that could be read, and never a field
// the backend smuggled in.
func TestSecurityUpstreamHeaders(t *testing.T) {
	m := mustNew(t, nethttp.Config{RobotsTag: []nethttp.Route{
		{Tags: nethttp.TagConfig{Rules: map[string][]string{"*": {"nosnippet"}}, XRobotsTag: true}},
	}})
	upstream := []struct {
		rt, xrt []string
		want    string // a rule that must survive, "" if none can be read
	}{
		{[]string{"*;noindex\r\nSet-Cookie: a=b"}, nil, ""},
		{[]string{`*;noindex, "><script>;noindex`}, nil, "noindex"},
		{[]string{"*;noindex", "garbage ;;; ,,"}, nil, "noindex"},
		{nil, []string{"noindex, <b>bold</b>"}, "noindex"},
		{nil, []string{"googlebot: noindex\u2028Disallow: /"}, ""},
		{[]string{strings.Repeat("a;noindex, ", 2000)}, nil, ""},
		{[]string{"*;unavailable_after=\"not a date\", *;noarchive"}, nil, "noarchive"},
		{[]string{"\x00\x01\x02"}, nil, ""},
		// The historic syntax under the new name: still the backend's restrictions.
		{[]string{"googlebot: noindex"}, nil, "googlebot;noindex"},
		{[]string{"unavailable_after: 25 Jun 2027 15:00:00 PST"}, nil, `unavailable_after="2027-06-25T23:00:00Z"`},
	}
	for i, u := range upstream {
		srv := serve(t, m, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			// Set the map directly: a proxied backend's header arrives without net/http's
			// checks on the way in.
			if u.rt != nil {
				w.Header()["Robots-Tag"] = u.rt
			}
			if u.xrt != nil {
				w.Header()["X-Robots-Tag"] = u.xrt
			}
			_, _ = io.WriteString(w, "ok")
		}))
		resp, _ := get(t, nil, "GET", srv.URL+"/")
		lines := resp.Header.Values("Robots-Tag")
		if len(lines) != 1 {
			t.Errorf("case %d: %d Robots-Tag lines: %q", i, len(lines), lines)
			continue
		}
		if _, err := httpsfv.UnmarshalList(lines); err != nil {
			t.Errorf("case %d: Robots-Tag %q is not an SF List: %v", i, lines[0], err)
			continue
		}
		if resp.Header.Get("Set-Cookie") != "" {
			t.Errorf("case %d: a smuggled field reached the client", i)
		}
		if !strings.Contains(lines[0], "nosnippet") {
			t.Errorf("case %d: our own rule was lost: %q", i, lines[0])
		}
		if u.want != "" && !strings.Contains(lines[0], u.want) {
			t.Errorf("case %d: readable restriction %q dropped: %q", i, u.want, lines[0])
		}
		for _, l := range resp.Header.Values("X-Robots-Tag") {
			if strings.ContainsAny(l, "\r\n\x00<>") || strings.Contains(l, "\u2028") {
				t.Errorf("case %d: X-Robots-Tag carries %q", i, l)
			}
		}
	}
}
