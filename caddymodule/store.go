package caddymodule

import (
	"encoding/json"
	"errors"
	"log/slog"
	"strings"

	"github.com/caddyserver/caddy/v2"

	"github.com/sitepolicy/caddy-robots/configerr"
	"github.com/sitepolicy/caddy-robots/fleet"
	"github.com/sitepolicy/caddy-robots/redisstore"
)

// CrawlerStore configures the store the instances of a fleet share (docs/fleet.md): with
// it, their crawl-delay budgets, the rate limit of the violation and refusal logs, Web Bot
// Auth nonces and reverse-DNS verdicts are the fleet's, not each process's.
type CrawlerStore struct {
	// Redis is a Redis (or Valkey) server's options (package redisstore). Its strings may
	// hold {env.*} placeholders, replaced when the config loads.
	Redis *redisstore.Options `json:"redis,omitempty"`
}

// stores holds the client of each distinct store config in use (its options, placeholders
// replaced), so that a reload keeps the connections when the store's config is unchanged.
var stores = caddy.NewUsagePool()

type storeEntry struct{ *redisstore.Store }

func (e storeEntry) Destruct() error { return e.Close() }

// resolvedStore is the store's options with the placeholders replaced (errors at their
// JSON path under "store.redis"), and the key of the client in stores.
func (a *Crawlers) resolvedStore() (redisstore.Options, string, error) {
	o, err := replacePlaceholders(*a.Store.Redis)
	if err != nil {
		return o, "", configerr.Prefix("store.redis", err)
	}
	key, err := json.Marshal(o)
	return o, string(key), err
}

// provisionStore finds or makes the client of the configured store, if any (a.store), and
// returns the key of the client in stores ("" for none), which a.key includes: the
// verification built on a store keeps it. Nothing is connected here: the first decision
// connects.
func (a *Crawlers) provisionStore(log *slog.Logger) (string, error) {
	if a.Store == nil || a.Store.Redis == nil {
		return "", nil
	}
	o, key, err := a.resolvedStore()
	if err != nil {
		return "", err
	}
	o.Logger = log
	v, _, err := stores.LoadOrNew(key, func() (caddy.Destructor, error) {
		s, err := redisstore.New(o)
		if err != nil {
			return nil, configerr.Prefix("store.redis", err)
		}
		return storeEntry{s}, nil
	})
	if err != nil {
		return "", err
	}
	a.store, a.storeKey = v.(storeEntry).Store, key
	return key, nil
}

// validateStore checks the store's options as redisstore.New does (which connects to
// nothing), at their paths under "store.redis"; a value with a placeholder is checked when
// it is replaced, at Provision.
func (a *Crawlers) validateStore() error {
	if a.Store == nil {
		return nil
	}
	if a.Store.Redis == nil {
		return configerr.New("store", "", "no store named: give redis")
	}
	s, err := redisstore.New(*a.Store.Redis)
	if err == nil {
		return s.Close()
	}
	var errs []error
	for _, e := range configerr.All(err) {
		if !strings.Contains(e.Value, "{") { // else checked once replaced (provisionStore)
			errs = append(errs, e)
		}
	}
	return configerr.Prefix("store.redis", errors.Join(errs...))
}

// releaseStore releases this config's use of the store's client.
func (a *Crawlers) releaseStore() error {
	if a.storeKey == "" {
		return nil
	}
	_, err := stores.Delete(a.storeKey)
	return err
}

// fleetStore is the store the fleet shares, nil without one (each process keeps its own
// state): for the handlers, whose crawl-delay budgets and log limits it keeps.
func (a *Crawlers) fleetStore() fleet.Store {
	if a == nil || a.store == nil {
		return nil
	}
	return a.store
}

// observeStore makes the process's counters (the handlers' metrics) report the fallbacks of
// the running config's store (caddy_robots_store_fallbacks_total), none without one.
func (a *Crawlers) observeStore() {
	var st *fleet.Stats
	if a.store != nil {
		st = a.store.Stats()
	}
	processCounters().ObserveStore(st)
}
