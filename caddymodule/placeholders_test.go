package caddymodule

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/caddyserver/caddy/v2"
	"github.com/caddyserver/caddy/v2/modules/caddyhttp"
)

// TestCrawlerPlaceholdersEverywhere: the {http.crawler.*} placeholders are never sent as
// their literal text. With crawler_identity they have their values in a header, a respond
// body and a log_append field, in a site without a crawler matcher, with the matcher after
// the header, and in a route where enforcement runs after the header; without the crawlers
// app they are the User-Agent's claim, status "unchecked". A config that reads them where no
// module has identified the request is refused at load, naming the handler and the fix.
func TestCrawlerPlaceholdersEverywhere(t *testing.T) {
	verify := crawlersGlobals(t, t.TempDir())
	const headers = "\theader X-Crawler \"{http.crawler.name}|{http.crawler.status}|{http.crawler.verified_by}|{http.crawler.failed}\"\n"
	for _, c := range []struct {
		name, globals, site string
		ua, client, path    string
		status              int
		header, body        string
	}{
		{"header, no matcher", verify, "crawler_identity\n" + headers + "\trespond ok\n",
			googlebotUA, "66.249.64.5", "/", 200, "Googlebot|verified|ip-list|", "ok"},
		{"header, no matcher, impostor", verify, "crawler_identity\n" + headers + "\trespond ok\n",
			googlebotUA, "203.0.113.9", "/", 200, "Googlebot|impostor||ip-list", "ok"},
		{"header, no crawlers app", "", "crawler_identity\n" + headers + "\trespond ok\n",
			googlebotUA, "203.0.113.9", "/", 200, "Googlebot|unchecked||", "ok"},
		{"header, a browser", verify, "crawler_identity\n" + headers + "\trespond ok\n",
			"Mozilla/5.0 Firefox/133.0", "203.0.113.9", "/", 200, "|none||", "ok"},
		{"respond body, no matcher", verify, "crawler_identity\n\trespond \"{http.crawler.id} {http.crawler.operator} {http.crawler.category} {http.crawler.status}\"\n",
			googlebotUA, "66.249.64.5", "/", 200, "", "google-crawler Google search-engine verified"},
		{"matcher after the header", verify, "crawler_identity\n" + headers + "\t@g crawler Googlebot verified\n\trespond @g \"real\"\n\trespond \"other\"\n",
			googlebotUA, "66.249.64.5", "/", 200, "Googlebot|verified|ip-list|", "real"},
		{"enforcement after the header, in a route", verify, "crawler_identity\n\troute {\n\t" + headers + "\t\trobots_txt {\n\t\t\tenforce {\n\t\t\t\timpostors 410\n\t\t\t}\n\t\t}\n\t\trespond ok\n\t}\n",
			googlebotUA, "203.0.113.9", "/", 410, "Googlebot|impostor||ip-list", "refused as an impostor"},
		// Without crawler_identity, a header after the module that identified is right.
		{"header after the matcher", verify, "route {\n\t\t@g crawler\n\t\trespond @g \"{http.crawler.name} {http.crawler.status}\"\n\t\trespond none\n\t}\n",
			googlebotUA, "66.249.64.5", "/", 200, "", "Googlebot verified"},
	} {
		caddyTesterWithGlobals(t, c.globals, ":@PORT@ {\n\t"+c.site+"}\n")
		resp, body := do(t, "GET", siteURL(c.path), "User-Agent: "+c.ua, "X-Forwarded-For: "+c.client)
		if resp.StatusCode != c.status || resp.Header.Get("X-Crawler") != c.header || !strings.Contains(string(body), c.body) || strings.Contains(string(body), "{http.crawler") {
			t.Errorf("%s: %d, X-Crawler %q, %q; want %d, %q, %q", c.name, resp.StatusCode, resp.Header.Get("X-Crawler"), body, c.status, c.header, c.body)
		}
	}

	// log_append, in the access log, with the matcher after it and without.
	for _, site := range []string{
		"crawler_identity\n\tlog_append crawler {http.crawler.name}\n\tlog_append crawler_status {http.crawler.status}\n\trespond ok\n",
		"log_append crawler {http.crawler.name}\n\tlog_append crawler_status {http.crawler.status}\n\t@g crawler Googlebot\n\trespond @g ok\n\trespond no\n",
	} {
		logFile := filepath.Join(t.TempDir(), "access.log")
		caddyTesterWithGlobals(t, verify, fmt.Sprintf(":@PORT@ {\n\tlog {\n\t\toutput file %s\n\t}\n\t%s}\n", logFile, site))
		resp, _ := do(t, "GET", siteURL("/"), "User-Agent: "+googlebotUA, "X-Forwarded-For: 66.249.64.5")
		wantStatus(t, resp, 200)
		found := ""
		for deadline := time.Now().Add(10 * time.Second); found == "" && time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
			for _, l := range refusalLogLines(t, logFile) {
				if l["crawler"] != nil {
					found = fmt.Sprintf("%v %v", l["crawler"], l["crawler_status"])
				}
			}
		}
		if found != "Googlebot verified" {
			t.Errorf("log_append in %q: logged %q, want Googlebot verified", site, found)
		}
	}

	// Where nothing has identified the request: refused at load, with the fix.
	for _, c := range []struct{ name, globals, site, at string }{
		{"header, no matcher", verify, headers + "\trespond ok\n", "headers"},
		{"header, robots_txt without identity after it", "", headers + "\trobots_txt\n\trespond ok\n", "headers"},
		{"matcher after the header", verify, headers + "\t@g crawler Googlebot verified\n\trespond @g \"real\"\n", "headers"},
		{"enforcement after the header, in a route", verify, "route {\n\t" + headers + "\t\trobots_txt {\n\t\t\tenforce {\n\t\t\t\timpostors 410\n\t\t\t}\n\t\t}\n\t\trespond ok\n\t}\n", "headers"},
		{"respond body, no matcher", verify, "robots_tag noindex\n\trespond \"{http.crawler.status}\"\n", "static_response"},
		{"log_append, nothing identifies", verify, "log_append crawler {http.crawler.name}\n\trobots_tag noindex\n\trespond ok\n", "log_append"},
		{"a matched block identifies for itself only", verify, "handle /a {\n\t\t@g crawler\n\t\trespond @g x\n\t}\n\trespond \"{http.crawler.name}\"\n", "static_response"},
	} {
		status, msg := loadRaw(t, globalsWith(c.globals)+expand(":@PORT@ {\n\t"+c.site+"}\n"), "text/caddyfile")
		if status == http.StatusOK || !strings.Contains(msg, "(http.handlers."+c.at+"): reads an {http.crawler.*} placeholder") || !strings.Contains(msg, "put crawler_identity before it") {
			t.Errorf("%s: loaded with %d %q, want it refused naming %s and the fix", c.name, status, msg, c.at)
		}
	}
}

// TestCrawlerPlaceholdersLazy: crawler_identity finds nothing until a placeholder is read,
// then finds the identity once, which the matcher and every later read share.
func TestCrawlerPlaceholdersLazy(t *testing.T) {
	a := benchApp(t)
	runningCrawlers.Store(a)
	defer runningCrawlers.CompareAndSwap(a, nil)
	r := httptest.NewRequest("GET", "/", nil)
	r.Header.Set("User-Agent", googlebotUA)
	r.RemoteAddr = "66.249.64.5:1"
	repl := caddy.NewReplacer()
	r = caddyhttp.PrepareRequest(r, repl, httptest.NewRecorder(), &caddyhttp.Server{})
	providePlaceholders(r)
	vars := r.Context().Value(caddyhttp.VarsCtxKey).(map[string]any)
	if ci, _ := vars[identityVar].(*crawlerInfo); ci != nil {
		t.Fatal("identified before any placeholder was read")
	}
	if got := repl.ReplaceAll("{http.crawler.name} {http.crawler.status}", "?"); got != "Googlebot verified" {
		t.Fatalf("placeholders %q", got)
	}
	ci, _ := vars[identityVar].(*crawlerInfo)
	if ci == nil || a.identify(r) != ci {
		t.Fatal("the identity read is not the request's one identity")
	}
	// Read again: the stored identity answers, not a second identification (a stand-in
	// stored in its place is what the next read says).
	vars[identityVar] = noneInfo()
	if got := repl.ReplaceAll("{http.crawler.status}", "?"); got != "none" {
		t.Fatalf("second read %q: identified again", got)
	}
}

func init() { caddy.RegisterModule(zoneHandler{}) }

// zoneHandler stands for a plugin (rate_limit's zones) that evaluates request matchers of
// its own, then reads a placeholder: {"handler": "test_zone", "match": [...], "key": ...}.
type zoneHandler struct {
	MatchRaw caddyhttp.RawMatcherSets `json:"match,omitempty" caddy:"namespace=http.matchers"`
	Key      string                   `json:"key,omitempty"`
	match    caddyhttp.MatcherSets
}

func (zoneHandler) CaddyModule() caddy.ModuleInfo {
	return caddy.ModuleInfo{ID: "http.handlers.test_zone", New: func() caddy.Module { return new(zoneHandler) }}
}

func (h *zoneHandler) Provision(ctx caddy.Context) error {
	m, err := ctx.LoadModule(h, "MatchRaw")
	if err != nil {
		return err
	}
	for _, set := range m.([]map[string]any) {
		var ms caddyhttp.MatcherSet
		for _, v := range set {
			ms = append(ms, v)
		}
		h.match = append(h.match, ms)
	}
	return nil
}

func (h *zoneHandler) ServeHTTP(w http.ResponseWriter, r *http.Request, next caddyhttp.Handler) error {
	if ok, _ := h.match.AnyMatchWithError(r); ok {
		w.Header().Set("X-Key", r.Context().Value(caddy.ReplacerCtxKey).(*caddy.Replacer).ReplaceAll(h.Key, ""))
	}
	return next.ServeHTTP(w, r)
}

// TestCrawlerPlaceholdersInAHandlersOwnMatcher: a handler that evaluates a crawler matcher of
// its own before it reads the placeholders is not refused, and reads them right.
func TestCrawlerPlaceholdersInAHandlersOwnMatcher(t *testing.T) {
	caddyTesterWithGlobals(t, crawlersGlobals(t, t.TempDir()), ":@PORT@ {\n\trespond ok\n}\n")
	cfg := fmt.Sprintf(`{"admin":{"listen":"localhost:%d"},"apps":{"crawlers":{"lists":{"off":true},"reverse_dns":{"off":true}},"http":{"http_port":%d,"servers":{"s":{"listen":[":%d"],"routes":[{"handle":[
		{"handler":"test_zone","match":[{"crawler":{"bots":["Googlebot"]}}],"key":"{http.crawler.name} {http.crawler.status}"},
		{"handler":"static_response","body":"ok"}]}]}}}}}`, adminPort, sitePort, sitePort)
	if status, msg := loadRaw(t, cfg, "application/json"); status != http.StatusOK {
		t.Fatalf("refused: %s", msg)
	}
	resp, _ := do(t, "GET", siteURL("/"), "User-Agent: "+googlebotUA)
	if got := resp.Header.Get("X-Key"); got != "Googlebot pending" {
		t.Errorf("X-Key %q, want Googlebot pending", got)
	}
	// Without its own matcher, the same handler is refused.
	bare := strings.Replace(cfg, `"match":[{"crawler":{"bots":["Googlebot"]}}],`, "", 1)
	if status, msg := loadRaw(t, bare, "application/json"); status == http.StatusOK || !strings.Contains(msg, "(http.handlers.test_zone): reads an {http.crawler.*} placeholder") {
		t.Errorf("without its matcher: %d %q", status, msg)
	}
}
