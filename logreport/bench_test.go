package logreport_test

import (
	"bytes"
	"testing"
	"time"

	"github.com/sitepolicy/caddy-robots/logreport"
	"github.com/sitepolicy/caddy-robots/policycheck"
)

// BenchmarkReportCombined reads and replays a Combined Log Format log (generated traffic of
// crawlers and browsers) against testdata/site.json, reporting lines per second (one
// goroutine: per core). bench/report.sh compares it with GoAccess on the same file.
func BenchmarkReportCombined(b *testing.B) {
	reqs := generate(5, 100000, time.Date(2026, 11, 20, 0, 0, 0, 0, time.UTC), 72*time.Hour, false)
	log, bad := render(reqs, "combined")
	lines := float64(len(reqs)) + float64(bad)
	site := loadSite(b, false)
	rp, err := policycheck.NewReplay(site, "https://example.com")
	if err != nil {
		b.Fatal(err)
	}
	defer rp.Close()
	b.SetBytes(int64(len(log)))
	b.ResetTimer()
	for range b.N {
		bl := logreport.NewBuilder(rp, logreport.Options{})
		if err := bl.ReadLog("bench.log", bytes.NewReader(log)); err != nil {
			b.Fatal(err)
		}
		_ = bl.Report()
	}
	b.ReportMetric(lines*float64(b.N)/b.Elapsed().Seconds(), "lines/s")
}
