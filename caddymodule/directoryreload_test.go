package caddymodule

import (
	"crypto/ed25519"
	"crypto/tls"
	"crypto/x509"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/sitepolicy/caddy-robots/webbotauth"
)

// TestReloadCancelsDirectoryFetches: with signatures_fetch_untrusted, signed requests naming
// agents whose key directories never answer start fetches that hang; a reload that replaces
// the crawlers config ends them at once (each fetch's connection is closed: the directory
// server sees its request cancelled) instead of waiting for their timeout (10 s), and the
// reload returns in well under that.
func TestReloadCancelsDirectoryFetches(t *testing.T) {
	var started, cancelled atomic.Int32
	gate := make(chan struct{})
	dir := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		started.Add(1)
		select {
		case <-r.Context().Done(): // the client closed the connection
			cancelled.Add(1)
		case <-gate:
		}
	}))
	defer dir.Close()
	defer close(gate)
	pool := x509.NewCertPool()
	pool.AddCert(dir.Certificate())
	useDirectoryOptions(t, webbotauth.DirectoryOptions{TLSConfig: &tls.Config{RootCAs: pool}, AllowAddr: func(netip.Addr) bool { return true }})

	g := strings.Replace(crawlersGlobals(t, t.TempDir()), "reverse_dns off", "reverse_dns off\n\t\tsignatures_fetch_untrusted", 1)
	caddyTesterWithGlobals(t, g, identitySites)
	priv := ed25519.NewKeyFromSeed([]byte("caddy-robots untrusted agent key"))
	// Agents not trusted get MaxFetches - 1 = 3 fetches at once.
	const hung = 3
	for i := range hung {
		agent := fmt.Sprintf("%s/agent%d.json", dir.URL, i)
		res, err := client.Do(signedRequestFor(t, priv, "some-key", agent, "", "/page", "Mozilla/5.0 Firefox/133.0", "203.0.113.9"))
		if err != nil {
			t.Fatal(err)
		}
		res.Body.Close()
	}
	for deadline := time.Now().Add(10 * time.Second); started.Load() < hung; {
		if time.Now().After(deadline) {
			t.Fatalf("%d of %d directory fetches reached the server", started.Load(), hung)
		}
		time.Sleep(5 * time.Millisecond)
	}

	// A changed crawlers config: the old one's verification, and its directory, go.
	changed := strings.Replace(g, "signatures_fetch_untrusted", "signatures_fetch_untrusted\n\t\tsignatures_skew 30s", 1)
	start := time.Now()
	if status, msg := loadRaw(t, globalsWith(changed)+expand(identitySites), "text/caddyfile"); status != http.StatusOK {
		t.Fatalf("reload: %s", msg)
	}
	took := time.Since(start)
	t.Logf("reload with %d directory fetches hanging took %v", hung, took)
	if took > 3*time.Second { // well under the 10 s timeout, with room for a loaded machine
		t.Errorf("the reload took %v: it waited for the hanging directory fetches", took)
	}
	// The fetches' connections were closed by the reload, not by their timeout.
	for deadline := time.Now().Add(2 * time.Second); cancelled.Load() < hung; {
		if time.Now().After(deadline) {
			t.Fatalf("%d of %d hanging fetches were cancelled", cancelled.Load(), hung)
		}
		time.Sleep(5 * time.Millisecond)
	}
}
