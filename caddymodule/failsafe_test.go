package caddymodule

import (
	"fmt"
	"net/http"
	"net/netip"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/sitepolicy/caddy-robots/identity/dnstest"
)

// failsafeSite enforces impostors with the default 403 and answers with the identity.
const failsafeSite = `
:@PORT@ {
	robots_txt {
		group GPTBot {
			disallow /
		}
		enforce {
			impostors
		}
	}
	respond "{http.crawler.status}|{http.crawler.verified_by}"
}
`

// TestCrawlerDNSFailsSafeThroughCaddy: Caddy verifies by reverse DNS through the resolver
// dns_resolver names (a real DNS server on loopback). During a storm of resolver faults
// (SERVFAIL, timeouts, REFUSED, truncated and slow answers) a real Googlebot address is served
// (200, pending), never refused as an impostor, and the storm of requests does not become a
// storm of queries; once the resolver answers, it is verified. An address without a PTR
// record (NXDOMAIN) claiming Googlebot is refused (403).
func TestCrawlerDNSFailsSafeThroughCaddy(t *testing.T) {
	dns := dnstest.NewServer(t)
	google := netip.MustParseAddr("66.249.66.1")
	dns.SetPTR(google, "crawl-66-249-66-1.googlebot.com")
	dns.SetAddrs("crawl-66-249-66-1.googlebot.com", google)
	dns.SetDelay(3 * time.Second)
	globals := fmt.Sprintf(`	crawlers {
		lists off
		dns_resolver %s
		dns_timeout 1s
		dns_wait 2s
	}
	servers {
		trusted_proxies static 127.0.0.1/8 ::1/128
	}
`, dns.Addr)
	caddyTesterWithGlobals(t, globals, failsafeSite)
	get := func(client string) (int, string) {
		resp, body := do(t, "GET", siteURL("/page"), "User-Agent: "+googlebotUA, "X-Forwarded-For: "+client)
		return resp.StatusCode, string(body)
	}

	var i atomic.Int64
	dns.SetFault(func(dnstest.Query) dnstest.Fault {
		// Every fault that leaves the client without an answer, in turn.
		storm := []dnstest.Fault{dnstest.ServFail, dnstest.Drop, dnstest.Refused, dnstest.Truncate, dnstest.Slow}
		return storm[i.Add(1)%int64(len(storm))]
	})
	before := dns.Queries()
	for n := range 30 {
		if status, body := get(google.String()); status != http.StatusOK || body != "pending|" {
			t.Fatalf("request %d from Googlebot's address during the storm: %d %q, want 200 pending", n, status, body)
		}
	}
	// One lookup (the resolver tries each query twice, and over TCP after a truncated
	// answer), then the backoff: no query per request.
	if q := dns.Queries() - before; q > 8 {
		t.Errorf("%d queries for 30 requests during the storm", q)
	}
	if status, body := get("203.0.113.77"); status != http.StatusOK || body != "pending|" {
		t.Errorf("an address without PTR claiming Googlebot during the storm (nothing known): %d %q, want 200 pending", status, body)
	}

	dns.SetFault(nil)
	deadline := time.Now().Add(30 * time.Second) // the first retry is due 5s after the failure
	for {
		status, body := get(google.String())
		if status != http.StatusOK || body != "pending|" && body != "verified|reverse-dns" {
			t.Fatalf("Googlebot's address after the storm: %d %q", status, body)
		}
		if body == "verified|reverse-dns" {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("Googlebot's address not verified 30s after the resolver recovered")
		}
		time.Sleep(100 * time.Millisecond)
	}
	// An NXDOMAIN address: a definite answer once its backoff is over.
	deadline = time.Now().Add(30 * time.Second)
	for {
		status, body := get("203.0.113.77")
		if status == http.StatusForbidden {
			break
		}
		if status != http.StatusOK || body != "pending|" || time.Now().After(deadline) {
			t.Fatalf("an NXDOMAIN address claiming Googlebot: %d %q, want 403", status, body)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// TestDNSResolverConfig: dns_resolver takes an IP address and a port (53 if none); anything
// else is refused naming the Caddyfile line, and the JSON field naming its path.
func TestDNSResolverConfig(t *testing.T) {
	for _, c := range []struct{ arg, want string }{
		{"dns.example.net:53", `dns_resolver "dns.example.net:53": not an IP address and port`},
		{"127.0.0.1:0", `dns_resolver "127.0.0.1:0": port 0`},
		{"127.0.0.1:99999", `not an IP address and port`},
		{"127.0.0.1 53", `dns_resolver takes one argument`},
	} {
		cfg := strings.Replace(globals(), "}\n", "\tcrawlers {\n\t\tdns_resolver "+c.arg+"\n\t}\n}\n", 1) + expand(":@PORT@ {\n\trespond 1\n}\n")
		status, msg := loadRaw(t, cfg, "text/caddyfile")
		if status == http.StatusOK || !strings.Contains(msg, c.want) || !strings.Contains(msg, "Caddyfile:") {
			t.Errorf("dns_resolver %s: loaded with %d %q, want an error containing %q and the line", c.arg, status, msg, c.want)
		}
	}
	status, msg := loadRaw(t, fmt.Sprintf(`{"admin": {"listen": "localhost:%d"}, "apps": {"crawlers": {"reverse_dns": {"resolver": "localhost"}}}}`, adminPort), "application/json")
	if status == http.StatusOK || !strings.Contains(msg, `crawlers.reverse_dns.resolver "localhost": not an IP address and port`) {
		t.Errorf("JSON resolver: %d %q", status, msg)
	}
	for _, ok := range []string{"127.0.0.1", "127.0.0.1:5353", "::1", "[::1]:5353"} {
		cfg := strings.Replace(globals(), "}\n", "\tcrawlers {\n\t\tdns_resolver "+ok+"\n\t\tlists off\n\t}\n}\n", 1) + expand(":@PORT@ {\n\trespond 1\n}\n")
		if status, msg := loadRaw(t, cfg, "text/caddyfile"); status != http.StatusOK {
			t.Errorf("dns_resolver %s refused: %d %q", ok, status, msg)
		}
	}
}
