package crawlers_test

import (
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/sitepolicy/caddy-robots/crawlers"
)

// TestAgentToken takes the crawler's token from a product token or a User-Agent header, the
// file's names first.
func TestAgentToken(t *testing.T) {
	file := []string{"ExampleBot", "*", "Kangaroo Bot"}
	for _, c := range []struct {
		agent, want string
		found       crawlers.Found
	}{
		{"", "*", crawlers.FoundAny},
		{" * ", "*", crawlers.FoundAny},
		{"Googlebot", "Googlebot", crawlers.FoundToken},
		{"AI2Bot", "AI2Bot", crawlers.FoundToken},
		{"Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)", "Googlebot", crawlers.FoundName},
		{"Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko; compatible; GPTBot/1.1; +https://openai.com/gptbot)", "GPTBot", crawlers.FoundName},
		{"Mozilla/5.0 (compatible; ExampleBot/1.0)", "ExampleBot", crawlers.FoundName},
		// The file's name is the crawler, as enforcement reads the header, though a known
		// name comes first.
		{"Mozilla/5.0 (compatible; Googlebot/2.1) examplebot/1.0", "ExampleBot", crawlers.FoundName},
		// A name that is no token is never the answer: Kangaroo Bot reads robots.txt as
		// "Kangaroo".
		{"Mozilla/5.0 (compatible; Kangaroo Bot/1.0)", "Kangaroo", crawlers.FoundProduct},
		{"Mozilla/5.0 (compatible; FooBot/1.0; +https://foo.example/bot)", "FooBot", crawlers.FoundProduct},
		{"curl/8.0", "curl", crawlers.FoundProduct},
		{"Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0 Safari/537.36", "Mozilla", crawlers.FoundFirst},
		{"(compatible)", "*", crawlers.FoundNone},
	} {
		if got, found := crawlers.AgentToken(c.agent, file); got != c.want || found != c.found {
			t.Errorf("AgentToken(%q) = %q, %v; want %q, %v", c.agent, got, found, c.want, c.found)
		}
	}
}

// TestAgentTokenProperties checks AgentToken over generated headers against its definition:
// the answer is a token or "*"; where enforcement's matcher over the file's names finds one,
// it is that name; else where a well-known name occurs, it is the leftmost; else the
// header's own product (the suggestion NotToken makes for the header, one reading).
func TestAgentTokenProperties(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	known := crawlers.KnownTokens()
	pieces := []string{"Mozilla/5.0", "(compatible;", "Chrome/126.0", "Safari/537.36", "+https://example.com/bot", "AppleWebKit/537.36", "(KHTML, like Gecko)", "FooBot/2.0", "v1.2", ";", ")", "MistralAI-User/1.0", "ChatGPT Agent"}
	km, _ := crawlers.NewUAMatcher(known)
	n := 5000
	if raceEnabled {
		n = 500
	}
	for range n {
		var file []string
		for range r.IntN(4) {
			file = append(file, known[r.IntN(len(known))]+string("AB"[r.IntN(2)]))
		}
		var b strings.Builder
		for range 1 + r.IntN(6) {
			if b.Len() > 0 {
				b.WriteByte(' ')
			}
			switch r.IntN(4) {
			case 0:
				b.WriteString(known[r.IntN(len(known))] + "/1.0")
			case 1:
				if len(file) > 0 {
					b.WriteString(file[r.IntN(len(file))])
					break
				}
				fallthrough
			default:
				b.WriteString(pieces[r.IntN(len(pieces))])
			}
		}
		ua := b.String()
		tok, found := crawlers.AgentToken(ua, file)
		if tok != "*" && !crawlers.IsToken(tok) {
			t.Fatalf("AgentToken(%q) = %q, no token", ua, tok)
		}
		if crawlers.IsToken(strings.TrimSpace(ua)) {
			continue
		}
		fm, _ := crawlers.NewUAMatcher(file)
		if name, ok := fm.Match(ua); ok {
			if tok != name || found != crawlers.FoundName {
				t.Fatalf("AgentToken(%q, %q) = %q, %v; enforcement reads %q", ua, file, tok, found, name)
			}
		} else if name, ok := km.Match(ua); ok {
			if tok != name || found != crawlers.FoundName {
				t.Fatalf("AgentToken(%q) = %q, %v; the known name %q is in it", ua, tok, found, name)
			}
		} else if p := crawlers.HeaderProduct(ua); p != "" {
			if _, sugg := crawlers.NotToken(ua); tok != p || found != crawlers.FoundProduct || sugg != p && sugg != "" {
				t.Fatalf("AgentToken(%q) = %q, %v; its product %q, NotToken suggests %q", ua, tok, found, p, sugg)
			}
		} else if found != crawlers.FoundFirst && found != crawlers.FoundNone || !slices.Contains([]string{crawlers.LeadingToken(strings.TrimSpace(ua)), "*"}, tok) {
			t.Fatalf("AgentToken(%q) = %q, %v", ua, tok, found)
		}
	}
}
