package caddymodule

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/sitepolicy/caddy-robots/nethttp"
	"github.com/sitepolicy/caddy-robots/policy"
	"github.com/sitepolicy/caddy-robots/tdmrep"
)

// tdmSites are two site blocks on one server (localhost and second.example on @PORT@) with
// robots_tag routes declaring tdm, and a site on another server (@PORT2@) with none, whose
// backend has its own tdmrep.json.
const tdmSites = `
http://localhost:@PORT@ {
	robots_txt {
		group * {
			disallow /private/
		}
	}
	robots_tag /articles/* {
		tdm 1 https://example.com/policies/tdm.json
	}
	robots_tag /press/* {
		tdm 0
	}
	@pdf path *.pdf
	robots_tag @pdf {
		tdm 1
	}
	@notopen not path /open/*
	robots_tag @notopen {
		tdm 1
	}
	@asked header X-Tdm yes
	robots_tag @asked {
		tdm 0
	}
	robots_tag /plain/* noindex
	handle /docs/* {
		robots_tag {
			tdm 1 https://example.com/policies/docs.json
		}
		robots_tag /docs/old/* {
			tdm 0
		}
		respond "docs"
	}
	handle {
		robots_tag {
			tdm 0
		}
		respond "ok"
	}
}

http://second.example:@PORT@ {
	robots_txt {
		group * {
			disallow /private/
		}
	}
	robots_tag /2024/* {
		tdm 1
	}
	robots_tag /2025/* {
		tdm 0
	}
	handle_path /api/* {
		robots_tag /v1/* {
			tdm 0
		}
		respond "api"
	}
	respond "b"
}

http://localhost:@PORT2@ {
	robots_txt {
		group * {
			disallow /private/
		}
	}
	robots_tag /x/* noindex
	respond /.well-known/tdmrep.json "the backend's file"
	respond "c"
}
`

// nethttpTDMRep is the tdmrep.json that the net/http middleware serves for routes (the same
// serve code, the routes given as a net/http site states them), and its load warnings.
func nethttpTDMRep(t *testing.T, routes []policy.Route) (string, []string) {
	t.Helper()
	logs := filepath.Join(t.TempDir(), "nethttp.log")
	f, err := os.Create(logs)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	m, err := nethttp.New(policy.Config{RobotsTag: routes}, nethttp.Options{Logger: slog.New(slog.NewJSONHandler(f, nil))})
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(m.Handler(http.NotFoundHandler()))
	defer srv.Close()
	resp, err := http.Get(srv.URL + tdmrep.WellKnownPath)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != 200 {
		t.Fatalf("nethttp tdmrep.json: %d %s", resp.StatusCode, body)
	}
	var msgs []string
	for _, l := range jsonLogLines(t, logs) {
		msgs = append(msgs, fmt.Sprint(l["msg"]))
	}
	return string(body), msgs
}

// jsonLogLines are the JSON lines of a log file.
func jsonLogLines(t *testing.T, file string) []map[string]any {
	t.Helper()
	b, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	var out []map[string]any
	for _, l := range strings.Split(string(b), "\n") {
		if l == "" {
			continue
		}
		var m map[string]any
		if err := json.Unmarshal([]byte(l), &m); err != nil {
			t.Fatalf("log line %q: %v", l, err)
		}
		out = append(out, m)
	}
	return out
}

// TestTDMRepFileCaddy: the robots_txt handler serves its site block's tdmrep.json from the
// robots_tag routes of the block, as nethttp serves it for the same routes: path matchers as
// locations (Caddy's order of routes), the routes that have another matcher (not, header) or
// follow a handle block with matchers left out with a warning that names each (its JSON path
// in the config, which the admin API shows to be that robots_tag) and says why, once. A
// second site block on the server gets its own file; a server whose site declares no tdm
// passes the path to its backend.
func TestTDMRepFileCaddy(t *testing.T) {
	logFile := filepath.Join(t.TempDir(), "caddy.log")
	caddyTesterWithGlobals(t, `
	log {
		output file "`+logFile+`"
		level WARN
	}
`, tdmSites)

	ptr := func(n int) *int { return &n }
	decl := func(res int, pol string) policy.Tags {
		return policy.Tags{TDM: &policy.TDM{Reservation: ptr(res), Policy: pol}}
	}
	never := func(*http.Request) bool { return false }
	// Site A's routes as Caddy runs them: the Caddyfile sorts the robots_tag directives by
	// their path matchers, the longest first, the named matchers after them; the handle
	// blocks come after robots_tag.
	siteA := []policy.Route{
		{Paths: []string{"/articles/*"}, Tags: decl(1, "https://example.com/policies/tdm.json")},
		{Paths: []string{"/press/*"}, Tags: decl(0, "")},
		{Paths: []string{"*.pdf"}, Tags: decl(1, "")},
		{Match: never, Tags: decl(1, "")}, // not path
		{Match: never, Tags: decl(0, "")}, // header
		{Match: never, Tags: decl(0, "")}, // /docs/old/* in handle /docs/*
		{Paths: []string{"/docs/*"}, Tags: decl(1, "https://example.com/policies/docs.json")},
		{Match: never, Tags: decl(0, "")}, // the handle block after /docs/
	}
	siteB := []policy.Route{
		{Paths: []string{"/2024/*"}, Tags: decl(1, "")},
		{Paths: []string{"/2025/*"}, Tags: decl(0, "")},
		{Match: never, Tags: decl(0, "")}, // after handle_path's rewrite
	}
	wantA, warningsA := nethttpTDMRep(t, siteA)
	wantB, warningsB := nethttpTDMRep(t, siteB)
	warnings := append(warningsA, warningsB...)
	// The files themselves, so that a change of both front ends shows too.
	if want := `[{"location":"/articles/","tdm-reservation":1,"tdm-policy":"https://example.com/policies/tdm.json"},{"location":"/docs/","tdm-reservation":1,"tdm-policy":"https://example.com/policies/docs.json"},{"location":"/*.pdf$","tdm-reservation":1}]`; compactJSON(t, wantA) != want {
		t.Errorf("nethttp site A:\n%s\nwant\n%s", wantA, want)
	}
	if want := `[{"location":"/2024/","tdm-reservation":1},{"location":"/2025/","tdm-reservation":0}]`; compactJSON(t, wantB) != want {
		t.Errorf("nethttp site B:\n%s\nwant\n%s", wantB, want)
	}

	for _, tc := range []struct {
		url  string
		host []string
		want string
	}{
		{siteURL(tdmrep.WellKnownPath), nil, wantA},
		{siteURL(tdmrep.WellKnownPath), []string{"Host: second.example"}, wantB},
	} {
		for range 2 {
			resp, body := do(t, "GET", tc.url, tc.host...)
			wantStatus(t, resp, 200)
			if string(body) != tc.want {
				t.Errorf("%s %s:\n%s\nnethttp serves\n%s", tc.url, tc.host, body, tc.want)
			}
			if resp.Header.Get("Content-Type") != "application/json" || resp.Header.Get("Cache-Control") != "max-age=3600" || resp.Header.Get("Etag") == "" {
				t.Errorf("%s: headers %v", tc.url, resp.Header)
			}
			resp, body = do(t, "HEAD", tc.url, tc.host...)
			wantStatus(t, resp, 200)
			if len(body) != 0 || resp.ContentLength != int64(len(tc.want)) {
				t.Errorf("HEAD %s: %d bytes, Content-Length %d", tc.url, len(body), resp.ContentLength)
			}
			resp, _ = do(t, "GET", tc.url, append(slices.Clip(tc.host), "If-None-Match: "+resp.Header.Get("Etag"))...)
			wantStatus(t, resp, 304)
		}
		resp, _ := do(t, "POST", tc.url, tc.host...)
		wantStatus(t, resp, 405)
		if resp.Header.Get("Allow") != "GET, HEAD" {
			t.Errorf("POST %s: Allow %q", tc.url, resp.Header.Get("Allow"))
		}
	}
	// The other server's site declares no tdm: its backend answers.
	resp, body := do(t, "GET", site2URL(tdmrep.WellKnownPath))
	wantStatus(t, resp, 200)
	if string(body) != "the backend's file" {
		t.Errorf("site without tdm: %q", body)
	}
	// The responses carry what the file leaves out all the same.
	resp, _ = do(t, "GET", siteURL("/open/a"), "X-Tdm: yes")
	if got := resp.Header.Values("Tdm-Reservation"); !slices.Equal(got, []string{"0"}) {
		t.Errorf("/open/a with X-Tdm: tdm-reservation %q", got)
	}

	// The warnings: each left-out route once, named by its JSON path (the admin API shows the
	// robots_tag there) and why; then the 0 rules left out, as nethttp says.
	want := map[string]string{
		"a route on its way has a matcher other than path (not)":                               `{"reservation":1}`,
		"a route on its way has a matcher other than path (header)":                            `{"reservation":0}`,
		"it follows a route of its handle group that has matchers":                             `{"reservation":0}`,
		"path matchers at two levels are on its way":                                           `{"reservation":0}`,
		"a matcher on its way runs after a rewrite, so it sees another path than the client's": `{"reservation":0}`,
	}
	var got []string
	var msgs []string
	deadline := time.Now().Add(10 * time.Second)
	for {
		got, msgs = got[:0], msgs[:0]
		for _, l := range jsonLogLines(t, logFile) {
			if l["logger"] != "http.handlers.robots_txt" || !strings.Contains(fmt.Sprint(l["msg"]), "tdmrep.json") {
				continue
			}
			msgs = append(msgs, fmt.Sprint(l["msg"]))
			because, _ := l["because"].(string)
			if because == "" {
				continue
			}
			got = append(got, because)
			path, _ := l["path"].(string)
			if !strings.Contains(fmt.Sprint(l["msg"]), path+": tdmrep.json says nothing for this route") {
				t.Errorf("warning %q does not name its path %q", l["msg"], path)
			}
			resp, body := do(t, "GET", fmt.Sprintf("http://localhost:%d/config/%s", adminPort, adminPath(path)))
			if resp.StatusCode != 200 {
				t.Fatalf("admin API %s: %d %s", path, resp.StatusCode, body)
			}
			var h struct {
				Handler string          `json:"handler"`
				TDM     json.RawMessage `json:"tdm"`
			}
			_ = json.Unmarshal(body, &h)
			if h.Handler != "robots_tag" || string(h.TDM) != want[because] {
				t.Errorf("warning %q (%s): the config there is %s", because, path, body)
			}
		}
		if len(msgs) >= len(warnings) || time.Now().After(deadline) {
			break
		}
		time.Sleep(100 * time.Millisecond)
	}
	slices.Sort(got)
	wantBecause := []string{}
	for b := range want {
		wantBecause = append(wantBecause, b)
	}
	slices.Sort(wantBecause)
	if !slices.Equal(got, wantBecause) {
		t.Errorf("warned about\n%q\nwant\n%q", got, wantBecause)
	}
	if len(msgs) != len(warnings) || !strings.Contains(strings.Join(msgs, "\n"), "leaves out the 1 rule(s) of tdm-reservation 0") {
		t.Errorf("Caddy warned\n%s\nnethttp\n%s", strings.Join(msgs, "\n"), strings.Join(warnings, "\n"))
	}
}

// adminPath is a JSON path such as apps.http.servers.srv0.routes[0] as an admin API path.
func adminPath(p string) string {
	return strings.NewReplacer("[", "/", "].", "/", "]", "", ".", "/").Replace(p)
}

// compactJSON is a JSON document without its spaces.
func compactJSON(t *testing.T, s string) string {
	t.Helper()
	var b bytes.Buffer
	if err := json.Compact(&b, []byte(s)); err != nil {
		t.Fatalf("%v: %s", err, s)
	}
	return b.String()
}

// TestTDMRepFileCaddyReload: a reload serves the new config's file (new handlers, built
// anew, the first requests at once), and one without tdm routes passes the path on.
func TestTDMRepFileCaddyReload(t *testing.T) {
	site := func(res string) string {
		return `http://localhost:@PORT@ {
	robots_txt
	robots_tag /2024/* {
		tdm ` + res + `
	}
	respond "ok"
}
`
	}
	startCaddyfile(t, site("0"))
	for _, tc := range []struct{ res, want string }{
		{"1", `[{"location":"/2024/","tdm-reservation":1}]`},
		{"0", `[{"location":"/2024/","tdm-reservation":0}]`},
	} {
		if status, msg := loadRaw(t, globals()+expand(site(tc.res)), "text/caddyfile"); status != 200 {
			t.Fatal(msg)
		}
		// The first requests, at once: each gets the file, built once (go test -race).
		bodies := make([]string, 8)
		var wg sync.WaitGroup
		for i := range bodies {
			wg.Go(func() {
				resp, err := client.Get(siteURL(tdmrep.WellKnownPath))
				if err != nil {
					bodies[i] = err.Error()
					return
				}
				defer resp.Body.Close()
				b, _ := io.ReadAll(resp.Body)
				bodies[i] = string(b)
			})
		}
		wg.Wait()
		for _, body := range bodies {
			if compactJSON(t, body) != tc.want {
				t.Errorf("tdm %s: %s", tc.res, body)
			}
		}
	}
	if status, msg := loadRaw(t, globals()+expand(strings.Replace(site("1"), "{\n\t\ttdm 1\n\t}", "noindex", 1)), "text/caddyfile"); status != 200 {
		t.Fatal(msg)
	}
	resp, body := do(t, "GET", siteURL(tdmrep.WellKnownPath))
	if string(body) != "ok" {
		t.Errorf("without tdm: %d %q", resp.StatusCode, body)
	}
}

// TestTDMRepFileCaddyJSON: in a JSON config, the routes that can run with the site's route
// count too: a top-level route before it that is not terminal (its path matcher a location),
// one after it while none is terminal (its host matcher no location: left out, and, as it
// reserves, the 0 rules with it, which would otherwise answer for its paths), and a named
// route invoked from the site (its matcher a location); a terminal route before it and a
// route after a terminal one do not. The file is what nethttp serves for those routes.
func TestTDMRepFileCaddyJSON(t *testing.T) {
	cfg := fmt.Sprintf(`{"admin":{"listen":"localhost:%d"},"apps":{"http":{"servers":{"s":{"listen":[":%d"],"automatic_https":{"disable":true},
"named_routes":{"n":{"match":[{"path":["/n/*"]}],"handle":[{"handler":"robots_tag","tdm":{"reservation":1,"policy":"https://example.com/p.json"}}]}},
"routes":[
	{"match":[{"path":["/t/*"]}],"handle":[{"handler":"robots_tag","tdm":{"reservation":1}},{"handler":"static_response","body":"t"}],"terminal":true},
	{"match":[{"path":["/a/*"]}],"handle":[{"handler":"robots_tag","tdm":{"reservation":1}}]},
	{"handle":[{"handler":"robots_txt"},{"handler":"robots_tag","tdm":{"reservation":0}},{"handler":"invoke","name":"n"}]},
	{"match":[{"host":["other.example"]}],"handle":[{"handler":"robots_tag","tdm":{"reservation":1}}]},
	{"handle":[{"handler":"static_response","body":"ok"}],"terminal":true},
	{"handle":[{"handler":"robots_tag","tdm":{"reservation":1}}]}
]}}}}}`, adminPort, sitePort)
	if status, msg := loadRaw(t, cfg, "application/json"); status != 200 {
		t.Fatal(msg)
	}
	ptr := func(n int) *int { return &n }
	want, _ := nethttpTDMRep(t, []policy.Route{
		{Paths: []string{"/a/*"}, Tags: policy.Tags{TDM: &policy.TDM{Reservation: ptr(1)}}},
		{Tags: policy.Tags{TDM: &policy.TDM{Reservation: ptr(0)}}},
		{Paths: []string{"/n/*"}, Tags: policy.Tags{TDM: &policy.TDM{Reservation: ptr(1), Policy: "https://example.com/p.json"}}},
		{Match: func(*http.Request) bool { return false }, Tags: policy.Tags{TDM: &policy.TDM{Reservation: ptr(1)}}},
	})
	if w := `[{"location":"/n/","tdm-reservation":1,"tdm-policy":"https://example.com/p.json"},{"location":"/a/","tdm-reservation":1}]`; compactJSON(t, want) != w {
		t.Errorf("nethttp:\n%s\nwant\n%s", want, w)
	}
	resp, body := do(t, "GET", siteURL(tdmrep.WellKnownPath))
	wantStatus(t, resp, 200)
	if string(body) != want {
		t.Errorf("Caddy:\n%s\nnethttp serves\n%s", body, want)
	}
}
