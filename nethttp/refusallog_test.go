package nethttp_test

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/sitepolicy/caddy-robots/nethttp"
	policypkg "github.com/sitepolicy/caddy-robots/policy"
	"github.com/sitepolicy/caddy-robots/robotsgen"
	core "github.com/sitepolicy/caddy-robots/serve"
)

// lockedBuffer is a log's output, written by the server's goroutines.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

// refusalLines are the refusal lines of a JSON log, by rule ("disallow: /private/",
// "impostor", "crawl-delay"), each its "suppressed" value.
func refusalLines(t *testing.T, log []byte) map[string][]int {
	t.Helper()
	lines := map[string][]int{}
	sc := bufio.NewScanner(bytes.NewReader(log))
	for sc.Scan() {
		var l struct {
			Rule       string `json:"rule"`
			Status     int    `json:"status"`
			Suppressed *int   `json:"suppressed"`
		}
		if err := json.Unmarshal(sc.Bytes(), &l); err != nil {
			t.Fatalf("%v: %s", err, sc.Bytes())
		}
		if l.Status == 0 {
			continue // not a refusal
		}
		if l.Suppressed == nil {
			t.Fatalf("a refusal line without suppressed: %s", sc.Bytes())
		}
		kind := l.Rule
		if strings.HasPrefix(kind, "impostor: ") {
			kind = "impostor" // "impostor: " and the checks that failed
		}
		lines[kind] = append(lines[kind], *l.Suppressed)
	}
	return lines
}

// TestRefusalLogLimitOverLoopback: a flood of refused requests (by a rule, as an impostor
// of Googlebot, over GPTBot's crawl delay), sent concurrently over loopback, is logged
// core.ViolationBurst times per kind in the interval; the first refusal of each kind in the
// next interval is logged with the number left out. Without the limit, each refusal was a
// line: 10,000 here.
func TestRefusalLogLimitOverLoopback(t *testing.T) {
	flood := map[string]int{"disallow: /private/": 10_000, "impostor": 500, "crawl-delay": 500}
	if raceEnabled {
		flood["disallow: /private/"] = 2_000
	}
	var offset atomic.Int64
	base := time.Now()
	clock := func() time.Time { return base.Add(time.Duration(offset.Load())) }
	var logs lockedBuffer
	cfg := nethttp.Config{RobotsTxt: &nethttp.RobotsTxtConfig{
		Groups:  []robotsgen.Group{{UserAgents: []string{"GPTBot"}, CrawlDelay: 3600, Rules: []robotsgen.Rule{{Type: robotsgen.Disallow, Path: "/private/"}}}},
		Enforce: &nethttp.Enforce{CrawlDelay: true, Impostors: &policypkg.Impostors{}},
	}}
	m, err := nethttp.New(cfg, nethttp.Options{
		Logger:   slog.New(slog.NewJSONHandler(&logs, &slog.HandlerOptions{Level: slog.LevelDebug})),
		Verifier: googleService(t).Verifier,
		ClientAddr: func(r *http.Request) netip.Addr {
			return netip.MustParseAddr("203.0.113.9") // outside Google's list
		},
		Now: clock,
	})
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(m.Handler(http.HandlerFunc(okHandler)))
	defer srv.Close()
	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 8}}
	defer client.CloseIdleConnections()
	send := func(kind string) int {
		path, ua := "/private/x", "GPTBot/1.2"
		switch kind {
		case "impostor":
			path, ua = "/", googlebotUA
		case "crawl-delay":
			path = "/open"
		}
		req, _ := http.NewRequest("GET", srv.URL+path, nil)
		req.Header.Set("User-Agent", ua)
		resp, err := client.Do(req)
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
	var refused atomic.Int64
	var wg sync.WaitGroup
	for kind, n := range flood {
		for w := range 4 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for range n/4 + boolInt(w < n%4) {
					if st := send(kind); st == 403 || st == 429 {
						refused.Add(1)
					} else {
						t.Errorf("%s: %d", kind, st)
						return
					}
				}
			}()
		}
	}
	wg.Wait()
	total := 0
	for _, n := range flood {
		total += n
	}
	if int(refused.Load()) != total {
		t.Fatalf("%d of %d refused", refused.Load(), total)
	}
	offset.Add(int64(core.ViolationInterval))
	for kind := range flood {
		send(kind)
	}
	lines := refusalLines(t, logs.b.Bytes())
	for kind, n := range flood {
		got := lines[kind]
		want := fmt.Sprint(append(make([]int, core.ViolationBurst), n-core.ViolationBurst))
		if fmt.Sprint(got) != want {
			t.Errorf("%s: %d refusals, then one in the next interval: %s, want %d lines, the last with %d suppressed", kind, n, summary(got), core.ViolationBurst+1, n-core.ViolationBurst)
		}
	}
	t.Logf("%d refusals, %d log lines", total+len(flood), len(lines["disallow: /private/"])+len(lines["impostor"])+len(lines["crawl-delay"]))
}

// summary is how many lines a log has and the last one's suppressed count.
func summary(suppressed []int) string {
	if len(suppressed) == 0 {
		return "no lines"
	}
	return fmt.Sprintf("%d lines, the last with %d suppressed", len(suppressed), suppressed[len(suppressed)-1])
}
