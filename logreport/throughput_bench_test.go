package logreport_test

import (
	"bytes"
	"testing"
	"time"

	"github.com/sitepolicy/caddy-robots/logreport"
	"github.com/sitepolicy/caddy-robots/policycheck"
)

// BenchmarkReportThroughput reads BenchmarkReportCombined's traffic as a Combined log and as
// Caddy's JSON log (whose lines log the response's Content-Type), reporting lines per second
// and the process's CPU time per line (user and system, from getrusage: comparable on a
// shared machine where wall time is not; cpuTime is BenchmarkReportWorkers'). It uses only
// the package's public API and cpuTime, so that the same file runs against an older tree
// that has them: docs/BENCHMARKS.md compares two commits with it.
func BenchmarkReportThroughput(b *testing.B) {
	reqs := generate(5, 100000, time.Date(2026, 11, 20, 0, 0, 0, 0, time.UTC), 72*time.Hour, false)
	site := loadSite(b, false)
	rp, err := policycheck.NewReplay(site, "https://example.com")
	if err != nil {
		b.Fatal(err)
	}
	defer rp.Close()
	for _, format := range []string{"combined", "caddy"} {
		log, bad := render(reqs, format)
		lines := float64(len(reqs)) + float64(bad)
		b.Run(format, func(b *testing.B) {
			b.SetBytes(int64(len(log)))
			cpu0 := cpuTime()
			b.ResetTimer()
			for range b.N {
				bl := logreport.NewBuilder(rp, logreport.Options{})
				if err := bl.ReadLog("bench.log", bytes.NewReader(log)); err != nil {
					b.Fatal(err)
				}
				_ = bl.Report()
			}
			b.StopTimer()
			b.ReportMetric(lines*float64(b.N)/b.Elapsed().Seconds(), "lines/s")
			b.ReportMetric(float64(cpuTime()-cpu0)/(lines*float64(b.N)), "cpu-ns/line")
		})
	}
}
