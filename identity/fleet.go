package identity

import (
	"context"
	"net/netip"
	"time"
)

// fromStore asks the fleet's store for addr's verdict (DNSOptions.Store). ok: st is the
// answer (the store's verdict, cached here for what remains of its TTL; or DNSPending while
// another instance looks addr up). Otherwise this instance looks up: claimed says it holds
// the fleet's claim (and shares its answer), else the store failed and the lookup is this
// process's alone. d.mu is not held.
func (d *ReverseDNS) fromStore(addr netip.Addr, masks []string) (st DNSStatus, claimed, ok bool) {
	// The claim outlasts the lookup (Timeout bounds it), so that an instance that dies
	// looking up holds no address for longer.
	ans, err := d.opts.Store.DNSVerdict(context.Background(), addr, d.opts.Timeout+time.Second)
	switch {
	case err != nil:
		return DNSPending, false, false
	case ans.Claimed:
		return DNSPending, true, false
	case !ans.Found:
		return DNSPending, false, true
	}
	d.fromStoreN.Add(1)
	d.mu.Lock()
	defer d.mu.Unlock()
	d.putLocked(addr, dnsAnswer{names: ans.Names, expires: d.opts.Now().Add(ans.TTL)})
	st, _ = d.answerLocked(addr, masks)
	return st, false, true
}

// share stores the definite answer of a lookup this instance claimed, for as long as it
// caches it, the fleet keeping at most MaxEntries verdicts as each instance does. A store
// that fails keeps nothing: the claim expires and another instance looks up.
func (d *ReverseDNS) share(addr netip.Addr, names []string) {
	ttl := d.opts.Negative
	if len(names) > 0 {
		ttl = d.opts.Positive
	}
	d.opts.Store.PutDNSVerdict(context.Background(), addr, names, ttl, d.opts.MaxEntries)
}

// StoreAnswers returns how many answers came from the fleet's store (DNSOptions.Store):
// verdicts another instance looked up.
func (d *ReverseDNS) StoreAnswers() int64 { return d.fromStoreN.Load() }
