package caddymodule

import (
	"bytes"
	"crypto/ed25519"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/caddyserver/caddy/v2/caddyconfig"
	"golang.org/x/net/html"

	"github.com/sitepolicy/caddy-robots/identity"
)

const googleListURL = "https://developers.google.com/static/search/apis/ipranges/googlebot.json"

// crawlerFiles writes the files the crawlers cases name: list files good and bad, a key
// file, and returns their paths by name.
func crawlerFiles(t *testing.T) map[string]string {
	t.Helper()
	dir := t.TempDir()
	_, priv, _ := ed25519.GenerateKey(nil)
	files := map[string]string{
		"good.json":     `{"prefixes":[{"ipv4Prefix":"66.249.64.0/27"},{"ipv6Prefix":"2001:4860:4801:10::/64"}]}`,
		"html.json":     "<html><body>Moved</body></html>",
		"entry.json":    `{"prefixes":[{"ipv4Prefix":"66.249.64.0/27"},{"ipv4Prefix":"66.249.64.300/27"}]}`,
		"short.json":    `{"prefixes":[{"ipv6Prefix":"2001:4860:4801:10::/64"},{"ipv4Prefix":"0.0.0.0/0"}]}`,
		"shape.json":    `{"prefixes":{"ipv4Prefix":"66.249.64.0/27"}}`,
		"empty.json":    `{"creationTime":"2026-11-20T00:00:00","prefixes":[]}`,
		"number.json":   `{"prefixes":[{"ipv4Prefix":66}]}`,
		"agent.jwk":     fmt.Sprintf(`{"kty":"OKP","crv":"Ed25519","x":%q}`, base64.RawURLEncoding.EncodeToString(priv.Public().(ed25519.PublicKey))),
		"not-a-key.jwk": `{"kty":"RSA"}`,
	}
	out := map[string]string{"missing.json": filepath.Join(dir, "missing.json")}
	for name, body := range files {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
		out[name] = p
	}
	return out
}

// crawlersOptionCase is a crawlers option (or a site block) with a marked line ("# <-")
// that the error must name, and what the error says.
type crawlersOptionCase struct {
	name, option, site string
	want               []string
}

func crawlersOptionCases(f map[string]string) []crawlersOptionCase {
	opt := func(lines ...string) string { return "\tcrawlers {\n\t\t" + strings.Join(lines, "\n\t\t") + "\n\t}\n" }
	lf := func(file string) string { return "list_file " + googleListURL + " " + file }
	return []crawlersOptionCase{
		{"nothing verifies offline", opt("lists offline # <-", "reverse_dns off"), "", []string{"offline with no list file", "reverse DNS off and no signature agent: nothing would verify"}},
		{"list file not JSON", opt("lists offline", lf(f["html.json"])+" # <-"), "", []string{`list_file "` + f["html.json"] + `"`, "not a JSON document"}},
		{"list file bad entry", opt(lf(f["entry.json"]) + " # <-"), "", []string{`list_file "` + f["entry.json"] + `"`, `entry $.prefixes[1].ipv4Prefix: "66.249.64.300/27" is neither an IP prefix nor an address`}},
		{"list file too short a prefix", opt("reverse_dns off", lf(f["short.json"])+" # <-"), "", []string{f["short.json"], `entry $.prefixes[1].ipv4Prefix: "0.0.0.0/0" is shorter than /8`}},
		{"list file wrong shape", opt(lf(f["shape.json"]) + " # <-"), "", []string{f["shape.json"], "the list holds no prefix"}},
		{"list file empty prefixes", opt(lf(f["empty.json"]) + " # <-"), "", []string{f["empty.json"], "the list holds no prefix"}},
		{"list file number entry", opt(lf(f["number.json"]) + " # <-"), "", []string{f["number.json"], "entry $.prefixes[0].ipv4Prefix: selector", "picks a number"}},
		{"list file missing", opt(lf(f["missing.json"]) + " # <-"), "", []string{f["missing.json"], "no such file or directory"}},
		{"second list file bad", opt(lf(f["good.json"]), "list_file https://openai.com/gptbot.json "+f["entry.json"]+" # <-"), "", []string{`entry $.prefixes[1].ipv4Prefix`}},
		{"list URL not the catalogue's", opt("list_file https://example.com/list.json " + f["good.json"] + " # <-"), "", []string{"the bot catalogue names no list at this URL"}},
		{"lists off and a file", opt("lists off # <-", lf(f["good.json"])), "", []string{"off, and yet offline or local files given"}},
		{"refresh too short", opt("refresh 1s # <-"), "", []string{`refresh "1s": at least 10m0s`}},
		{"refresh not a duration", opt("refresh soon # <-"), "", []string{`refresh "soon": a duration`}},
		{"dns_timeout zero", opt("dns_timeout 0s # <-"), "", []string{`dns_timeout "0s": a duration`}},
		{"dns_max_in_flight zero", opt("dns_max_in_flight 0 # <-"), "", []string{`dns_max_in_flight "0": a positive number`}},
		{"unknown sub-option", opt("reverse_dns off", "refrsh 1h # <-"), "", []string{`unknown sub-directive "refrsh"`, `did you mean "refresh"?`}},
		{"lists bad value", opt("lists sometimes # <-"), "", []string{`lists "sometimes": on, off or offline`}},
		{"signature agent bad URL", opt("signature_agent http://agent.example openai-crawler # <-"), "", []string{`signature_agent "http://agent.example"`, "https"}},
		{"signature agent unknown bot", opt("signature_agent https://agent.example GPTBott # <-"), "", []string{`signature_agent "GPTBott": not one bot of the catalogue`, `did you mean "GPTBot"?`}},
		{"signature agent key file missing", opt("signature_agent https://agent.example openai-crawler " + f["missing.json"] + " # <-"), "", []string{`signature_agent "` + f["missing.json"] + `"`, "no such file"}},
		{"signature agent key file not a key", opt("reverse_dns off", "signature_agent https://agent.example openai-crawler "+f["not-a-key.jwk"]+" # <-"), "", []string{`signature_agent "` + f["not-a-key.jwk"] + `"`}},
		{"signature agent twice", opt("signature_agent https://agent.example openai-crawler "+f["agent.jwk"], "signature_agent https://agent.example/ openai-crawler # <-"), "", []string{"given twice"}},
		{"crawlers in a site block", "", "\tcrawlers { # <-\n\t\tlists off\n\t}\n\trespond 1\n", []string{"crawlers is a global option", "global options block"}},
		{"crawlers in a handle block", "", "\thandle /x {\n\t\tcrawlers { # <-\n\t\t\treverse_dns off\n\t\t}\n\t}\n\trespond 1\n", []string{"crawlers is a global option"}},
	}
}

// crawlersCaddyfile is the whole Caddyfile of a case and the line its error must name.
func crawlersCaddyfile(t *testing.T, c crawlersOptionCase) (string, int) {
	t.Helper()
	cfg := globalsWith(c.option) + expand(":@PORT@ {\n"+c.site+"\trespond 1\n}\n")
	for i, l := range strings.Split(cfg, "\n") {
		if strings.HasSuffix(l, "# <-") {
			return cfg, i + 1
		}
	}
	t.Fatalf("%s: no line is marked", c.name)
	return "", 0
}

// TestCrawlersOptionErrorsNameTheLine: every problem of the crawlers option, those the app
// finds in a named file included, is refused when the Caddyfile is adapted, at the line of
// the sub-directive that set the field, saying what is wrong (in a list file: the file, the
// entry and its value); written in a site block, crawlers is said to be a global option.
func TestCrawlersOptionErrorsNameTheLine(t *testing.T) {
	f := crawlerFiles(t)
	for _, c := range crawlersOptionCases(f) {
		t.Run(c.name, func(t *testing.T) {
			cfg, line := crawlersCaddyfile(t, c)
			_, _, err := caddyconfig.GetAdapter("caddyfile").Adapt([]byte(cfg), map[string]any{"filename": "Caddyfile"})
			if err == nil {
				t.Fatalf("adapted:\n%s", cfg)
			}
			for _, w := range append(c.want, fmt.Sprintf("Caddyfile:%d", line)) {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q does not say %q", err, w)
				}
			}
			if strings.Contains(err.Error(), "crawlers.lists") || strings.Contains(err.Error(), "crawlers.signatures") {
				t.Errorf("error %q names a JSON path: a Caddyfile names lines", err)
			}
		})
	}
}

// TestCrawlersConfigThatVerifiesLoads: a config with lists offline loads when something
// else verifies crawlers: a trusted signature agent (with its key file, or its directory),
// or reverse DNS (on by default); with good list files it loads too. Each is adapted and
// loaded into the running Caddy, as caddy reload does.
func TestCrawlersConfigThatVerifiesLoads(t *testing.T) {
	f := crawlerFiles(t)
	for name, option := range map[string]string{
		"offline, a signature agent with its key file": "\t\tlists offline\n\t\treverse_dns off\n\t\tsignature_agent https://agent.example openai-crawler " + f["agent.jwk"] + "\n",
		"offline, reverse DNS on":                      "\t\tlists offline\n",
		"offline, a list file":                         "\t\tlists offline\n\t\treverse_dns off\n\t\tlist_file " + googleListURL + " " + f["good.json"] + "\n",
		"two good list files":                          "\t\tlist_file " + googleListURL + " " + f["good.json"] + "\n\t\tlist_file https://openai.com/gptbot.json ../identity/testdata/gptbot.json\n",
	} {
		t.Run(name, func(t *testing.T) {
			cfg := globalsWith("\tcrawlers {\n"+option+"\t}\n") + expand(":@PORT@ {\n\t@v crawler verified\n\trespond @v 1\n\trespond 2\n}\n")
			if status, msg := loadRaw(t, cfg, "text/caddyfile"); status != http.StatusOK {
				t.Fatalf("refused: %s\n%s", msg, cfg)
			}
		})
	}
}

// TestCrawlersOnIsTheDefault: "lists on" and "reverse_dns on", written so that a Caddyfile
// can take the choice from the environment ({$CRAWLER_LISTS:on}), configure the verification
// the option's defaults do; "off" and "offline", beside them, still change it.
func TestCrawlersOnIsTheDefault(t *testing.T) {
	t.Setenv("TEST_CRAWLER_LISTS", "offline")
	options := func(option string) identity.ServiceOptions {
		t.Helper()
		cfg := globalsWith("\tcrawlers {\n"+option+"\t}\n") + expand(":@PORT@ {\n\trespond 1\n}\n")
		out, _, err := caddyconfig.GetAdapter("caddyfile").Adapt([]byte(cfg), map[string]any{"filename": "Caddyfile"})
		if err != nil {
			t.Fatalf("%q: %v", option, err)
		}
		var c struct {
			Apps struct {
				Crawlers Crawlers `json:"crawlers"`
			} `json:"apps"`
		}
		if err := json.Unmarshal(out, &c); err != nil {
			t.Fatal(err)
		}
		return c.Apps.Crawlers.serviceOptions(nil)
	}
	def := options("\t\tdns_max_in_flight 8\n")
	for _, on := range []string{"\t\tlists on\n", "\t\treverse_dns on\n", "\t\tlists on\n\t\treverse_dns on\n", "\t\tlists {$UNSET_CRAWLER_LISTS:on}\n"} {
		if got := options(on + "\t\tdns_max_in_flight 8\n"); !reflect.DeepEqual(got, def) {
			t.Errorf("%q: %+v, want the default %+v", on, got, def)
		}
	}
	if got := options("\t\tlists {$TEST_CRAWLER_LISTS:on}\n"); !got.Lists.Offline || got.NoLists {
		t.Errorf("lists from the environment (offline): %+v", got.Lists)
	}
	if got := options("\t\tlists off\n"); !got.NoLists {
		t.Errorf("lists off: %+v", got)
	}
	if got := options("\t\treverse_dns off\n"); !got.NoDNS {
		t.Errorf("reverse_dns off: %+v", got)
	}
	if got := options("\t\treverse_dns off\n\t\treverse_dns on\n"); got.NoDNS {
		t.Errorf("reverse_dns off, then on: %+v", got)
	}
}

// TestCrawlersJSONErrorsNameThePath: the same problems in Caddy's JSON config are refused
// when it is loaded, each at its field's path under crawlers, with the same words.
func TestCrawlersJSONErrorsNameThePath(t *testing.T) {
	f := crawlerFiles(t)
	for _, c := range []struct{ app, want string }{
		{`{"lists":{"local":{"` + googleListURL + `":"` + f["entry.json"] + `"}}}`, `crawlers.lists.local["` + googleListURL + `"] "` + f["entry.json"] + `": list refused: entry $.prefixes[1].ipv4Prefix: "66.249.64.300/27" is neither`},
		{`{"lists":{"local":{"` + googleListURL + `":"` + f["html.json"] + `"}}}`, `crawlers.lists.local["` + googleListURL + `"] "` + f["html.json"] + `": list refused: not a JSON document`},
		{`{"lists":{"offline":true},"reverse_dns":{"off":true}}`, "crawlers.lists.offline: offline with no list file (local), reverse DNS off and no signature agent: nothing would verify"},
		{`{"lists":{"refresh":"1s"}}`, `crawlers.lists.refresh "1s": at least 10m0s`},
		{`{"reverse_dns":{"resolver":"dns.example"}}`, `crawlers.reverse_dns.resolver "dns.example": not an IP address and port`},
		{`{"reverse_dns":{"max_in_flight":-1}}`, `crawlers.reverse_dns.max_in_flight "-1": must not be negative`},
		{`{"signatures":{"agents":[{"url":"https://agent.example","bot":"GPTBott"}]}}`, `crawlers.signatures.agents[0].bot "GPTBott": not one bot of the catalogue (by ID or name); did you mean "GPTBot"?`},
		{`{"signatures":{"agents":[{"url":"https://agent.example","bot":"openai-crawler","key_file":"` + f["missing.json"] + `"}]}}`, `crawlers.signatures.agents[0].key_file "` + f["missing.json"] + `": open`},
	} {
		cfg := fmt.Sprintf(`{"admin": {"listen": "localhost:%d"}, "apps": {"crawlers": %s, "http": {"servers": {"s": {"listen": [":%d"], "routes": [{"handle": [{"handler": "static_response"}]}]}}}}}`, adminPort, c.app, sitePort)
		status, msg := loadRaw(t, cfg, "application/json")
		if status == http.StatusOK || !strings.Contains(msg, c.want) {
			t.Errorf("crawlers %s: %d %q, want %q", c.app, status, msg, c.want)
		}
	}
}

// TestCrawlersConfigCommandLine runs the built caddy as users do: validate and adapt refuse
// a Caddyfile whose list file is bad, naming the Caddyfile's line, the file and the entry;
// validate refuses the JSON config naming the field's path; a Caddyfile with lists offline
// and a signature agent validates; crawlers in a site block is said to be a global option.
func TestCrawlersConfigCommandLine(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs the caddy-robots binary")
	}
	dir := t.TempDir()
	f := crawlerFiles(t)
	write := func(name, body string) {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	site := "http://localhost:9999 {\n\t@v crawler verified\n\trespond @v 1\n}\n"
	write("Caddyfile", "{\n\tcrawlers {\n\t\tlists_dir "+dir+"\n\t\tlist_file "+googleListURL+" "+f["entry.json"]+"\n\t}\n}\n"+site)
	wantEntry := `entry $.prefixes[1].ipv4Prefix: \"66.249.64.300/27\" is neither`
	for _, args := range [][]string{{"validate", "--config", "Caddyfile"}, {"adapt", "--config", "Caddyfile"}} {
		out, errOut, st := runCaddy(t, dir, args...)
		all := out + errOut
		if st == 0 || !strings.Contains(all, "Caddyfile:4") || !strings.Contains(all, f["entry.json"]) ||
			!(strings.Contains(all, wantEntry) || strings.Contains(all, strings.ReplaceAll(wantEntry, `\"`, `"`))) {
			t.Errorf("%v: status %d, want an error at Caddyfile:4 naming %s and the entry:\n%s", args, st, f["entry.json"], all)
		}
	}
	write("caddy.json", `{"apps":{"crawlers":{"lists":{"dir":"`+dir+`","local":{"`+googleListURL+`":"`+f["html.json"]+`"}}},"http":{"servers":{"s":{"listen":[":9999"],"routes":[{"handle":[{"handler":"static_response"}]}]}}}}}`)
	out, errOut, st := runCaddy(t, dir, "validate", "--config", "caddy.json")
	if all := out + errOut; st == 0 || !strings.Contains(all, `crawlers.lists.local[`) || !strings.Contains(all, "not a JSON document") {
		t.Errorf("validate caddy.json: status %d, want the field's path:\n%s", st, all)
	}
	write("Caddyfile", "{\n\tcrawlers {\n\t\tlists_dir "+dir+"\n\t\tlists offline\n\t\treverse_dns off\n\t\tsignature_agent https://agent.example openai-crawler "+f["agent.jwk"]+"\n\t}\n}\n"+site)
	if out, errOut, st := runCaddy(t, dir, "validate", "--config", "Caddyfile"); st != 0 {
		t.Errorf("lists offline with a signature agent: status %d\n%s%s", st, out, errOut)
	}
	write("Caddyfile", "http://localhost:9999 {\n\tcrawlers {\n\t\tlists off\n\t}\n\trespond 1\n}\n")
	if out, errOut, st := runCaddy(t, dir, "adapt", "--config", "Caddyfile"); st == 0 || !strings.Contains(out+errOut, "crawlers is a global option") || !strings.Contains(out+errOut, "Caddyfile:2") {
		t.Errorf("crawlers in a site block: status %d\n%s%s", st, out, errOut)
	}
}

// TestReportHTMLOfCaddysLog serves requests whose paths hold bidi and control characters
// (sent raw on the wire, as a client may) with a real Caddy logging to a file, then runs
// "caddy robots report --format html" on that log: the page, parsed as a browser parses it,
// shows each path escaped, and holds none of those characters raw.
func TestReportHTMLOfCaddysLog(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs the caddy-robots binary")
	}
	dir := t.TempDir()
	logFile := filepath.Join(dir, "access.log")
	site := fmt.Sprintf("http://localhost:@PORT@ {\n\tlog {\n\t\toutput file %s\n\t}\n\trobots_txt {\n\t\tgroup GPTBot {\n\t\t\tdisallow /\n\t\t}\n\t}\n\trespond \"ok\"\n}\n", logFile)
	caddyTesterWithGlobals(t, "", site)
	paths := map[string]string{ // as sent, as the page must show it
		"/invoice\u202egpj.exe":          `/invoice\u202egpj.exe`,
		"/a\u2066b\u2069c\u200fd":        `/a\u2066b\u2069c\u200fd`,
		"/x\u0085y\u061cz":               `/x\x85y\u061cz`,
		"/<b>bold</b>&amp;\u202dtail":    `/<b>bold</b>&amp;\u202dtail`,
		"/caf\u00e9/\u202a\u202b\u202c/": `/café/\u202a\u202b\u202c/`,
	}
	for p := range paths {
		conn, err := net.Dial("tcp", fmt.Sprintf("localhost:%d", sitePort))
		if err != nil {
			t.Fatal(err)
		}
		fmt.Fprintf(conn, "GET %s HTTP/1.1\r\nHost: localhost:%d\r\nUser-Agent: GPTBot/1.2\r\nConnection: close\r\n\r\n", p, sitePort)
		var resp bytes.Buffer
		_, _ = resp.ReadFrom(conn)
		conn.Close()
		if !strings.HasPrefix(resp.String(), "HTTP/1.1 200") {
			t.Fatalf("GET %q: %q", p, resp.String())
		}
	}
	if err := os.WriteFile(filepath.Join(dir, "Caddyfile"), []byte(globalsWith("")+expand(site)), 0o644); err != nil {
		t.Fatal(err)
	}
	var raw []byte
	for range 100 { // the log is written as the requests end
		raw, _ = os.ReadFile(logFile)
		if bytes.Count(raw, []byte("\n")) >= len(paths) {
			break
		}
		time.Sleep(50 * time.Millisecond)
	}
	out, errOut, st := runCaddy(t, dir, "robots", "report", "--config", "Caddyfile", "--site", siteURL(""), "--format", "html", "access.log")
	if st != 1 {
		t.Fatalf("status %d, want 1 (violations)\n%s\n%s\nlog:\n%s", st, out, errOut, raw)
	}
	doc, err := html.Parse(strings.NewReader(out))
	if err != nil {
		t.Fatal(err)
	}
	var cells []string
	var walk func(*html.Node)
	walk = func(n *html.Node) {
		for _, a := range n.Attr {
			if strings.IndexFunc(a.Val, hiddenForTest) >= 0 {
				t.Errorf("attribute %s=%q holds a control or bidi character raw", a.Key, a.Val)
			}
		}
		if n.Type == html.TextNode && n.Parent.Data != "style" && n.Parent.Data != "pre" {
			if strings.IndexFunc(strings.Trim(n.Data, "\n"), hiddenForTest) >= 0 {
				t.Errorf("text %q of <%s> holds a control or bidi character raw", n.Data, n.Parent.Data)
			}
			cells = append(cells, n.Data)
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			walk(c)
		}
	}
	walk(doc)
	for sent, shown := range paths {
		found := false
		for _, c := range cells {
			found = found || c == shown
		}
		if !found {
			t.Errorf("path %q is not shown as %q", sent, shown)
		}
	}
	var data map[string]any
	if m := regexp.MustCompile(`(?s)<script type="application/json" id="report-data">(.*?)</script>`).FindStringSubmatch(out); m == nil || json.Unmarshal([]byte(m[1]), &data) != nil {
		t.Error("the page's report data is not JSON")
	}
}

// hiddenForTest is what the report must not show raw: controls (but a newline between
// elements), DEL, C1 controls, bidi controls and marks, line and paragraph separators.
func hiddenForTest(r rune) bool {
	return r < 0x20 || r == 0x7f || (r >= 0x80 && r < 0xa0) || (r >= 0x202a && r <= 0x202e) || (r >= 0x2066 && r <= 0x2069) ||
		r == 0x200e || r == 0x200f || r == 0x061c || r == 0x2028 || r == 0x2029
}

// TestReportReadsSizesAlike runs "caddy robots report" on the same requests logged as
// Combined lines and as Caddy's JSON: sizes of 19 digits up to the largest int64 are read in
// both (summed saturating), one beyond it refused by both, and the JSON reports agree.
func TestReportReadsSizesAlike(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs the caddy-robots binary")
	}
	dir := t.TempDir()
	site := "http://localhost:9999 {\n\trobots_txt {\n\t\tgroup GPTBot {\n\t\t\tdisallow /private/\n\t\t}\n\t}\n}\n"
	var clf, js strings.Builder
	for i, size := range []string{"9223372036854775807", "1000000000000000000", "5", "9223372036854775808", "0", "123456789012345678901"} {
		ts := time.Date(2026, 11, 20, 10, i, 0, 0, time.UTC)
		fmt.Fprintf(&clf, `20.15.240.64 - - [%s] "GET /private/%d HTTP/1.1" 200 %s "-" "GPTBot/1.2"`+"\n", ts.Format("02/Jan/2006:15:04:05 -0700"), i, size)
		fmt.Fprintf(&js, `{"ts":%d,"request":{"client_ip":"20.15.240.64","method":"GET","host":"localhost","uri":"/private/%d","headers":{"User-Agent":["GPTBot/1.2"]}},"status":200,"size":%s}`+"\n", ts.Unix(), i, size)
	}
	for name, body := range map[string]string{"Caddyfile": site, "combined.log": clf.String(), "caddy.log": js.String()} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	totals := map[string]string{}
	for _, log := range []string{"combined.log", "caddy.log"} {
		out, errOut, _ := runCaddy(t, dir, "robots", "report", "--config", "Caddyfile", "--site", "http://localhost:9999", "--format", "json", log)
		var rep struct {
			Totals     map[string]int64 `json:"totals"`
			Unreadable struct {
				Count int64 `json:"count"`
			} `json:"unreadable"`
		}
		if err := json.Unmarshal([]byte(out), &rep); err != nil {
			t.Fatalf("%s: %v\n%s\n%s", log, err, out, errOut)
		}
		if rep.Totals["requests"] != 4 || rep.Totals["bytes"] != 1<<63-1 || rep.Unreadable.Count != 2 {
			t.Errorf("%s: totals %v, %d unreadable; want 4 requests, 9223372036854775807 bytes (saturated), 2 unreadable", log, rep.Totals, rep.Unreadable.Count)
		}
		b, _ := json.Marshal(rep)
		totals[log] = string(b)
	}
	if totals["combined.log"] != totals["caddy.log"] {
		t.Errorf("Combined %s, JSON %s", totals["combined.log"], totals["caddy.log"])
	}
}
