package coarse

import (
	"testing"
	"time"
)

// TestNow: the clock is within about a second of time.Now, and moves.
func TestNow(t *testing.T) {
	a := Now()
	if d := time.Since(a); d < 0 || d > 2*time.Second {
		t.Fatalf("Now is %v from time.Now", d)
	}
	time.Sleep(1100 * time.Millisecond)
	if b := Now(); !b.After(a) {
		t.Errorf("Now did not move in 1.1 s: %v then %v", a, b)
	}
}

// TestElapsed: the monotonic clock is within about a second of time.Since its start, and
// moves.
func TestElapsed(t *testing.T) {
	a := Elapsed()
	if d := time.Since(clock.base) - a; d < 0 || d > 2*time.Second {
		t.Fatalf("Elapsed is %v behind time.Since its start", d)
	}
	time.Sleep(1100 * time.Millisecond)
	if b := Elapsed(); b <= a {
		t.Errorf("Elapsed did not move in 1.1 s: %v then %v", a, b)
	}
}
