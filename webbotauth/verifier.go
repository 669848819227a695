package webbotauth

import (
	"crypto/ed25519"
	"fmt"
	"net/http"
	"time"

	"github.com/sitepolicy/caddy-robots/fleet"
)

// Status is what a request's Web Bot Auth signature proves.
type Status uint8

const (
	// Unsigned: the request has no Signature-Input field, or no signature tagged web-bot-auth.
	// The draft ("Unsigned Requests"): that is no evidence about the sender.
	Unsigned Status = iota
	// Malformed: the signature fields, a covered component, the Signature-Agent field or the
	// parameters are not what RFC 9421 and the draft require.
	Malformed
	// Expired: created is in the future, expires has passed, created or expires is missing,
	// or the signature is valid for longer than the verifier allows.
	Expired
	// UnknownKey: no key named by keyid is known for the agent (or, without Signature-Agent,
	// at all); or the agent is not trusted and its directory is not fetched.
	UnknownKey
	// Pending: the agent's key directory is being fetched; a later request may verify.
	Pending
	// Unreachable: the agent's key directory could not be fetched and none is cached.
	Unreachable
	// Replayed: the signature's nonce was seen before within its validity, or could not be
	// recorded (Reason NonceStoreFull): either way the signature proves nothing.
	Replayed
	// Impostor: the signature does not verify against the key the agent's directory (or the
	// configuration) holds for its keyid.
	Impostor
	// Signed: the signature verifies, from an agent that is not trusted (or with no agent
	// named, attributed to the key alone).
	Signed
	// Verified: the signature verifies against a key of a trusted agent; Result.Bot is its
	// catalogue ID.
	Verified
)

var statusNames = [...]string{"unsigned", "malformed", "expired", "unknown-key", "pending", "unreachable", "replayed", "impostor", "signed", "verified"}

// String returns the status's name as logs and placeholders spell it ("verified",
// "unknown-key", ...).
func (s Status) String() string {
	if int(s) < len(statusNames) {
		return statusNames[s]
	}
	return fmt.Sprintf("Status(%d)", s)
}

// Result is the outcome of Verify.
type Result struct {
	// Status is what the request proves.
	Status Status
	// Bot is the catalogue ID of the trusted agent the signature names, whatever the Status
	// (as identity.Identity.Bot is the bot a User-Agent claims): only Verified proves it,
	// Impostor refutes it. "" if the agent named is not trusted or none is named.
	Bot string
	// Agent is the normalized Signature-Agent URL the signature covers ("" if none).
	Agent string
	// KeyID and Label are the keyid and label of the signature judged.
	KeyID, Label string
	// Reason says why, for logs; "" for Verified.
	Reason string
}

// Agent is an agent the Verifier trusts: the URL it names in Signature-Agent, the bot of the
// catalogue it is, and its keys when they are configured rather than fetched.
type Agent struct {
	// URL is its Signature-Agent URL (https), normalized by NormalizeAgent.
	URL string
	// Bot is the catalogue ID its verified requests are attributed to, e.g.
	// "openai-chatgpt-agent".
	Bot string
	// Keys are its keys. None: they come from its key directory (Options.Directory).
	Keys []Key
}

// NotFetched is the Reason of an Offline verifier's UnknownKey for a trusted agent whose keys
// come from its key directory.
const NotFetched = "the agent's keys come from its key directory, which is not fetched here"

// Options configures a Verifier.
type Options struct {
	// Agents are the trusted agents.
	Agents []Agent
	// Directory fetches the key directories of agents whose keys are not configured; nil
	// fetches nothing. Its owner closes it (Directory.Close) when the verifier is replaced or
	// the application stops: that cancels the fetches in progress.
	Directory *Directory
	// FetchUntrusted lets the Directory fetch the directories of agents that are not trusted,
	// so that their requests can be Signed rather than UnknownKey. Off by default: every
	// fetch is one an unknown client asked for.
	FetchUntrusted bool
	// Now is the clock; nil is time.Now.
	Now func() time.Time
	// Skew is the clock difference tolerated on created and expires; 0 is 60 s.
	Skew time.Duration
	// MaxValidity is the longest expires - created accepted; 0 is 24 h (the draft's
	// RECOMMENDED bound).
	MaxValidity time.Duration
	// Nonces, if set, refuses a nonce seen before (Replayed); signatures without a nonce
	// then pass unless RequireNonce, and a nonce longer than MaxNonceLength is Malformed.
	Nonces *Nonces
	// RequireNonce makes a signature without a nonce Malformed when Nonces is set.
	RequireNonce bool
	// Store, if set with Nonces, is the fleet's nonce store (package fleet): a nonce seen on
	// any instance is a replay on every one, within the bound of Nonces (its partitions'
	// size, fleet-wide). Nonces keeps a copy: when the store fails, it decides alone, so that
	// a replay on the same instance is still refused (docs/fleet.md).
	Store fleet.Store
	// Offline verifies with the configured keys alone and fetches no directory (a one-off
	// check): an agent configured without keys is still trusted, and its signatures are
	// UnknownKey, saying its keys come from its directory. Directory must be nil.
	Offline bool
	// AllowTestKeys lets agents be configured with the published test keys (TestKeys),
	// which NewVerifier otherwise refuses; for tests only.
	AllowTestKeys bool
}

type agentEntry struct {
	bot  string
	keys map[string]*Key
}

// Verifier judges requests' Web Bot Auth signatures. It is safe for concurrent use.
type Verifier struct {
	agents     map[string]*agentEntry
	inline     map[string]*Key // every configured key, by thumbprint: for requests naming no agent
	dir        *Directory
	fetchOther bool
	now        func() time.Time
	skew, max  int64
	nonces     *Nonces
	store      fleet.Store
	needNonce  bool
	offline    bool
}

// NewVerifier checks the options and returns a Verifier.
func NewVerifier(o Options) (*Verifier, error) {
	v := &Verifier{
		agents:     make(map[string]*agentEntry, len(o.Agents)),
		inline:     map[string]*Key{},
		dir:        o.Directory,
		fetchOther: o.FetchUntrusted,
		now:        o.Now,
		skew:       int64(o.Skew / time.Second),
		max:        int64(o.MaxValidity / time.Second),
		nonces:     o.Nonces,
		store:      o.Store,
		needNonce:  o.RequireNonce,
		offline:    o.Offline,
	}
	if o.Offline && o.Directory != nil {
		return nil, fmt.Errorf("webbotauth: Offline with a Directory")
	}
	if v.now == nil {
		v.now = time.Now
	}
	if o.Skew == 0 {
		v.skew = 60
	}
	if o.MaxValidity == 0 {
		v.max = 24 * 60 * 60
	}
	for _, a := range o.Agents {
		u, err := NormalizeAgent(a.URL)
		if err != nil {
			return nil, err
		}
		if a.Bot == "" {
			return nil, fmt.Errorf("webbotauth: agent %s: no bot ID", u)
		}
		if _, dup := v.agents[u]; dup {
			return nil, fmt.Errorf("webbotauth: agent %s configured twice", u)
		}
		e := &agentEntry{bot: a.Bot}
		if len(a.Keys) > 0 {
			e.keys = make(map[string]*Key, len(a.Keys))
			for i := range a.Keys {
				k := a.Keys[i]
				if len(k.Public) != ed25519.PublicKeySize || k.ID == "" {
					return nil, fmt.Errorf("webbotauth: agent %s: a key without its thumbprint or of the wrong size", u)
				}
				if TestKeys[k.ID] && !o.AllowTestKeys {
					return nil, fmt.Errorf("webbotauth: agent %s: key %s is a published test key", u, k.ID)
				}
				e.keys[k.ID] = &k
				v.inline[k.ID] = &k
			}
		} else if o.Directory == nil && !o.Offline {
			return nil, fmt.Errorf("webbotauth: agent %s: no keys and no Directory to fetch them", u)
		}
		v.agents[u] = e
	}
	return v, nil
}

// TrustsBot reports whether an agent the Verifier trusts is attributed to the bot of the
// catalogue whose ID is bot: whether a signature can verify that bot's requests.
func (v *Verifier) TrustsBot(bot string) bool {
	for _, a := range v.agents {
		if a.bot == bot {
			return true
		}
	}
	return false
}

// Verify judges the Web Bot Auth signatures of r; t says the scheme and authority the client
// addressed when r alone cannot (zero: from r). A request without Signature-Input returns at
// once, allocating nothing. Of several web-bot-auth signatures, the result that proves most
// is returned (Verified, then Signed, Impostor, and the outcomes that prove nothing). Verify
// never waits for the network: an agent whose directory is not cached is Pending while the
// Directory fetches it.
func (v *Verifier) Verify(r *http.Request, t Target) Result {
	// Indexed directly: the canonical key, no allocation for the common unsigned request.
	if len(r.Header["Signature-Input"]) == 0 {
		return Result{Status: Unsigned, Reason: "no Signature-Input"}
	}
	sigs, err := parseSignatures(r.Header)
	if err != nil {
		return Result{Status: Malformed, Reason: err.Error()}
	}
	best := Result{Status: Unsigned, Reason: "no signature tagged " + Tag}
	for i := range sigs {
		s := &sigs[i]
		if s.Tag != Tag {
			continue
		}
		var res Result
		if s.err != nil {
			res = Result{Status: Malformed, Reason: s.err.Error()}
		} else {
			res = v.verify(r, t, s)
		}
		res.KeyID, res.Label = s.KeyID, s.Label
		if best.Status == Unsigned || res.Status > best.Status {
			best = res
		}
	}
	return best
}

// verify judges one web-bot-auth signature: its shape and freshness, then the key of its
// agent, then the signature and its nonce.
func (v *Verifier) verify(r *http.Request, t Target, s *Signature) Result {
	if res, ok := wellFormed(s); !ok {
		return res
	}
	now := v.now().Unix()
	if res, ok := v.fresh(s, now); !ok {
		return res
	}
	if !covers(s, "@authority") && !covers(s, "@target-uri") {
		// The draft: at least one of them, binding the signature to the origin.
		return Result{Status: Malformed, Reason: "covers neither @authority nor @target-uri"}
	}
	agent, err := s.SignatureAgent(r.Header)
	if err != nil {
		return Result{Status: Malformed, Reason: err.Error()}
	}
	res := Result{Agent: agent}
	key, trusted := v.agentKey(&res, s.KeyID)
	if key == nil || !v.verifies(&res, r, t, s, key, trusted, now) {
		return res
	}
	if trusted {
		res.Status = Verified
		return res
	}
	res.Status, res.Reason = Signed, "valid signature of an agent that is not trusted"
	if agent == "" {
		res.Reason = "valid signature, no Signature-Agent: attributed to the key alone"
	}
	return res
}

// wellFormed checks what a signature must have before anything is looked up: the ed25519
// algorithm (or none named), a keyid, a value of an Ed25519 signature's size.
func wellFormed(s *Signature) (Result, bool) {
	switch {
	case s.Alg != "" && s.Alg != "ed25519":
		return Result{Status: Malformed, Reason: fmt.Sprintf("alg %q: only ed25519 is verified", s.Alg)}, false
	case s.KeyID == "":
		return Result{Status: Malformed, Reason: "no keyid"}, false
	case len(s.Value) != ed25519.SignatureSize:
		return Result{Status: Malformed, Reason: "not an Ed25519 signature"}, false
	}
	return Result{}, true
}

// agentKey finds the key keyID of res.Agent (a configured key when there is no agent) and
// whether the agent is trusted, setting res.Bot; with no key it returns nil and says why in
// res.
func (v *Verifier) agentKey(res *Result, keyID string) (key *Key, trusted bool) {
	agent := res.Agent
	if agent == "" {
		// No agent to attribute to (the draft, "When No URL Is Available"): a key the
		// configuration holds verifies it, attributed to that key alone.
		if key = v.inline[keyID]; key == nil {
			res.Status, res.Reason = UnknownKey, "no Signature-Agent and the keyid is not a configured key"
		}
		return key, false
	}
	e := v.agents[agent]
	trusted = e != nil
	if trusted {
		res.Bot = e.bot
	}
	switch {
	case e != nil && e.keys != nil:
		if key = e.keys[keyID]; key == nil {
			res.Status, res.Reason = UnknownKey, "keyid is not one of the agent's configured keys"
		}
	case v.dir != nil && (trusted || v.fetchOther):
		var st Status
		if key, st, res.Reason = v.dir.lookup(agent, keyID, v.now(), trusted); key == nil {
			res.Status = st
		}
	case trusted && v.offline:
		res.Status, res.Reason = UnknownKey, NotFetched
	default:
		res.Status, res.Reason = UnknownKey, "the agent is not trusted and its directory is not fetched"
	}
	return key, trusted
}

// verifies reports whether s verifies against key and its nonce is new, saying why not in res.
func (v *Verifier) verifies(res *Result, r *http.Request, t Target, s *Signature, key *Key, trusted bool, now int64) bool {
	if !key.usable(now) {
		res.Status, res.Reason = UnknownKey, "the key is outside its nbf/exp"
		return false
	}
	base, err := s.Base(r, t)
	if err != nil {
		res.Status, res.Reason = Malformed, err.Error()
		return false
	}
	if !ed25519.Verify(key.Public, base, s.Value) {
		res.Status, res.Reason = Impostor, "the signature does not verify against the agent's key "+s.KeyID
		return false
	}
	if v.nonces != nil && s.Nonce != "" {
		// A key the configuration holds, or a trusted agent's directory, is the trusted
		// partition's: a key anyone can publish cannot crowd those nonces out.
		ok, why := v.addNonce(r, res.Agent, s.KeyID, s.Nonce, trusted || res.Agent == "", s.Expires+v.skew, now)
		if !ok {
			if why == "" {
				why = "nonce seen before"
			}
			res.Status, res.Reason = Replayed, why
			return false
		}
	}
	return true
}

// fresh checks created and expires against the clock (RFC 9421 section 3.2.1; the draft
// requires both and recommends at most 24 h between them).
func (v *Verifier) fresh(s *Signature, now int64) (Result, bool) {
	switch {
	case !s.HasCreated || !s.HasExpires:
		return Result{Status: Expired, Reason: "created and expires are both required"}, false
	case s.Expires < s.Created:
		return Result{Status: Malformed, Reason: "expires before created"}, false
	case s.Expires-s.Created > v.max:
		return Result{Status: Expired, Reason: "valid for longer than allowed"}, false
	case s.Created > now+v.skew:
		return Result{Status: Expired, Reason: "created in the future"}, false
	case now > s.Expires+v.skew:
		return Result{Status: Expired, Reason: "expired"}, false
	}
	if v.nonces != nil && v.needNonce && s.Nonce == "" {
		return Result{Status: Malformed, Reason: "no nonce"}, false
	}
	if v.nonces != nil && len(s.Nonce) > MaxNonceLength {
		return Result{Status: Malformed, Reason: fmt.Sprintf("nonce of %d bytes, more than %d", len(s.Nonce), MaxNonceLength)}, false
	}
	return Result{}, true
}

func covers(s *Signature, name string) bool {
	for _, c := range s.Components {
		if c.Name == name {
			return true
		}
	}
	return false
}
