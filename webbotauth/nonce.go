package webbotauth

import (
	"crypto/rand"
	"crypto/sha256"
	"encoding/binary"
	"sync"
)

// MaxNonceLength is the longest nonce accepted, in bytes. A nonce only needs to be unique: the
// draft's vectors use 88 characters (64 random bytes in base64); a longer one is refused as
// Malformed before it costs anything, since the signer chose its length and the verifier
// would otherwise hash (or, in a naive store, keep) all of it.
const MaxNonceLength = 256

// NonceStoreFull is the Reason of a Replayed result whose nonce could not be recorded because
// its partition of the store is full of unexpired nonces: a nonce not recorded is one a replay
// would pass, so the signature is refused (proving nothing) rather than accepted.
const NonceStoreFull = "the nonce store is full: the nonce cannot be recorded"

// NonceEntryBytes bounds the memory one kept nonce costs, whatever the nonce's length: a
// 16-byte hash and an 8-byte expiry in a map (with its overhead) and in a heap. Measured, not
// computed: TestNoncesMemory checks it (62 bytes a nonce in a full store of 100,000).
const NonceEntryBytes = 96

// nonceShards is how many independently locked shards a partition of at least
// nonceShards*nonceShardMin entries is split into, so that concurrent requests rarely wait
// for one lock; a smaller partition is one shard, so that its bound is exact.
const (
	nonceShards   = 16
	nonceShardMin = 1024
)

// Nonces remembers the nonces of verified signatures until they expire, so that a signature
// replayed within its validity is refused (RFC 9421 section 7.2.2; the draft leaves whether to
// require nonces to the verifier).
//
// A nonce is kept as a 128-bit keyed hash of the agent, the keyid and the nonce, so every
// entry costs NonceEntryBytes however long the nonce. There are two partitions: the nonces of
// signatures by keys the Verifier trusts (configured, or from a trusted agent's directory)
// and those of every other signature (agents not trusted, whose directories FetchUntrusted
// fetches: anyone can publish a key and sign with it). Each holds at most the number given to
// NewNonces, so at most twice that times NonceEntryBytes in all, and a flood of untrusted
// signatures cannot evict, nor make a replay of, a trusted agent's nonce. When a partition
// is full of unexpired nonces a new nonce is not recorded and its signature is refused
// (Replayed, reason NonceStoreFull) rather than an unexpired nonce forgotten: for the
// untrusted partition that means a flood makes other untrusted signatures with nonces prove
// nothing until its nonces expire, never that a trusted one does. Expiry pops the soonest to
// expire from a heap: each operation is O(log n) under the lock of one of up to 16 shards,
// with no scan.
type Nonces struct {
	key       [16]byte // keys the hash, so that no one can aim nonces at a shard offline
	max       int      // of each partition
	trusted   []nonceShard
	untrusted []nonceShard
}

// nonceShard is one locked part of a partition: the hashes kept, each with the Unix second
// until which it is kept, and the same entries in a min-heap by that second.
type nonceShard struct {
	mu   sync.Mutex
	max  int
	seen map[[16]byte]int64
	heap []nonceEntry
}

type nonceEntry struct {
	until int64
	hash  [16]byte
}

// NewNonces returns a store of at most max nonces of trusted signatures and max of the others
// (0: 100,000 each, about 19 MB in all at most).
func NewNonces(max int) *Nonces {
	if max <= 0 {
		max = 100000
	}
	n := &Nonces{max: max, trusted: newNonceShards(max), untrusted: newNonceShards(max)}
	if _, err := rand.Read(n.key[:]); err != nil {
		panic("webbotauth: no randomness: " + err.Error())
	}
	return n
}

func newNonceShards(max int) []nonceShard {
	k := 1
	if max >= nonceShards*nonceShardMin {
		k = nonceShards
	}
	s := make([]nonceShard, k)
	for i := range s {
		// The first max % k shards take one more, so the shards hold max in all.
		s[i].max = max / k
		if i < max%k {
			s[i].max++
		}
		s[i].seen = map[[16]byte]int64{}
	}
	return s
}

// hash is the keyed 128-bit hash of agent, keyID and nonce (each preceded by its length, so
// that no two triples are hashed alike).
func (n *Nonces) hash(agent, keyID, nonce string) [16]byte {
	var buf [512]byte
	b := append(buf[:0], n.key[:]...)
	for _, s := range [...]string{agent, keyID, nonce} {
		b = binary.AppendUvarint(b, uint64(len(s)))
		b = append(b, s...)
	}
	sum := sha256.Sum256(b)
	return [16]byte(sum[:16])
}

// add records a nonce until the Unix second until, in the trusted partition or not. It
// returns false and "" if it was seen before, false and NonceStoreFull if there is no room.
func (n *Nonces) add(agent, keyID, nonce string, trusted bool, until, now int64) (bool, string) {
	h := n.hash(agent, keyID, nonce)
	part := n.untrusted
	if trusted {
		part = n.trusted
	}
	s := &part[int(binary.LittleEndian.Uint32(h[:4])%uint32(len(part)))]
	s.mu.Lock()
	defer s.mu.Unlock()
	s.expire(now)
	if _, ok := s.seen[h]; ok {
		return false, ""
	}
	if len(s.seen) >= s.max {
		return false, NonceStoreFull
	}
	s.seen[h] = until
	s.push(nonceEntry{until: until, hash: h})
	return true, ""
}

// expire forgets the nonces kept until before now, soonest first; s.mu is held.
func (s *nonceShard) expire(now int64) {
	for len(s.heap) > 0 && s.heap[0].until < now {
		delete(s.seen, s.heap[0].hash)
		s.pop()
	}
	if len(s.heap) == 0 && cap(s.heap) > 1024 {
		// Empty after a flood: let the memory go (the map's stays; it is bounded by max).
		s.heap = nil
	}
}

// push adds e to the heap; s.mu is held.
func (s *nonceShard) push(e nonceEntry) {
	s.heap = append(s.heap, e)
	h := s.heap
	for i := len(h) - 1; i > 0; {
		p := (i - 1) / 2
		if h[p].until <= h[i].until {
			break
		}
		h[p], h[i] = h[i], h[p]
		i = p
	}
}

// pop removes the heap's first entry; s.mu is held.
func (s *nonceShard) pop() {
	h := s.heap
	last := len(h) - 1
	h[0] = h[last]
	h = h[:last]
	for i := 0; ; {
		l, r, m := 2*i+1, 2*i+2, i
		if l < len(h) && h[l].until < h[m].until {
			m = l
		}
		if r < len(h) && h[r].until < h[m].until {
			m = r
		}
		if m == i {
			break
		}
		h[i], h[m] = h[m], h[i]
		i = m
	}
	s.heap = h
}

// Len returns how many nonces are kept, in both partitions.
func (n *Nonces) Len() int {
	t, u := n.lens()
	return t + u
}

// lens returns how many nonces each partition keeps.
func (n *Nonces) lens() (trusted, untrusted int) {
	count := func(part []nonceShard) int {
		c := 0
		for i := range part {
			part[i].mu.Lock()
			c += len(part[i].seen)
			part[i].mu.Unlock()
		}
		return c
	}
	return count(n.trusted), count(n.untrusted)
}
