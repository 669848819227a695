package crawlers

import (
	"fmt"
	"math/rand/v2"
	"sync"
	"testing"
)

// TestRecentAnswersAgreeWithScan: identifyBot, which remembers recent headers, answers what
// the scan answers, for headers seen once, seen again, evicted by others (far more headers
// than slots) and asked from several goroutines at once; a header longer than maxRecentUA is
// scanned, not remembered.
func TestRecentAnswersAgreeWithScan(t *testing.T) {
	var uas []string
	for _, bn := range BotNames() {
		uas = append(uas, "Mozilla/5.0 (compatible; "+bn.Name+"/1.0; +https://example.com/bot)", bn.Name)
	}
	for i := range 5000 {
		uas = append(uas, fmt.Sprintf("Mozilla/5.0 (X11; Linux x86_64; rv:%d.0) Gecko/20100101 Firefox/%d.0", i, i))
	}
	const n = 5000 // per goroutine: 20,000 lookups over 6,500 headers and 2,048 slots
	var wg sync.WaitGroup
	errs := make(chan string, 4)
	for g := range 4 {
		seed := uint64(g)
		wg.Add(1)
		go func() {
			defer wg.Done()
			r := rand.New(rand.NewPCG(seed, 1))
			for range n {
				ua := uas[r.IntN(len(uas))]
				a, w := identifyBot(ua), scanBot(ua)
				if a.id != w.id || a.name != w.name || a.index != w.index || a.ok != w.ok {
					errs <- fmt.Sprintf("identifyBot(%q) = %q %q %d %v, the scan %q %q %d %v", ua, a.id, a.name, a.index, a.ok, w.id, w.name, w.index, w.ok)
					return
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for e := range errs {
		t.Error(e)
	}
	long := "Mozilla/5.0 (compatible; Googlebot/2.1) " + string(make([]byte, maxRecentUA))
	if a := identifyBot(long); !a.ok || a.id != "google-crawler" || a.name != "Googlebot" {
		t.Errorf("a long header: %q %q %v", a.id, a.name, a.ok)
	}
	for i := range recent.slots {
		if a := recent.slots[i].Load(); a != nil && len(a.ua) > maxRecentUA {
			t.Fatalf("a header of %d bytes is remembered", len(a.ua))
		}
	}
}

// BenchmarkScanBot is IdentifyBot's cost for a header not seen lately (the scan over the
// catalogue); BenchmarkIdentifyBot* measure a header seen again.
func BenchmarkScanBot(b *testing.B) {
	for name, ua := range map[string]string{
		"Browser":   "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36",
		"Googlebot": "Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)",
	} {
		b.Run(name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				scanBot(ua)
			}
		})
	}
}
