package caddymodule

import (
	"context"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/caddyserver/caddy/v2"
	"github.com/caddyserver/caddy/v2/modules/caddyhttp"

	"github.com/sitepolicy/caddy-robots/policy"
	"github.com/sitepolicy/caddy-robots/tdmrep"
)

// headerOnly is a ResponseWriter that keeps one header map and drops the body.
type headerOnly http.Header

func (h headerOnly) Header() http.Header       { return http.Header(h) }
func (headerOnly) Write(b []byte) (int, error) { return len(b), nil }
func (headerOnly) WriteHeader(int)             {}

// BenchmarkRobotsTxtTDMRep measures robots_txt's answer to /.well-known/tdmrep.json once
// built (TDMRep), its pass-through of another path (Pass, the one string compare it adds), and
// robots_tag's fields stating the file's tdm-policy for a path (Tag, the rules found once):
//
//	go test -run '^$' -bench RobotsTxtTDMRep -benchmem ./caddymodule/
//
// (An allocation test would be a file built only without -race, which makes ./test.sh run
// the whole Caddy module's tests a second time.)
func BenchmarkRobotsTxtTDMRep(b *testing.B) {
	pctx, err := caddy.ProvisionContext(&caddy.Config{})
	if err != nil {
		b.Fatal(err)
	}
	ctx, cancel := caddy.NewContext(pctx)
	defer cancel()
	txt := &RobotsTxt{}
	one := 1
	tag := &RobotsTag{Tags: policy.Tags{TDM: &policy.TDM{Reservation: &one, Policy: "https://example.com/tdm.json"}}}
	for _, p := range []caddy.Provisioner{txt, tag} {
		if err := p.Provision(ctx); err != nil {
			b.Fatal(err)
		}
	}
	srv := &caddyhttp.Server{Routes: caddyhttp.RouteList{
		{Handlers: []caddyhttp.MiddlewareHandler{txt}},
		{MatcherSets: caddyhttp.MatcherSets{{caddyhttp.MatchPath{"/articles/*"}}}, Handlers: []caddyhttp.MiddlewareHandler{tag}},
	}}
	next := caddyhttp.HandlerFunc(func(http.ResponseWriter, *http.Request) error { return nil })
	for name, p := range map[string]string{"TDMRep": tdmrep.WellKnownPath, "Pass": "/articles/a", "Tag": "/articles/a"} {
		h := caddyhttp.MiddlewareHandler(txt)
		if name == "Tag" {
			h = tag
		}
		b.Run(name, func(b *testing.B) {
			w := headerOnly{}
			r := httptest.NewRequest("GET", p, nil)
			r = r.WithContext(context.WithValue(r.Context(), caddyhttp.ServerCtxKey, srv))
			if err := h.ServeHTTP(w, r, next); err != nil {
				b.Fatal(err)
			}
			if p == tdmrep.WellKnownPath && w.Header().Get("Content-Type") != "application/json" {
				b.Fatalf("tdmrep.json not served: %v", w)
			}
			if name == "Tag" && (w.Header().Get("Tdm-Reservation") != "1" || w.Header().Get("Tdm-Policy") != "https://example.com/tdm.json") {
				b.Fatalf("robots_tag states %v", w)
			}
			b.ReportAllocs()
			for b.Loop() {
				_ = h.ServeHTTP(w, r, next)
			}
		})
	}
}
