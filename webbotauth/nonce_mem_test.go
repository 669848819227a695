package webbotauth

import (
	"fmt"
	"runtime"
	"strings"
	"testing"
)

// TestNoncesMemory: a full partition of 100,000 nonces, the first 30,000 of them 14 KB long
// (Nonces.add hashes whatever it is given; the Verifier refuses nonces over MaxNonceLength
// before), holds at most NonceEntryBytes a nonce: the heap grows by the count, not by what
// the nonces weigh (keeping them would be 420 MB).
func TestNoncesMemory(t *testing.T) {
	if raceEnabled {
		t.Skip("the race detector changes the heap: ./test.sh runs this test without it")
	}
	const entries, long = 100000, 30000
	big := strings.Repeat("n", 14<<10)
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	n := NewNonces(entries)
	// Twice as many as it holds: every shard fills.
	kept := 0
	for i := range 2 * entries {
		nonce := fmt.Sprint(i)
		if i < long {
			nonce = big[:len(big)-len(nonce)] + nonce
		}
		ok, why := n.add("https://agent.example/", "kid", nonce, false, 2000, 1000)
		switch {
		case ok:
			kept++
		case why != NonceStoreFull:
			t.Fatalf("nonce %d: %v %q", i, ok, why)
		}
	}
	if kept != entries || n.Len() != entries {
		t.Fatalf("kept %d (Len %d), want %d", kept, n.Len(), entries)
	}
	runtime.GC()
	runtime.ReadMemStats(&after)
	grew := int64(after.HeapAlloc) - int64(before.HeapAlloc)
	t.Logf("%d nonces: heap grew %d bytes, %d a nonce", entries, grew, grew/entries)
	if grew > entries*NonceEntryBytes {
		t.Errorf("heap grew %d bytes for %d nonces, more than %d each", grew, entries, NonceEntryBytes)
	}
	runtime.KeepAlive(n)
}
