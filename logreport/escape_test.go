package logreport_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"golang.org/x/net/html"

	"github.com/sitepolicy/caddy-robots/logreport"
)

// hiddenRune is what the report must never show raw, written down from the documentation
// (printable's): C0 and C1 controls, DEL, bidi embeddings, overrides, isolates and marks,
// and the line and paragraph separators.
func hiddenRune(r rune) bool {
	switch {
	case r < 0x20, r == 0x7f, r >= 0x80 && r < 0xa0:
		return true
	case r >= 0x202a && r <= 0x202e, r >= 0x2066 && r <= 0x2069, r == 0x200e, r == 0x200f, r == 0x061c, r == 0x2028, r == 0x2029:
		return true
	}
	return false
}

// escaped is a string as the report shows it: each hidden character as \xHH (below U+0100)
// or \uHHHH, bytes that are no UTF-8 as \xHH, the rest as it is.
func escaped(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			fmt.Fprintf(&b, `\x%02x`, s[i])
		case hiddenRune(r) && r < 0x100:
			fmt.Fprintf(&b, `\x%02x`, r)
		case hiddenRune(r):
			fmt.Fprintf(&b, `\u%04x`, r)
		default:
			b.WriteRune(r)
		}
		i += size
	}
	return b.String()
}

// hostileRunes are what the generated strings are made of: every hidden character class,
// markup, quotes, and ordinary text.
var hostileRunes = []rune{
	0x00, 0x01, 0x07, 0x09, 0x0a, 0x0d, 0x1b, 0x1f, 0x7f, 0x80, 0x85, 0x9b, 0x9f,
	0x202a, 0x202b, 0x202c, 0x202d, 0x202e, 0x2066, 0x2067, 0x2068, 0x2069, 0x200e, 0x200f, 0x061c, 0x2028, 0x2029,
	'<', '>', '&', '"', '\'', '/', ' ', 'a', 'z', 'Z', '0', '.', 'é', 'ß', '語', 0xfeff, 0x200b,
}

// hostile returns a path of ordinary and hostile characters that holds at least one hidden.
func hostile(rnd *rand.Rand, i int) string {
	var b strings.Builder
	fmt.Fprintf(&b, "/h%d-", i)
	for range 1 + rnd.IntN(12) {
		b.WriteRune(hostileRunes[rnd.IntN(len(hostileRunes))])
	}
	b.WriteRune(hostileRunes[rnd.IntN(27)]) // a hidden one
	if rnd.IntN(4) == 0 {
		b.WriteString("</td><script>alert(1)</script>&amp;")
	}
	return b.String()
}

// nginxQuote escapes a string as nginx writes it in a quoted field of a Combined line: \xHH
// for control bytes, '"', '\\' and bytes above 0x7e.
func nginxQuote(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c < 0x20 || c == '"' || c == '\\' || c >= 0x7f {
			fmt.Fprintf(&b, `\x%02X`, c)
		} else {
			b.WriteByte(c)
		}
	}
	return b.String()
}

// TestHTMLShowsLogTextEscaped: paths holding control and bidi characters and markup, logged
// by a crawler the file disallows (so they are violations and most fetched paths) in
// Combined and JSON lines, and unreadable lines holding them: the page, parsed as a browser
// parses it, has no such character raw in any text or attribute, every path is shown
// escaped as the text output shows it, and the embedded JSON is still the report's data.
func TestHTMLShowsLogTextEscaped(t *testing.T) {
	site := loadSite(t, false)
	rnd := rand.New(rand.NewPCG(32, 7))
	at := time.Date(2026, 11, 20, 10, 0, 0, 0, time.UTC)
	rounds := 60
	if raceEnabled {
		rounds = 8
	}
	for round := range rounds {
		var log strings.Builder
		var want []string
		for i := range 1 + rnd.IntN(logreport.TopPaths) { // all shown: at most TopPaths paths
			p := hostile(rnd, i)
			want = append(want, p)
			if rnd.IntN(2) == 0 {
				fmt.Fprintf(&log, `20.15.240.64 - - [%s] "GET %s HTTP/1.1" 200 10 "-" "%s"`+"\n", at.Format("02/Jan/2006:15:04:05 -0700"), nginxQuote(p), "GPTBot/1.2")
			} else {
				line, _ := json.Marshal(map[string]any{"ts": float64(at.Unix()), "status": 200, "size": 10,
					"request": map[string]any{"client_ip": "20.15.240.64", "method": "GET", "host": "example.com", "uri": p, "headers": map[string][]string{"User-Agent": {"GPTBot/1.2"}}}})
				log.Write(append(line, '\n'))
			}
			// An unreadable line with the same characters (raw, not a newline).
			log.WriteString("garbage " + strings.NewReplacer("\n", "", "\r", "").Replace(p) + "\n")
		}
		rep := build(t, site, "", map[string][]byte{"a.log": []byte(log.String())}, "a.log")
		var page bytes.Buffer
		if err := rep.WriteHTML(&page); err != nil {
			t.Fatal(err)
		}
		doc, err := html.Parse(bytes.NewReader(page.Bytes()))
		if err != nil {
			t.Fatal(err)
		}
		var all strings.Builder
		var walk func(n *html.Node, pre bool)
		walk = func(n *html.Node, pre bool) {
			for _, a := range n.Attr {
				if i := strings.IndexFunc(a.Val, hiddenRune); i >= 0 {
					t.Fatalf("round %d: attribute %s of <%s> holds %U raw: %q", round, a.Key, n.Data, []rune(a.Val[i:])[0], a.Val)
				}
			}
			if n.Type == html.TextNode && n.Parent.Data != "style" {
				blank := strings.TrimSpace(n.Data) == ""
				for _, r := range n.Data {
					if hiddenRune(r) && !(r == '\n' && (blank || pre)) {
						t.Fatalf("round %d: text of <%s> holds %U raw: %q", round, n.Parent.Data, r, n.Data)
					}
				}
				all.WriteString(n.Data + "\x00")
			}
			for c := n.FirstChild; c != nil; c = c.NextSibling {
				walk(c, pre || n.Data == "pre")
			}
		}
		walk(doc, false)
		text := all.String()
		var reported []string
		for _, c := range rep.Crawlers {
			for _, v := range c.Violations.Top {
				reported = append(reported, v.Path)
			}
		}
		if len(reported) != len(want) {
			t.Fatalf("round %d: %d violations reported, %d logged: %q", round, len(reported), len(want), reported)
		}
		for _, p := range want {
			if !strings.Contains(text, "\x00"+escaped(p)+"\x00") {
				t.Errorf("round %d: path %q is not shown as %q", round, p, escaped(p))
			}
		}
		for _, u := range rep.Unreadable.Examples {
			if !strings.Contains(text, escaped(u.Text)) {
				t.Errorf("round %d: unreadable line %q not shown escaped", round, u.Text)
			}
		}
		checkPage(t, page.Bytes(), rep)
		if t.Failed() {
			t.Fatalf("round %d:\n%s", round, page.String())
		}
	}
}

// TestCombinedAgreesWithJSON: the same requests logged as Combined lines and as Caddy's JSON
// lines give the same report: sizes of 1 to 20 digits around the largest int64 (those
// beyond it refused by both, those up to it read and summed saturating), statuses from 0 to
// 999 and beyond, "-" for no size, in every total, row and count of unreadable lines.
func TestCombinedAgreesWithJSON(t *testing.T) {
	site := loadSite(t, false)
	rnd := rand.New(rand.NewPCG(32, 9))
	at := time.Date(2026, 11, 20, 10, 0, 0, 0, time.UTC)
	edges := []string{"0", "1", "9", "10", "999999999999999999", "1000000000000000000", "9223372036854775806", "9223372036854775807",
		"9223372036854775808", "9999999999999999999", "18446744073709551615", "18446744073709551616", "99999999999999999999"}
	uas := []string{"GPTBot/1.2", "Mozilla/5.0 (compatible; bingbot/2.0; +http://www.bing.com/bingbot.htm)", "Mozilla/5.0 Firefox/120.0"}
	rounds := 200
	if raceEnabled {
		rounds = 20
	}
	for round := range rounds {
		var clf, js strings.Builder
		var sizes []string
		for i := range 1 + rnd.IntN(30) {
			var size string
			switch rnd.IntN(3) {
			case 0:
				size = edges[rnd.IntN(len(edges))]
			case 1: // 1 to 20 digits, no leading zero (JSON has none)
				n := 1 + rnd.IntN(20)
				size = fmt.Sprint(1 + rnd.IntN(9))
				for range n - 1 {
					size += fmt.Sprint(rnd.IntN(10))
				}
			default:
				size = fmt.Sprint(rnd.Int64N(1 << 40))
			}
			status := []int{0, 1, 99, 100, 200, 301, 404, 999, 1000, 99999}[rnd.IntN(10)]
			ua := uas[rnd.IntN(len(uas))]
			path := fmt.Sprintf("/p%d", rnd.IntN(5))
			ts := at.Add(time.Duration(i) * time.Minute)
			clfSize, jsonSize := size, `"size":`+size+`,`
			if rnd.IntN(10) == 0 {
				clfSize, jsonSize = "-", ""
			}
			sizes = append(sizes, size)
			fmt.Fprintf(&clf, `20.15.240.64 - - [%s] "GET %s HTTP/1.1" %d %s "-" "%s"`+"\n", ts.Format("02/Jan/2006:15:04:05 -0700"), path, status, clfSize, ua)
			fmt.Fprintf(&js, `{"ts":%d,"request":{"client_ip":"20.15.240.64","method":"GET","host":"example.com","uri":%q,"headers":{"User-Agent":[%q]}},%s"status":%d}`+"\n", ts.Unix(), path, ua, jsonSize, status)
		}
		a := build(t, site, "", map[string][]byte{"a.log": []byte(clf.String())}, "a.log")
		b := build(t, site, "", map[string][]byte{"a.log": []byte(js.String())}, "a.log")
		// What the forms may differ in: the formats counted, the unreadable lines' text and
		// reason (a line is refused by both, in words of its own form).
		for _, r := range []*logreport.Report{a, b} {
			r.Inputs[0].Formats = nil
			r.Unreadable.Examples = nil
		}
		if got, want := normalize(t, a), normalize(t, b); !equalJSON(got, want) {
			ga, _ := json.Marshal(a.Totals)
			gb, _ := json.Marshal(b.Totals)
			t.Fatalf("round %d: sizes %v:\nCombined: %s, %d unreadable\n    JSON: %s, %d unreadable\n%s\n%s", round, sizes, ga, a.Unreadable.Count, gb, b.Unreadable.Count, clf.String(), js.String())
		}
	}
}

func equalJSON(a, b any) bool {
	x, _ := json.Marshal(a)
	y, _ := json.Marshal(b)
	return bytes.Equal(x, y)
}
