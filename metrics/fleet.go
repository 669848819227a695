package metrics

import "github.com/sitepolicy/caddy-robots/fleet"

// ObserveStore makes m report the fallbacks of the fleet's store whose Stats are s
// (fleet.Store.Stats): the calls that failed or were not tried, by operation and reason.
// Nil reports none.
func (m *Counters) ObserveStore(s *fleet.Stats) { m.store.Store(s) }

// EachStoreFallback calls f for every operation ("crawl_delay", "log_limit", "nonce",
// "reverse_dns") and reason ("error", "backoff") whose calls to the observed store fell
// back at least once, in a fixed order.
func (m *Counters) EachStoreFallback(f func(operation, reason string, count uint64)) {
	s := m.store.Load()
	if s == nil {
		return
	}
	s.Each(func(op fleet.Op, r fleet.Reason, n uint64) { f(op.String(), r.String(), n) })
}
