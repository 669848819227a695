package crawlers

import (
	"fmt"
	"slices"
	"strings"

	"github.com/sitepolicy/caddy-robots/internal/syntax"
)

// wordByte holds the bytes that make up a word of a User-Agent header for
// matching: ASCII letters, digits, '-' and '_'. Every other byte, including
// every byte of a non-ASCII character, separates words.
//
// '-' and '_' count as word bytes because RFC 9309 product tokens contain
// them: "Claude-Code" is one product, not "Claude" followed by "Code", so the
// token "Code" must not match it, nor "GoogleOther" match "GoogleOther-Image"
// (a catalogue entry of its own). The price is that a crawler adding a
// hyphenated suffix to a listed name is not matched until the suffixed name
// is listed too.
var wordByte = func() (t [256]bool) {
	for b := range 256 {
		t[b] = syntax.IsTokenByte(byte(b)) || '0' <= b && b <= '9'
	}
	return t
}()

// lower folds ASCII upper case; other bytes are returned unchanged, so
// matching never folds non-ASCII characters (as robots.txt parsers do not).
func lower(b byte) byte {
	if 'A' <= b && b <= 'Z' {
		return b + 'a' - 'A'
	}
	return b
}

// UAMatcher finds crawler names in User-Agent headers, for enforcement (for
// example answering 403 to a blocked crawler). It is safe for concurrent use.
//
// A token matches where it occurs in the header, ASCII case-insensitively,
// as a whole word: the byte before the occurrence (if any) and the byte after
// it (if any) are not word bytes (ASCII letters, digits, '-', '_'). So
// "GPTBot" matches "Mozilla/5.0 (compatible; GPTBot/1.2;
// +https://openai.com/gptbot)", "LCC" does not match "SLCC1" nor "LCC-x",
// and a token with spaces, '/' or '.' ("ChatGPT Agent", "iaskspider/2.0")
// matches as a phrase with the same boundaries at its two ends, its inner
// bytes compared literally (case aside). Two exceptions keep other clients
// from being taken for a crawler: words inside a URL or an e-mail address
// never match ("spider" in "+http://www.baidu.com/search/spider.html"), and
// a few everyday words of the catalogue ("Spider", "Code", "Operator": see
// genericNames) match only as the first product of the header or the first
// word of a comment entry.
type UAMatcher struct {
	// byFirst holds the tokens by the folded first byte, sorted by the length
	// of their leading word and then longest first, so the first token that
	// matches at a position is the longest there.
	byFirst [256][]uaToken
	// lens has bit n set (n capped at 63) when some token of byFirst[b]
	// starts with a word of n bytes: most words of a browser's header are
	// rejected by this test alone.
	lens [256]uint64
}

type uaToken struct {
	folded  string // ASCII lower case
	word    int    // length of the leading word (up to the first non-word byte)
	name    string // as given to NewUAMatcher
	generic bool   // an everyday word: matched only where a product starts (genericNames)
}

// genericNames are catalogue names that are everyday words or abbreviations, which other
// software has in its User-Agent header as a later product or a plain word: VS Code's and
// Cursor's built-in browsers send "... Code/1.95.3 Chrome/...", Sogou's crawler "Sogou web
// spider/4.0", Screaming Frog "Screaming Frog SEO Spider/19.0". Such a name matches only as
// the first product of the header or the first word of a comment entry (after "(" or ";"),
// where a client names itself (RFC 9110 §10.1.5 lists products in decreasing significance):
// "Spider/1.0", "Mozilla/5.0 (compatible; Spider/1.0)". Reviewed with the catalogue; folded.
var genericNames = map[string]bool{
	"code": true, "cursor": true, "devin": true, "lcc": true, "openai": true, "opencode": true,
	"operator": true, "spider": true, "trae": true, "useai": true, "yak": true, "newsai": true,
	// Of the bot catalogue: Slack's desktop app sends "... Safari/537.36 Sonic Slack_SSB/4.29",
	// Pinterest's in-app browser "... Mobile/15E148 [Pinterest/iOS]".
	"sonic": true, "pinterest": true,
}

// leadsProduct reports whether the word at start is the header's first product or the first
// word of a comment entry: only spaces and tabs stand between it and the header's start, a
// "(" or a ";".
func leadsProduct(ua string, start int) bool {
	j := start - 1
	for j >= 0 && (ua[j] == ' ' || ua[j] == '\t') {
		j--
	}
	return j < 0 || ua[j] == '(' || ua[j] == ';'
}

// inAddress reports whether the byte at i is part of a URL or an e-mail address: the run of
// bytes around it up to white space, ";", ",", "(" or ")" holds "://" or "@". Words there
// ("+http://www.baidu.com/search/spider.html") name a site, not the client.
func inAddress(ua string, i int) bool {
	delim := func(b byte) bool { return b == ' ' || b == '\t' || b == ';' || b == ',' || b == '(' || b == ')' }
	a, b := i, i
	for a > 0 && !delim(ua[a-1]) {
		a--
	}
	for b < len(ua) && !delim(ua[b]) {
		b++
	}
	run := ua[a:b]
	return strings.Contains(run, "://") || strings.IndexByte(run, '@') >= 0
}

// NewUAMatcher returns a matcher for tokens. Each token must be printable
// ASCII and start and end with a word byte (a letter, digit, '-' or '_'):
// the word boundaries are defined at its ends. Every name of the catalogue
// qualifies. Tokens equal but for case are kept once, in the first spelling
// given. No tokens make a matcher that matches nothing.
func NewUAMatcher(tokens []string) (*UAMatcher, error) {
	m := &UAMatcher{}
	seen := make(map[string]bool, len(tokens))
	for _, t := range tokens {
		if t == "" {
			return nil, fmt.Errorf("crawlers: empty user-agent token")
		}
		for i := 0; i < len(t); i++ {
			if t[i] < 0x20 || t[i] > 0x7e {
				return nil, fmt.Errorf("crawlers: user-agent token %q is not printable ASCII", t)
			}
		}
		if !wordByte[t[0]] || !wordByte[t[len(t)-1]] {
			return nil, fmt.Errorf("crawlers: user-agent token %q must start and end with a letter, digit, '-' or '_'", t)
		}
		f := strings.ToLower(t) // t is ASCII, so this is ASCII folding
		if seen[f] {
			continue
		}
		seen[f] = true
		w := 0
		for w < len(f) && wordByte[f[w]] {
			w++
		}
		m.byFirst[f[0]] = append(m.byFirst[f[0]], uaToken{folded: f, word: w, name: t, generic: genericNames[f]})
		m.lens[f[0]] |= 1 << min(w, 63)
	}
	// By the length of the leading word, then the leading word itself, both of which Match
	// finds by binary search (so the cost of a word does not grow with the number of tokens),
	// and of the tokens with the same leading word the longest first.
	for i := range m.byFirst {
		slices.SortStableFunc(m.byFirst[i], func(a, b uaToken) int {
			if a.word != b.word {
				return a.word - b.word
			}
			if c := strings.Compare(a.folded[:a.word], b.folded[:b.word]); c != 0 {
				return c
			}
			return len(b.folded) - len(a.folded)
		})
	}
	return m, nil
}

// Match returns the token found in userAgent, as it was given to
// NewUAMatcher. When several match, the one starting leftmost wins, and of
// those starting at the same byte the longest ("iaskspider/2.0" over
// "iaskspider"). It does not allocate.
func (m *UAMatcher) Match(userAgent string) (token string, ok bool) {
	ua := userAgent
	n := len(ua)
	i := 0
	for i < n {
		// Every match starts at the start of a word: the byte before it is
		// not a word byte, and every token starts with one.
		for i < n && !wordByte[ua[i]] {
			i++
		}
		start := i
		for i < n && wordByte[ua[i]] {
			i++
		}
		if start == n {
			break
		}
		first := lower(ua[start])
		if m.lens[first]>>min(i-start, 63)&1 == 0 {
			continue
		}
		// A token's leading word must be this whole word: the token
		// continues with a non-word byte (or ends) exactly where the word
		// does, or the boundary rule fails.
		ts, w, word := m.byFirst[first], i-start, ua[start:i]
		lo, hi := 0, len(ts)
		for lo < hi {
			h := int(uint(lo+hi) >> 1)
			if ts[h].word < w || ts[h].word == w && compareFolded(word, ts[h].folded[:w]) > 0 {
				lo = h + 1
			} else {
				hi = h
			}
		}
		for k := lo; k < len(ts) && ts[k].word == w && equalFolded(word, ts[k].folded[:w]); k++ {
			t := &ts[k]
			end := start + len(t.folded)
			if end > n || (end < n && wordByte[ua[end]]) {
				continue
			}
			if equalFolded(ua[start:end], t.folded) && (!t.generic || leadsProduct(ua, start)) && !inAddress(ua, start) && !inAddress(ua, end-1) {
				return t.name, true
			}
		}
	}
	return "", false
}

// compareFolded compares s, ASCII case folded, with folded (as strings.Compare does).
func compareFolded(s, folded string) int {
	for j := 0; j < len(s) && j < len(folded); j++ {
		if a, b := lower(s[j]), folded[j]; a != b {
			if a < b {
				return -1
			}
			return 1
		}
	}
	return len(s) - len(folded)
}

// equalFolded reports whether s equals the lower-case ASCII folded after
// ASCII case folding.
func equalFolded(s, folded string) bool {
	for j := 0; j < len(folded); j++ {
		if lower(s[j]) != folded[j] {
			return false
		}
	}
	return true
}
