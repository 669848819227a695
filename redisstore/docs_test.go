package redisstore

import (
	"bytes"
	"encoding/json"
	"log/slog"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/sitepolicy/caddy-robots/docs"
	"github.com/sitepolicy/caddy-robots/identity"
	"github.com/sitepolicy/caddy-robots/metrics"
	"github.com/sitepolicy/caddy-robots/nethttp"
	"github.com/sitepolicy/caddy-robots/webbotauth"
)

func fleetDoc(t *testing.T, name, info string) string {
	t.Helper()
	src, err := os.ReadFile("../docs/fleet.md")
	if err != nil {
		t.Fatal(err)
	}
	b, err := docs.Marked(src, name, info)
	if err != nil {
		t.Fatalf("docs/fleet.md: %v", err)
	}
	return b
}

// TestDocsOptions: docs/fleet.md's JSON options read into Options, every field known.
func TestDocsOptions(t *testing.T) {
	dec := json.NewDecoder(strings.NewReader(fleetDoc(t, "redisstore-json", "json")))
	dec.DisallowUnknownFields()
	var o Options
	if err := dec.Decode(&o); err != nil {
		t.Fatalf("docs/fleet.md's options: %v", err)
	}
	o, err := o.withDefaults()
	if err != nil {
		t.Fatal(err)
	}
	if o.Address != "redis.internal:6379" || o.Username == "" || o.Password == "" || o.TLS == nil || !o.TLS.Enabled || o.TLS.CAFile == "" ||
		o.TLS.ServerName == "" || o.KeyPrefix != "example.com:" || time.Duration(o.Timeout) != 100*time.Millisecond ||
		time.Duration(o.DialTimeout) != time.Second || time.Duration(o.Backoff) != time.Second {
		t.Fatalf("docs/fleet.md's options read as %+v", o)
	}
}

// TestDocsProgram: docs/fleet.md's Go code is docsProgram's body, which compiles with the
// tests.
func TestDocsProgram(t *testing.T) {
	src, err := os.ReadFile("docs_test.go")
	if err != nil {
		t.Fatal(err)
	}
	_, body, _ := bytes.Cut(src, []byte("// docs:begin\n"))
	body, _, _ = bytes.Cut(body, []byte("\t// docs:end\n"))
	var want strings.Builder
	for line := range strings.Lines(string(body)) {
		want.WriteString(strings.TrimPrefix(line, "\t"))
	}
	// The doc names this package's identifiers as a program importing it does.
	w := strings.Replace(want.String(), "New(Options{", "redisstore.New(redisstore.Options{", 1)
	if got := fleetDoc(t, "fleet-nethttp", "go"); got != w {
		t.Fatalf("docs/fleet.md's Go code is not docsProgram's body:\n%s\nwant:\n%s", got, w)
	}
	// It runs, too: New does not connect.
	mw, err := docsProgram(nethttp.Config{RobotsTxt: &nethttp.RobotsTxtConfig{}}, nil, slog.New(slog.DiscardHandler))
	if err != nil || mw == nil {
		t.Fatal(err)
	}
}

func docsProgram(cfg nethttp.Config, agents []webbotauth.Agent, logger *slog.Logger) (*nethttp.Middleware, error) {
	// docs:begin
	store, err := New(Options{Address: "redis.internal:6379", KeyPrefix: "example.com:", Logger: logger})
	if err != nil {
		return nil, err
	}
	counters := metrics.NewCounters()
	counters.ObserveStore(store.Stats())
	// Reverse-DNS verdicts.
	svc := identity.NewService(identity.ServiceOptions{DNS: identity.DNSOptions{Store: store}})
	// Web Bot Auth nonces: the process's store bounds the fleet's too, and decides alone
	// when the shared one fails.
	sigs, err := webbotauth.NewVerifier(webbotauth.Options{Agents: agents, Nonces: webbotauth.NewNonces(0), Store: store})
	if err != nil {
		return nil, err
	}
	// Crawl-delay budgets and the log limits.
	return nethttp.New(cfg, nethttp.Options{Verifier: svc.Verifier, Signatures: sigs, Counters: counters, Store: store, Logger: logger})
	// docs:end
}
