package usage

// Vocab names a vocabulary of usage preferences. Only [ContentUsage] and [ContentSignal]
// are valid; methods on any other value panic.
type Vocab uint8

const (
	// ContentUsage is the IETF aipref vocabulary (draft-ietf-aipref-vocab-08, Table 1): keys
	// train-ai, ai-use and search, values y and n.
	ContentUsage Vocab = iota
	// ContentSignal is Cloudflare's Content Signals: keys search, ai-input and ai-train,
	// values yes and no.
	ContentSignal
)

// maxKeys is the largest number of keys in a vocabulary.
const maxKeys = 3

type vocabDef struct {
	name     string
	keys     []string // canonical (serialisation) order
	allow    string   // Token meaning Allow
	disallow string   // Token meaning Disallow
	// aliases maps keys of the other vocabulary to their spelling here.
	aliases map[string]alias
	// added are keys a later draft added to the vocabulary: "+key", the extension that
	// configurations written before spelled them with, still reads as the key.
	added []string
}

type alias struct {
	key  string // the spelling in this vocabulary, or ""
	hint string
}

var vocabs = [...]vocabDef{
	ContentUsage: {
		name:     "Content-Usage",
		keys:     []string{"train-ai", "ai-use", "search"},
		allow:    "y",
		disallow: "n",
		aliases: map[string]alias{
			"ai-train": {"train-ai", "Content-Signal's ai-train is train-ai in Content-Usage"},
			// Not the same category: ai-input is answer-time input (grounding, RAG), ai-use
			// any input to a generative model that the user did not provide (vocab-08 4.2).
			"ai-input": {"", "Content-Usage has no ai-input: its nearest category is ai-use (input to a generative AI model that the user did not provide); use Content-Signal for ai-input itself, or +ai-input to emit it as an extension"},
		},
		added: []string{"ai-use"}, // draft-ietf-aipref-vocab-08
	},
	ContentSignal: {
		name:     "Content-Signal",
		keys:     []string{"search", "ai-input", "ai-train"},
		allow:    "yes",
		disallow: "no",
		aliases: map[string]alias{
			"train-ai": {"ai-train", "Content-Usage's train-ai is ai-train in Content-Signal"},
		},
	},
}

func (v Vocab) def() *vocabDef { return &vocabs[v] }

// String returns the name of the vocabulary's HTTP field and robots.txt record:
// "Content-Usage" or "Content-Signal".
func (v Vocab) String() string { return v.def().name }

// Keys returns the vocabulary's keys in canonical order: train-ai, ai-use, search for
// Content-Usage; search, ai-input, ai-train for Content-Signal. The slice is the caller's.
func (v Vocab) Keys() []string { return append([]string(nil), v.def().keys...) }

// index returns the position of key in the vocabulary, or -1.
func (v Vocab) index(key string) int {
	for i, k := range v.def().keys {
		if k == key {
			return i
		}
	}
	return -1
}

// Pref is the preference for one key.
type Pref uint8

// The order Unknown < Allow < Disallow is the combining rule: the greater one wins.
const (
	// Unknown: no preference (the key is absent, or its value is not one the vocabulary
	// defines).
	Unknown Pref = iota
	// Allow: the use is allowed (y, yes).
	Allow
	// Disallow: the use is disallowed (n, no).
	Disallow
)

// String returns "unknown", "allow" or "disallow".
func (p Pref) String() string {
	switch p {
	case Allow:
		return "allow"
	case Disallow:
		return "disallow"
	}
	return "unknown"
}

// combine is the vocabulary's rule for one key: any Disallow wins, otherwise any Allow.
func combine(p, q Pref) Pref { return max(p, q) }

// Value returns how v writes an explicit preference in the configuration form and on the
// wire: "y" / "n" for Content-Usage, "yes" / "no" for Content-Signal.
func (v Vocab) Value(p Pref) string { return v.token(p) }

// token returns the Token for an explicit preference in v.
func (v Vocab) token(p Pref) string {
	if p == Allow {
		return v.def().allow
	}
	return v.def().disallow
}
