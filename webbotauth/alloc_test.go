package webbotauth

import (
	"net/http"
	"runtime"
	"testing"
)

// TestVerifyUnsignedAllocs: the unsigned request, every request of most sites, allocates
// nothing.
func TestVerifyUnsignedAllocs(t *testing.T) {
	if raceEnabled {
		t.Skip("the race detector changes allocation counts: ./test.sh runs this test without it")
	}
	v, err := NewVerifier(Options{Agents: []Agent{rfcAgent(t)}, AllowTestKeys: true})
	if err != nil {
		t.Fatal(err)
	}
	r, _ := http.NewRequest("GET", "https://shop.example/", nil)
	r.Header.Set("User-Agent", "x")
	if n := testing.AllocsPerRun(100, func() { v.Verify(r, Target{}) }); n != 0 {
		t.Errorf("%v allocations", n)
	}
}

// TestHugeHeaderAllocs: a 16 KB signature field (many members, one long nonce, many
// components, a long Signature-Agent or Signature) is refused as Malformed for its size or
// shape, with a handful of allocations and under 1 KB allocated; parsing it took httpsfv up
// to 7,041 allocations and 340 KB.
func TestHugeHeaderAllocs(t *testing.T) {
	if raceEnabled {
		t.Skip("the race detector changes allocation counts: ./test.sh runs this test without it")
	}
	v, err := NewVerifier(Options{Agents: []Agent{rfcAgent(t)}, AllowTestKeys: true, Nonces: NewNonces(0), Now: at(1_800_000_000)})
	if err != nil {
		t.Fatal(err)
	}
	for name, r := range hugeHeaders(t) {
		res := v.Verify(r, Target{})
		if res.Status != Malformed {
			t.Errorf("%s: %+v", name, res)
		}
		if name == "agent" {
			// The signature fields are parsed (they are small), the agent's is not: no
			// more than with a short Signature-Agent, which is parsed.
			short := r.Clone(r.Context())
			short.Header.Set("Signature-Agent", `sig1="https://agent.example/"`)
			huge := testing.AllocsPerRun(100, func() { v.Verify(r, Target{}) })
			if small := testing.AllocsPerRun(100, func() { v.Verify(short, Target{}) }); huge > small {
				t.Errorf("agent: %v allocations, %v with a short Signature-Agent", huge, small)
			}
			continue
		}
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		allocs := testing.AllocsPerRun(100, func() { v.Verify(r, Target{}) })
		runtime.ReadMemStats(&after)
		if bytes := (after.TotalAlloc - before.TotalAlloc) / 101; allocs > 8 || bytes > 1024 {
			t.Errorf("%s: %v allocations, %d bytes a request (%s)", name, allocs, bytes, res.Reason)
		}
	}
}
