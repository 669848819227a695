package logreport_test

import (
	"bytes"
	"compress/gzip"
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"golang.org/x/net/html"

	"github.com/sitepolicy/caddy-robots/logreport"
	"github.com/sitepolicy/caddy-robots/policy"
	"github.com/sitepolicy/caddy-robots/policycheck"
)

// siteFrom is the site of a middleware JSON config, for host example.com.
func siteFrom(t testing.TB, config string) *policycheck.Site {
	t.Helper()
	cfg, err := policy.Decode([]byte(config))
	if err != nil {
		t.Fatal(err)
	}
	return policycheck.FromConfig(cfg, "example.com")
}

// clfLine is a Combined line of a GET for target from ua at ip, at t.
func clfLine(ip, target, ua string, t time.Time, size int64) string {
	return fmt.Sprintf(`%s - - [%s] "GET %s HTTP/1.1" 200 %d "-" "%s"`+"\n", ip, t.UTC().Format("02/Jan/2006:15:04:05 -0700"), target, size, ua)
}

// clipped is a path as the report documents it keeps it: its first 256 bytes and "…".
func clipped(p string) string {
	if len(p) > 256 {
		return p[:256] + "…"
	}
	return p
}

// TestLongPathsCountedExactly: paths longer than the 256 bytes a report keeps are counted
// exactly under their clipped text, repeated or sharing their first 256 bytes, in the paths
// and in the violations, whatever the order of the requests.
func TestLongPathsCountedExactly(t *testing.T) {
	site := loadSite(t, false)
	rnd := rand.New(rand.NewPCG(7, 8))
	at := time.Date(2026, 11, 20, 10, 0, 0, 0, time.UTC)
	for round := range 20 {
		// A few distinct clipped keys (at most TopPaths, so that all are shown), each reached
		// by paths of several lengths around the limit.
		var pool []string
		for k := range 1 + rnd.IntN(logreport.TopPaths) {
			stem := fmt.Sprintf("/%d-%d-", round, k) + strings.Repeat("x", 200+rnd.IntN(120))
			for range 1 + rnd.IntN(3) {
				pool = append(pool, stem+strings.Repeat("y", rnd.IntN(100)))
			}
		}
		want := map[string]int64{}
		var log strings.Builder
		n := 20 + rnd.IntN(200)
		for i := range n {
			p := pool[rnd.IntN(len(pool))]
			want[clipped(p)]++
			log.WriteString(clfLine("20.15.240.64", p, "GPTBot/1.2", at.Add(time.Duration(i)*time.Second), 1))
		}
		rep := build(t, site, "", map[string][]byte{"a.log": []byte(log.String())}, "a.log")
		if len(rep.Crawlers) != 1 {
			t.Fatalf("round %d: %d crawlers", round, len(rep.Crawlers))
		}
		c := rep.Crawlers[0]
		got := map[string]int64{}
		for _, p := range c.Paths.Top {
			got[p.Path] = p.Count
		}
		gotV := map[string]int64{}
		for _, v := range c.Violations.Top {
			gotV[v.Path] += v.Count
		}
		if c.Paths.Other != 0 || c.Violations.Other != 0 || c.Violations.Count != int64(n) {
			t.Errorf("round %d: other paths %d, other violations %d, violations %d of %d", round, c.Paths.Other, c.Violations.Other, c.Violations.Count, n)
		}
		for k, w := range want {
			if got[k] != w || gotV[k] != w {
				t.Errorf("round %d: %.20q… (%d bytes) counted %d as a path and %d as a violation, want %d", round, k, len(k), got[k], gotV[k], w)
			}
		}
		if len(got) != len(want) || len(gotV) != len(want) {
			t.Errorf("round %d: %d paths and %d violation paths, want %d", round, len(got), len(gotV), len(want))
		}
	}
}

// The site of the row tests: two groups for two User-Agents of one bot of the catalogue
// (ClaudeBot and Claude-Web are both anthropic-crawler), or one of them only (the other is
// decided by "*").
const (
	bothGroups = `{"robots_txt": {"groups": [
	  {"user_agents": ["*"], "rules": [{"type": "disallow", "path": "/private/"}]},
	  {"user_agents": ["ClaudeBot"], "rules": [{"type": "disallow", "path": "/a/"}]},
	  {"user_agents": ["Claude-Web"], "rules": [{"type": "disallow", "path": "/b/"}]}]}}`
	oneGroup = `{"robots_txt": {"groups": [
	  {"user_agents": ["*"], "rules": [{"type": "disallow", "path": "/private/"}]},
	  {"user_agents": ["ClaudeBot"], "rules": [{"type": "disallow", "path": "/a/"}]}]}}`
)

// TestRowsByGroup: a crawler's row is one bot as one group decides it, so that its GROUP is
// the group its violations are of, whichever User-Agent came first: a row only "*" applies to
// has no violations, and the HTML's data-token of a violation row is its group.
func TestRowsByGroup(t *testing.T) {
	uas := map[string]string{ // User-Agent -> its group in bothGroups
		"Mozilla/5.0 (compatible; ClaudeBot/1.0; +claudebot@anthropic.com)": "ClaudeBot",
		"Claude-Web/1.0 (+https://www.anthropic.com)":                       "Claude-Web",
	}
	var agents []string
	for ua := range uas {
		agents = append(agents, ua)
	}
	targets := []string{"/", "/a/1", "/b/1", "/private/x"}
	disallows := map[string]string{"ClaudeBot": "/a/", "Claude-Web": "/b/"}
	rnd := rand.New(rand.NewPCG(1, 2))
	at := time.Date(2026, 11, 20, 10, 0, 0, 0, time.UTC)
	for round := range 40 {
		config, named := bothGroups, map[string]bool{"ClaudeBot": true, "Claude-Web": true}
		if round%2 == 1 {
			config, named = oneGroup, map[string]bool{"ClaudeBot": true}
		}
		type row struct{ requests, violations int64 }
		want := map[string]*row{} // by group, "" for "*"
		var log strings.Builder
		for i := range 5 + rnd.IntN(60) {
			ua := agents[rnd.IntN(len(agents))]
			if i == 0 {
				ua = agents[round/2%2] // either User-Agent first
			}
			target := targets[rnd.IntN(len(targets))]
			g := uas[ua]
			if !named[g] {
				g = ""
			}
			if want[g] == nil {
				want[g] = &row{}
			}
			want[g].requests++
			if g != "" && strings.HasPrefix(target, disallows[g]) {
				want[g].violations++
			}
			log.WriteString(clfLine("160.79.104.10", target, ua, at.Add(time.Duration(i)*time.Minute), 10))
		}
		rp, err := policycheck.NewReplay(siteFrom(t, config), "https://example.com")
		if err != nil {
			t.Fatal(err)
		}
		b := logreport.NewBuilder(rp, logreport.Options{})
		_ = b.ReadLog("a.log", strings.NewReader(log.String()))
		rep := b.Report()
		rp.Close()
		if len(rep.Crawlers) != len(want) {
			t.Errorf("round %d: %d rows, want one per group: %v", round, len(rep.Crawlers), want)
		}
		for _, c := range rep.Crawlers {
			w := want[c.Token]
			if c.ID != "anthropic-crawler" || w == nil || c.Requests != w.requests || c.Violations.Count != w.violations {
				t.Errorf("round %d: row %s group %q: %d requests %d violations, want %+v", round, c.ID, c.Token, c.Requests, c.Violations.Count, w)
			}
			for _, v := range c.Violations.Top {
				if c.Token == "" || !strings.HasPrefix(v.Path, disallows[c.Token]) || v.Rule != "Disallow: "+disallows[c.Token] {
					t.Errorf("round %d: row of group %q has the violation %s %q", round, c.Token, v.Path, v.Rule)
				}
			}
		}
		var page bytes.Buffer
		if err := rep.WriteHTML(&page); err != nil {
			t.Fatal(err)
		}
		doc, err := html.Parse(&page)
		if err != nil {
			t.Fatal(err)
		}
		var vrows []*html.Node
		var walk func(*html.Node)
		walk = func(n *html.Node) {
			if n.Type == html.ElementNode && attr(n, "id") == "violations" {
				vrows = rowsOf(n)
			}
			for c := n.FirstChild; c != nil; c = c.NextSibling {
				walk(c)
			}
		}
		walk(doc)
		for _, r := range vrows {
			for _, td := range cells(r) {
				if attr(td, "data-k") == "path" && !strings.HasPrefix(text(td), disallows[attr(r, "data-token")]) || attr(r, "data-token") == "" {
					t.Errorf("round %d: HTML violation row of group %q for %q", round, attr(r, "data-token"), text(td))
				}
			}
		}
	}
}

// TestImpostorsApart: requests that claim Googlebot from an address its list does not have
// count under the impostors claiming it, not in Googlebot's row (its requests, bytes, paths,
// statuses or violations); a bracketed IPv6 client address is verified like a bare one.
func TestImpostorsApart(t *testing.T) {
	site := loadSite(t, true)
	at := time.Date(2026, 11, 20, 10, 0, 0, 0, time.UTC)
	const gb = "Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)"
	rnd := rand.New(rand.NewPCG(3, 4))
	real := []string{"66.249.66.1", "2001:4860:4801:10::1", "[2001:4860:4801:10::7]"}
	fake := []string{"203.0.113.9", "2001:db8::1", "[2001:db8::2]"}
	targets := []string{"/", "/search?q=x", "/search/about", "/news"}
	for round := range 20 {
		var log strings.Builder
		var realReq, realViol, realBytes, fakeReq, fakeDis, fakeBytes int64
		for i := range 1 + rnd.IntN(80) {
			target := targets[rnd.IntN(len(targets))]
			size := int64(rnd.IntN(1000))
			disallowed := strings.HasPrefix(target, "/search?")
			ip := real[rnd.IntN(len(real))]
			if rnd.IntN(2) == 0 {
				ip = fake[rnd.IntN(len(fake))]
				fakeReq++
				fakeBytes += size
				if disallowed {
					fakeDis++
				}
			} else {
				realReq++
				realBytes += size
				if disallowed {
					realViol++
				}
			}
			log.WriteString(clfLine(ip, target, gb, at.Add(time.Duration(i)*time.Second), size))
		}
		rep := build(t, site, "", map[string][]byte{"a.log": []byte(log.String())}, "a.log")
		tt := rep.Totals
		if tt.Impostors != fakeReq || tt.ImpostorBytes != fakeBytes || tt.Violations != realViol || tt.CrawlerRequests != realReq || tt.CrawlerBytes != realBytes {
			t.Errorf("round %d: totals %+v, want %d impostors (%d B), %d crawler requests (%d B), %d violations", round, tt, fakeReq, fakeBytes, realReq, realBytes, realViol)
		}
		if realReq > 0 {
			c := rep.Crawlers[0]
			var paths int64
			for _, p := range c.Paths.Top {
				paths += p.Count
			}
			if len(rep.Crawlers) != 1 || c.Requests != realReq || c.Verified != realReq || c.Violations.Count != realViol || paths+c.Paths.Other != realReq || c.Statuses["200"] != realReq {
				t.Errorf("round %d: Googlebot's row %+v, want %d requests all verified, %d violations", round, c, realReq, realViol)
			}
		} else if len(rep.Crawlers) != 0 {
			t.Errorf("round %d: a crawler row %+v for impostors only", round, rep.Crawlers[0])
		}
		if fakeReq > 0 {
			if len(rep.Impostors) != 1 || rep.Impostors[0].ID != "google-crawler" || rep.Impostors[0].Token != "Googlebot" ||
				rep.Impostors[0].Requests != fakeReq || rep.Impostors[0].Disallowed != fakeDis || rep.Impostors[0].Bytes != fakeBytes {
				t.Errorf("round %d: impostors %+v, want %d requests claiming Googlebot, %d disallowed", round, rep.Impostors, fakeReq, fakeDis)
			}
		} else if len(rep.Impostors) != 0 {
			t.Errorf("round %d: impostors %+v without any", round, rep.Impostors)
		}
		var out bytes.Buffer
		if err := rep.WriteText(&out); err != nil {
			t.Fatal(err)
		}
		if strings.Contains(out.String(), "\nImpostors (") != (fakeReq > 0) {
			t.Errorf("round %d: the text's impostors section:\n%s", round, out.String())
		}
	}
}

// TestSizesSaturate: sizes near the largest int64 add up to it, never wrap to a negative
// total, in every total and row.
func TestSizesSaturate(t *testing.T) {
	site := loadSite(t, false)
	var log strings.Builder
	for i := range 12 {
		log.WriteString(fmt.Sprintf(`{"ts":1795197336,"request":{"client_ip":"1.2.3.4","method":"GET","host":"example.com","uri":"/x%d","headers":{"User-Agent":["GPTBot/1.2"]}},"status":200,"size":9223372036854775807}`+"\n", i))
		log.WriteString(clfLine("1.2.3.4", "/y", "Firefox", time.Date(2026, 11, 20, 10, 0, 0, 0, time.UTC), 999999999999999999))
	}
	rep := build(t, site, "", map[string][]byte{"a.log": []byte(log.String())}, "a.log")
	tt := rep.Totals
	for what, v := range map[string]int64{"bytes": tt.Bytes, "crawler bytes": tt.CrawlerBytes, "other bytes": tt.OtherBytes, "row bytes": rep.Crawlers[0].Bytes} {
		if v != math.MaxInt64 {
			t.Errorf("%s = %d, want %d (saturated)", what, v, int64(math.MaxInt64))
		}
	}
	var out bytes.Buffer
	if err := rep.WriteText(&out); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(out.String(), "(-") {
		t.Errorf("a negative size in the text:\n%s", out.String())
	}
}

// TestTextEscapesBidi: bidi controls and Unicode line separators from the log (in paths, in
// unreadable lines) are escaped in the text, so that a line cannot be made to read otherwise.
func TestTextEscapesBidi(t *testing.T) {
	site := loadSite(t, false)
	at := time.Date(2026, 11, 20, 10, 0, 0, 0, time.UTC)
	tricky := []rune{0x202a, 0x202b, 0x202c, 0x202d, 0x202e, 0x2066, 0x2067, 0x2068, 0x2069, 0x2028, 0x2029}
	var log strings.Builder
	for i, r := range tricky {
		log.WriteString(clfLine("1.2.3.4", fmt.Sprintf("/p%d%cq", i, r), "GPTBot/1.2", at, 1))
		log.WriteString(fmt.Sprintf("garbage %c line\n", r))
	}
	rep := build(t, site, "", map[string][]byte{"a.log": []byte(log.String())}, "a.log")
	if rep.Totals.Violations != int64(len(tricky)) {
		t.Fatalf("%d violations, want %d", rep.Totals.Violations, len(tricky))
	}
	var out bytes.Buffer
	if err := rep.WriteText(&out); err != nil {
		t.Fatal(err)
	}
	for _, r := range tricky {
		if strings.ContainsRune(out.String(), r) {
			t.Errorf("U+%04X is in the text unescaped", r)
		}
		if want := fmt.Sprintf(`\u%04x`, r); !strings.Contains(out.String(), want) {
			t.Errorf("the text lacks %s", want)
		}
	}
}

// TestUnreadableLogs: a log that starts as gzip but is none, and a log none of whose lines is
// an entry, are errors, said in the Input; a log with a blank line and entries is not.
func TestUnreadableLogs(t *testing.T) {
	site := loadSite(t, false)
	rp, err := policycheck.NewReplay(site, "https://example.com")
	if err != nil {
		t.Fatal(err)
	}
	defer rp.Close()
	var corrupt bytes.Buffer
	zw := gzip.NewWriter(&corrupt)
	_, _ = zw.Write([]byte(clfLine("1.2.3.4", "/", "x", time.Date(2026, 11, 20, 10, 0, 0, 0, time.UTC), 1)))
	_ = zw.Close()
	badCRC := bytes.Clone(corrupt.Bytes())
	badCRC[len(badCRC)-6] ^= 0xff // the CRC-32 of the member
	for _, c := range []struct {
		name, data, want string
	}{
		{"bad gzip header", "\x1f\x8b\n0", "corrupt gzip"},
		{"gzip magic only", "\x1f\x8b", "corrupt gzip"},
		{"bad CRC", string(badCRC), "corrupt gzip"},
		{"not a log", "{\"config\": true}\nhello\n", "no line is an access log entry"},
		{"fine", "\n" + clfLine("1.2.3.4", "/", "x", time.Date(2026, 11, 20, 10, 0, 0, 0, time.UTC), 1) + "garbage\n", ""},
	} {
		b := logreport.NewBuilder(rp, logreport.Options{})
		err := b.ReadLog(c.name, strings.NewReader(c.data))
		in := b.Report().Inputs[0]
		if c.want == "" {
			if err != nil || in.Error != "" {
				t.Errorf("%s: %v, %q", c.name, err, in.Error)
			}
			continue
		}
		if err == nil || !strings.Contains(in.Error, c.want) {
			t.Errorf("%s: error %v, input error %q, want %q", c.name, err, in.Error, c.want)
		}
	}
}

// TestRowsByName: a row is the crawler of the name the User-Agent carries, with that name's
// operator and categories: Yandex's entry holds YandexBot, YandexImages and the AI-training
// YandexAdditional, three rows, of which only YandexAdditional's is in ai-training; a crawler
// only the AI catalogue knows that a group names (Claude-User) is named with its operator.
func TestRowsByName(t *testing.T) {
	const config = `{"robots_txt": {"groups": [
	  {"user_agents": ["*"], "rules": [{"type": "disallow", "path": "/private/"}]},
	  {"user_agents": ["Claude-User"], "rules": [{"type": "disallow", "path": "/a/"}]}]}}`
	want := map[string]struct {
		ua, id, operator, categories string
	}{
		"YandexBot":        {"Mozilla/5.0 (compatible; YandexBot/3.0; +http://yandex.com/bots)", "yandex-crawler", "Yandex", "search-engine"},
		"YandexImages":     {"Mozilla/5.0 (compatible; YandexImages/3.0; +http://yandex.com/bots)", "yandex-crawler", "Yandex", "search-engine"},
		"YandexAdditional": {"Mozilla/5.0 (compatible; YandexAdditional/3.0; +http://yandex.com/bots)", "yandex-crawler", "Yandex", "search-engine,ai-all,ai-training"},
		"Claude-User":      {"Claude-User/1.0 (+https://www.anthropic.com)", "", "Anthropic", "ai-all,ai-assistants"},
	}
	var names []string
	for n := range want {
		names = append(names, n)
	}
	rnd := rand.New(rand.NewPCG(3, 4))
	at := time.Date(2026, 11, 20, 10, 0, 0, 0, time.UTC)
	for round := range 10 {
		counts := map[string]int64{}
		var log strings.Builder
		for i := range 4 + rnd.IntN(40) {
			n := names[rnd.IntN(len(names))]
			counts[n]++
			log.WriteString(clfLine("203.0.113.9", "/page", want[n].ua, at.Add(time.Duration(i)*time.Minute), 10))
		}
		rp, err := policycheck.NewReplay(siteFrom(t, config), "https://example.com")
		if err != nil {
			t.Fatal(err)
		}
		b := logreport.NewBuilder(rp, logreport.Options{})
		_ = b.ReadLog("a.log", strings.NewReader(log.String()))
		rep := b.Report()
		rp.Close()
		if len(rep.Crawlers) != len(counts) {
			t.Errorf("round %d: %d rows, want one per name: %v", round, len(rep.Crawlers), counts)
		}
		for _, c := range rep.Crawlers {
			w, ok := want[c.Name]
			if !ok || c.ID != w.id || c.Operator != w.operator || strings.Join(c.Categories, ",") != w.categories || c.Requests != counts[c.Name] {
				t.Errorf("round %d: row %q (%s, %s, %v): %d requests, want %+v and %d", round, c.Name, c.ID, c.Operator, c.Categories, c.Requests, w, counts[c.Name])
			}
		}
	}
}
