package caddymodule

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/jimsmart/grobotstxt"
	"github.com/temoto/robotstxt"
)

// TestDigitTokensAcceptedWithWarning: a crawler name with digits (AI2Bot, 360Spider), which its
// operator documents but RFC 9309 does not allow, is accepted in robots_txt and robots_tag,
// written as given, and warned about at load in Caddy's log with the field path.
func TestDigitTokensAcceptedWithWarning(t *testing.T) {
	logFile := filepath.Join(t.TempDir(), "caddy.log")
	caddyTesterWithGlobals(t, `
	log {
		output file "`+logFile+`"
		level INFO
	}
`, `
http://localhost:@PORT@ {
	robots_txt {
		group AI2Bot {
			disallow /
		}
	}
	robots_tag {
		agent 360Spider noindex
	}
	respond "page"
}
`)
	resp, body := do(t, "GET", siteURL("/robots.txt"))
	wantStatus(t, resp, 200)
	if !strings.Contains(string(body), "User-agent: AI2Bot\nDisallow: /\n") {
		t.Fatalf("robots.txt:\n%s", body)
	}
	// Both witnesses read the whole name: temoto, and grobotstxt, whose port widens Google's
	// [a-zA-Z_-] to RFC 7231 token characters (Google's own parser reads "AI", which is what
	// the warning is about).
	temoto, err := robotstxt.FromBytes(body)
	if err != nil {
		t.Fatal(err)
	}
	for name, fn := range map[string]func(agent string) bool{
		"temoto":     func(agent string) bool { return temoto.TestAgent("/x", agent) },
		"grobotstxt": func(agent string) bool { return grobotstxt.AgentAllowed(string(body), agent, "/x") },
	} {
		if fn("AI2Bot") || fn("ai2bot") || !fn("AI") || !fn("Googlebot") {
			t.Errorf("%s does not read the AI2Bot group as written", name)
		}
	}
	// In the Robots-Tag field a name starting with a digit cannot be an SF Token, so it is
	// an SF String (tagemit's tokenValue); AI2Bot would be a Token.
	resp, _ = do(t, "GET", siteURL("/a"))
	if got := resp.Header.Get("Robots-Tag"); got != `"360spider";noindex` {
		t.Errorf("Robots-Tag %q", got)
	}

	deadline := time.Now().Add(10 * time.Second)
	for {
		b, _ := os.ReadFile(logFile)
		var txt, tag bool
		for _, line := range strings.Split(string(b), "\n") {
			if !strings.Contains(line, `"level":"warn"`) || !strings.Contains(line, "first digit") {
				continue
			}
			txt = txt || strings.Contains(line, "http.handlers.robots_txt") && strings.Contains(line, `"path":"groups[0].user_agents[0]"`)
			tag = tag || strings.Contains(line, "http.handlers.robots_tag") && strings.Contains(line, `360Spider`)
		}
		if txt && tag {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("warnings missing (robots_txt %v, robots_tag %v) in Caddy's log:\n%s", txt, tag, b)
		}
		time.Sleep(100 * time.Millisecond)
	}
}
