package serve

import "sync"

// memPayments is NewPaymentStore's store: a map of the payments in flight and settled, the
// settled ones in a ring so that the oldest is forgotten first.
type memPayments struct {
	mu       sync.Mutex
	inFlight map[string]bool // id -> true in flight, false settled
	ring     []string        // settled ids, oldest at next
	next     int
	max      int
}

// NewPaymentStore returns a PaymentStore of one process that remembers at most max payments
// (in flight and settled; max at least 1): past it, the oldest settled payment is forgotten
// (the facilitator refuses a spent authorization still). When max payments are all in
// flight, Begin refuses.
func NewPaymentStore(max int) PaymentStore {
	if max < 1 {
		max = 1
	}
	return &memPayments{inFlight: map[string]bool{}, max: max}
}

func (m *memPayments) Begin(id string) bool {
	m.mu.Lock()
	defer m.mu.Unlock()
	if _, ok := m.inFlight[id]; ok {
		return false
	}
	if len(m.inFlight) >= m.max && !m.forgetOldest() {
		return false
	}
	m.inFlight[id] = true
	return true
}

func (m *memPayments) End(id string, settled bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if !m.inFlight[id] {
		return
	}
	if !settled {
		delete(m.inFlight, id)
		return
	}
	m.inFlight[id] = false
	if len(m.ring) < m.max {
		m.ring = append(m.ring, id)
		return
	}
	if old := m.ring[m.next]; old != "" {
		delete(m.inFlight, old)
	}
	m.ring[m.next] = id
	m.next = (m.next + 1) % len(m.ring)
}

// forgetOldest forgets the oldest settled payment, whose slot in the ring becomes next;
// false when none is left. The ring holds the settled ids oldest first from next, "" in a
// slot forgotten already.
func (m *memPayments) forgetOldest() bool {
	for range len(m.ring) {
		if id := m.ring[m.next]; id != "" {
			delete(m.inFlight, id)
			m.ring[m.next] = ""
			return true
		}
		m.next = (m.next + 1) % len(m.ring)
	}
	return false
}
