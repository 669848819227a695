package webbotauth

import (
	"crypto/ed25519"
	"math/rand/v2"
	"net/http"
	"testing"
	"time"
)

// TestDirectoryFaultsNeverImpostor: a trusted agent's valid signature, while its key
// directory cannot be fetched (server errors, a redirect, the wrong media type, a document
// that is not a JWK Set, an empty set), whether no directory was ever fetched or the one
// cached has gone stale, is never an impostor; once the directory answers, it verifies. Only
// a signature that fails against a key held is an impostor, whatever the directory's state.
func TestDirectoryFaultsNeverImpostor(t *testing.T) {
	pub, priv, _ := ed25519.GenerateKey(nil)
	_, forger, _ := ed25519.GenerateKey(nil)
	faults := []func(d *dirServer){
		func(d *dirServer) { d.code = http.StatusInternalServerError },
		func(d *dirServer) { d.code = http.StatusServiceUnavailable },
		func(d *dirServer) { d.code = http.StatusNotFound },
		func(d *dirServer) { d.code = http.StatusFound },
		func(d *dirServer) { d.ctype = "text/html" },
		func(d *dirServer) { d.body = "<html>maintenance</html>" },
		func(d *dirServer) { d.body = `{"keys":[]}` }, // last: a definite answer, the key removed
	}
	rounds := 30
	if raceEnabled {
		rounds = 10
	}
	for round := range rounds {
		seed := uint64(time.Now().UnixNano()) + uint64(round)
		rng := rand.New(rand.NewPCG(seed, 1))
		ds := newDirServer(t, pub)
		var body string
		ds.set(func(d *dirServer) { body = d.body })
		good := func(d *dirServer) { d.code, d.ctype, d.body = 200, DirectoryMediaType, body }
		dir := ds.directory()
		now := int64(1_800_000_000)
		v, err := NewVerifier(Options{Agents: []Agent{{URL: ds.srv.URL, Bot: "dir-bot"}}, Directory: dir, Now: func() time.Time { return time.Unix(now, 0) }})
		if err != nil {
			t.Fatal(err)
		}
		id := mustThumbprint(t, pub)
		cached := rng.IntN(2) == 0 // the directory was fetched once, then goes stale
		if cached {
			v.Verify(signFor(t, ds.srv.URL, priv, id, now), Target{})
			dir.Wait()
			now += 2 * 3600
		}
		removed := false
		for step := range 1 + rng.IntN(5) {
			i := rng.IntN(len(faults))
			f := faults[i]
			ds.set(func(d *dirServer) { good(d); f(d) })
			for range 2 {
				res := v.Verify(signFor(t, ds.srv.URL, priv, id, now), Target{})
				dir.Wait()
				// Stale keys keep verifying while the directory fails; a fetched directory
				// without the key makes it unknown, which proves nothing either.
				removed = removed || i == len(faults)-1 && res.Status == UnknownKey
				if res.Status == Impostor || cached && !removed && res.Status != Verified {
					t.Fatalf("seed %d, step %d (cached %v): %+v", seed, step, cached, res)
				}
			}
			now += 61 // past Retry: the next request fetches again
		}
		held := cached && !removed
		if res := v.Verify(signFor(t, ds.srv.URL, forger, id, now), Target{}); held && res.Status != Impostor || !held && res.Status == Impostor {
			t.Errorf("seed %d: a forged signature under the agent's keyid (a key held: %v): %v", seed, held, res.Status)
		}
		dir.Wait()
		ds.set(good)
		now += 61
		v.Verify(signFor(t, ds.srv.URL, priv, id, now), Target{})
		dir.Wait()
		if res := v.Verify(signFor(t, ds.srv.URL, priv, id, now), Target{}); res.Status != Verified {
			t.Errorf("seed %d: after recovery: %+v", seed, res)
		}
	}
}
