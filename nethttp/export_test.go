package nethttp

import "time"

// WithClock is o with the core's clock set (serve.Options.Now): the intervals of the
// violation and refusal logs' limits and crawl-delay, for tests.
func WithClock(o Options, now func() time.Time) Options {
	o.now = now
	return o
}
