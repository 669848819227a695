package webbotauth

import (
	"context"
	"crypto/ed25519"
	"crypto/tls"
	"encoding/base64"
	"fmt"
	"io"
	"log"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// dirServer is an agent's key directory on a local TLS server.
type dirServer struct {
	srv   *httptest.Server
	hits  atomic.Int32
	mu    sync.Mutex
	body  string
	ctype string
	code  int
	cache string
	gate  chan struct{} // if set, responses wait for it
}

func newDirServer(t *testing.T, keys ...ed25519.PublicKey) *dirServer {
	d := &dirServer{ctype: DirectoryMediaType, code: 200, cache: "max-age=3600"}
	d.setKeys(keys...)
	d.srv = httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		d.hits.Add(1)
		if d.gate != nil {
			<-d.gate
		}
		d.mu.Lock()
		defer d.mu.Unlock()
		if r.URL.Path == "/elsewhere" || r.URL.Path != WellKnownPath && r.URL.Path != "/jwks.json" {
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Content-Type", d.ctype)
		w.Header().Set("Cache-Control", d.cache)
		if d.code == http.StatusFound {
			w.Header().Set("Location", "/elsewhere")
		}
		w.WriteHeader(d.code)
		fmt.Fprint(w, d.body)
	}))
	// The handshake a test makes fail on purpose is not news.
	d.srv.Config.ErrorLog = log.New(io.Discard, "", 0)
	d.srv.StartTLS()
	t.Cleanup(d.srv.Close)
	return d
}

func (d *dirServer) setKeys(keys ...ed25519.PublicKey) {
	var js []string
	for _, k := range keys {
		js = append(js, fmt.Sprintf(`{"kty":"OKP","crv":"Ed25519","x":%q}`, base64.RawURLEncoding.EncodeToString(k)))
	}
	d.mu.Lock()
	d.body = `{"keys":[` + strings.Join(js, ",") + `]}`
	d.mu.Unlock()
}

func (d *dirServer) set(f func(d *dirServer)) { d.mu.Lock(); f(d); d.mu.Unlock() }

func (d *dirServer) directory() *Directory {
	return NewDirectory(DirectoryOptions{
		TLSConfig: d.srv.Client().Transport.(*http.Transport).TLSClientConfig.Clone(),
		AllowAddr: func(a netip.Addr) bool { return a.IsLoopback() },
	})
}

// signFor signs a request naming agent with priv, keyid keyID, at Unix time now.
func signFor(t *testing.T, agent string, priv ed25519.PrivateKey, keyID string, now int64) *http.Request {
	t.Helper()
	r, _ := http.NewRequest("GET", "https://shop.example/page", nil)
	r.Header.Set("Signature-Agent", `sig1="`+agent+`"`)
	r.Header.Set("Signature-Input", `sig1=("@authority" "@path" "signature-agent";key="sig1");created=`+itoa(now)+`;expires=`+itoa(now+300)+`;keyid="`+keyID+`";tag="web-bot-auth"`)
	r.Header.Set("Signature", "sig1=:AA==:")
	sigs, err := ParseSignatures(r.Header)
	if err != nil {
		t.Fatal(err)
	}
	base, err := sigs[0].Base(r, Target{})
	if err != nil {
		t.Fatal(err)
	}
	r.Header.Set("Signature", "sig1=:"+b64(ed25519.Sign(priv, base))+":")
	return r
}

// TestDirectoryVerify: the first request of an agent starts the fetch of its directory
// (Pending), later ones verify from the cache; another key in its name is an impostor.
func TestDirectoryVerify(t *testing.T) {
	pub, priv, _ := ed25519.GenerateKey(nil)
	_, other, _ := ed25519.GenerateKey(nil)
	ds := newDirServer(t, pub)
	dir := ds.directory()
	now := int64(1_800_000_000)
	clock := func() time.Time { return time.Unix(now, 0) }
	v, err := NewVerifier(Options{Agents: []Agent{{URL: ds.srv.URL, Bot: "dir-bot"}}, Directory: dir, Now: clock})
	if err != nil {
		t.Fatal(err)
	}
	id := mustThumbprint(t, pub)
	r := signFor(t, ds.srv.URL, priv, id, now)
	if res := v.Verify(r, Target{}); res.Status != Pending {
		t.Fatalf("first: %+v", res)
	}
	dir.Wait()
	if res := v.Verify(r, Target{}); res.Status != Verified || res.Bot != "dir-bot" {
		t.Fatalf("cached: %+v", res)
	}
	if res := v.Verify(signFor(t, ds.srv.URL, other, id, now), Target{}); res.Status != Impostor {
		t.Fatalf("other key under the agent's keyid: %+v", res)
	}
	if n := ds.hits.Load(); n != 1 {
		t.Errorf("%d fetches", n)
	}
	dir.Close()
	if res := v.Verify(r, Target{}); res.Status != Verified {
		t.Fatalf("after Close: %+v", res)
	}
}

// TestDirectoryCoalesces: many requests of an agent not yet cached make one fetch.
func TestDirectoryCoalesces(t *testing.T) {
	pub, priv, _ := ed25519.GenerateKey(nil)
	ds := newDirServer(t, pub)
	ds.gate = make(chan struct{})
	dir := ds.directory()
	now := int64(1_800_000_000)
	v, _ := NewVerifier(Options{Agents: []Agent{{URL: ds.srv.URL, Bot: "b"}}, Directory: dir, Now: func() time.Time { return time.Unix(now, 0) }})
	r := signFor(t, ds.srv.URL, priv, mustThumbprint(t, pub), now)
	var wg sync.WaitGroup
	for range 50 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if res := v.Verify(r.Clone(context.Background()), Target{}); res.Status != Pending {
				t.Errorf("%+v", res)
			}
		}()
	}
	wg.Wait()
	errs := make(chan error, 5)
	for range 5 {
		go func() { errs <- dir.Fetch(context.Background(), ds.srv.URL) }()
	}
	close(ds.gate)
	for range 5 {
		if err := <-errs; err != nil {
			t.Error(err)
		}
	}
	dir.Wait()
	if n := ds.hits.Load(); n != 1 {
		t.Errorf("%d fetches, want 1", n)
	}
	if res := v.Verify(r, Target{}); res.Status != Verified {
		t.Errorf("%+v", res)
	}
}

// TestDirectoryRefuses: what the draft says a fetch must not accept.
func TestDirectoryRefuses(t *testing.T) {
	pub, _, _ := ed25519.GenerateKey(nil)
	for _, tc := range []struct {
		name string
		set  func(d *dirServer)
		want string
	}{
		{"status", func(d *dirServer) { d.code = 404 }, "status 404"},
		{"redirect", func(d *dirServer) { d.code = http.StatusFound }, "status 302"},
		{"media type", func(d *dirServer) { d.ctype = "application/json" }, "media type"},
		{"size", func(d *dirServer) { d.body = `{"keys":[],"x":"` + strings.Repeat("a", MaxDirectorySize) + `"}` }, "bytes"},
		{"not a key set", func(d *dirServer) { d.body = `{"key":[]}` }, "keys"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ds := newDirServer(t, pub)
			ds.set(tc.set)
			err := ds.directory().Fetch(context.Background(), ds.srv.URL)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("%v, want %q", err, tc.want)
			}
			if tc.name == "redirect" && ds.hits.Load() != 1 {
				t.Errorf("redirect followed: %d requests", ds.hits.Load())
			}
		})
	}
	t.Run("loopback by default", func(t *testing.T) {
		ds := newDirServer(t, pub)
		dir := NewDirectory(DirectoryOptions{TLSConfig: ds.srv.Client().Transport.(*http.Transport).TLSClientConfig})
		if err := dir.Fetch(context.Background(), ds.srv.URL); err == nil || !strings.Contains(err.Error(), "refused") {
			t.Fatalf("%v", err)
		}
		if ds.hits.Load() != 0 {
			t.Errorf("the server was reached")
		}
	})
	t.Run("untrusted TLS", func(t *testing.T) {
		ds := newDirServer(t, pub)
		dir := NewDirectory(DirectoryOptions{TLSConfig: &tls.Config{}, AllowAddr: func(netip.Addr) bool { return true }})
		if err := dir.Fetch(context.Background(), ds.srv.URL); err == nil {
			t.Fatal("a server of unknown roots was trusted")
		}
	})
	t.Run("jwks url", func(t *testing.T) {
		// A Signature-Agent URL with a path is fetched as is, as a JWK Set.
		ds := newDirServer(t, pub)
		ds.set(func(d *dirServer) { d.ctype = "application/jwk-set+json" })
		if err := ds.directory().Fetch(context.Background(), ds.srv.URL+"/jwks.json"); err != nil {
			t.Fatal(err)
		}
	})
}

// TestDirectoryRotation: a keyid the cached directory lacks refetches it, at most once per
// Retry; a failed refetch keeps the cached keys; a fetched directory without a key drops it.
func TestDirectoryRotation(t *testing.T) {
	pubA, privA, _ := ed25519.GenerateKey(nil)
	pubB, privB, _ := ed25519.GenerateKey(nil)
	ds := newDirServer(t, pubA)
	dir := ds.directory()
	now := int64(1_800_000_000)
	v, _ := NewVerifier(Options{Agents: []Agent{{URL: ds.srv.URL, Bot: "b"}}, Directory: dir, Now: func() time.Time { return time.Unix(now, 0) }})
	verify := func(priv ed25519.PrivateKey, pub ed25519.PublicKey) Status {
		res := v.Verify(signFor(t, ds.srv.URL, priv, mustThumbprint(t, pub), now), Target{})
		dir.Wait()
		return res.Status
	}
	if st := verify(privA, pubA); st != Pending {
		t.Fatalf("first: %v", st)
	}
	if st := verify(privA, pubA); st != Verified {
		t.Fatalf("A: %v", st)
	}
	ds.setKeys(pubA, pubB)
	now += 10
	if st := verify(privB, pubB); st != UnknownKey {
		t.Fatalf("B within Retry of the last fetch: %v", st)
	}
	if ds.hits.Load() != 1 {
		t.Fatalf("%d fetches", ds.hits.Load())
	}
	now += 60
	if st := verify(privB, pubB); st != Pending {
		t.Fatalf("B after Retry: %v", st)
	}
	if st := verify(privB, pubB); st != Verified {
		t.Fatalf("B rotated in: %v", st)
	}
	// The directory goes down; stale keys keep verifying.
	ds.set(func(d *dirServer) { d.code = 503 })
	now += 2 * 3600
	if st := verify(privA, pubA); st != Verified {
		t.Fatalf("A while the directory is down: %v", st)
	}
	if ds.hits.Load() != 3 {
		t.Errorf("%d fetches", ds.hits.Load())
	}
	// It comes back without A: A stops verifying.
	ds.set(func(d *dirServer) { d.code = 200 })
	ds.setKeys(pubB)
	now += 2 * 3600
	verify(privA, pubA) // stale: refetched in the background
	if st := verify(privA, pubA); st != UnknownKey {
		t.Fatalf("A removed: %v", st)
	}
}

// TestDirectoryUntrusted: the directory of an agent that is not trusted is not fetched unless
// FetchUntrusted; then its requests are Signed, never Verified.
func TestDirectoryUntrusted(t *testing.T) {
	pub, priv, _ := ed25519.GenerateKey(nil)
	ds := newDirServer(t, pub)
	now := int64(1_800_000_000)
	r := signFor(t, ds.srv.URL, priv, mustThumbprint(t, pub), now)
	clock := func() time.Time { return time.Unix(now, 0) }
	dir := ds.directory()
	v, _ := NewVerifier(Options{Directory: dir, Now: clock})
	if res := v.Verify(r, Target{}); res.Status != UnknownKey || ds.hits.Load() != 0 {
		t.Fatalf("%+v, %d fetches", res, ds.hits.Load())
	}
	v, _ = NewVerifier(Options{Directory: dir, Now: clock, FetchUntrusted: true})
	v.Verify(r, Target{})
	dir.Wait()
	if res := v.Verify(r, Target{}); res.Status != Signed || res.Bot != "" {
		t.Fatalf("%+v", res)
	}
}

func TestDirectoryTTL(t *testing.T) {
	d := NewDirectory(DirectoryOptions{})
	for cc, want := range map[string]time.Duration{
		"":                     time.Hour,
		"max-age=60":           5 * time.Minute,
		"public, max-age=7200": 2 * time.Hour,
		"max-age=99999999":     24 * time.Hour,
		"no-store":             5 * time.Minute,
		"max-age=x":            time.Hour,
		// A quoted-string is one directive's value (RFC 9111 section 5.2): no no-store here.
		`max-age=600, private="Set-Cookie, no-store, Vary"`: 10 * time.Minute,
	} {
		h := http.Header{}
		if cc != "" {
			h.Set("Cache-Control", cc)
		}
		if got := d.ttl(h); got != want {
			t.Errorf("%q: %v, want %v", cc, got, want)
		}
	}
	for a, want := range map[string]bool{"8.8.8.8": true, "2606:4700::1": true, "127.0.0.1": false, "10.1.2.3": false, "192.168.0.1": false, "169.254.169.254": false, "fe80::1": false, "::1": false, "100.64.0.1": false, "0.0.0.0": false, "fd00::1": false} {
		if got := PublicAddr(netip.MustParseAddr(a)); got != want {
			t.Errorf("PublicAddr(%s) = %v", a, got)
		}
	}
}

// TestDirectoryBounds: agents that are not trusted hold at most MaxAgents entries and
// MaxFetches - 1 fetches; a trusted agent always gets an entry and a fetch.
func TestDirectoryBounds(t *testing.T) {
	pub, priv, _ := ed25519.GenerateKey(nil)
	ds := newDirServer(t, pub)
	ds.gate = make(chan struct{})
	now := int64(1_800_000_000)
	dir := NewDirectory(DirectoryOptions{
		TLSConfig:  ds.srv.Client().Transport.(*http.Transport).TLSClientConfig.Clone(),
		AllowAddr:  func(a netip.Addr) bool { return a.IsLoopback() },
		MaxAgents:  2,
		MaxFetches: 2,
	})
	clock := func() time.Time { return time.Unix(now, 0) }
	trustedURL := ds.srv.URL + "/jwks.json"
	v, _ := NewVerifier(Options{Agents: []Agent{{URL: trustedURL, Bot: "t"}}, Directory: dir, FetchUntrusted: true, Now: clock})
	id := mustThumbprint(t, pub)
	check := func(agent string, want Status) {
		t.Helper()
		if res := v.Verify(signFor(t, agent, priv, id, now), Target{}); res.Status != want {
			t.Fatalf("%s: %+v, want %v", agent, res, want)
		}
	}
	check(ds.srv.URL+"/u0", Pending)     // the one fetch agents not trusted may have
	check(ds.srv.URL+"/u1", Unreachable) // no fetch left for them
	check(trustedURL, Pending)           // the fetch kept for trusted agents
	check(ds.srv.URL+"/u2", Unreachable) // u1 made room (never fetched), still no fetch
	dir.mu.Lock()
	n, untrusted := len(dir.entries), dir.untrusted
	dir.mu.Unlock()
	if n != 3 || untrusted != 2 {
		t.Errorf("%d entries, %d untrusted", n, untrusted)
	}
	close(ds.gate)
	dir.Wait()
	check(trustedURL, Verified)
	if h := ds.hits.Load(); h != 2 {
		t.Errorf("%d fetches", h)
	}
}

// TestDirectoryTestKeys: a directory serving the RFC 9421 test key (as the draft's signed
// directory example does) does not make it verify, unless AllowTestKeys.
func TestDirectoryTestKeys(t *testing.T) {
	ds := newDirServer(t, rfc9421Ed25519(t))
	for _, allow := range []bool{false, true} {
		dir := NewDirectory(DirectoryOptions{
			TLSConfig:     ds.srv.Client().Transport.(*http.Transport).TLSClientConfig.Clone(),
			AllowAddr:     func(a netip.Addr) bool { return a.IsLoopback() },
			AllowTestKeys: allow,
		})
		if err := dir.Fetch(context.Background(), ds.srv.URL); err != nil {
			t.Fatal(err)
		}
		agent, _ := NormalizeAgent(ds.srv.URL)
		k, _, _ := dir.lookup(agent, rfc9421Thumbprint, time.Now(), true)
		if (k != nil) != allow {
			t.Errorf("AllowTestKeys %v: key %v", allow, k)
		}
	}
}
