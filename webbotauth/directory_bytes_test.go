package webbotauth

import (
	"crypto/ed25519"
	"encoding/base64"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"strings"
	"sync/atomic"
	"testing"
)

// bigDirServer serves, at every path, a JWK Set of MaxKeys keys (the largest a directory may
// keep), whose private keys and thumbprints it holds; it counts the requests for paths
// under /trusted and for the others.
type bigDirServer struct {
	srv          *httptest.Server
	trustedHits  atomic.Int32
	untrustedAll atomic.Int32
	privs        []ed25519.PrivateKey
	ids          []string
}

func newBigDirServer(t testing.TB) *bigDirServer {
	b := &bigDirServer{}
	var js []string
	for range MaxKeys {
		pub, priv, _ := ed25519.GenerateKey(nil)
		b.privs = append(b.privs, priv)
		b.ids = append(b.ids, mustThumbprint(t, pub))
		js = append(js, fmt.Sprintf(`{"kty":"OKP","crv":"Ed25519","x":%q}`, base64.RawURLEncoding.EncodeToString(pub)))
	}
	body := `{"keys":[` + strings.Join(js, ",") + `]}`
	b.srv = httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if strings.HasPrefix(r.URL.Path, "/trusted") {
			b.trustedHits.Add(1)
		} else {
			b.untrustedAll.Add(1)
		}
		w.Header().Set("Content-Type", "application/jwk-set+json")
		w.Header().Set("Cache-Control", "max-age=3600")
		fmt.Fprint(w, body)
	}))
	t.Cleanup(b.srv.Close)
	return b
}

func (b *bigDirServer) directory(maxBytes int) *Directory {
	return NewDirectory(DirectoryOptions{
		TLSConfig:         b.srv.Client().Transport.(*http.Transport).TLSClientConfig.Clone(),
		AllowAddr:         func(a netip.Addr) bool { return a.IsLoopback() },
		MaxAgents:         100000,
		MaxUntrustedBytes: maxBytes,
	})
}

// untrustedAgent is the URL of the i-th agent nobody trusts: a long path (as a client may
// name), its directory the full one.
func (b *bigDirServer) untrustedAgent(i int) string {
	return b.srv.URL + "/u" + itoa(int64(i)) + "/" + strings.Repeat("p", 1000)
}

// floodDirectory has a verifier fetching untrusted agents look up n agents of its own, each
// serving MaxKeys keys under a 1 KB URL: each is fetched and verifies (Signed); check runs
// after each.
func floodDirectory(t *testing.T, b *bigDirServer, dir *Directory, n int, check func(i int)) *Verifier {
	now := int64(1_800_000_000)
	trusted := b.srv.URL + "/trusted"
	v, err := NewVerifier(Options{Agents: []Agent{{URL: trusted, Bot: "t"}}, Directory: dir, FetchUntrusted: true, Now: at(now)})
	if err != nil {
		t.Fatal(err)
	}
	if res := v.Verify(signFor(t, trusted, b.privs[0], b.ids[0], now), Target{}); res.Status != Pending {
		t.Fatalf("trusted: %+v", res)
	}
	dir.Wait()
	for i := range n {
		agent := b.untrustedAgent(i)
		r := signFor(t, agent, b.privs[i%MaxKeys], b.ids[i%MaxKeys], now)
		if res := v.Verify(r, Target{}); res.Status != Pending {
			t.Fatalf("agent %d: %+v", i, res)
		}
		dir.Wait()
		if res := v.Verify(r, Target{}); res.Status != Signed {
			t.Fatalf("agent %d fetched: %+v", i, res)
		}
		check(i)
	}
	return v
}

// TestDirectoryBytesBound: untrusted agents serving the largest directories under long URLs
// fill at most MaxUntrustedBytes of the cache, however many; what is counted is what the
// entries hold; each fetched directory is used (Signed) before it is evicted, and the trusted
// agent's directory stays, not fetched again.
func TestDirectoryBytesBound(t *testing.T) {
	n := 60
	if raceEnabled || testing.Short() {
		n = 20
	}
	const budget = 64 << 10
	b := newBigDirServer(t)
	dir := b.directory(budget)
	most := 0
	v := floodDirectory(t, b, dir, n, func(i int) {
		dir.mu.Lock()
		defer dir.mu.Unlock()
		sum, count := 0, 0
		for a, e := range dir.entries {
			if !e.trusted {
				sum += entryBytes(a, e)
				count++
			}
		}
		if sum != dir.untrustedBytes || count != dir.untrusted {
			t.Fatalf("after agent %d: counted %d bytes in %d entries, they hold %d in %d", i, dir.untrustedBytes, dir.untrusted, sum, count)
		}
		if sum > budget {
			t.Fatalf("after agent %d: %d bytes cached, more than %d", i, sum, budget)
		}
		most = max(most, count)
	})
	// Each directory counts about 9 KB: some fit, not all.
	if most < 3 || most >= n {
		t.Errorf("at most %d untrusted directories cached", most)
	}
	now := int64(1_800_000_000)
	if res := v.Verify(signFor(t, b.srv.URL+"/trusted", b.privs[1], b.ids[1], now), Target{}); res.Status != Verified {
		t.Errorf("trusted after the flood: %+v", res)
	}
	if h := b.trustedHits.Load(); h != 1 {
		t.Errorf("the trusted directory fetched %d times", h)
	}
	if h := b.untrustedAll.Load(); int(h) != n {
		t.Errorf("%d untrusted fetches for %d agents", h, n)
	}
}

// TestDirectoryBytesTooSmall: a directory that does not fit the budget even alone is not kept:
// its agent is Unreachable, saying so, and the count stays within the budget.
func TestDirectoryBytesTooSmall(t *testing.T) {
	b := newBigDirServer(t)
	dir := b.directory(4 << 10)
	now := int64(1_800_000_000)
	v, _ := NewVerifier(Options{Directory: dir, FetchUntrusted: true, Now: at(now)})
	r := signFor(t, b.untrustedAgent(0), b.privs[0], b.ids[0], now)
	v.Verify(r, Target{})
	dir.Wait()
	if res := v.Verify(r, Target{}); res.Status != Unreachable || !strings.Contains(res.Reason, "no room") {
		t.Errorf("%+v", res)
	}
	dir.mu.Lock()
	defer dir.mu.Unlock()
	if dir.untrustedBytes > 4<<10 {
		t.Errorf("%d bytes counted", dir.untrustedBytes)
	}
}
