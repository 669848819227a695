package caddymodule

import (
	"bytes"
	"context"
	"crypto/ed25519"
	"fmt"
	"io"
	"net/http"
	"net/netip"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/sitepolicy/caddy-robots/identity/dnstest"
	"github.com/sitepolicy/caddy-robots/redisstore/redistest"
)

// fleetNode is one caddy-robots process of a fleet: the binary the tests build once
// (caddyBinary), run as users run it, with its own listen and admin ports and data directory.
type fleetNode struct {
	port  int // the site's port on 127.0.0.1
	admin int
	logs  *syncBuffer
}

// syncBuffer is a bytes.Buffer a process writes while the test reads it.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// url is the address of path on the node.
func (n *fleetNode) url(path string) string {
	return fmt.Sprintf("http://127.0.0.1:%d%s", n.port, path)
}

// startFleet runs n caddy-robots processes side by side, each on the Caddyfile caddyfile
// writes for its ports (admin, then the site's), with env added to the environment, and
// waits until each serves probe. They are stopped when the test ends; a test that fails
// prints their output.
func startFleet(t *testing.T, n int, env []string, probe string, caddyfile func(admin, port int) string) []*fleetNode {
	t.Helper()
	bin, err := caddyBinary()
	if err != nil {
		t.Fatal(err)
	}
	ports := freePorts(2 * n)
	nodes := make([]*fleetNode, n)
	exited := make([]chan error, n)
	for i := range nodes {
		node := &fleetNode{admin: ports[2*i], port: ports[2*i+1], logs: new(syncBuffer)}
		nodes[i] = node
		dir := t.TempDir()
		file := filepath.Join(dir, "Caddyfile")
		if err := os.WriteFile(file, []byte(caddyfile(node.admin, node.port)), 0o644); err != nil {
			t.Fatal(err)
		}
		ctx, cancel := context.WithCancel(context.Background())
		cmd := exec.CommandContext(ctx, bin, "run", "--config", file, "--adapter", "caddyfile")
		// Each its own data and config directories: nothing shared but what the test shares.
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), "XDG_DATA_HOME="+filepath.Join(dir, "data"), "XDG_CONFIG_HOME="+filepath.Join(dir, "config"), "HOME="+dir)
		cmd.Env = append(cmd.Env, env...)
		cmd.Stdout, cmd.Stderr = node.logs, node.logs
		cmd.WaitDelay = 10 * time.Second
		if err := cmd.Start(); err != nil {
			cancel()
			t.Fatal(err)
		}
		exited[i] = make(chan error, 1)
		go func(ch chan error) { ch <- cmd.Wait() }(exited[i])
		t.Cleanup(func() {
			cancel()
			<-exited[i]
			if t.Failed() {
				t.Logf("caddy-robots %d (port %d) output:\n%s", i, node.port, node.logs.String())
			}
		})
	}
	for i, node := range nodes {
		if !serving(t, node.url(probe), node.port, node.admin, exited[i]) {
			err := <-exited[i]
			exited[i] <- err
			t.Fatalf("caddy-robots %d exited: %v\n%s", i, err, node.logs.String())
		}
	}
	return nodes
}

// fleetSite is the site of every instance of TestFleetThroughCaddy: CCBot's group has a
// crawl delay, enforced; /signed answers 403 to a request that is not a verified crawler's;
// every response says the request's identity.
const fleetSite = `
:%d {
	robots_txt {
		group CCBot {
			crawl_delay 1
			allow /
		}
		enforce {
			crawl_delay
		}
	}
	handle /signed {
		@verified crawler verified
		respond @verified "{http.crawler.status}|{http.crawler.verified_by}" 200
		respond "{http.crawler.status}|{http.crawler.verified_by}" 403
	}
	respond "{http.crawler.status}|{http.crawler.verified_by}"
}
`

// TestFleetThroughCaddy is the fleet of docs/fleet.md, three real Caddy processes (the
// caddy-robots binary) sharing one real redis-server through the crawlers option's store,
// its address given as {env.*}:
//   - one crawler driven round-robin across the three at ten times its crawl delay is served
//     no more than one instance would serve it;
//   - a Web Bot Auth signature accepted by one instance is refused as a replay by the others
//     (a fresh nonce is accepted there: the refusal is the replay's);
//   - each address is looked up in reverse DNS once for the whole fleet (a DNS server on
//     loopback counts the PTR queries).
//
// Each part fails with the store lines taken out of the config (each process its own state).
func TestFleetThroughCaddy(t *testing.T) {
	if testing.Short() {
		t.Skip("runs three caddy-robots processes and a redis-server")
	}
	redisAddr := redistest.Shared(t)

	dns := dnstest.NewServer(t)
	googlebots := []netip.Addr{netip.MustParseAddr("66.249.66.1"), netip.MustParseAddr("66.249.66.2"), netip.MustParseAddr("66.249.66.3")}
	for _, a := range googlebots {
		dns.SetHost(a, "crawl-"+strings.ReplaceAll(a.String(), ".", "-")+".googlebot.com")
	}

	priv := ed25519.NewKeyFromSeed([]byte("caddy-robots fleet replay test!!"))
	key, keyFile := agentKey(t, priv)
	const agent = "https://agent.example"

	nodes := startFleet(t, 3, []string{"ROBOTS_FLEET_REDIS=" + redisAddr, "ROBOTS_FLEET_PREFIX=" + redistest.Prefix(t)}, "/robots.txt", func(admin, port int) string {
		return fmt.Sprintf(`{
	admin 127.0.0.1:%d
	auto_https off
	persist_config off
	crawlers {
		lists off
		dns_resolver %s
		dns_wait 5s
		signature_agent %s GPTBot %s
		signatures_replay_protection
		store redis {
			address {env.ROBOTS_FLEET_REDIS}
			key_prefix {env.ROBOTS_FLEET_PREFIX}
			timeout 2s
		}
	}
	servers {
		trusted_proxies static 127.0.0.1/8
	}
}
`, admin, dns.Addr, agent, keyFile) + fmt.Sprintf(fleetSite, port)
	})
	get := func(r *http.Request) (int, string) {
		t.Helper()
		resp, err := client.Do(r)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		body, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(body)
	}
	request := func(n *fleetNode, path string, header ...string) *http.Request {
		r, err := http.NewRequest("GET", n.url(path), nil)
		if err != nil {
			t.Fatal(err)
		}
		for _, h := range header {
			k, v, _ := strings.Cut(h, ": ")
			r.Header.Set(k, v)
		}
		return r
	}

	t.Run("crawl-delay", func(t *testing.T) {
		// Ten requests per crawl delay (1 s), round-robin, for three seconds: one instance
		// serves at most one per second, the first at once; three without the store, each
		// seeing one request in three, would serve about three times as many.
		const delay, every, n = time.Second, 100 * time.Millisecond, 31
		served := 0
		var first, last time.Time
		tick := time.NewTicker(every)
		defer tick.Stop()
		for i := range n {
			if i > 0 {
				<-tick.C
			}
			now := time.Now()
			if i == 0 {
				first = now
			}
			last = now
			resp, err := client.Do(request(nodes[i%3], "/page", "User-Agent: CCBot/2.0 (https://commoncrawl.org/faq/)"))
			if err != nil {
				t.Fatal(err)
			}
			resp.Body.Close()
			switch resp.StatusCode {
			case http.StatusOK:
				served++
			case http.StatusTooManyRequests:
				if resp.Header.Get("Retry-After") == "" {
					t.Errorf("request %d refused without Retry-After", i)
				}
			default:
				t.Fatalf("request %d: status %d", i, resp.StatusCode)
			}
		}
		// The budget is timed by the store's clock: allow the requests' latency on top.
		elapsed := last.Sub(first) + 200*time.Millisecond
		most := int(elapsed/delay) + 1
		if served > most || served < 2 {
			t.Errorf("the fleet served %d of %d requests over %v at one per %v; one instance serves 2 to %d", served, n, last.Sub(first), every, most)
		}
	})

	t.Run("replay", func(t *testing.T) {
		sign := func(n *fleetNode, nonce string) *http.Request {
			r := signedRequestFor(t, priv, key.ID, agent, nonce, "/signed", "Mozilla/5.0 Firefox/133.0", "203.0.113.9")
			// The authority signed (a load balancer's name) on whichever instance: the
			// signature covers the request, not the instance.
			r.Host = r.URL.Host
			r.URL.Host = fmt.Sprintf("127.0.0.1:%d", n.port)
			return r
		}
		for i, n := range nodes {
			// The key is from a file: each instance verifies a fresh nonce at once.
			if status, body := get(sign(n, fmt.Sprintf("fresh-%d", i))); status != 200 || body != "verified|signature" {
				t.Fatalf("instance %d, a fresh nonce: %d %q, want 200 verified|signature", i, status, body)
			}
		}
		r := sign(nodes[0], "once")
		replays := []*http.Request{r.Clone(r.Context()), r.Clone(r.Context())}
		if status, body := get(r); status != 200 {
			t.Fatalf("instance 0, first use of the nonce: %d %q", status, body)
		}
		for i, rr := range replays {
			rr.URL.Host = fmt.Sprintf("127.0.0.1:%d", nodes[i+1].port)
			if status, body := get(rr); status != http.StatusForbidden {
				t.Errorf("the same signature replayed on instance %d: %d %q, want 403 (not verified)", i+1, status, body)
			}
		}
	})

	t.Run("reverse-dns", func(t *testing.T) {
		for _, a := range googlebots {
			for i, n := range nodes {
				// The first instance waits for its lookup (dns_wait); the others find the
				// verdict in the store, or wait for the instance that claimed the lookup.
				deadline := time.Now().Add(20 * time.Second)
				for {
					status, body := get(request(n, "/page", "User-Agent: "+googlebotUA, "X-Forwarded-For: "+a.String()))
					if status == 200 && body == "verified|reverse-dns" {
						break
					}
					if status != 200 || body != "pending|" || time.Now().After(deadline) {
						t.Fatalf("%s on instance %d: %d %q, want 200 verified|reverse-dns", a, i, status, body)
					}
					time.Sleep(20 * time.Millisecond)
				}
			}
		}
		for _, a := range googlebots {
			if n := dns.PTRQueries(a); n != 1 {
				t.Errorf("%s: %d PTR queries from the fleet of 3, want 1", a, n)
			}
		}
	})
}
