package caddymodule

import (
	"bufio"
	"crypto/ed25519"
	"crypto/tls"
	"crypto/x509"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/sitepolicy/caddy-robots/metrics/prom"
	"github.com/sitepolicy/caddy-robots/webbotauth"
)

// truthSite counts its crawlers, keeps Googlebot out of /private/, refuses impostors with
// 410, and answers with the identity's placeholders.
const truthSite = `:@PORT@ {
	robots_txt {
		metrics
		group Googlebot {
			disallow /private/
		}
		enforce {
			impostors 410
		}
	}
	respond "{http.crawler.id}|{http.crawler.status}|{http.crawler.verified_by}|{http.crawler.failed}"
}
`

// refusalLog is a global log option writing robots_txt's lines (its refusals) to file as JSON.
func refusalLog(file string) string {
	return fmt.Sprintf("\tlog refusals {\n\t\toutput file %s\n\t\tformat json\n\t\tinclude http.handlers.robots_txt\n\t}\n", file)
}

// refusalLine waits for a line of robots_txt's log, after the first skip lines, whose message
// is msg, and returns its fields.
func refusalLine(t *testing.T, file string, skip int, msg string) map[string]any {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		lines := refusalLogLines(t, file)
		for _, l := range lines[min(skip, len(lines)):] {
			if l["msg"] == msg {
				return l
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("no log line %q after line %d of %d", msg, skip, len(lines))
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// refusalLogLines are the JSON lines of file.
func refusalLogLines(t *testing.T, file string) []map[string]any {
	t.Helper()
	f, err := os.Open(file)
	if os.IsNotExist(err) {
		return nil
	} else if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []map[string]any
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var m map[string]any
		if json.Unmarshal(sc.Bytes(), &m) == nil {
			out = append(out, m)
		}
	}
	return out
}

// refusalCase is one request and what the server, its log, its metrics and `robots check`
// must say of it.
type refusalCase struct {
	name   string
	r      *http.Request
	status int
	// msg is the refusal's text (the body after "<status> <text>: ", the log message,
	// check's Enforcement line); "" when served, body then holding want.
	msg, body string
	// rule and token are the log line's fields.
	rule, token string
	// series is the one metrics series the request adds ("crawler=…,identity_status=…,
	// outcome=…", its category left out); "" for none.
	series string
	// identity is what check's Identity line says (a part of it); "" when check cannot
	// judge it as the server does (an untrusted agent's directory, which check never fetches).
	identity string
}

// runRefusals sends each case through the running Caddy (config in caddyfile, the log in
// logFile) and checks that the response, the log line, the metrics and check agree.
func runRefusals(t *testing.T, caddyfile, logFile string, cases []refusalCase) {
	t.Helper()
	for _, c := range cases {
		skip := len(refusalLogLines(t, logFile))
		before := seriesOf(scrapeMetrics(t), prom.RequestsName)
		res, err := client.Do(c.r)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(res.Body)
		res.Body.Close()
		body := string(b)
		want := c.body
		if c.msg != "" {
			want = fmt.Sprintf("%d %s: %s\n", c.status, http.StatusText(c.status), c.msg)
		}
		if res.StatusCode != c.status || !strings.Contains(body, want) {
			t.Errorf("%s: %d %q, want %d with %q", c.name, res.StatusCode, body, c.status, want)
			continue
		}
		if c.msg != "" {
			l := refusalLine(t, logFile, skip, c.msg)
			if l["rule"] != c.rule || l["token"] != c.token || l["status"] != float64(c.status) {
				t.Errorf("%s: log line %v, want rule %q, token %q, status %d", c.name, l, c.rule, c.token, c.status)
			}
		}
		got := delta(before, seriesOf(scrapeMetrics(t), prom.RequestsName))
		switch {
		case c.series == "" && len(got) != 0:
			t.Errorf("%s: counted %v, want nothing", c.name, got)
		case c.series != "":
			ok := len(got) == 1
			for k, n := range got {
				_, rest, _ := strings.Cut(k, ",") // the category
				ok = ok && rest == c.series && n == 1
			}
			if !ok {
				t.Errorf("%s: counted %v, want %s once", c.name, got, c.series)
			}
		}
		if c.identity == "" {
			continue
		}
		args := []string{"--config", caddyfile, "--url", c.r.URL.String(), "--agent", c.r.Header.Get("User-Agent"), "--client-ip", c.r.Header.Get("X-Forwarded-For")}
		if c.r.Header.Get("Signature-Input") != "" {
			args = append(args, signatureArgs(c.r)...)
		}
		out, errOut, _ := runCheck(t, args...)
		idLine, enfLine := "", ""
		for _, l := range strings.Split(out, "\n") {
			if v, ok := strings.CutPrefix(l, "Identity: "); ok {
				idLine = v
			}
			if v, ok := strings.CutPrefix(l, "Enforcement: "); ok {
				enfLine = v
			}
		}
		if !strings.Contains(idLine, c.identity) {
			t.Errorf("%s: check's identity %q, want %q\n%s%s", c.name, idLine, c.identity, out, errOut)
		}
		if c.msg != "" && enfLine != fmt.Sprintf("BLOCKED with %d (%s)", c.status, c.msg) {
			t.Errorf("%s: check's enforcement %q, want the server's %q", c.name, enfLine, c.msg)
		}
		if c.msg != "" && strings.HasPrefix(c.msg, "refused as an impostor: ") && !strings.Contains(idLine, strings.TrimPrefix(c.msg, "refused as an impostor: ")) {
			t.Errorf("%s: check's identity %q does not say what the refusal says (%q)", c.name, idLine, c.msg)
		}
	}
}

// TestRefusalsTellTheTruth: through a real Caddy, each refusal says what was checked and
// failed, and its body, its log line (rule, token), its metrics series and `robots check`'s
// identity and enforcement lines agree: a forged signature of a trusted agent (from a
// browser's header, and on Googlebot's request from Google's list) names the signature and
// the agent's bot, not an address; a failing signature of an agent the config does not trust
// names no bot and is counted under "other"; a valid one of such an agent is signed and
// served; Googlebot's header from outside Google's list names Googlebot and the published
// addresses; Googlebot verified but disallowed by the file is refused for the file's rule.
func TestRefusalsTellTheTruth(t *testing.T) {
	priv := ed25519.NewKeyFromSeed([]byte("caddy-robots truth: trusted key!"))
	forger := ed25519.NewKeyFromSeed([]byte("caddy-robots truth: forger key!!"))
	untrusted := ed25519.NewKeyFromSeed([]byte("caddy-robots truth: untrusted!!!"))
	key, keyFile := agentKey(t, priv)
	ujwk := fmt.Sprintf(`{"kty":"OKP","crv":"Ed25519","x":%q}`, base64.RawURLEncoding.EncodeToString(untrusted.Public().(ed25519.PublicKey)))
	ukey, err := webbotauth.ParseJWK([]byte(ujwk))
	if err != nil {
		t.Fatal(err)
	}
	dir := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", webbotauth.DirectoryMediaType)
		w.Header().Set("Cache-Control", "max-age=3600")
		_, _ = io.WriteString(w, `{"keys":[`+ujwk+`]}`)
	}))
	defer dir.Close()
	pool := x509.NewCertPool()
	pool.AddCert(dir.Certificate())
	useDirectoryOptions(t, webbotauth.DirectoryOptions{TLSConfig: &tls.Config{RootCAs: pool}, AllowAddr: func(netip.Addr) bool { return true }})
	logFile := filepath.Join(t.TempDir(), "refusals.log")
	g := strings.Replace(crawlersGlobals(t, t.TempDir()), "reverse_dns off", "reverse_dns off\n\t\tsignature_agent https://agent.example GPTBot "+keyFile+"\n\t\tsignatures_fetch_untrusted", 1) + refusalLog(logFile)
	caddyTesterWithGlobals(t, g, truthSite)
	caddyfile := filepath.Join(t.TempDir(), "Caddyfile")
	if err := os.WriteFile(caddyfile, []byte(globalsWith(g)+expand(truthSite)), 0o644); err != nil {
		t.Fatal(err)
	}
	const browser = "Mozilla/5.0 (X11; Linux x86_64; rv:133.0) Gecko/20100101 Firefox/133.0"
	now := time.Now().Unix() - 1
	// The untrusted agent's directory is fetched at its first signed request: wait for it.
	for i := 0; ; i++ {
		res, err := client.Do(signAt(t, untrusted, ukey.ID, dir.URL, "", "/page", browser, "203.0.113.9", now))
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(res.Body)
		res.Body.Close()
		if strings.Contains(string(b), "|signed|") {
			break
		}
		if i == 250 {
			t.Fatalf("the untrusted agent's directory never answered: %q", b)
		}
		time.Sleep(20 * time.Millisecond)
	}
	const (
		forged    = "refused as an impostor: its Web Bot Auth signature, from the agent trusted for GPTBot, does not verify against that agent's key"
		untrusts  = "refused as an impostor: its Web Bot Auth signature, from an agent the config does not trust, does not verify against that agent's key"
		byAddress = "refused as an impostor: its User-Agent names Googlebot, but its address is not in Google's published address lists"
	)
	runRefusals(t, caddyfile, logFile, []refusalCase{
		{"forged signature of a trusted agent, browser header", signAt(t, forger, key.ID, "https://agent.example", "", "/page", browser, "203.0.113.9", now),
			410, forged, "", "impostor: signature", "GPTBot", "crawler=openai-crawler,identity_status=impostor,outcome=impostor",
			"claims GPTBot (openai-crawler, OpenAI; "},
		{"forged signature of a trusted agent, Googlebot from Google's list", signAt(t, forger, key.ID, "https://agent.example", "", "/page", googlebotUA, "66.249.64.5", now),
			410, forged, "", "impostor: signature", "GPTBot", "crawler=openai-crawler,identity_status=impostor,outcome=impostor",
			"from 66.249.64.5: impostor (its Web Bot Auth signature, from the agent trusted for GPTBot, does not verify against that agent's key, keyid " + key.ID},
		{"failing signature of an untrusted agent, browser header", signAt(t, forger, ukey.ID, dir.URL, "", "/page", browser, "203.0.113.9", now),
			410, untrusts, "", "impostor: signature", "", "crawler=other,identity_status=impostor,outcome=impostor", ""},
		{"failing signature of an untrusted agent, Googlebot from Google's list", signAt(t, forger, ukey.ID, dir.URL, "", "/page", googlebotUA, "66.249.64.5", now),
			410, untrusts, "", "impostor: signature", "", "crawler=other,identity_status=impostor,outcome=impostor", ""},
		{"valid signature of an untrusted agent", signAt(t, untrusted, ukey.ID, dir.URL, "", "/page", browser, "203.0.113.9", now),
			200, "", "|signed|signature|", "", "", "", ""},
		{"Googlebot's header from outside Google's list", signedless(t, "/page", googlebotUA, "203.0.113.9"),
			410, byAddress, "", "impostor: ip-list", "Googlebot", "crawler=google-crawler,identity_status=impostor,outcome=impostor",
			"from 203.0.113.9: impostor (its User-Agent names Googlebot, but its address is not in Google's published address lists; enforce answers 410)"},
		{"Googlebot's header from outside Google's list, at a path the file disallows", signedless(t, "/private/x", googlebotUA, "203.0.113.9"),
			410, byAddress, "", "impostor: ip-list", "Googlebot", "crawler=google-crawler,identity_status=impostor,outcome=impostor", "impostor (its User-Agent names Googlebot"},
		{"Googlebot verified by Google's list, disallowed by the file", signedless(t, "/private/x", googlebotUA, "66.249.64.5"),
			403, "robots.txt disallows this path for Googlebot (Disallow: /private/)", "", "disallow: /private/", "Googlebot", "crawler=google-crawler,identity_status=verified,outcome=enforced",
			"Googlebot (google-crawler, Google; search-engine) from 66.249.64.5: verified by ip-list"},
		{"Googlebot verified by Google's list, allowed", signedless(t, "/page", googlebotUA, "66.249.64.5"),
			200, "", "google-crawler|verified|ip-list|", "", "", "crawler=google-crawler,identity_status=verified,outcome=allowed", "verified by ip-list"},
	})
}

// signedless is an unsigned GET of path on the test site from ua at client.
func signedless(t *testing.T, path, ua, client string) *http.Request {
	t.Helper()
	r, err := http.NewRequest("GET", siteURL(path), nil)
	if err != nil {
		t.Fatal(err)
	}
	r.Header.Set("User-Agent", ua)
	r.Header.Set("X-Forwarded-For", client)
	return r
}

// TestRefusalsTellTheTruthReverseDNS: a reverse-DNS failure is said as one, and not as the
// published addresses, where the lists are off; with the lists on, both failed and both are
// said. The log, the metrics and check agree, as in TestRefusalsTellTheTruth.
func TestRefusalsTellTheTruthReverseDNS(t *testing.T) {
	useResolver(t, &fakeResolver{
		ptr:     map[string][]string{"198.51.100.4": {"crawl-66-249-90-2.googlebot.com."}},
		forward: map[string][]netip.Addr{"crawl-66-249-90-2.googlebot.com": {netip.MustParseAddr("66.249.90.2")}},
	})
	for _, c := range []struct {
		lists, msg, rule string
	}{
		{"lists off", "refused as an impostor: its User-Agent names Googlebot, but its reverse DNS gives no host name of Google's that resolves back to it", "impostor: reverse-dns"},
		{"", "refused as an impostor: its User-Agent names Googlebot, but its address is not in Google's published address lists, and its reverse DNS gives no host name of Google's that resolves back to it", "impostor: ip-list,reverse-dns"},
	} {
		logFile := filepath.Join(t.TempDir(), "refusals.log")
		g := strings.Replace(crawlersGlobals(t, t.TempDir()), "reverse_dns off", "dns_wait 5s", 1)
		if c.lists != "" {
			g = "\tcrawlers {\n\t\tlists off\n\t\tdns_wait 5s\n\t}\n\tservers {\n\t\ttrusted_proxies static 127.0.0.1/8 ::1/128\n\t}\n"
		}
		g += refusalLog(logFile)
		caddyTesterWithGlobals(t, g, truthSite)
		caddyfile := filepath.Join(t.TempDir(), "Caddyfile")
		if err := os.WriteFile(caddyfile, []byte(globalsWith(g)+expand(truthSite)), 0o644); err != nil {
			t.Fatal(err)
		}
		failure := strings.TrimPrefix(c.msg, "refused as an impostor: ")
		if c.lists != "" && strings.Contains(c.msg, "published") {
			t.Fatal("the test's own message names the lists")
		}
		runRefusals(t, caddyfile, logFile, []refusalCase{
			{c.lists + ": a host name that does not resolve back", signedless(t, "/page", googlebotUA, "198.51.100.4"),
				410, c.msg, "", c.rule, "Googlebot", "crawler=google-crawler,identity_status=impostor,outcome=impostor", "impostor (" + failure + "; enforce answers 410)"},
			{c.lists + ": no host name", signedless(t, "/page", googlebotUA, "203.0.113.50"),
				410, c.msg, "", c.rule, "Googlebot", "crawler=google-crawler,identity_status=impostor,outcome=impostor", "impostor (" + failure + "; enforce answers 410)"},
		})
	}
}
