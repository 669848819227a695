// Package coarse is a clock kept to the second, for request paths that need the time only
// roughly: reading it is an atomic load, where time.Now costs as much as the rest of such a
// path on some virtual machines (~90 ns).
package coarse

import (
	"sync"
	"sync/atomic"
	"time"
)

// clock is time.Now to within a second, kept by one goroutine started on first use.
var clock struct {
	once sync.Once
	now  atomic.Int64
}

// Now is time.Now to within a second.
func Now() time.Time {
	clock.once.Do(func() {
		clock.now.Store(time.Now().UnixNano())
		go func() {
			for t := range time.Tick(time.Second) {
				clock.now.Store(t.UnixNano())
			}
		}()
	})
	return time.Unix(0, clock.now.Load())
}
