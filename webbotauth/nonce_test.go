package webbotauth

import (
	"crypto/ed25519"
	"fmt"
	"math/rand/v2"
	"net/http"
	"strings"
	"testing"
	"time"
)

// signNonce is a GET signed by agent's key priv (keyID) with nonce, valid from created for
// validity seconds; the signature base is written here, not by Signature.Base.
func signNonce(t testing.TB, agent string, priv ed25519.PrivateKey, keyID, nonce string, created, validity int64) *http.Request {
	t.Helper()
	r, _ := http.NewRequest("GET", "https://shop.example/page", nil)
	params := `("@authority" "@path" "signature-agent";key="sig1");created=` + itoa(created) + `;expires=` + itoa(created+validity) + `;keyid="` + keyID + `";nonce="` + nonce + `";tag="web-bot-auth"`
	base := "\"@authority\": shop.example\n\"@path\": /page\n\"signature-agent\";key=\"sig1\": \"" + agent + "\"\n\"@signature-params\": " + params
	r.Header.Set("Signature-Agent", `sig1="`+agent+`"`)
	r.Header.Set("Signature-Input", "sig1="+params)
	r.Header.Set("Signature", "sig1=:"+b64(ed25519.Sign(priv, []byte(base)))+":")
	return r
}

// TestNoncesFlood: an agent nobody trusts, whose directory FetchUntrusted fetches, floods the
// verifier with validly signed requests carrying distinct long nonces, twice what its
// partition holds. Its nonces fill its own partition and then are refused (NonceStoreFull,
// not Signed); a trusted agent's fresh nonces still verify and its replays are still refused,
// before, during and after the flood; once the flood's nonces expire, they are forgotten.
func TestNoncesFlood(t *testing.T) {
	flood := 100000
	if raceEnabled || testing.Short() {
		flood = 4000
	}
	tpub, tpriv, _ := ed25519.GenerateKey(nil)
	tid := mustThumbprint(t, tpub)
	upub, upriv, _ := ed25519.GenerateKey(nil)
	uid := mustThumbprint(t, upub)
	ds := newDirServer(t, upub)
	dir := ds.directory()
	now := int64(1_800_000_000)
	clock := func() time.Time { return time.Unix(now, 0) }
	store := NewNonces(flood / 2)
	const trustedAgent = "https://trusted.example/"
	v, err := NewVerifier(Options{Agents: []Agent{{URL: trustedAgent, Bot: "t", Keys: []Key{{ID: tid, Public: tpub}}}},
		Directory: dir, FetchUntrusted: true, Nonces: store, Now: clock})
	if err != nil {
		t.Fatal(err)
	}
	untrusted := ds.srv.URL + "/jwks.json"
	if res := v.Verify(signNonce(t, untrusted, upriv, uid, "first", now, 300), Target{}); res.Status != Pending {
		t.Fatalf("first untrusted request: %+v", res)
	}
	dir.Wait()

	trustedSeq := 0
	trustedRound := func(when string) {
		t.Helper()
		nonce := fmt.Sprintf("trusted-%d", trustedSeq)
		trustedSeq++
		r := signNonce(t, trustedAgent, tpriv, tid, nonce, now, 300)
		if res := v.Verify(r, Target{}); res.Status != Verified {
			t.Fatalf("%s: a trusted agent's fresh nonce: %+v", when, res)
		}
		if res := v.Verify(r, Target{}); res.Status != Replayed || res.Reason != "nonce seen before" {
			t.Fatalf("%s: a trusted agent's replay: %+v", when, res)
		}
	}
	trustedRound("before the flood")
	long := strings.Repeat("n", MaxNonceLength-12)
	signed := 0
	for i := range flood {
		res := v.Verify(signNonce(t, untrusted, upriv, uid, fmt.Sprintf("%s%012d", long, i), now, 300), Target{})
		switch {
		case res.Status == Signed:
			signed++
		case res.Status == Replayed && res.Reason == NonceStoreFull:
			// Its shard is full (a sharded partition's shards fill one by one).
		default:
			t.Fatalf("flood request %d: %+v", i, res)
		}
		if i%(flood/8) == 0 {
			trustedRound(fmt.Sprintf("after %d flood requests", i))
		}
	}
	for range 100 {
		trustedRound("after the flood")
	}
	// Each shard had its share of the flood, about twice what it holds: all are full.
	if signed != flood/2 {
		t.Errorf("%d of %d flood requests signed, want %d", signed, flood, flood/2)
	}
	if tr, un := store.lens(); tr != trustedSeq || un != flood/2 {
		t.Errorf("kept %d trusted and %d untrusted nonces, want %d and %d", tr, un, trustedSeq, flood/2)
	}
	// The flood's nonces expire (expires + skew): new untrusted nonces are recorded again.
	now += 300 + 60 + 1
	for i := range 100 {
		if res := v.Verify(signNonce(t, untrusted, upriv, uid, fmt.Sprint("after expiry ", i), now, 300), Target{}); res.Status != Signed {
			t.Fatalf("after expiry: %+v", res)
		}
	}
	trustedRound("after expiry")
}

// TestNonceLength: a nonce of MaxNonceLength bytes verifies, a longer one is Malformed
// (before its signature is checked), and without a store the length is not judged.
func TestNonceLength(t *testing.T) {
	pub, priv, _ := ed25519.GenerateKey(nil)
	id := mustThumbprint(t, pub)
	const now = 1_800_000_000
	const agent = "https://agent.example/"
	for _, store := range []*Nonces{NewNonces(10), nil} {
		v, _ := NewVerifier(Options{Agents: []Agent{{URL: agent, Bot: "b", Keys: []Key{{ID: id, Public: pub}}}}, Now: at(now), Nonces: store})
		for _, n := range []int{MaxNonceLength, MaxNonceLength + 1, 2048} {
			res := v.Verify(signNonce(t, agent, priv, id, strings.Repeat("x", n), now, 60), Target{})
			want := Verified
			if store != nil && n > MaxNonceLength {
				want = Malformed
			}
			if res.Status != want {
				t.Errorf("store %v, nonce of %d bytes: %+v, want %v", store != nil, n, res, want)
			}
		}
	}
}

// TestNoncesModel: random adds and clock steps against a model kept the obvious way (every
// nonce with its expiry, scanned): the same answer each time, replay, full or recorded, and
// the same count kept. Small partitions (one shard, exact bound) and a sharded one.
func TestNoncesModel(t *testing.T) {
	ops := 200000
	if raceEnabled || testing.Short() {
		ops = 20000
	}
	for _, max := range []int{1, 7, 50, nonceShards * nonceShardMin} {
		rng := rand.New(rand.NewPCG(uint64(max), 9))
		n := NewNonces(max)
		type key struct {
			agent, nonce string
			trusted      bool
		}
		model := map[key]int64{}
		now := int64(1000)
		pool := max * 3
		for i := range ops {
			if rng.IntN(20) == 0 {
				now += int64(rng.IntN(30))
			}
			k := key{fmt.Sprint("a", rng.IntN(3)), fmt.Sprint(rng.IntN(pool)), rng.IntN(2) == 0}
			until := now + int64(rng.IntN(100))
			kept := 0
			for mk, u := range model {
				if u < now {
					delete(model, mk)
				} else if mk.trusted == k.trusted {
					kept++
				}
			}
			want, wantWhy := true, ""
			if _, ok := model[k]; ok {
				want = false
			} else if kept >= max && max < nonceShards*nonceShardMin {
				want, wantWhy = false, NonceStoreFull
			}
			got, why := n.add(k.agent, "kid", k.nonce, k.trusted, until, now)
			if got != want || why != wantWhy {
				t.Fatalf("max %d, op %d %+v at %d: %v %q, want %v %q", max, i, k, now, got, why, want, wantWhy)
			}
			if got {
				model[k] = until
			}
			// Expiry is lazy, per shard: what is kept may include what the model dropped,
			// never more than the bound.
			if tr, un := n.lens(); tr > max || un > max {
				t.Fatalf("max %d, op %d: %d and %d kept", max, i, tr, un)
			}
		}
	}
}

// BenchmarkNoncesAdd: one nonce recorded (and one expired) in a store holding 1,000 or
// 100,000 unexpired nonces: the cost must not grow with the store (the scan it replaced took
// 41 us and 2.3 ms).
func BenchmarkNoncesAdd(b *testing.B) {
	for _, size := range []int{1000, 100000} {
		b.Run(fmt.Sprint(size), func(b *testing.B) {
			// Room for twice: the nonces kept at once are those of the last size seconds,
			// spread over the shards at random.
			n := NewNonces(2 * size)
			now := int64(1_000_000)
			for i := range size {
				n.add("https://agent.example/", "kid", fmt.Sprint("fill", i), false, now+int64(i), now)
			}
			nonces := make([]string, 1<<16)
			for i := range nonces {
				nonces[i] = fmt.Sprintf("%088d", i)
			}
			i := 0
			b.ReportAllocs()
			for b.Loop() {
				now++
				// Each new nonce is kept size seconds and one expires per second: the store
				// keeps size nonces.
				if ok, why := n.add("https://agent.example/", "kid", nonces[i&(1<<16-1)]+itoa(now), false, now+int64(size)-1, now); !ok {
					b.Fatal(why)
				}
				i++
			}
		})
	}
}

// BenchmarkVerifySignedNonce: a trusted agent's signed request with a fresh nonce (signing it
// is not timed), with the untrusted partition empty and full of 100,000 nonces: the same
// cost (the scan it replaced made the full case 2.3 ms a nonce).
func BenchmarkVerifySignedNonce(b *testing.B) {
	pub, priv, _ := ed25519.GenerateKey(nil)
	id := mustThumbprint(b, pub)
	const now = 1_800_000_000
	const agent = "https://agent.example/"
	for _, fill := range []int{0, 100000} {
		b.Run(fmt.Sprint("untrusted-", fill), func(b *testing.B) {
			store := NewNonces(100000)
			for i := range fill {
				store.add("https://other.example/", "kid", fmt.Sprint(i), false, now+300, now)
			}
			v, _ := NewVerifier(Options{Agents: []Agent{{URL: agent, Bot: "b", Keys: []Key{{ID: id, Public: pub}}}}, Now: at(now), Nonces: store})
			i := 0
			b.ReportAllocs()
			for b.Loop() {
				b.StopTimer()
				r := signNonce(b, agent, priv, id, fmt.Sprintf("%088d", i), now, 300)
				i++
				b.StartTimer()
				if res := v.Verify(r, Target{}); res.Status != Verified {
					b.Fatal(res)
				}
			}
		})
	}
}

// TestNoncesConcurrent: goroutines recording the same nonces at once (a replay racing its
// original) over a sharded store: each nonce is accepted exactly once.
func TestNoncesConcurrent(t *testing.T) {
	nonces, workers := 20000, 4
	if raceEnabled || testing.Short() {
		nonces = 2000
	}
	n := NewNonces(nonceShards * nonceShardMin * 2)
	accepted := make([]int, workers)
	done := make(chan struct{})
	for w := range workers {
		go func() {
			defer func() { done <- struct{}{} }()
			for i := range nonces {
				if ok, why := n.add("https://a.example/", "kid", fmt.Sprint(i), i%2 == 0, 2000, 1000); ok {
					accepted[w]++
				} else if why != "" {
					t.Errorf("nonce %d: %s", i, why)
				}
			}
		}()
	}
	for range workers {
		<-done
	}
	total := 0
	for _, a := range accepted {
		total += a
	}
	if total != nonces || n.Len() != nonces {
		t.Errorf("%d accepted, %d kept, want %d", total, n.Len(), nonces)
	}
}
