package caddymodule

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/netip"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/sitepolicy/caddy-robots/caddymodule/internal/command"
	"github.com/sitepolicy/caddy-robots/crawlers"
)

// runCheck runs `caddy robots check` in the test's process, where reverse DNS is
// testResolver's (a built binary would ask the system's resolver: the network), and returns
// stdout, stderr and the exit status.
func runCheck(t *testing.T, args ...string) (string, string, int) {
	t.Helper()
	c := command.CheckCommand()
	var stdout, stderr bytes.Buffer
	c.SetArgs(args)
	c.SetOut(&stdout)
	c.SetErr(&stderr)
	err := c.Execute()
	status := 0
	switch {
	case err == nil:
	case err.Error() == "exit status 1":
		status = 1
	default:
		status = 2
	}
	return stdout.String(), stderr.String(), status
}

// checkIdentitySite enforces its file and answers impostors with 410; crawler matchers (one
// of them nested in not) choose the robots_tag a response gets, and the response says the
// identity.
const checkIdentitySite = `
:@PORT@ {
	robots_txt {
		group GPTBot {
			disallow /
		}
		enforce {
			impostors 410
		}
	}
	@verified crawler verified
	robots_tag @verified max-snippet=50
	@unverified not crawler verified
	robots_tag @unverified noarchive
	@pending crawler pending
	robots_tag @pending nosnippet
	respond "{http.crawler.id}|{http.crawler.status}|{http.crawler.verified_by}"
}
`

// TestRobotsCheckIdentity runs `caddy robots check --client-ip` on a config that verifies
// Google's crawler from a local copy of its list (offline) and by reverse DNS (a fake
// resolver), and compares what it says with what the same config, served by Caddy, answers
// the same request: the identity, enforce's status for impostors, and the tags that crawler
// matchers choose.
func TestRobotsCheckIdentity(t *testing.T) {
	useResolver(t, &fakeResolver{
		ptr:     map[string][]string{"66.249.90.1": {"crawl-66-249-90-1.googlebot.com."}},
		forward: map[string][]netip.Addr{"crawl-66-249-90-1.googlebot.com": {netip.MustParseAddr("66.249.90.1")}},
	})
	g, _ := crawlers.BotByID("google-crawler")
	globals := fmt.Sprintf(`	crawlers {
		lists offline
		list_file %s ../identity/testdata/googlebot.json
		lists_dir %s
	}
	servers {
		trusted_proxies static 127.0.0.1/8 ::1/128
	}
`, g.Verification.IPRanges[0].URL, t.TempDir())
	caddyTesterWithGlobals(t, globals, checkIdentitySite)
	caddyfile := filepath.Join(t.TempDir(), "Caddyfile")
	if err := os.WriteFile(caddyfile, []byte(globalsWith(globals)+expand(checkIdentitySite)), 0o644); err != nil {
		t.Fatal(err)
	}
	const browser = "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36"
	for _, c := range []struct {
		ua, ip   string
		identity string // bot|status|by
		status   int    // enforce's, 0 when it passes
		text     []string
	}{
		{googlebotUA, "66.249.64.5", "google-crawler|verified|ip-list", 0, []string{
			"Identity: Googlebot (google-crawler, Google; search-engine) from 66.249.64.5: verified by ip-list (66.249.64.5 is in Google's published list)\n",
			"Robots-Tag:     *;max-snippet=50\n",
			"Enforcement: passes",
			"Crawler verification: reverse DNS on (check waits for the lookup a server answers pending until it is in)\n",
			"  trusted  " + g.Verification.IPRanges[0].URL + " (local file ../identity/testdata/googlebot.json): 5 prefixes, 340 bytes, less than a minute old\n",
		}},
		{googlebotUA, "2001:4860:4801:10::1", "google-crawler|verified|ip-list", 0, nil},
		{googlebotUA, "203.0.113.9", "google-crawler|impostor|", 410, []string{
			"Identity: claims Googlebot (google-crawler, Google; search-engine) from 203.0.113.9: impostor (its User-Agent names Googlebot, but its address is not in Google's published address lists, and its reverse DNS gives no host name of Google's that resolves back to it; enforce answers 410)\n",
			"Enforcement: BLOCKED with 410 (refused as an impostor: its User-Agent names Googlebot, but its address is not in Google's published address lists, and its reverse DNS gives no host name of Google's that resolves back to it)",
			"Note: reverse DNS was looked up for this check; a server answers the first requests from an address as pending",
		}},
		{googlebotUA, "66.249.90.1", "google-crawler|verified|reverse-dns", 0, []string{
			"from 66.249.90.1: verified by reverse-dns (66.249.90.1's host name is Google's and resolves back to it)\n",
		}},
		{browser, "203.0.113.9", "|none|", 0, []string{
			"Identity: none from 203.0.113.9 (the User-Agent names no bot of the catalogue)\n",
			"Robots-Tag:     *;noarchive\n",
		}},
		// One entry, several crawlers: the identity is the one the User-Agent names, with its
		// own categories (YandexBot is no AI crawler; YandexAdditional collects for training).
		{"Mozilla/5.0 (compatible; YandexBot/3.0; +http://yandex.com/bots)", "203.0.113.9", "yandex-crawler|impostor|", 410, []string{
			"Identity: claims YandexBot (yandex-crawler, Yandex; search-engine) from 203.0.113.9: impostor (its User-Agent names YandexBot, but its reverse DNS gives no host name of Yandex's that resolves back to it; enforce answers 410)\n",
			"Enforcement: BLOCKED with 410 (refused as an impostor: its User-Agent names YandexBot, but its reverse DNS gives no host name of Yandex's that resolves back to it)",
		}},
		{"Mozilla/5.0 (compatible; YandexAdditional/3.0; +http://yandex.com/bots)", "203.0.113.9", "yandex-crawler|impostor|", 410, []string{
			"Identity: claims YandexAdditional (yandex-crawler, Yandex; search-engine, ai-all, ai-training) from 203.0.113.9: impostor",
		}},
		// The file's enforcement is unchanged.
		{"GPTBot/1.2", "203.0.113.9", "openai-crawler|pending|", 403, []string{"Enforcement: BLOCKED with 403 (robots.txt disallows"}},
	} {
		args := []string{"--config", caddyfile, "--url", siteURL("/page"), "--agent", c.ua, "--client-ip", c.ip}
		out, errOut, textStatus := runCheck(t, args...)
		for _, w := range c.text {
			if !strings.Contains(out, w) {
				t.Errorf("%s from %s: output lacks %q:\n%s%s", c.ua, c.ip, w, out, errOut)
			}
		}
		out, errOut, st := runCheck(t, append(args, "--format", "json")...)
		var rep checkJSON
		if err := json.Unmarshal([]byte(out), &rep); err != nil || st != 0 && st != 1 || st != textStatus || rep.Verification == nil {
			t.Fatalf("%s from %s: status %d (text: %d), %v\n%s%s", c.ua, c.ip, st, textStatus, err, out, errOut)
		}
		id := rep.Verification.Identity
		if got := id.Bot + "|" + id.Status + "|" + id.By; got != c.identity {
			t.Errorf("%s from %s: check says %s, want %s", c.ua, c.ip, got, c.identity)
		}
		if e := rep.Enforcement; e.Status != c.status || e.Impostor != (c.status == 410) {
			t.Errorf("%s from %s: check's enforcement %+v, want %d", c.ua, c.ip, e, c.status)
		}
		// What Caddy answers. Where reverse DNS decides, the server answers pending until its
		// own lookup is in (the check's note says so): ask again until it is.
		var body []byte
		resp, body := do(t, "GET", siteURL("/page"), "User-Agent: "+c.ua, "X-Forwarded-For: "+c.ip)
		for deadline := time.Now().Add(10 * time.Second); strings.Contains(string(body), "|pending|") && id.Status != "pending" && time.Now().Before(deadline); {
			time.Sleep(10 * time.Millisecond)
			resp, body = do(t, "GET", siteURL("/page"), "User-Agent: "+c.ua, "X-Forwarded-For: "+c.ip)
		}
		if served := resp.StatusCode; c.status != 0 && served != c.status || c.status == 0 && served != 200 {
			t.Errorf("%s from %s: Caddy answers %d %s, check %+v", c.ua, c.ip, served, body, rep.Enforcement)
			continue
		}
		if c.status != 0 {
			continue
		}
		if string(body) != c.identity {
			t.Errorf("%s from %s: Caddy's identity %q, check's %q", c.ua, c.ip, body, c.identity)
		}
		if got := strings.Join(resp.Header.Values("Robots-Tag"), ", "); got != rep.Response.RobotsTag {
			t.Errorf("%s from %s: Caddy sends Robots-Tag %q, check says %q", c.ua, c.ip, got, rep.Response.RobotsTag)
		}
	}

	// Without an address the claim is pending, for the crawler matchers too, and check says
	// which flag gives one.
	out, _, st := runCheck(t, "--config", caddyfile, "--url", siteURL("/page"), "--agent", googlebotUA)
	for _, w := range []string{
		"Identity: claims Googlebot (google-crawler, Google; search-engine): pending (no client address: the claim cannot be verified without one)\n",
		"Robots-Tag:     *;nosnippet;noarchive\n",
		"Enforcement: passes",
		"Note: give the client's address with --client-ip to verify the crawler's claim as the server does\n",
	} {
		if st != 0 || !strings.Contains(out, w) {
			t.Errorf("no --client-ip: status %d, output lacks %q:\n%s", st, w, out)
		}
	}
	// An address that is none is a usage error naming the flag.
	if _, errOut, st := runCheck(t, "--config", caddyfile, "--url", siteURL("/page"), "--client-ip", "66.249.64"); st != 2 || !strings.Contains(errOut, `--client-ip "66.249.64": give the client's IP address`) {
		t.Errorf("a bad address: status %d, %s", st, errOut)
	}
}

// TestRobotsCheckIdentityNeeds: a config verifies crawlers when it configures the crawlers app
// or when a handler or matcher needs it (then with the app's defaults: lists fetched by the
// server, kept in Caddy's data directory, which check only reads); without either, check
// reports no identity and says the address is not used.
func TestRobotsCheckIdentityNeeds(t *testing.T) {
	dir := t.TempDir()
	site := func(body string) string {
		return "{\n\tcrawlers {\n\t\treverse_dns off\n\t}\n}\nhttp://localhost:9999 {\n" + body + "\trespond ok\n}\n"
	}
	noApp := func(body string) string { return "http://localhost:9999 {\n" + body + "\trespond ok\n}\n" }
	for _, c := range []struct {
		name, caddyfile string
		verifies        bool
	}{
		{"app configured", site(""), true},
		{"nothing", noApp("\trobots_tag noindex\n"), false},
		{"nested crawler matcher", noApp("\t@m not crawler verified\n\trobots_tag @m noindex\n"), true},
		{"impostors", noApp("\trobots_txt {\n\t\tgroup GPTBot {\n\t\t\tdisallow /\n\t\t}\n\t\tenforce {\n\t\t\timpostors\n\t\t}\n\t}\n"), true},
	} {
		name := filepath.Join(dir, strings.ReplaceAll(c.name, " ", "-")+".caddyfile")
		if err := os.WriteFile(name, []byte(c.caddyfile), 0o644); err != nil {
			t.Fatal(err)
		}
		lc, err := command.Load(name, "")
		if err != nil {
			t.Fatal(err)
		}
		lc.Close()
		if lc.Verifies() != c.verifies {
			t.Errorf("%s: crawlers app %v, want %v", c.name, lc.Verifies(), c.verifies)
		}
		if c.verifies {
			continue
		}
		out, _, st := runCheck(t, "--config", name, "--url", "http://localhost:9999/", "--agent", "Googlebot", "--client-ip", "203.0.113.9", "--format", "json")
		var rep checkJSON
		if err := json.Unmarshal([]byte(out), &rep); err != nil || st != 0 || rep.Verification != nil || !strings.Contains(strings.Join(rep.Notes, "\n"), "the site verifies no crawlers, so the client address is not used") {
			t.Errorf("%s: status %d, %v\n%s", c.name, st, err, out)
		}
	}
}

// TestRobotsCheckWithoutAddress: without --client-ip the crawler matchers of the walk see the
// identity check reports (pending: no address), not that of the documentation address the IP
// matchers see (an impostor, where the list and no reverse DNS answer).
func TestRobotsCheckWithoutAddress(t *testing.T) {
	g, _ := crawlers.BotByID("google-crawler")
	caddyfile := filepath.Join(t.TempDir(), "Caddyfile")
	config := fmt.Sprintf(`{
	crawlers {
		lists offline
		list_file %s ../identity/testdata/googlebot.json
		reverse_dns off
	}
}
http://localhost:9999 {
	@pending crawler pending
	robots_tag @pending nosnippet
	@fake crawler impostor
	robots_tag @fake noarchive
	respond ok
}
`, g.Verification.IPRanges[0].URL)
	if err := os.WriteFile(caddyfile, []byte(config), 0o644); err != nil {
		t.Fatal(err)
	}
	for ip, want := range map[string]string{"": "*;nosnippet", "203.0.113.9": "*;noarchive", "192.0.2.1": "*;noarchive"} {
		out, errOut, st := runCheck(t, "--config", caddyfile, "--url", "http://localhost:9999/", "--agent", "Googlebot", "--client-ip", ip, "--format", "json")
		var rep checkJSON
		if err := json.Unmarshal([]byte(out), &rep); err != nil || st != 0 || rep.Response.RobotsTag != want {
			t.Errorf("--client-ip %q: status %d, %v, Robots-Tag %q, want %q\n%s%s", ip, st, err, rep.Response.RobotsTag, want, out, errOut)
		}
	}
}
