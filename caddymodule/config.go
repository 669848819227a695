package caddymodule

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"iter"
	"sort"

	"github.com/caddyserver/caddy/v2"
	caddycmd "github.com/caddyserver/caddy/v2/cmd"

	"github.com/sitepolicy/caddy-robots/policycheck"
)

// loadedConfig is a config loaded as "caddy run" loads it, with the Caddyfile lines of its
// handlers.
type loadedConfig struct {
	raw struct {
		Apps struct {
			HTTP struct {
				Servers map[string]struct {
					Listen []string          `json:"listen"`
					Routes []json.RawMessage `json:"routes"`
				} `json:"servers"`
			} `json:"http"`
		} `json:"apps"`
	}
	// sources are the handlers' origins by JSON path.
	sources map[string]policycheck.Source
	ctx     caddy.Context
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
	ctx, _ := caddy.NewContext(caddy.Context{Context: context.Background()})
	lc.ctx = ctx
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
