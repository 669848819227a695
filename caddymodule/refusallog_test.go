package caddymodule

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/sitepolicy/caddy-robots/serve"
)

// TestRefusalLogLimitThroughCaddy: a flood of refused requests through a real Caddy, sent
// concurrently (by a rule, as an impostor of Googlebot from outside Google's list, over
// GPTBot's crawl delay), is logged serve.ViolationBurst times per kind within the interval
// (the core's clock, injected); the first refusal of each kind in the next interval is
// logged with the number left out ("suppressed"), as nethttp logs it. Without the limit,
// each refusal was a line: 10,000 here.
func TestRefusalLogLimitThroughCaddy(t *testing.T) {
	flood := map[string]int{"disallow: /private/": 10_000, "impostor": 500, "crawl-delay": 500}
	if raceEnabled {
		flood["disallow: /private/"] = 2_000
	}
	var offset atomic.Int64
	base := time.Now()
	testClock = func() time.Time { return base.Add(time.Duration(offset.Load())) }
	defer func() { testClock = nil }()
	logFile := filepath.Join(t.TempDir(), "caddy.log")
	g := crawlersGlobals(t, t.TempDir()) + `	log {
		output file "` + logFile + `"
		level DEBUG
	}
`
	caddyTesterWithGlobals(t, g, `
:@PORT@ {
	robots_txt {
		group GPTBot {
			disallow /private/
			crawl_delay 3600
		}
		enforce {
			impostors
			crawl_delay
		}
	}
	respond "ok"
}
`)
	hc := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 8}, Timeout: 30 * time.Second}
	defer hc.CloseIdleConnections()
	send := func(kind string) int {
		path, ua := "/private/x", "GPTBot/1.2"
		switch kind {
		case "impostor":
			path, ua = "/", googlebotUA
		case "crawl-delay":
			path = "/open"
		}
		req, _ := http.NewRequest("GET", siteURL(path), nil)
		req.Header.Set("User-Agent", ua)
		req.Header.Set("X-Forwarded-For", "203.0.113.9") // outside Google's list
		resp, err := hc.Do(req)
		if err != nil {
			t.Error(err)
			return 0
		}
		resp.Body.Close()
		return resp.StatusCode
	}
	// GPTBot's first request for an open path is served: the crawl delay starts there.
	if st := send("crawl-delay"); st != 200 {
		t.Fatalf("GPTBot's first request: %d", st)
	}
	var wg sync.WaitGroup
	for kind, n := range flood {
		for w := range 4 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				extra := 0
				if w < n%4 {
					extra = 1
				}
				for range n/4 + extra {
					if st := send(kind); st != 403 && st != 429 {
						t.Errorf("%s: %d", kind, st)
						return
					}
				}
			}()
		}
	}
	wg.Wait()
	offset.Add(int64(serve.ViolationInterval))
	for kind := range flood {
		send(kind)
	}
	var lines map[string][]int
	want := map[string]string{}
	for kind, n := range flood {
		want[kind] = fmt.Sprint(append(make([]int, serve.ViolationBurst), n-serve.ViolationBurst))
	}
	// The log file is written as lines come; wait for the last ones.
	for deadline := time.Now().Add(5 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		lines = caddyRefusalLines(t, logFile)
		ok := true
		for kind := range flood {
			ok = ok && fmt.Sprint(lines[kind]) == want[kind]
		}
		if ok || time.Now().After(deadline) {
			break
		}
	}
	for kind, n := range flood {
		if got := fmt.Sprint(lines[kind]); got != want[kind] {
			t.Errorf("%s: %d refusals, then one in the next interval: %d lines, want %d, the last with %d suppressed (got %s)", kind, n, len(lines[kind]), serve.ViolationBurst+1, n-serve.ViolationBurst, got[max(0, len(got)-40):])
		}
	}
}

// caddyRefusalLines are the refusal lines of Caddy's JSON log file, by rule, each its
// "suppressed" value.
func caddyRefusalLines(t *testing.T, file string) map[string][]int {
	t.Helper()
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	lines := map[string][]int{}
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var l struct {
			Logger     string `json:"logger"`
			Rule       string `json:"rule"`
			Status     int    `json:"status"`
			Suppressed *int   `json:"suppressed"`
		}
		if json.Unmarshal(sc.Bytes(), &l) != nil || l.Rule == "" || l.Status == 0 {
			continue // Caddy's own lines
		}
		if l.Suppressed == nil {
			t.Fatalf("a refusal line without suppressed: %s", sc.Bytes())
		}
		lines[l.Rule] = append(lines[l.Rule], *l.Suppressed)
	}
	return lines
}
