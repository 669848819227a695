package redisstore

import (
	"context"
	"encoding/binary"
	"net/netip"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/sitepolicy/caddy-robots/redisstore/redistest"
)

// Bytes per key on the server (MEMORY USAGE, Redis 7), as docs/fleet.md sizes the store;
// TestKeySizes checks them.
const (
	// nonceBytes is the memory of one nonce in a partition's sorted set of thousands.
	nonceBytes = 128
	// keyBytes bounds a crawl-delay budget, a log limit's count, a reverse-DNS verdict of
	// one host name, each with a key prefix of 13 bytes and a crawler's name or an address.
	keyBytes = 192
)

func usedMemory(t *testing.T, s *Store) int64 {
	t.Helper()
	info, err := s.client.Info(context.Background(), "memory").Result()
	if err != nil {
		t.Fatal(err)
	}
	for line := range strings.Lines(info) {
		if v, ok := strings.CutPrefix(strings.TrimSpace(line), "used_memory:"); ok {
			n, _ := strconv.ParseInt(v, 10, 64)
			return n
		}
	}
	t.Fatal("no used_memory in INFO memory")
	return 0
}

// TestKeySizes measures the memory the store's keys take on a real redis-server.
func TestKeySizes(t *testing.T) {
	srv := redistest.Start(t)
	s := newStore(t, srv, Options{}) // the default prefix, "caddy-robots:"
	ctx := context.Background()
	const n = 2000
	before := usedMemory(t, s)
	var h [16]byte
	until := time.Now().Add(time.Hour)
	for i := range n {
		binary.LittleEndian.PutUint64(h[:], uint64(i)*0x9e3779b97f4a7c15)
		if _, err := s.AddNonce(ctx, h, false, until, n); err != nil {
			t.Fatal(err)
		}
	}
	zset, err := s.client.MemoryUsage(ctx, s.prefix+"nonces:untrusted", 0).Result()
	if err != nil {
		t.Fatal(err)
	}
	per := zset / n
	t.Logf("a nonce: %d bytes (MEMORY USAGE of the partition / %d); used_memory grew by %d bytes a nonce", per, n, (usedMemory(t, s)-before)/n)
	if per > nonceBytes {
		t.Errorf("a nonce takes %d bytes on the server, docs/fleet.md says at most %d", per, nonceBytes)
	}
	s.TakeDelay(ctx, "u:Google-CloudVertexBot", time.Hour)
	s.AllowLog(ctx, "refusal:google-cloudvertexbot:2", 10, time.Minute)
	for range 11 {
		s.AllowLog(ctx, "violation:google-cloudvertexbot", 10, time.Minute)
	}
	a := netip.MustParseAddr("2001:db8:1234:5678:9abc:def0:1234:5678")
	s.DNSVerdict(ctx, a, time.Minute)
	s.PutDNSVerdict(ctx, a, []string{"crawl-2001-4860-4801-10--1.googlebot.com"}, time.Hour, 10)
	keys, err := s.client.Keys(ctx, s.prefix+"*").Result()
	if err != nil {
		t.Fatal(err)
	}
	for _, k := range keys {
		if strings.HasPrefix(k, s.prefix+"nonces:") {
			continue
		}
		b, err := s.client.MemoryUsage(ctx, k).Result()
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("%s: %d bytes", k, b)
		if b > keyBytes {
			t.Errorf("%s takes %d bytes on the server, docs/fleet.md says at most %d", k, b, keyBytes)
		}
	}
}
