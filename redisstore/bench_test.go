package redisstore

import (
	"context"
	"encoding/binary"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/sitepolicy/caddy-robots/fleet"
	"github.com/sitepolicy/caddy-robots/nethttp"
	"github.com/sitepolicy/caddy-robots/redisstore/redistest"
)

// BenchmarkStoreDecision is the cost of one decision of the store over loopback (one
// EVALSHA round trip to a real redis-server on 127.0.0.1), sequential: the latency a request
// pays, not the server's throughput.
func BenchmarkStoreDecision(b *testing.B) {
	srv := redistest.Start(b)
	s := newStore(b, srv, Options{KeyPrefix: "bench:"})
	ctx := context.Background()
	b.Run("crawl-delay", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, _, err := s.TakeDelay(ctx, "u:GPTBot", time.Hour); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("nonce", func(b *testing.B) {
		b.ReportAllocs()
		var h [16]byte
		until := time.Now().Add(time.Minute)
		i := uint64(0)
		for b.Loop() {
			i++
			binary.LittleEndian.PutUint64(h[:], i)
			if _, err := s.AddNonce(ctx, h, true, until, 1<<30); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("log-limit", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, _, err := s.AllowLog(ctx, "refusal:gptbot:2", 10, time.Minute); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// BenchmarkRequest is a request through the nethttp middleware (crawl_delay enforced) with
// the process's state and with the fleet's on a loopback redis-server: a crawler's request
// over its crawl-delay (refused, 429) and a browser's (served).
func BenchmarkRequest(b *testing.B) {
	srv := redistest.Start(b)
	for _, c := range []struct {
		name  string
		store fleet.Store
	}{{"process", nil}, {"redis", newStore(b, srv, Options{KeyPrefix: "benchreq:"})}} {
		mw, err := nethttp.NewFromJSON([]byte(fleetConfig), nethttp.Options{Store: c.store, Logger: slog.New(slog.DiscardHandler)})
		if err != nil {
			b.Fatal(err)
		}
		h := mw.Handler(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, "ok") }))
		for _, ua := range []struct{ name, ua string }{{"crawler", gptbot}, {"browser", browser}} {
			b.Run(c.name+"/"+ua.name, func(b *testing.B) {
				r := httptest.NewRequest("GET", "/page", nil)
				r.Header.Set("User-Agent", ua.ua)
				b.ReportAllocs()
				for b.Loop() {
					w := httptest.NewRecorder()
					h.ServeHTTP(w, r)
				}
			})
		}
	}
}
