package serve

import (
	"io"
	"maps"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/sitepolicy/caddy-robots/identity"
	"github.com/sitepolicy/caddy-robots/metrics"
	"github.com/sitepolicy/caddy-robots/policy"
)

// platformSite answers by path: HTML pages written in the ways handlers write them (Write,
// ReadFrom, a type left to sniffing, XHTML), and responses that are no HTML page (an image,
// a 404 page, a redirect, a sniffed plain text).
var platformSite = HandlerFunc(func(w http.ResponseWriter, r *http.Request) error {
	h := w.Header()
	switch r.URL.Path {
	case "/page", "/admin/page":
		h.Set("Content-Type", "text/html; charset=utf-8")
		_, _ = w.Write([]byte("<!doctype html><title>p</title>"))
	case "/xhtml":
		h.Set("Content-Type", "application/xhtml+xml")
		w.WriteHeader(http.StatusOK)
		_, _ = w.Write([]byte("<html xmlns='http://www.w3.org/1999/xhtml'/>"))
	case "/file":
		h.Set("Content-Type", "text/html")
		_, _ = io.Copy(w, strings.NewReader("<html>from a file</html>")) // ReadFrom
	case "/sniffed":
		_, _ = w.Write([]byte("<!DOCTYPE html><p>no type set</p>"))
	case "/sniffed-after-status":
		w.WriteHeader(http.StatusOK)
		_, _ = w.Write([]byte("<!DOCTYPE html><p>no type set, status first</p>"))
	case "/text":
		_, _ = w.Write([]byte("plain words"))
	case "/img":
		h.Set("Content-Type", "image/png")
		_, _ = w.Write([]byte("\x89PNG"))
	case "/moved":
		http.Redirect(w, r, "/page", http.StatusMovedPermanently)
	default:
		h.Set("Content-Type", "text/html")
		w.WriteHeader(http.StatusNotFound)
		_, _ = w.Write([]byte("<p>not found</p>"))
	}
	return nil
})

// platformPaths: whether a GET of the path is an HTML page the counts count.
var platformPaths = map[string]bool{"/page": true, "/xhtml": true, "/file": true, "/sniffed": true, "/sniffed-after-status": true, "/admin/page": true, "/text": false, "/img": false, "/moved": false, "/gone": false}

// platformAgents: User-Agents and the platform of the crawler each names ("" for none),
// whether it is a crawler at all.
var platformAgents = []struct {
	ua, platform string
	crawler      bool
}{
	{chromeUA, "", false},
	{"Mozilla/5.0 (X11; Linux x86_64; rv:133.0) Gecko/20100101 Firefox/133.0", "", false},
	{"Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)", "google", true},
	{"Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko; compatible; GPTBot/1.2; +https://openai.com/gptbot)", "openai", true},
	{"Mozilla/5.0 (compatible; ClaudeBot/1.0; +claudebot@anthropic.com)", "anthropic", true},
	{"DuckDuckBot/1.1; (+http://duckduckgo.com/duckduckbot.html)", "duckduckgo", true},
	{"CCBot/2.0 (https://commoncrawl.org/faq/)", "commoncrawl", true},
	{"Mozilla/5.0 (compatible; AhrefsBot/7.0; +http://ahrefs.com/robot/)", "", true},
	{"ExampleBot/1.0", "", true}, // a name only the served file has
}

// platformReferers: Referer values and the platform each names, written out by hand (the
// look-alikes name none).
var platformReferers = map[string]string{
	"":                                       "",
	"https://www.google.com/":                "google",
	"https://www.google.co.uk/search?q=x":    "google",
	"https://gemini.google.com/app":          "google",
	"https://chatgpt.com/":                   "openai",
	"https://chat.openai.com/c/1":            "openai",
	"https://claude.ai/chat/1":               "anthropic",
	"https://duckduckgo.com/?q=x":            "duckduckgo",
	"https://www.bing.com/search?q=x":        "microsoft",
	"https://chat.mistral.ai/chat":           "mistral",
	"https://mistral.ai/news/":               "",
	"https://notgoogle.com/":                 "",
	"https://google.com.evil.example/":       "",
	"https://evil.example/?u=www.google.com": "",
	"android-app://com.google.android.gm/":   "",
	"https://site.example/previous":          "",
}

// TestPlatformCounts: over generated traffic (browsers and crawlers of several platforms,
// with and without Referers naming platforms or only resembling their hosts, GET and HEAD,
// HTML pages and other responses, refusals), the counters hold what the traffic's own
// description says; and every response is the same with its Referer and without it.
func TestPlatformCounts(t *testing.T) {
	counters := metrics.NewCounters()
	// Enforced: "*" disallows /admin/ for the file's crawlers (ExampleBot), refused before
	// anything is served; GPTBot and the catalogue's crawlers are allowed.
	c := observedCore(t, observedFile(), &policy.Enforce{}, Options{Counters: counters})
	refs := make([]string, 0, len(platformReferers))
	for ref := range platformReferers {
		refs = append(refs, ref)
	}
	paths := make([]string, 0, len(platformPaths))
	for p := range platformPaths {
		paths = append(paths, p)
	}
	rnd := rand.New(rand.NewPCG(37, 3))
	n := 3000
	if raceEnabled {
		n = 300
	}
	wantCrawled, wantReferred := map[string]uint64{}, map[string]uint64{}
	serveOne := func(method, path, ua, ref string) *httptest.ResponseRecorder {
		r := httptest.NewRequest(method, path, nil)
		r.Header.Set("User-Agent", ua)
		if ref != "" {
			r.Header.Set("Referer", ref)
		}
		w := httptest.NewRecorder()
		if err := c.ServeHTTP(w, r, platformSite); err != nil {
			t.Fatal(err)
		}
		return w
	}
	for range n {
		a := platformAgents[rnd.IntN(len(platformAgents))]
		ref, path := refs[rnd.IntN(len(refs))], paths[rnd.IntN(len(paths))]
		method := http.MethodGet
		if rnd.IntN(5) == 0 {
			method = http.MethodHead
		}
		with := serveOne(method, path, a.ua, ref)
		without := serveOne(method, path, a.ua, "")
		if with.Code != without.Code || with.Body.String() != without.Body.String() || !maps.EqualFunc(with.Header(), without.Header(), func(a, b []string) bool { return strings.Join(a, "\n") == strings.Join(b, "\n") }) {
			t.Fatalf("%s %s by %q: the Referer %q changed the response: %d %v %q, without %d %v %q", method, path, a.ua, ref,
				with.Code, with.Header(), with.Body, without.Code, without.Header(), without.Body)
		}
		refused := a.ua == "ExampleBot/1.0" && strings.HasPrefix(path, "/admin/")
		if method != http.MethodGet || !platformPaths[path] || refused {
			continue
		}
		switch {
		case a.platform != "":
			wantCrawled[a.platform+"/unchecked"] += 2 // served twice: with and without the Referer
		case !a.crawler && platformReferers[ref] != "":
			wantReferred[platformReferers[ref]]++
		}
	}
	gotCrawled, gotReferred := map[string]uint64{}, map[string]uint64{}
	counters.EachCrawledHTML(func(p, s string, n uint64) { gotCrawled[p+"/"+s] = n })
	counters.EachReferred(func(p string, n uint64) {
		if n > 0 {
			gotReferred[p] = n
		}
	})
	if !maps.Equal(gotCrawled, wantCrawled) {
		t.Errorf("crawled %v, want %v", gotCrawled, wantCrawled)
	}
	if !maps.Equal(gotReferred, wantReferred) {
		t.Errorf("referred %v, want %v", gotReferred, wantReferred)
	}
}

// TestPlatformCountsByIdentity: a verified crawler counts under its status; an impostor
// (not refused here) is no platform's crawler and no browser; a browser's request that
// carries a bot identity (a Web Bot Auth signature of an agent the config does not map) is no
// visit.
func TestPlatformCountsByIdentity(t *testing.T) {
	counters := metrics.NewCounters()
	identify := func(r *http.Request) identity.Identity {
		switch r.Header.Get("X-Test-Identity") {
		case "verified":
			return identity.Identity{Bot: "google-crawler", Name: "Googlebot", Status: identity.Verified}
		case "impostor":
			return identity.Identity{Bot: "google-crawler", Name: "Googlebot", Status: identity.Impostor}
		case "signed":
			return identity.Identity{Status: identity.Signed}
		}
		return identity.Identity{}
	}
	c := observedCore(t, observedFile(), nil, Options{Counters: counters, Identify: identify})
	for _, tc := range []struct{ ua, id string }{
		{"Googlebot/2.1", "verified"}, {"Googlebot/2.1", "impostor"}, {chromeUA, "signed"}, {chromeUA, ""},
	} {
		r := httptest.NewRequest("GET", "/page", nil)
		r.Header.Set("User-Agent", tc.ua)
		r.Header.Set("X-Test-Identity", tc.id)
		r.Header.Set("Referer", "https://www.bing.com/")
		if err := c.ServeHTTP(httptest.NewRecorder(), r, platformSite); err != nil {
			t.Fatal(err)
		}
	}
	got := map[string]uint64{}
	counters.EachCrawledHTML(func(p, s string, n uint64) { got["crawled "+p+"/"+s] = n })
	counters.EachReferred(func(p string, n uint64) {
		if n > 0 {
			got["referred "+p] = n
		}
	})
	if want := map[string]uint64{"crawled google/verified": 1, "referred microsoft": 1}; !maps.Equal(got, want) {
		t.Errorf("counts %v, want %v", got, want)
	}
}
