package identity

import (
	"testing"
	"time"
)

// TestCoarseNow: the clock a lookup reads is within about a second of time.Now, and moves.
func TestCoarseNow(t *testing.T) {
	a := coarseNow()
	if d := time.Since(a); d < 0 || d > 2*time.Second {
		t.Fatalf("coarseNow is %v from time.Now", d)
	}
	time.Sleep(1100 * time.Millisecond)
	if b := coarseNow(); !b.After(a) {
		t.Errorf("coarseNow did not move in 1.1 s: %v then %v", a, b)
	}
}
