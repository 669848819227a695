// Package coarse is a clock kept to the second, for request paths that need the time only
// roughly: reading it is an atomic load, where time.Now costs as much as the rest of such a
// path on some virtual machines (~90 ns).
package coarse

import (
	"sync"
	"sync/atomic"
	"time"
)

// clock is time.Now to within a second, kept by one goroutine started on first use, and the
// monotonic time elapsed since it started.
var clock struct {
	once    sync.Once
	now     atomic.Int64 // Unix nanoseconds
	elapsed atomic.Int64 // nanoseconds since base, from the monotonic readings
	base    time.Time
}

func start() {
	clock.once.Do(func() {
		clock.base = time.Now()
		clock.now.Store(clock.base.UnixNano())
		go func() {
			for t := range time.Tick(time.Second) {
				clock.now.Store(t.UnixNano())
				clock.elapsed.Store(int64(t.Sub(clock.base)))
			}
		}()
	})
}

// Now is time.Now to within a second. It is the wall clock, which can be set back or
// forward: measure intervals with Elapsed.
func Now() time.Time {
	start()
	return time.Unix(0, clock.now.Load())
}

// Elapsed is the time since the clock started to within a second, read from the monotonic
// clock: it never goes back, whatever is done to the wall clock (an NTP step, a virtual
// machine resumed).
func Elapsed() time.Duration {
	start()
	return time.Duration(clock.elapsed.Load())
}
