package policycheck

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/sitepolicy/caddy-robots/crawlers"
	"github.com/sitepolicy/caddy-robots/identity"
	"github.com/sitepolicy/caddy-robots/nethttp"
)

const (
	googlebotUA  = "Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)"
	browserUA    = "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36"
	barkrowlerUA = "Mozilla/5.0 (compatible; Barkrowler/0.9; +https://babbar.eu/crawling-bot/)"
	googleList   = "../identity/testdata/googlebot.json"
)

// fakeDNS answers reverse DNS for the tests: never the network.
type fakeDNS map[string]string // address -> host name that resolves back to it

func (f fakeDNS) LookupAddr(_ context.Context, addr string) ([]string, error) {
	if n, ok := f[addr]; ok {
		return []string{n + "."}, nil
	}
	return nil, &net.DNSError{Err: "no such host", Name: addr, IsNotFound: true}
}

func (f fakeDNS) LookupNetIP(_ context.Context, _, host string) ([]netip.Addr, error) {
	for a, n := range f {
		if n+"." == host { // asked rooted
			return []netip.Addr{netip.MustParseAddr(a)}, nil
		}
	}
	return nil, &net.DNSError{Err: "no such host", Name: host, IsNotFound: true}
}

// googleService verifies Google's crawler from the identity package's copy of its list (a
// local file, read-only: nothing is fetched) and host names from a fake resolver, in which
// 66.249.90.1 is one of Google's crawlers; now, if set, is its clock.
func googleService(t *testing.T, now func() time.Time) *identity.Service {
	t.Helper()
	g, _ := crawlers.BotByID("google-crawler")
	svc := identity.NewService(identity.ServiceOptions{
		Lists: identity.ListsOptions{Local: map[string]string{g.Verification.IPRanges[0].URL: googleList}, Offline: true, ReadOnly: true, Log: discard, Now: now},
		DNS:   identity.DNSOptions{Resolver: fakeDNS{"66.249.90.1": "crawl-66-249-90-1.googlebot.com"}},
	})
	svc.Start(context.Background())
	t.Cleanup(svc.Stop)
	return svc
}

// impostorConfig enforces its file and answers impostors with 410.
const impostorConfig = `{"robots_txt": {
	"groups": [{"user_agents": ["GPTBot"], "rules": [{"type": "disallow", "path": "/"}]}],
	"enforce": {"impostors": {"status": 410}}
}}`

// TestCheckIdentity: with crawler verification, Check says who the request is, how that was
// found, and whether enforce's impostors refuse it; the text report says it in a line.
func TestCheckIdentity(t *testing.T) {
	s := site(t, impostorConfig)
	s.Crawlers = googleService(t, nil)
	for _, c := range []struct {
		ua, ip, path string
		want         Identity
		blocked      int
		line         string
		notes        int
	}{
		{googlebotUA, "66.249.64.5", "/page", Identity{Bot: "google-crawler", Status: "verified", By: "ip-list", Reason: "66.249.64.5 is in Google's published list"}, 0,
			"Identity: Googlebot (google-crawler, Google; search-engine) from 66.249.64.5: verified by ip-list (66.249.64.5 is in Google's published list)", 0},
		{googlebotUA, "::ffff:66.249.64.5", "/page", Identity{Bot: "google-crawler", Status: "verified", By: "ip-list"}, 0, "", 0},
		{googlebotUA, "66.249.90.1", "/page", Identity{Bot: "google-crawler", Status: "verified", By: "reverse-dns", Reason: "66.249.90.1's host name is Google's and resolves back to it"}, 0,
			"Identity: Googlebot (google-crawler, Google; search-engine) from 66.249.90.1: verified by reverse-dns (66.249.90.1's host name is Google's and resolves back to it)", 1},
		{googlebotUA, "203.0.113.9", "/page", Identity{Bot: "google-crawler", Status: "impostor", Reason: "its User-Agent names Googlebot, but its address is not in Google's published address lists, and its reverse DNS gives no host name of Google's that resolves back to it"}, 410,
			"Identity: claims Googlebot (google-crawler, Google; search-engine) from 203.0.113.9: impostor (its User-Agent names Googlebot, but its address is not in Google's published address lists, and its reverse DNS gives no host name of Google's that resolves back to it; enforce answers 410)", 1},
		// robots.txt is served to impostors too.
		{googlebotUA, "203.0.113.9", "/robots.txt", Identity{Bot: "google-crawler", Status: "impostor"}, 0, "", 1},
		{googlebotUA, "", "/page", Identity{Bot: "google-crawler", Status: "pending", Reason: "no client address: the claim cannot be verified without one"}, 0,
			"Identity: claims Googlebot (google-crawler, Google; search-engine): pending (no client address: the claim cannot be verified without one)", 0},
		{"Googlebot", "203.0.113.9", "/page", Identity{Bot: "google-crawler", Status: "impostor"}, 410, "", 1},
		{browserUA, "203.0.113.9", "/page", Identity{Status: "none", Reason: "the User-Agent names no bot of the catalogue"}, 0,
			"Identity: none from 203.0.113.9 (the User-Agent names no bot of the catalogue)", 0},
		{barkrowlerUA, "203.0.113.9", "/page", Identity{Bot: "exensa-crawler", Status: "unverifiable", Reason: "its operator publishes no addresses or host names to verify it by"}, 0,
			"Identity: claims Barkrowler (exensa-crawler; unknown) from 203.0.113.9: unverifiable (its operator publishes no addresses or host names to verify it by)", 0},
		// The file's enforcement is unchanged.
		{"GPTBot/1.2", "203.0.113.9", "/page", Identity{Bot: "openai-crawler", Status: "pending"}, 403, "", 0},
	} {
		rep, err := Check(s, Request{URL: "https://example.com" + c.path, Agent: c.ua, ClientIP: c.ip})
		if err != nil {
			t.Fatal(err)
		}
		v := rep.Verification
		if v == nil || v.ClientIP != c.ip || !v.ReverseDNS || len(v.Lists) != 1 {
			t.Fatalf("%s from %q: verification %+v", c.ua, c.ip, v)
		}
		got := v.Identity
		if got.Bot != c.want.Bot || got.Status != c.want.Status || got.By != c.want.By || c.want.Reason != "" && got.Reason != c.want.Reason {
			t.Errorf("%s from %q: identity %+v, want %+v", c.ua, c.ip, got, c.want)
		}
		if e := rep.Enforcement; e.Blocked != (c.blocked != 0) || e.Status != c.blocked || e.Impostor != (c.blocked == 410) {
			t.Errorf("%s from %q at %s: enforcement %+v, want status %d", c.ua, c.ip, c.path, e, c.blocked)
		}
		if len(rep.Notes) != c.notes {
			t.Errorf("%s from %q: notes %q, want %d", c.ua, c.ip, rep.Notes, c.notes)
		}
		var text bytes.Buffer
		if err := rep.WriteText(&text); err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(text.String(), c.line+"\n") {
			t.Errorf("%s from %q: text lacks %q:\n%s", c.ua, c.ip, c.line, text.String())
		}
	}
}

// TestCheckIdentityAgreesWithServer serves the config with nethttp and the same verification,
// and checks that the identity the wrapped handler reads and the status the server answers
// are Check's, for crawlers verified and not, impostors, browsers and paths, with and without
// a client address.
func TestCheckIdentityAgreesWithServer(t *testing.T) {
	s := site(t, impostorConfig)
	svc := googleService(t, nil)
	s.Crawlers = svc
	var cfg nethttp.Config
	if err := json.Unmarshal([]byte(impostorConfig), &cfg); err != nil {
		t.Fatal(err)
	}
	// The client address is the test's header, as a trusted proxy would report it.
	mw, err := nethttp.New(cfg, nethttp.Options{Logger: discard, Verifier: svc.Verifier, ClientAddr: func(r *http.Request) netip.Addr {
		a, _ := netip.ParseAddr(r.Header.Get("X-Client"))
		return a
	}})
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(mw.Handler(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		id, _ := nethttp.Identity(r)
		io.WriteString(w, id.Bot+"|"+id.Status.String()+"|"+id.By)
	})))
	defer srv.Close()
	n := 0
	for _, ua := range []string{googlebotUA, "Googlebot", browserUA, barkrowlerUA, "GPTBot/1.2", "Mozilla/5.0 (compatible; bingbot/2.0; +http://www.bing.com/bingbot.htm)"} {
		for _, ip := range []string{"66.249.64.5", "66.249.64.40", "66.249.90.1", "2001:4860:4801:10::1", "203.0.113.9", "2001:db8::1", ""} {
			for _, path := range []string{"/", "/a", "/robots.txt"} {
				rep, err := Check(s, Request{URL: srv.URL + path, Agent: ua, ClientIP: ip})
				if err != nil {
					t.Fatal(err)
				}
				req, _ := http.NewRequest(http.MethodGet, srv.URL+path, nil)
				req.Header.Set("User-Agent", ua)
				req.Header.Set("X-Client", ip)
				resp, err := http.DefaultClient.Do(req)
				if err != nil {
					t.Fatal(err)
				}
				body, _ := io.ReadAll(resp.Body)
				resp.Body.Close()
				e, id := rep.Enforcement, rep.Verification.Identity
				if e.Blocked != (resp.StatusCode != 200) || e.Blocked && e.Status != resp.StatusCode {
					t.Errorf("%s from %q at %s: served %d %s, check's enforcement %+v", ua, ip, path, resp.StatusCode, body, e)
					continue
				}
				if resp.StatusCode != 200 || path == "/robots.txt" {
					continue
				}
				status := id.Status
				if id.Bot == "" {
					status = identity.None.String()
				}
				if want := id.Bot + "|" + status + "|" + id.By; string(body) != want {
					t.Errorf("%s from %q at %s: served identity %q, check's %q", ua, ip, path, body, want)
				}
				n++
			}
		}
	}
	if n < 40 {
		t.Errorf("%d requests compared", n)
	}
}

// TestCheckIdentityLists: the report says the state of every list, the reasons name what is
// missing, and a site without verification has no identity (the address is noted as unused).
func TestCheckIdentityLists(t *testing.T) {
	dir := t.TempDir()
	g, _ := crawlers.BotByID("google-crawler")
	// A server kept Google's list on disk ten days ago.
	old := identity.NewService(identity.ServiceOptions{NoDNS: true, Lists: identity.ListsOptions{
		Dir: dir, Offline: true, Local: map[string]string{g.Verification.IPRanges[0].URL: googleList}, Log: discard,
		Now: func() time.Time { return time.Now().Add(-10 * 24 * time.Hour) },
	}})
	old.Start(context.Background())
	old.Stop()
	// The check reads every list the catalogue names from that directory, without reverse DNS.
	svc := identity.NewService(identity.ServiceOptions{NoDNS: true, Lists: identity.ListsOptions{Dir: dir, ReadOnly: true, Log: discard}})
	svc.Start(context.Background())
	defer svc.Stop()
	s := site(t, impostorConfig)
	s.Crawlers = svc
	rep, err := Check(s, Request{URL: "https://example.com/a", Agent: googlebotUA, ClientIP: "203.0.113.9"})
	if err != nil {
		t.Fatal(err)
	}
	v := rep.Verification
	if v.Identity.Status != "pending" || v.Identity.Reason != "Google's published list is too old to be trusted; reverse DNS is off" || rep.Enforcement.Blocked {
		t.Errorf("with a stale list: %+v, %+v", v.Identity, rep.Enforcement)
	}
	if len(v.Lists) != len(identity.Sources()) || v.ReverseDNS {
		t.Fatalf("lists %+v", v.Lists)
	}
	var text bytes.Buffer
	rep.WriteText(&text)
	if !strings.Contains(text.String(), "Crawler verification: reverse DNS off; copies of the lists kept in "+dir+"\n") {
		t.Errorf("text does not say where the lists are kept:\n%s", text.String())
	}
	for _, l := range v.Lists {
		switch {
		case l.URL == g.Verification.IPRanges[0].URL:
			if l.Trusted || l.Prefixes == 0 || l.AgeSeconds < 10*24*3600-60 || l.Fetched.IsZero() {
				t.Errorf("the stale list: %+v", l)
			}
			if want := "  stale    " + l.URL + ": 5 prefixes, "; !strings.Contains(text.String(), want) || !strings.Contains(text.String(), "bytes, 10d old, too old to be trusted\n") {
				t.Errorf("text lacks %q:\n%s", want, text.String())
			}
		case l.Prefixes != 0 || l.Trusted || !strings.HasPrefix(l.File, dir) || !l.Fetched.IsZero():
			t.Errorf("a missing list: %+v", l)
		case !strings.Contains(text.String(), "  missing  "+l.URL+": no copy kept\n"):
			t.Errorf("text lacks the missing list %s:\n%s", l.URL, text.String())
		}
	}
	rep, _ = Check(s, Request{URL: "https://example.com/a", Agent: "GPTBot/1.2", ClientIP: "203.0.113.9"})
	if r := rep.Verification.Identity.Reason; r != "OpenAI's published list is missing" {
		t.Errorf("GPTBot without its list: %q", r)
	}
	// A local file that cannot be read.
	gone := filepath.Join(dir, "gone.json")
	svc = identity.NewService(identity.ServiceOptions{NoDNS: true, Lists: identity.ListsOptions{Offline: true, ReadOnly: true, Log: discard,
		Local: map[string]string{g.Verification.IPRanges[0].URL: gone}}})
	svc.Start(context.Background())
	s.Crawlers = svc
	rep, _ = Check(s, Request{URL: "https://example.com/a", Agent: googlebotUA, ClientIP: "203.0.113.9"})
	text.Reset()
	rep.WriteText(&text)
	if want := "  missing  " + g.Verification.IPRanges[0].URL + " (local file " + gone + "): the file is not read; last error: open " + gone + ": no such file or directory\n"; !strings.Contains(text.String(), want) {
		t.Errorf("an unreadable local file: want %q in\n%s", want, text.String())
	}
	// Lists off.
	off := identity.NewService(identity.ServiceOptions{NoLists: true, NoDNS: true})
	s.Crawlers = off
	rep, _ = Check(s, Request{URL: "https://example.com/a", Agent: googlebotUA, ClientIP: "203.0.113.9"})
	text.Reset()
	rep.WriteText(&text)
	if v := rep.Verification; v.Lists == nil || len(v.Lists) != 0 || !strings.Contains(v.Identity.Reason, "Google's published list is not read") ||
		!strings.Contains(text.String(), "Crawler verification: reverse DNS off\n  no published address lists (they are off)\n") {
		t.Errorf("lists off: %+v\n%s", v, text.String())
	}
	// No verification: no identity, and the address is said to be unused.
	s.Crawlers = nil
	rep, _ = Check(s, Request{URL: "https://example.com/a", Agent: googlebotUA, ClientIP: "203.0.113.9"})
	b, _ := json.Marshal(rep)
	if rep.Verification != nil || strings.Contains(string(b), `"verification"`) || len(rep.Notes) != 1 || !strings.Contains(rep.Notes[0], "verifies no crawlers") {
		t.Errorf("without verification: %s", b)
	}
}

// TestCheckClientIPErrors: an address that is not one is a RequestError for ClientIP.
func TestCheckClientIPErrors(t *testing.T) {
	s := site(t, impostorConfig)
	for _, ip := range []string{"66.249.64", "example.com", "66.249.64.5:443", "[::1]"} {
		_, err := Check(s, Request{URL: "https://example.com/", Agent: "Googlebot", ClientIP: ip})
		var re *RequestError
		if !errors.As(err, &re) || re.Field != "ClientIP" || re.Value != ip || !strings.Contains(err.Error(), `ClientIP "`+ip+`": give the client's IP address`) {
			t.Errorf("%q: %v", ip, err)
		}
	}
	// A zone is not part of the address a server trusts.
	if a, err := (Request{ClientIP: "fe80::1%eth0"}).ClientAddr(); err != nil || a != netip.MustParseAddr("fe80::1") {
		t.Errorf("zone: %v %v", a, err)
	}
}

// TestCheckIdentityGolden compares the JSON of an impostor's check with
// testdata/check-identity-impostor.json, the documented example of the verification's
// members (a fixed clock); go test -run TestCheckIdentityGolden -update rewrites it.
func TestCheckIdentityGolden(t *testing.T) {
	s := site(t, impostorConfig)
	now := time.Date(2026, 11, 24, 12, 0, 0, 0, time.UTC)
	s.Crawlers = googleService(t, func() time.Time { return now })
	now = now.Add(3 * time.Hour)
	rep, err := Check(s, Request{URL: "https://example.com/page", Agent: googlebotUA, ClientIP: "203.0.113.9"})
	if err != nil {
		t.Fatal(err)
	}
	want := wantGolden(t, rep, "check-identity-impostor.json")
	// The schema: unknown members refused, and the report read back whole.
	var back Report
	dec := json.NewDecoder(bytes.NewReader(want))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&back); err != nil || !reflect.DeepEqual(&back, rep) {
		t.Errorf("round trip: %v\n%+v\n%+v", err, back.Verification, rep.Verification)
	}
}

// TestCheckIdentityNamesTheCrawler: check's identity is the crawler the User-Agent names, not
// its entry's first name nor the union of the entry's categories (Yandex's entry holds
// YandexBot and the AI-training YandexAdditional); a crawler only the AI catalogue knows is
// named too.
func TestCheckIdentityNamesTheCrawler(t *testing.T) {
	s := site(t, impostorConfig)
	s.Crawlers = identity.NewService(identity.ServiceOptions{NoLists: true, NoDNS: true})
	for _, c := range []struct {
		ua   string
		want Identity
		line string
	}{
		{"Mozilla/5.0 (compatible; YandexBot/3.0; +http://yandex.com/bots)",
			Identity{Bot: "yandex-crawler", Name: "YandexBot", Operator: "Yandex", Categories: []string{"search-engine"}, Status: "pending"},
			"Identity: claims YandexBot (yandex-crawler, Yandex; search-engine) from 203.0.113.9: pending"},
		{"Mozilla/5.0 (compatible; YandexAdditional/3.0; +http://yandex.com/bots)",
			Identity{Bot: "yandex-crawler", Name: "YandexAdditional", Operator: "Yandex", Categories: []string{"search-engine", "ai-all", "ai-training"}, Status: "pending"},
			"Identity: claims YandexAdditional (yandex-crawler, Yandex; search-engine, ai-all, ai-training) from 203.0.113.9: pending"},
		{"Claude-User/1.0",
			Identity{Name: "Claude-User", Operator: "Anthropic", Categories: []string{"ai-all", "ai-assistants"}, Status: "unverifiable"},
			"Identity: claims Claude-User (Anthropic; ai-all, ai-assistants) from 203.0.113.9: unverifiable (Anthropic publishes no addresses"},
	} {
		rep, err := Check(s, Request{URL: "https://example.com/a", Agent: c.ua, ClientIP: "203.0.113.9"})
		if err != nil {
			t.Fatal(err)
		}
		got := rep.Verification.Identity
		got.Reason = ""
		if !reflect.DeepEqual(got, c.want) {
			t.Errorf("%s: %+v, want %+v", c.ua, got, c.want)
		}
		var text bytes.Buffer
		if err := rep.WriteText(&text); err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(text.String(), c.line) {
			t.Errorf("%s: text lacks %q:\n%s", c.ua, c.line, text.String())
		}
	}
}
