package logreport_test

import (
	"bytes"
	"fmt"
	"runtime"
	"syscall"
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

// BenchmarkReportWorkers reads the log of BenchmarkReportCombined cut into four files (one
// of them gzip-compressed, as a fleet's rotated logs are) with 1 and with 2 workers, side by
// side, reporting lines per second of each: on a machine with two idle cores the second is
// at least 1.8 times the first (docs/BENCHMARKS.md). The run with 1 worker is the sequential
// run, on one core (GOMAXPROCS 1: the garbage collector gets no other core either).
func BenchmarkReportWorkers(b *testing.B) {
	reqs := generate(5, 100000, time.Date(2026, 11, 20, 0, 0, 0, 0, time.UTC), 72*time.Hour, false)
	log, bad := render(reqs, "combined")
	lines := float64(len(reqs)) + float64(bad)
	files := splitLog(log, 4)
	files["part1"] = gzipped(files["part1"])
	site := loadSite(b, false)
	rp, err := policycheck.NewReplay(site, "https://example.com")
	if err != nil {
		b.Fatal(err)
	}
	defer rp.Close()
	for _, workers := range []int{1, 2} {
		b.Run(fmt.Sprintf("workers=%d", workers), func(b *testing.B) {
			defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(workers))
			b.SetBytes(int64(len(log)))
			cpu0 := cpuTime()
			for b.Loop() {
				bl := logreport.NewBuilder(rp, logreport.Options{})
				if errs := bl.ReadLogs(memLogs(files), workers); len(errs) > 0 {
					b.Fatal(errs)
				}
				_ = bl.Report()
			}
			b.ReportMetric(lines*float64(b.N)/b.Elapsed().Seconds(), "lines/s")
			// The CPU time, which a machine busy with other work does not change much: with
			// as much CPU time per line, 2 workers make 2 cores read twice the lines.
			b.ReportMetric(lines*float64(b.N)/(cpuTime()-cpu0).Seconds(), "lines/cpu-s")
		})
	}
}

// cpuTime is the CPU time the process has used, user and system, in all its threads.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
