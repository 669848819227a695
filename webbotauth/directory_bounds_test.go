package webbotauth

import (
	"context"
	"crypto/ed25519"
	"fmt"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"os"
	"runtime"
	"strings"
	"testing"
	"time"

	"golang.org/x/net/dns/dnsmessage"
)

// loopbackDNS is a DNS server on 127.0.0.1 (UDP, the wire format) that answers every A
// question with 127.0.0.1 and every other question with no record, and a resolver that asks
// it: any number of host names reach one local server, through the directory's real dialer
// and its address check.
func loopbackDNS(t *testing.T) *net.Resolver {
	t.Helper()
	pc, err := net.ListenPacket("udp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { pc.Close() })
	go func() {
		buf := make([]byte, 1500)
		for {
			n, from, err := pc.ReadFrom(buf)
			if err != nil {
				return
			}
			var p dnsmessage.Parser
			h, err := p.Start(buf[:n])
			if err != nil {
				continue
			}
			q, err := p.Question()
			if err != nil {
				continue
			}
			b := dnsmessage.NewBuilder(nil, dnsmessage.Header{ID: h.ID, Response: true, Authoritative: true, RecursionDesired: h.RecursionDesired})
			b.EnableCompression()
			_ = b.StartQuestions()
			_ = b.Question(q)
			_ = b.StartAnswers()
			if q.Type == dnsmessage.TypeA {
				_ = b.AResource(dnsmessage.ResourceHeader{Name: q.Name, Class: dnsmessage.ClassINET, TTL: 60}, dnsmessage.AResource{A: [4]byte{127, 0, 0, 1}})
			}
			msg, err := b.Finish()
			if err == nil {
				_, _ = pc.WriteTo(msg, from)
			}
		}
	}()
	addr := pc.LocalAddr().String()
	return &net.Resolver{PreferGo: true, Dial: func(ctx context.Context, _, _ string) (net.Conn, error) {
		var d net.Dialer
		return d.DialContext(ctx, "udp", addr)
	}}
}

// openFDs is the number of file descriptors the process has open.
func openFDs(t *testing.T) int {
	t.Helper()
	fds, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		t.Skipf("no /proc/self/fd: %v", err)
	}
	return len(fds)
}

// TestDirectoryUntrustedConnections: clients naming a new agent each time, each on a host of
// its own (thousands of names of one loopback server, as an attacker's wildcard DNS would
// give), leave no connection behind: the process's file descriptors and goroutines stay
// within a few of where they started, however many directories were fetched. With
// keep-alive for these agents, each host kept an idle connection for IdleConnTimeout (two
// descriptors and three goroutines here, client and server side): 2,000 agents left ~4,000
// descriptors and ~6,000 goroutines.
func TestDirectoryUntrustedConnections(t *testing.T) {
	agents := 2000
	if raceEnabled || testing.Short() {
		agents = 300
	}
	pub, priv, _ := ed25519.GenerateKey(nil)
	ds := newDirServer(t, pub)
	u, _ := url.Parse(ds.srv.URL)
	dir := NewDirectory(DirectoryOptions{
		TLSConfig: ds.srv.Client().Transport.(*http.Transport).TLSClientConfig.Clone(),
		AllowAddr: func(a netip.Addr) bool { return a.IsLoopback() },
		Resolver:  loopbackDNS(t),
		MaxAgents: agents, // every agent stays cached: each fetch below is a new one
	})
	t.Cleanup(dir.Close)
	now := int64(1_800_000_000)
	v, _ := NewVerifier(Options{Directory: dir, FetchUntrusted: true, Now: func() time.Time { return time.Unix(now, 0) }})
	id := mustThumbprint(t, pub)
	fds0, g0 := openFDs(t), runtime.NumGoroutine()
	maxFDs, maxG := 0, 0
	for i := range agents {
		// The test server's certificate names *.example.com.
		agent := fmt.Sprintf("https://a%d.example.com:%s/", i, u.Port())
		r := signFor(t, agent, priv, id, now)
		if res := v.Verify(r, Target{}); res.Status != Pending {
			t.Fatalf("agent %d: %+v, want pending", i, res)
		}
		dir.Wait()
		if res := v.Verify(r, Target{}); res.Status != Signed {
			t.Fatalf("agent %d after its fetch: %+v, want signed", i, res)
		}
		maxFDs, maxG = max(maxFDs, openFDs(t)-fds0), max(maxG, runtime.NumGoroutine()-g0)
	}
	if h := int(ds.hits.Load()); h != agents {
		t.Fatalf("%d fetches for %d agents", h, agents)
	}
	// The server may not have seen the last close yet: a few descriptors and goroutines of
	// slack, against thousands without the bound.
	const slack = 24
	if maxFDs > slack || maxG > slack {
		t.Errorf("after %d directories fetched: up to %d more file descriptors and %d more goroutines than before (want at most %d)", agents, maxFDs, maxG, slack)
	}
	t.Logf("%d untrusted directories fetched: at most %d more file descriptors, %d more goroutines", agents, maxFDs, maxG)
}

// TestDirectoryCloseCancels: Close ends the fetches in progress at once, however long their
// servers take (Timeout is a minute here), and their goroutines end; an agent whose fetch
// was cancelled is fetched again by its next request rather than reported unreachable.
func TestDirectoryCloseCancels(t *testing.T) {
	pub, priv, _ := ed25519.GenerateKey(nil)
	ds := newDirServer(t, pub)
	gate := make(chan struct{})
	ds.gate = gate
	t.Cleanup(func() {
		select {
		case <-gate:
		default:
			close(gate)
		}
	})
	dir := NewDirectory(DirectoryOptions{
		TLSConfig: ds.srv.Client().Transport.(*http.Transport).TLSClientConfig.Clone(),
		AllowAddr: func(a netip.Addr) bool { return a.IsLoopback() },
		Resolver:  loopbackDNS(t),
		Timeout:   time.Minute,
	})
	u, _ := url.Parse(ds.srv.URL)
	now := int64(1_800_000_000)
	trusted := ds.srv.URL + "/jwks.json"
	v, _ := NewVerifier(Options{Agents: []Agent{{URL: trusted, Bot: "t"}}, Directory: dir, FetchUntrusted: true, Now: func() time.Time { return time.Unix(now, 0) }})
	id := mustThumbprint(t, pub)
	g0 := runtime.NumGoroutine()
	agents := []string{trusted}
	for i := range 3 {
		agents = append(agents, fmt.Sprintf("https://u%d.example.com:%s/", i, u.Port()))
	}
	for _, a := range agents {
		if res := v.Verify(signFor(t, a, priv, id, now), Target{}); res.Status != Pending {
			t.Fatalf("%s: %+v", a, res)
		}
	}
	// Every fetch has reached the server and hangs there.
	for deadline := time.Now().Add(10 * time.Second); ds.hits.Load() < int32(len(agents)); {
		if time.Now().After(deadline) {
			t.Fatalf("%d of %d fetches reached the server", ds.hits.Load(), len(agents))
		}
		time.Sleep(5 * time.Millisecond)
	}
	start := time.Now()
	dir.Close()
	if d := time.Since(start); d > 2*time.Second {
		t.Errorf("Close took %v with fetches hanging", d)
	}
	// The client's goroutines are gone; the test server's handlers still wait on the gate.
	close(gate)
	waitGoroutines(t, g0)
	// The cancelled fetch is not a verdict: the next request fetches the directory again.
	r := signFor(t, agents[1], priv, id, now)
	if res := v.Verify(r, Target{}); res.Status != Pending {
		t.Fatalf("after Close: %+v, want pending (a new fetch)", res)
	}
	dir.Wait()
	if res := v.Verify(r, Target{}); res.Status != Signed {
		t.Fatalf("refetched: %+v", res)
	}
}

// waitGoroutines waits until the process has at most n goroutines (plus a few of the
// runtime's and the test server's, ending), failing with their stacks after a deadline.
func waitGoroutines(t *testing.T, n int) {
	t.Helper()
	for deadline := time.Now().Add(10 * time.Second); runtime.NumGoroutine() > n+2; {
		if time.Now().After(deadline) {
			buf := make([]byte, 1<<20)
			buf = buf[:runtime.Stack(buf, true)]
			t.Fatalf("%d goroutines, want at most %d:\n%s", runtime.NumGoroutine(), n+2, strings.TrimSpace(string(buf)))
		}
		time.Sleep(10 * time.Millisecond)
	}
}
