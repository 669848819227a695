package robotsgen

import (
	"math/rand/v2"
	"net/url"
	"strings"
	"sync"
	"testing"

	"github.com/jimsmart/grobotstxt"
)

// googleFile is one robots.txt file as the grobotstxt port reads it. The port's parser runs
// once and records what it hands its ParseHandler; each question replays that into a fresh
// RobotsMatcher, which is all grobotstxt.AgentAllowed does after parsing the file again. The
// property tests ask thousands of questions of each file; parsing it once per file instead
// of once per question is most of their time. TestGoogleFileIsAgentAllowed checks that the
// answers are AgentAllowed's.
type googleFile struct{ events []parseEvent }

type parseEvent struct {
	kind  byte // 'u' user-agent, 'a' allow, 'd' disallow, 's' sitemap, '?' other
	line  int
	value string
	key   string // of an unknown line
}

func (f *googleFile) HandleRobotsStart() {}
func (f *googleFile) HandleRobotsEnd()   {}
func (f *googleFile) HandleUserAgent(line int, v string) {
	f.events = append(f.events, parseEvent{kind: 'u', line: line, value: v})
}
func (f *googleFile) HandleAllow(line int, v string) {
	f.events = append(f.events, parseEvent{kind: 'a', line: line, value: v})
}
func (f *googleFile) HandleDisallow(line int, v string) {
	f.events = append(f.events, parseEvent{kind: 'd', line: line, value: v})
}
func (f *googleFile) HandleSitemap(line int, v string) {
	f.events = append(f.events, parseEvent{kind: 's', line: line, value: v})
}
func (f *googleFile) HandleUnknownAction(line int, k, v string) {
	f.events = append(f.events, parseEvent{kind: '?', line: line, value: v, key: k})
}

// match returns the matcher after reading the file for agent at uri, as
// RobotsMatcher.AgentAllowed leaves it; ok is false where AgentAllowed answers false
// because uri does not parse.
func (f *googleFile) match(agent, uri string) (m *grobotstxt.RobotsMatcher, ok bool) {
	m = grobotstxt.NewRobotsMatcher()
	if _, err := url.Parse(uri); err != nil {
		return m, false
	}
	m.AgentAllowed("", agent, uri) // sets the agent and the path, reading an empty file
	m.HandleRobotsStart()
	for _, e := range f.events {
		switch e.kind {
		case 'u':
			m.HandleUserAgent(e.line, e.value)
		case 'a':
			m.HandleAllow(e.line, e.value)
		case 'd':
			m.HandleDisallow(e.line, e.value)
		case 's':
			m.HandleSitemap(e.line, e.value)
		default:
			m.HandleUnknownAction(e.line, e.key, e.value)
		}
	}
	m.HandleRobotsEnd()
	return m, true
}

// allowed is grobotstxt.AgentAllowed(body, agent, uri) for the file's body.
func (f *googleFile) allowed(agent, uri string) bool {
	m, ok := f.match(agent, uri)
	return ok && !m.Disallowed()
}

// readOnce returns read(body), computing it once for a body asked about again; the property
// tests, some of them side by side, ask about each file many times in a row. The cache is
// bounded: when it is full it starts over.
func readOnce[T any](c *onceCache[T], body string, read func(string) T) T {
	c.mu.Lock()
	v, ok := c.m[body]
	c.mu.Unlock()
	if ok {
		return v
	}
	v = read(body)
	c.mu.Lock()
	if c.m == nil || len(c.m) >= 256 {
		c.m = map[string]T{}
	}
	c.m[body] = v
	c.mu.Unlock()
	return v
}

type onceCache[T any] struct {
	mu sync.Mutex
	m  map[string]T
}

var googleFiles, googleSafeFiles onceCache[*googleFile]

// googleRead is the file body as the grobotstxt port reads it, read once per body.
func googleRead(body string) *googleFile {
	return readOnce(&googleFiles, body, func(body string) *googleFile {
		f := &googleFile{}
		grobotstxt.Parse(body, f)
		return f
	})
}

// googleAllowed is Google's decision for agent at path in body: the port reading
// portSafe(body), read once per body.
func googleAllowed(body, agent, path string) bool {
	f := readOnce(&googleSafeFiles, body, func(body string) *googleFile { return googleRead(portSafe(body)) })
	return f.allowed(agent, "http://example.com"+path)
}

// TestGoogleFileIsAgentAllowed: the replayed reading answers every question as
// grobotstxt.AgentAllowed does, decision and deciding line, over generated files, agents and
// paths (a path that does not parse as a URL included).
func TestGoogleFileIsAgentAllowed(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 9309))
	files := 300
	if testing.Short() || raceEnabled {
		files = 60
	}
	asked := 0
	for c := 0; c < files; c++ {
		f := genFile(r)
		body, err := f.Render("https://example.com")
		if err != nil {
			continue
		}
		sbody := string(body)
		if c%2 == 1 {
			sbody = genRobotsTxt(r) // lines Render never writes
		} else if c%3 == 0 {
			sbody = strings.ReplaceAll(sbody, "\n", "\r\n") + "Sitemap: /s\nFoo: bar\nuser-agent: ZZ*\nDisallow:/%zz\n"
		}
		read := googleRead(sbody)
		for _, agent := range []string{"Googlebot", "GPTBot", "AI2Bot", "*", "Other"} {
			for k := 0; k < 20; k++ {
				path := genPath(r)
				if k == 0 {
					path = "/%zz%"
				}
				uri := "http://example.com" + path
				gm := grobotstxt.NewRobotsMatcher()
				want := gm.AgentAllowed(sbody, agent, uri)
				m, ok := read.match(agent, uri)
				if got := ok && !m.Disallowed(); got != want || (ok && m.MatchingLine() != gm.MatchingLine()) {
					t.Fatalf("%s %s: replayed %v (line %d), AgentAllowed %v (line %d)\n%s", agent, path, got, m.MatchingLine(), want, gm.MatchingLine(), sbody)
				}
				asked++
			}
		}
	}
	if asked < files*50 {
		t.Errorf("only %d questions asked", asked)
	}
}
