package caddymodule

import (
	"encoding/json"
	"errors"
	"fmt"
	"iter"
	"net/http"
	"net/textproto"
	"sort"
	"strings"

	"github.com/caddyserver/caddy/v2"
	caddycmd "github.com/caddyserver/caddy/v2/cmd"

	"github.com/sitepolicy/caddy-robots/identity"
	"github.com/sitepolicy/caddy-robots/policycheck"
	"github.com/sitepolicy/caddy-robots/webbotauth"
)

// loadedConfig is a config loaded as "caddy run" loads it, with the Caddyfile lines of its
// handlers.
type loadedConfig struct {
	raw struct {
		Apps struct {
			Crawlers json.RawMessage `json:"crawlers"`
			HTTP     struct {
				Servers map[string]struct {
					Listen []string          `json:"listen"`
					Routes []json.RawMessage `json:"routes"`
				} `json:"servers"`
			} `json:"http"`
		} `json:"apps"`
	}
	// sources are the handlers' origins by JSON path.
	sources map[string]policycheck.Source
	// ctx provisions what the walks meet (matchers, rewrites); the crawlers app is in it when
	// the config verifies crawlers.
	ctx caddy.Context
	// crawlers is the crawlers app as the server loads it (configured, or with its defaults
	// when a handler or matcher needs it); nil when the config verifies no crawlers.
	crawlers *Crawlers
	// svc is the verification check asks (startCrawlers); nil before.
	svc *identity.Service
	// dirKeys are the keys check is given for agents whose keys come from their directory
	// (--signature-keys), by normalized agent URL.
	dirKeys map[string][]webbotauth.Key
	// noDNS turns reverse DNS off in the verification (report: a log holds too many
	// addresses to look up).
	noDNS bool
}

// loadConfig adapts and validates the config file (with the adapter, if given) as "caddy
// run" would, recording the Caddyfile lines of the handlers.
func loadConfig(file, adapter string) (*loadedConfig, error) {
	lc := &loadedConfig{sources: map[string]policycheck.Source{}}
	// LoadConfig names the file it adapts: the one given, else the Caddyfile of the directory.
	name := file
	if name == "" {
		name = "Caddyfile"
	}
	var data []byte
	sources, err := recordSources(name, func() error {
		var err error
		data, _, _, err = caddycmd.LoadConfig(file, adapter)
		return err
	})
	if err != nil {
		return nil, err
	}
	if len(data) == 0 {
		return nil, errors.New("no config: give --config, or run in a directory with a Caddyfile")
	}
	var cfg caddy.Config
	if err := caddy.StrictUnmarshalJSON(data, &cfg); err != nil {
		return nil, fmt.Errorf("decoding the config: %w", err)
	}
	if err := caddy.Validate(&cfg); err != nil {
		return nil, err
	}
	if err := json.Unmarshal(data, &lc.raw); err != nil {
		return nil, err
	}
	// The walks provision matchers in a context of their own, which holds the crawlers app
	// when the server would load it, so that a crawler matcher finds it there.
	apps := caddy.ModuleMap{}
	if raw := lc.raw.Apps.Crawlers; raw != nil {
		apps["crawlers"] = raw
	} else if needsCrawlers(data) {
		apps["crawlers"] = json.RawMessage("{}")
	}
	if lc.ctx, err = caddy.ProvisionContext(&caddy.Config{AppsRaw: apps}); err != nil {
		return nil, err
	}
	if len(apps) > 0 {
		app, err := lc.ctx.App("crawlers")
		if err != nil {
			return nil, err
		}
		lc.crawlers = app.(*Crawlers)
	}
	// Pair the handlers with the parsers' notes: in config order, each takes the first note
	// left with its JSON. Handlers with equal JSON are interchangeable, except for their lines,
	// which then follow the config's order (the adapter sorts directives, so it may differ
	// from the Caddyfile's).
	for top := range lc.topRoutes() {
		for _, f := range lc.inSite(top) {
			src := policycheck.Source{}
			key := canonicalJSON(f.raw)
			if n := sources[key]; len(n) > 0 {
				src, sources[key] = n[0], n[1:]
			}
			src.JSONPath = f.path
			lc.sources[f.path] = src
		}
	}
	return lc, nil
}

// needsCrawlers reports whether a module of the config (JSON) loads the crawlers app when it
// is provisioned: a crawler matcher (in a route's match sets, or nested in a matcher there),
// or robots_txt's enforce with impostors.
func needsCrawlers(data []byte) bool {
	var v any
	if json.Unmarshal(data, &v) != nil {
		return false
	}
	var needs func(v any, inMatch bool) bool
	needs = func(v any, inMatch bool) bool {
		switch v := v.(type) {
		case map[string]any:
			if _, ok := v["crawler"]; ok && inMatch {
				return true
			}
			if e, ok := v["enforce"].(map[string]any); ok && v["handler"] == "robots_txt" && e["impostors"] != nil {
				return true
			}
			for k, x := range v {
				if needs(x, inMatch || k == "match") {
					return true
				}
			}
		case []any:
			for _, x := range v {
				if needs(x, inMatch) {
					return true
				}
			}
		}
		return false
	}
	return needs(v, false)
}

// startCrawlers starts the verification check asks, when the config verifies crawlers
// (Crawlers.startCheckService), and returns it with the check's signature verifier; nil when
// it verifies none.
func (lc *loadedConfig) startCrawlers() (*identity.Service, *webbotauth.Verifier, error) {
	if lc.crawlers == nil {
		return nil, nil, nil
	}
	if lc.svc == nil {
		svc, err := lc.crawlers.startCheckService(lc.ctx.Slogger(), lc.dirKeys, lc.noDNS)
		if err != nil {
			return nil, nil, err
		}
		lc.svc = svc
	}
	return lc.svc, lc.crawlers.sigs, nil
}

// close stops the check's verification and releases the crawlers app.
func (lc *loadedConfig) close() {
	if lc.svc != nil {
		lc.svc.Stop()
	}
	if lc.crawlers != nil {
		_ = lc.crawlers.Cleanup()
	}
}

// source returns where the handler at the JSON path came from.
func (lc *loadedConfig) source(path string) policycheck.Source {
	if s, ok := lc.sources[path]; ok {
		return s
	}
	return policycheck.Source{JSONPath: path}
}

// serverNames returns the servers' names, sorted.
func (lc *loadedConfig) serverNames() []string {
	var names []string
	for n := range lc.raw.Apps.HTTP.Servers {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// topRoute is a top-level route of a server (a site block of a Caddyfile).
type topRoute struct {
	server string
	path   string // its JSON path
	route  route
}

// topRoutes yields the top-level routes of every server, servers in name order; a route
// that does not decode is skipped (caddy.Validate has accepted the config already).
func (lc *loadedConfig) topRoutes() iter.Seq[topRoute] {
	return func(yield func(topRoute) bool) {
		for _, name := range lc.serverNames() {
			for i, rr := range lc.raw.Apps.HTTP.Servers[name].Routes {
				var rt route
				if json.Unmarshal(rr, &rt) != nil {
					continue
				}
				if !yield(topRoute{name, fmt.Sprintf("apps.http.servers.%s.routes[%d]", name, i), rt}) {
					return
				}
			}
		}
	}
}

// signatureKeys reads file, the JWK Set of a key directory (--signature-keys), as the keys of
// the agents the signatures of the header lines name: each must be an agent the config
// trusts without a key file, whose keys the server fetches from its directory.
func (lc *loadedConfig) signatureKeys(file string, lines []string) (map[string][]webbotauth.Key, error) {
	keys, err := readKeys(file)
	if err != nil {
		return nil, fmt.Errorf("--signature-keys %q: %v", file, err)
	}
	h := headerOf(lines)
	sigs, _ := webbotauth.ParseSignatures(h)
	fromDir := map[string]bool{}
	if c := lc.crawlers; c != nil && c.Signatures != nil {
		for _, a := range c.Signatures.Agents {
			if u, err := webbotauth.NormalizeAgent(a.URL); err == nil && a.KeyFile == "" {
				fromDir[u] = true
			}
		}
	}
	out := map[string][]webbotauth.Key{}
	for i := range sigs {
		agent, err := sigs[i].SignatureAgent(h)
		if err != nil || agent == "" || sigs[i].Tag != webbotauth.Tag {
			continue
		}
		if !fromDir[agent] {
			return nil, fmt.Errorf("--signature-keys: the signature's agent %s is not one the config trusts with its keys from its directory (signature_agent without a key file)", agent)
		}
		out[agent] = keys
	}
	if len(out) == 0 {
		return nil, errors.New("--signature-keys: no --header line carries a web-bot-auth signature naming its agent (Signature-Input, Signature, Signature-Agent)")
	}
	return out, nil
}

// headerOf reads the client's "Name: value" lines (--header); a line that is not one is
// skipped here, and policycheck.Check reports it.
func headerOf(lines []string) http.Header {
	h := http.Header{}
	for _, line := range lines {
		if name, value, ok := strings.Cut(line, ":"); ok {
			h.Add(textproto.CanonicalMIMEHeaderKey(strings.TrimSpace(name)), strings.TrimSpace(value))
		}
	}
	return h
}
