package caddymodule

import (
	"flag"
	"net/netip"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/sitepolicy/caddy-robots/caddymodule/internal/command"
	"github.com/sitepolicy/caddy-robots/policycheck/cli"
)

// walkConfig has groups, a terminal route, a handler that answers, a subroute and a rewrite.
const walkConfig = `{"apps": {"http": {"servers": {
  "srv0": {"listen": [":9997"], "routes": [
    {"match": [{"host": ["j.example"]}], "handle": [{"handler": "subroute", "routes": [
      {"group": "g1", "match": [{"path": ["/a/*"]}], "handle": [{"handler": "robots_tag", "rules": {"*": ["noindex"]}}]},
      {"group": "g1", "handle": [{"handler": "robots_tag", "rules": {"*": ["nofollow"]}}]},
      {"handle": [{"handler": "robots_txt", "groups": [{"user_agents": ["*"], "rules": [{"type": "disallow", "path": "/a/"}]}]}]},
      {"match": [{"path": ["/t/*"]}], "handle": [{"handler": "robots_tag", "rules": {"*": ["noarchive"]}}], "terminal": true},
      {"handle": [{"handler": "robots_tag", "rules": {"*": ["nosnippet"]}}, {"handler": "static_response", "body": "x"}]}
    ]}], "terminal": true}
  ]},
  "srv1": {"listen": [":9996"], "routes": [
    {"match": [{"path": ["/p/*"]}], "handle": [{"handler": "subroute", "routes": [
      {"handle": [{"handler": "rewrite", "strip_path_prefix": "/p"}]},
      {"match": [{"path": ["/x"]}], "handle": [{"handler": "robots_tag", "rules": {"*": ["noindex"]}}]}
    ]}]},
    {"handle": [{"handler": "robots_tag", "rules": {"*": ["nofollow"]}}]}
  ]}
}}}}`

// TestCheckAndLintWalk: the one walk over Caddy's routes, following a request (check) and
// visiting every route of a site block (lint).
func TestCheckAndLintWalk(t *testing.T) {
	name := filepath.Join(t.TempDir(), "walk.json")
	if err := os.WriteFile(name, []byte(walkConfig), 0o644); err != nil {
		t.Fatal(err)
	}
	lc, err := command.Load(name, "")
	if err != nil {
		t.Fatal(err)
	}
	const s0, s1 = "apps.http.servers.srv0.routes", "apps.http.servers.srv1.routes"
	sub := s0 + "[0].handle[0].routes"
	paths := func(fs []command.Found) (out []string) {
		for _, f := range fs {
			out = append(out, f.Path)
		}
		return out
	}
	for _, c := range []struct {
		server, url string
		want        []string
		note        string
	}{
		// The first route of group g1 that matches, the robots.txt, the route that answers.
		{"srv0", "http://j.example:9997/a/x", []string{sub + "[0].handle[0]", sub + "[2].handle[0]", sub + "[4].handle[0]"}, ""},
		{"srv0", "http://j.example:9997/b", []string{sub + "[1].handle[0]", sub + "[2].handle[0]", sub + "[4].handle[0]"}, ""},
		// A terminal route ends the walk.
		{"srv0", "http://j.example:9997/t/1", []string{sub + "[1].handle[0]", sub + "[2].handle[0]", sub + "[3].handle[0]"}, ""},
		// The robots.txt responder answers /robots.txt.
		{"srv0", "http://j.example:9997/robots.txt", []string{sub + "[1].handle[0]", sub + "[2].handle[0]"}, ""},
		{"srv0", "http://other.example:9997/b", nil, ""},
		// Later matchers see the rewritten URI.
		{"srv1", "http://localhost:9996/p/x", []string{s1 + "[0].handle[0].routes[1].handle[0]", s1 + "[1].handle[0]"}, "changes the request to /x"},
		{"srv1", "http://localhost:9996/x", []string{s1 + "[1].handle[0]"}, ""},
	} {
		found, notes, err := lc.Follow(c.server, c.url, "", nil, netip.Addr{})
		if err != nil {
			t.Fatal(err)
		}
		if got := paths(found); !reflect.DeepEqual(got, c.want) {
			t.Errorf("%s: met %q, want %q", c.url, got, c.want)
		}
		if note := strings.Join(notes, "\n"); c.note == "" && note != "" || !strings.Contains(note, c.note) {
			t.Errorf("%s: notes %q, want %q", c.url, note, c.note)
		}
	}

	// Every route of each site block, with the matchers that lead to each handler (the block's
	// own left out) and whether a rewrite ran before it.
	type visit struct {
		path, matchers string
		rewritten      bool
	}
	var got []visit
	for _, f := range lc.SiteHandlers() {
		got = append(got, visit{f.Path, strings.ReplaceAll(string(command.JoinSets(f.Matchers)), " ", ""), f.Rewritten})
	}
	want := []visit{
		{sub + "[0].handle[0]", `[[{"path":["/a/*"]}]]`, false},
		// The second route of group g1 runs only where the first does not match.
		{sub + "[1].handle[0]", `[[{"(afteritsgroup)":true}]]`, false},
		{sub + "[2].handle[0]", `null`, false},
		{sub + "[3].handle[0]", `[[{"path":["/t/*"]}]]`, false},
		{sub + "[4].handle[0]", `null`, false},
		{s1 + "[0].handle[0].routes[1].handle[0]", `[[{"path":["/x"]}]]`, true},
		{s1 + "[1].handle[0]", `null`, false},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("lint's walk:\n%v\nwant\n%v", got, want)
	}
}

// TestWalkFollowsInvoke: check and lint follow an invoke into its named route, as tdmrep.json
// does (one walk), with the named route's matchers on the way; a route that invokes itself
// is walked once.
func TestWalkFollowsInvoke(t *testing.T) {
	const cfg = `{"apps": {"http": {"servers": {"srv0": {"listen": [":9995"],
  "named_routes": {
    "n": {"match": [{"path": ["/n/*"]}], "handle": [{"handler": "robots_tag", "rules": {"*": ["noindex"]}}, {"handler": "invoke", "name": "n"}]}
  },
  "routes": [{"handle": [{"handler": "robots_txt"}, {"handler": "invoke", "name": "n"}, {"handler": "robots_tag", "rules": {"*": ["nofollow"]}}]}]
}}}}}`
	name := filepath.Join(t.TempDir(), "invoke.json")
	if err := os.WriteFile(name, []byte(cfg), 0o644); err != nil {
		t.Fatal(err)
	}
	lc, err := command.Load(name, "")
	if err != nil {
		t.Fatal(err)
	}
	defer lc.Close()
	const top, named = "apps.http.servers.srv0.routes[0]", `apps.http.servers.srv0.named_routes["n"]`
	for url, want := range map[string][]string{
		"http://localhost:9995/n/x": {top + ".handle[0]", named + ".handle[0]", top + ".handle[2]"},
		"http://localhost:9995/x":   {top + ".handle[0]", top + ".handle[2]"},
	} {
		found, _, err := lc.Follow("srv0", url, "", nil, netip.Addr{})
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, f := range found {
			got = append(got, f.Path)
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("%s: met %q, want %q", url, got, want)
		}
	}
	var got []string
	for _, f := range lc.SiteHandlers() {
		got = append(got, f.Path+" "+strings.ReplaceAll(string(command.JoinSets(f.Matchers)), " ", ""))
	}
	want := []string{top + ".handle[0] null", named + `.handle[0] [[{"path":["/n/*"]}]]`, top + ".handle[2] null"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("lint's walk: %q, want %q", got, want)
	}
	// lint reads the invoked route's tags with their path.
	for _, s := range lc.Sites() {
		if len(s.Routes) != 2 || !reflect.DeepEqual(s.Routes[0].Paths, []string{"/n/*"}) {
			t.Errorf("site %s: routes %+v, want the named route's with paths /n/*", s.Name, s.Routes)
		}
	}
}

// TestCheckFlagsDeclaredOnce: caddy robots check takes the request flags of cmd/robots's
// check (cli.CheckFlags), with the same names, defaults and help.
func TestCheckFlagsDeclaredOnce(t *testing.T) {
	var std flag.FlagSet
	var f cli.CheckFlags
	f.Add(&std)
	caddyFlags := command.CheckCommand().Flags()
	n := 0
	std.VisitAll(func(want *flag.Flag) {
		n++
		got := caddyFlags.Lookup(want.Name)
		if got == nil {
			t.Errorf("caddy robots check has no --%s", want.Name)
			return
		}
		if got.Usage != want.Usage || got.DefValue != want.DefValue {
			t.Errorf("--%s: caddy robots check has %q (default %q), robots check %q (default %q)", want.Name, got.Usage, got.DefValue, want.Usage, want.DefValue)
		}
	})
	if n < 9 {
		t.Errorf("only %d check flags shared", n)
	}
	// Repeatable flags keep every value, on both flag sets.
	if err := caddyFlags.Parse([]string{"--header", "A: 1", "--header", "B: 2", "--url", "https://example.com/"}); err != nil {
		t.Fatal(err)
	}
	if err := std.Parse([]string{"-header", "A: 1", "-header", "B: 2"}); err != nil || !reflect.DeepEqual(f.Headers, []string{"A: 1", "B: 2"}) {
		t.Errorf("robots check --header twice: %q, %v", f.Headers, err)
	}
}
