package webbotauth

import "sync"

// Nonces remembers the nonces of verified signatures until they expire, so that a signature
// replayed within its validity is refused (RFC 9421 section 7.2.2; the draft leaves whether to
// require nonces to the verifier). Memory is bounded: at most the size given to NewNonces; when
// it is full of unexpired nonces, a new one is refused (Replayed, "nonce store full") rather
// than forgotten, since a forgotten nonce is one a replay would pass.
type Nonces struct {
	mu   sync.Mutex
	max  int
	seen map[string]int64 // agent, keyid and nonce -> Unix second until which it is kept
}

// NewNonces returns a store of at most max nonces (0: 100,000).
func NewNonces(max int) *Nonces {
	if max <= 0 {
		max = 100000
	}
	return &Nonces{max: max, seen: map[string]int64{}}
}

// add records a nonce until the Unix second until; false if it was seen before or there is no
// room.
func (n *Nonces) add(agent, keyID, nonce string, until, now int64) bool {
	k := agent + "\x00" + keyID + "\x00" + nonce
	n.mu.Lock()
	defer n.mu.Unlock()
	if t, ok := n.seen[k]; ok && t >= now {
		return false
	}
	if len(n.seen) >= n.max {
		for s, t := range n.seen {
			if t < now {
				delete(n.seen, s)
			}
		}
		if len(n.seen) >= n.max {
			return false
		}
	}
	n.seen[k] = until
	return true
}

// Len returns how many nonces are kept.
func (n *Nonces) Len() int {
	n.mu.Lock()
	defer n.mu.Unlock()
	return len(n.seen)
}
