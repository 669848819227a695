package serve

import (
	"log/slog"
	"net/http"
	"strconv"
	"time"

	"github.com/sitepolicy/caddy-robots/metrics"
)

// takeDelay takes a request of crawler tok from its crawl-delay budget ds, k 1 for verified
// requests: from the fleet's store when there is one, else from the process's budget at the
// time elapsed reads. A store that fails serves the request (crawl-delay fails open: a
// crawler is never refused because the store is down; the store's Stats count it).
//
// With a store, ds remembers until when the fleet's budget is known to be taken, so that a
// crawler asking again within it is refused without a round trip: one round trip per
// instance and delay, however fast a crawler asks. What a store answered holds at least
// from the moment it was asked (now, read before the call): a budget it served then, or
// reported wait to, is taken by the store's clock until at least now+delay, or now+wait.
func (e *enforcer) takeDelay(r *http.Request, ds *delaySlot, tok string, k int, elapsed func() time.Duration) (time.Duration, bool) {
	now := elapsed()
	if e.store == nil {
		return ds.take(k, now)
	}
	if wait, held := ds.held(k, now); held {
		return wait, true
	}
	key := delayKeyUnverified + tok
	if k == 1 {
		key = delayKeyVerified + tok
	}
	wait, limited, err := e.store.TakeDelay(r.Context(), key, ds.delay)
	if err != nil {
		return 0, false
	}
	if limited {
		ds.hold(k, now+min(wait, ds.delay))
	} else {
		ds.hold(k, now+ds.delay)
	}
	return wait, limited
}

// allowRefusalLine is the refusal log's limit for b (Block.Unlogged, Block.Suppressed): the
// fleet's when there is a store and the line would be written at its level (Core.refuse),
// else the process's.
func (e *enforcer) allowRefusalLine(r *http.Request, b Block) (suppressed int, ok bool) {
	level := slog.LevelInfo
	if b.RetryAfter > 0 {
		level = slog.LevelDebug
	}
	if e.store == nil || e.log == nil || !e.log.Enabled(r.Context(), level) {
		return e.refusals.allow(refusalKey(b))
	}
	return e.refusals.allowShared(r.Context(), refusalKey(b))
}

// The prefixes of the store's keys of crawl-delay budgets (the name of a group of the
// served robots.txt follows) and log limits (a crawler's metrics label follows).
const (
	delayKeyUnverified = "u:"
	delayKeyVerified   = "v:"
	violationKey       = "violation:"
	refusalPrefix      = "refusal:"
)

// violationLimitName names key k (a metrics.Crawler) of the violation log's limit in the
// store.
func violationLimitName(k int) string { return violationKey + metrics.Crawler(k).Name() }

// refusalLimitName names key k (refusalKey) of the refusal log's limit in the store.
func refusalLimitName(k int) string {
	return refusalPrefix + metrics.Crawler(k/refusalKinds).Name() + ":" + strconv.Itoa(k%refusalKinds)
}
