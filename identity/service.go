package identity

import (
	"context"
	"sync"
)

// ServiceOptions configure a Service. The zero value verifies every bot of the catalogue
// that can be verified, with the operators' lists fetched daily and reverse DNS through the
// system resolver, nothing kept on disk.
type ServiceOptions struct {
	// Lists configure the operators' published address lists.
	Lists ListsOptions
	// NoLists turns the published lists off: bots only they verify stay Pending.
	NoLists bool
	// DNS configure forward-confirmed reverse DNS.
	DNS DNSOptions
	// NoDNS turns reverse DNS off: bots only it verifies stay Pending.
	NoDNS bool
}

// Service is a process's crawler verification: the operators' lists (refreshed in the
// background between Start and Stop), reverse DNS, and the Verifier reading both. One
// Service serves any number of sites; Identify may be called from any goroutine, before
// Start too (a bot only the lists verify is then Pending).
type Service struct {
	*Verifier
	lists *Lists
	dns   *ReverseDNS

	mu      sync.Mutex
	started bool
	stopped bool
}

// NewService returns a Service; nothing is fetched, read or looked up before Start.
func NewService(opts ServiceOptions) *Service {
	s := &Service{}
	if !opts.NoLists {
		s.lists = NewLists(Sources(), opts.Lists)
	}
	if !opts.NoDNS {
		s.dns = NewReverseDNS(opts.DNS)
	}
	s.Verifier = NewVerifier(s.lists, s.dns)
	return s
}

// Start reads the lists kept on disk (or the local files) and starts their background
// refresh, once, and reports whether this call started it; later calls do nothing. It does
// not wait on the network.
func (s *Service) Start(ctx context.Context) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.started || s.stopped {
		return false
	}
	s.started = true
	if s.lists != nil {
		s.lists.Start(ctx)
	}
	return true
}

// Stop ends the background refresh and waits for it. It is safe to call more than once, and
// without Start.
func (s *Service) Stop() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.started && !s.stopped && s.lists != nil {
		s.lists.Stop()
	}
	s.stopped = true
}

// Lists returns the state of every published list (none when the lists are off).
func (s *Service) Lists() []ListStatus {
	if s.lists == nil {
		return nil
	}
	return s.lists.Status()
}

// DNSStats returns reverse DNS's counters (ReverseDNS.Stats); zero when it is off.
func (s *Service) DNSStats() (started, dropped, cacheHits int64) {
	if s.dns == nil {
		return 0, 0, 0
	}
	return s.dns.Stats()
}
