package webbotauth

import (
	"crypto/sha256"
	"encoding/binary"
	"net/http"
	"time"

	"github.com/sitepolicy/caddy-robots/fleet"
)

// NonceHash is the 128-bit hash of agent, keyID and nonce (each preceded by its length, so
// that no two triples are hashed alike) that a fleet's store keeps for a nonce: the same on
// every instance, 16 bytes however long the nonce.
func NonceHash(agent, keyID, nonce string) [16]byte {
	var buf [512]byte
	b := buf[:0]
	for _, s := range [...]string{agent, keyID, nonce} {
		b = binary.AppendUvarint(b, uint64(len(s)))
		b = append(b, s...)
	}
	sum := sha256.Sum256(b)
	return [16]byte(sum[:16])
}

// addNonce records a signature's nonce until the Unix second until: in the fleet's store
// when there is one, which decides (a nonce seen on any instance is a replay), and then in the
// process's Nonces too, which decide alone when the store fails: a replay on this instance is
// then still refused. It returns false and "" for a replay, false and NonceStoreFull when the
// nonce cannot be recorded.
func (v *Verifier) addNonce(r *http.Request, agent, keyID, nonce string, trusted bool, until, now int64) (bool, string) {
	if v.store == nil {
		return v.nonces.add(agent, keyID, nonce, trusted, until, now)
	}
	res, err := v.store.AddNonce(r.Context(), NonceHash(agent, keyID, nonce), trusted, time.Unix(until, 0), v.nonces.max)
	switch {
	case err != nil:
		return v.nonces.add(agent, keyID, nonce, trusted, until, now)
	case res == fleet.NonceSeen:
		return false, ""
	case res == fleet.NonceFull:
		return false, NonceStoreFull
	}
	if ok, why := v.nonces.add(agent, keyID, nonce, trusted, until, now); !ok && why == "" {
		// Seen here though the store had forgotten it (the server restarted empty): a
		// replay all the same.
		return false, ""
	}
	// This process's copy may be full where the fleet's is not: the fleet's bound decides.
	return true, ""
}
