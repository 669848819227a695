package caddymodule

import (
	"bufio"
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/sitepolicy/caddy-robots/serve"
)

// TestLogFieldsThroughCaddy: the lines the core logs about requests reach Caddy's JSON log
// with the module's logger name and exactly the core's fields (serve.Options.Logger), the
// same as nethttp's: a refusal ("token", "rule", "status", "method", "host", "uri",
// "suppressed"), a violation (serve.ViolationMessage with "crawler", "token",
// "identity_status", "method", "host", "path", "rule", "line", "suppressed"), and a
// request's debug line ("method", "host", "uri").
func TestLogFieldsThroughCaddy(t *testing.T) {
	logFile := filepath.Join(t.TempDir(), "caddy.log")
	caddyTesterWithGlobals(t, `	log {
		output file "`+logFile+`"
		level DEBUG
	}
`, `
:@PORT@ {
	robots_txt {
		log_violations
		group GPTBot {
			disallow /private/
		}
		group * {
			disallow /admin/
		}
		enforce
	}
	robots_tag /page noindex {
		meta
	}
	header /page Content-Type "text/html; charset=utf-8"
	respond /page "<!DOCTYPE html><html><head><title>p</title></head><body></body></html>"
	respond "ok"
}
`)
	resp, _ := do(t, "GET", siteURL("/private/x?q=1"), "User-Agent: GPTBot/1.2")
	wantStatus(t, resp, 403)
	resp, _ = do(t, "GET", siteURL("/admin/y"), "User-Agent: Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)")
	wantStatus(t, resp, 200)
	resp, _ = do(t, "HEAD", siteURL("/page"))
	wantStatus(t, resp, 200)

	common := []string{"level", "ts", "logger", "msg"} // Caddy's own
	want := map[string]struct {
		logger string
		fields []string
		values map[string]any
	}{
		"refusal": {"http.handlers.robots_txt", []string{"token", "rule", "status", "method", "host", "uri", "suppressed"},
			map[string]any{"token": "GPTBot", "rule": "disallow: /private/", "status": 403.0, "method": "GET", "uri": "/private/x?q=1", "suppressed": 0.0}},
		"violation": {"http.handlers.robots_txt", []string{"crawler", "token", "identity_status", "method", "host", "path", "rule", "line", "suppressed"},
			map[string]any{"crawler": "google-crawler", "token": "", "identity_status": "unchecked", "method": "GET", "path": "/admin/y", "rule": "disallow: /admin/", "suppressed": 0.0}},
		"debug": {"http.handlers.robots_tag", []string{"method", "host", "uri"},
			map[string]any{"method": "HEAD", "uri": "/page"}},
	}
	kindOf := func(msg string) string {
		switch {
		case strings.HasPrefix(msg, "robots.txt disallows this path"):
			return "refusal"
		case msg == serve.ViolationMessage:
			return "violation"
		case msg == "meta elements not added: HEAD request":
			return "debug"
		}
		return ""
	}
	got := map[string]map[string]any{}
	for deadline := time.Now().Add(5 * time.Second); len(got) < len(want) && time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		data, err := os.ReadFile(logFile)
		if err != nil {
			t.Fatal(err)
		}
		sc := bufio.NewScanner(bytes.NewReader(data))
		for sc.Scan() {
			var line map[string]any
			if json.Unmarshal(sc.Bytes(), &line) != nil {
				t.Fatalf("not a JSON line: %s", sc.Bytes())
			}
			if msg, _ := line["msg"].(string); kindOf(msg) != "" {
				got[kindOf(msg)] = line
			}
		}
	}
	for kind, w := range want {
		line := got[kind]
		if line == nil {
			t.Errorf("no %s line", kind)
			continue
		}
		var keys []string
		for k := range line {
			if !slices.Contains(common, k) {
				keys = append(keys, k)
			}
		}
		slices.Sort(keys)
		wantKeys := slices.Sorted(slices.Values(w.fields))
		if !slices.Equal(keys, wantKeys) {
			t.Errorf("%s: fields %v, want %v: %v", kind, keys, wantKeys, line)
		}
		if line["logger"] != w.logger {
			t.Errorf("%s: logger %v, want %s", kind, line["logger"], w.logger)
		}
		if h, _ := line["host"].(string); !strings.HasPrefix(h, "localhost:") {
			t.Errorf("%s: host %v", kind, line["host"])
		}
		for k, v := range w.values {
			if line[k] != v {
				t.Errorf("%s: %s = %v (%T), want %v", kind, k, line[k], line[k], v)
			}
		}
	}
}
