package logreport_test

import (
	"bytes"
	"compress/gzip"
	"fmt"
	"io"
	"maps"
	"math/rand/v2"
	"runtime"
	"runtime/metrics"
	"slices"
	"sort"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/sitepolicy/caddy-robots/logreport"
	"github.com/sitepolicy/caddy-robots/policycheck"
)

// splitLog cuts log at line ends into n files named part0, part1, ... in its order.
func splitLog(log []byte, n int) map[string][]byte {
	files := map[string][]byte{}
	for i := range n {
		end := len(log)
		if i < n-1 {
			end = (i + 1) * len(log) / n
			if j := bytes.IndexByte(log[end:], '\n'); j >= 0 {
				end += j + 1
			} else {
				end = len(log)
			}
		}
		files[fmt.Sprintf("part%d", i)] = log[:end]
		log = log[end:]
	}
	return files
}

func gzipped(b []byte) []byte {
	var out bytes.Buffer
	zw := gzip.NewWriter(&out)
	_, _ = zw.Write(b)
	_ = zw.Close()
	return out.Bytes()
}

// memLogs are the logs of files, read from memory, in the order of their names.
func memLogs(files map[string][]byte, order ...string) []logreport.Log {
	if order == nil {
		for name := range files {
			order = append(order, name)
		}
		sort.Strings(order)
	}
	var logs []logreport.Log
	for _, name := range order {
		data := files[name]
		logs = append(logs, logreport.Log{Name: name, Open: func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(data)), nil }})
	}
	return logs
}

// reportWith reads logs (in the order given) with workers and returns the report in the
// three formats, and the errors.
func reportWith(t testing.TB, rp *policycheck.Replay, host string, logs []logreport.Log, workers int) (rep *logreport.Report, outputs [3]string, errs []string) {
	t.Helper()
	b := logreport.NewBuilder(rp, logreport.Options{Host: host})
	for _, err := range b.ReadLogs(logs, workers) {
		errs = append(errs, err.Error())
	}
	rep = b.Report()
	return rep, writeAll(t, rep), errs
}

// writeAll writes rep as text, JSON and HTML (which is the JSON's data drawn: not under
// -race, where it costs the most).
func writeAll(t testing.TB, rep *logreport.Report) (outputs [3]string) {
	t.Helper()
	writers := []func(io.Writer) error{rep.WriteText, rep.WriteJSON, rep.WriteHTML}
	if raceEnabled {
		writers = writers[:2]
	}
	for i, write := range writers {
		var out bytes.Buffer
		if err := write(&out); err != nil {
			t.Fatal(err)
		}
		outputs[i] = out.String()
	}
	return outputs
}

// fleetLogs are generated logs of three instances over two days and a day a week before, in
// the Combined format and Caddy's (with lines for another host), with malformed lines, a
// crawler fetching thousands of distinct paths (beyond the report's limits), a gzip file cut
// short and a file that is no log: every count of a report, and every limit, is reached.
func fleetLogs(n int) map[string][]byte {
	start := time.Date(2026, 11, 20, 0, 0, 0, 0, time.UTC)
	files := map[string][]byte{}
	for i, format := range []string{"combined", "caddy", "combined"} {
		reqs := generate(uint64(40+i), n, start, 48*time.Hour, format == "caddy")
		reqs = append(reqs, generate(uint64(50+i), n/4, start.Add(-7*24*time.Hour), 12*time.Hour, format == "caddy")...)
		if i == 0 {
			// GPTBot (Disallow: /) crawling many distinct pages: more paths and violations
			// than a row keeps.
			distinct := 3 * logreport.MaxPaths
			if raceEnabled {
				distinct = logreport.MaxPaths + 100
			}
			for j := range distinct {
				reqs = append(reqs, request{t: start.Add(time.Duration(j) * time.Minute), c: clients[1], ip: clients[1].ip, method: "GET", target: fmt.Sprintf("/p/%d", j), status: 200, size: 10, host: "example.com"})
			}
			// An impostor of Googlebot where Googlebot may not go, whatever the draw.
			reqs = append(reqs, request{t: start.Add(time.Hour), c: clients[0], ip: clients[0].fake, method: "GET", target: "/search?q=x", status: 200, size: 10, host: "example.com"})
		}
		if i != 1 {
			// In the order of time, as a server writes: a worker reading a chunk of it
			// sees a short time, another a long one.
			slices.SortStableFunc(reqs, func(a, b request) int { return a.t.Compare(b.t) })
		}
		if format == "caddy" {
			// x402 pay per crawl: 402s, and requests served paid.
			for j := range reqs {
				switch {
				case j%13 == 0:
					reqs[j].status = 402
				case j%17 == 0:
					reqs[j].status, reqs[j].paid = 200, true
				}
			}
		}
		log, _ := render(reqs, format)
		files[fmt.Sprintf("web%d/access.log", i)] = log
	}
	cut := gzipped(files["web2/access.log"][:len(files["web2/access.log"])/3])
	files["web2/access.log.1.gz"] = cut[:len(cut)*2/3]
	files["web9/error.log"] = []byte("not a log\n{\"level\":\"error\"}\n")
	// Platforms' crawls and referred visits (platforms_test.go's generator).
	var refer bytes.Buffer
	for _, r := range generateReferrals(rand.New(rand.NewPCG(60, 1)), n/2, start, 48*time.Hour, true) {
		refer.WriteString(referLine(r, true) + "\n")
	}
	files["web3/access.log"] = refer.Bytes()
	return files
}

// TestWorkersSameReport: the report of a fleet's logs is the same, byte for byte in the three
// formats, with 1 to 4 workers, in any order of the logs, with logs gzip-compressed or not,
// and cut into chunks of any size; and a log cut into several files counts the same as the
// whole.
func TestWorkersSameReport(t *testing.T) {
	n, rounds := 1500, 6
	if raceEnabled {
		n, rounds = 300, 3
	}
	files := fleetLogs(n)
	site := loadSite(t, true)
	rp, err := policycheck.NewReplay(site, "https://example.com")
	if err != nil {
		t.Fatal(err)
	}
	defer rp.Close()
	seqRep, seq, seqErrs := reportWith(t, rp, "example.com", memLogs(files), 1)
	if len(seqErrs) != 2 || !strings.Contains(seqErrs[0], "web2/access.log.1.gz: truncated") || !strings.Contains(seqErrs[1], "web9/error.log: no line is an access log entry") {
		t.Fatalf("errors %q, want the cut gzip file's and the file that is no log's", seqErrs)
	}
	if seqRep.Unreadable.Count == 0 || seqRep.Totals.OtherHosts == 0 || seqRep.Totals.Impostors == 0 {
		t.Fatalf("the logs lack unreadable lines, other hosts or impostors: %+v", seqRep.Totals)
	}
	names := sortedKeys(files)
	rnd := rand.New(rand.NewPCG(1, 2))
	for round := range rounds {
		workers := 1 + round%4
		restore := logreport.SetChunkSize([]int{1, 100, 4096, 256 << 10}[rnd.IntN(4)], []int{3, 200, 64 << 10}[rnd.IntN(3)])
		order := slices.Clone(names)
		rnd.Shuffle(len(order), func(i, j int) { order[i], order[j] = order[j], order[i] })
		// Gzip-compressed or not, told by the bytes: the same log.
		logs := maps.Clone(files)
		compressed := map[string]bool{"web2/access.log.1.gz": true}
		for _, name := range names {
			if rnd.IntN(2) == 0 && !compressed[name] {
				logs[name], compressed[name] = gzipped(logs[name]), true
			}
		}
		b := logreport.NewBuilder(rp, logreport.Options{Host: "example.com"})
		var errs []string
		for _, err := range b.ReadLogs(memLogs(logs, order...), workers) {
			errs = append(errs, err.Error())
		}
		restore()
		rep := b.Report()
		for _, in := range rep.Inputs {
			if in.Gzip != compressed[in.Name] {
				t.Errorf("round %d: %s read as gzip %v, want %v", round, in.Name, in.Gzip, compressed[in.Name])
			}
			in.Gzip = in.Name == "web2/access.log.1.gz" // as in the sequential run
		}
		if !slices.Equal(errs, seqErrs) {
			t.Errorf("round %d, %d workers: errors %q, want %q", round, workers, errs, seqErrs)
		}
		got := writeAll(t, rep)
		for i, format := range []string{"text", "json", "html"} {
			if got[i] != seq[i] {
				t.Errorf("round %d, %d workers, order %q: the %s output differs from the sequential run's:\n%s", round, workers, order, format, firstDiff(got[i], seq[i]))
			}
		}
	}

	// One log cut into files (in order, and their names in order): the same counts, and the
	// examples of unreadable lines are the same lines.
	whole := files["web0/access.log"]
	wholeRep, _, _ := reportWith(t, rp, "example.com", memLogs(map[string][]byte{"whole": whole}), 1)
	for parts := 2; parts <= 2+rounds/3; parts++ {
		split := splitLog(whole, parts)
		if parts%2 == 0 {
			split["part1"] = gzipped(split["part1"])
		}
		rep, _, _ := reportWith(t, rp, "example.com", memLogs(split), parts)
		for i, ex := range rep.Unreadable.Examples {
			if w := wholeRep.Unreadable.Examples[i]; ex.Text != w.Text || ex.Reason != w.Reason {
				t.Errorf("%d parts: example %d is %+v, want %+v", parts, i, ex, w)
			}
		}
		rep.Inputs, rep.Unreadable.Examples = wholeRep.Inputs, wholeRep.Unreadable.Examples
		if got, want := writeAll(t, rep), writeAll(t, wholeRep); got != want {
			t.Errorf("%d parts: the report differs from the whole log's:\n%s", parts, firstDiff(got[1], want[1]))
		}
	}
}

// firstDiff shows where a and b first differ.
func firstDiff(a, b string) string {
	i := 0
	for i < len(a) && i < len(b) && a[i] == b[i] {
		i++
	}
	from := max(0, i-300)
	return fmt.Sprintf("got  …%s…\nwant …%s…", a[from:min(len(a), i+200)], b[from:min(len(b), i+200)])
}

// TestChunksKeepLines: however a log is cut into reads and chunks, and whatever the number of
// workers, every line is read once, with its number in its log: lines around the 64 KiB
// limit (longer ones are one unreadable line each), blank lines, CRLF, a last line without
// its newline. The unreadable lines shown are the first by log and line, their numbers and
// text those of the file.
func TestChunksKeepLines(t *testing.T) {
	const limit = 64 << 10 // the longest line read (docs/report.md)
	rounds := 24
	if raceEnabled {
		rounds = 6
	}
	rp, err := policycheck.NewReplay(loadSite(t, false), "https://example.com")
	if err != nil {
		t.Fatal(err)
	}
	defer rp.Close()
	rnd := rand.New(rand.NewPCG(3, 4))
	at := time.Date(2026, 11, 20, 10, 0, 0, 0, time.UTC)
	for round := range rounds {
		files := map[string][]byte{}
		var wantLines, wantRequests, wantBad int64
		type bad struct {
			name string
			line int64
			text string
		}
		var bads []bad
		for f := range 1 + rnd.IntN(3) {
			name := fmt.Sprintf("log%d", f)
			var log []byte
			nlines := 1 + rnd.IntN(60)
			for i := int64(1); i <= int64(nlines); i++ {
				var line string
				switch k := rnd.IntN(10); {
				case k < 5:
					line = clfLine("20.15.240.64", fmt.Sprintf("/%d", rnd.IntN(99)), "GPTBot/1.2", at, 1)
					wantRequests++
				case k == 5:
					line = "\n"
				case k == 6:
					line = fmt.Sprintf("garbage %d %d\r\n", round, i)
					bads = append(bads, bad{name, wantLines + i, strings.TrimRight(line, "\r\n")})
				default:
					// Around the limit (with its newline), or far beyond it.
					size := limit - 2 + rnd.IntN(5)
					if k == 9 {
						size = 3*limit + rnd.IntN(limit)
					}
					line = strings.Repeat("x", size-1) + "\n"
					if size > limit {
						bads = append(bads, bad{name, wantLines + i, strings.Repeat("x", 200) + "…"})
					} else {
						bads = append(bads, bad{name, wantLines + i, ""}) // a line, unreadable: not a log entry
					}
				}
				log = append(log, line...)
			}
			if rnd.IntN(2) == 0 {
				log = log[:len(log)-1] // the last line without its newline
				if len(log) == 0 || log[len(log)-1] == '\n' {
					// It was a blank line: there is one line fewer.
					nlines--
				}
			}
			if nlines == 0 {
				continue
			}
			files[name] = log
			wantLines += int64(nlines)
		}
		// Line numbers count in each log: the bads' were counted over all, so far.
		var before int64
		var shown []bad
		for _, name := range sortedKeys(files) {
			n := int64(bytes.Count(files[name], []byte("\n")))
			if files[name][len(files[name])-1] != '\n' {
				n++
			}
			for _, b := range bads {
				if b.name == name && b.line-before <= n {
					b.line -= before
					shown = append(shown, b)
				}
			}
			before += n
		}
		wantBad = int64(len(shown))
		restore := logreport.SetChunkSize(1+rnd.IntN(3*limit), 1+rnd.IntN(2*limit))
		rep, _, _ := reportWith(t, rp, "", memLogs(files), 1+rnd.IntN(4))
		restore()
		var lines int64
		for _, in := range rep.Inputs {
			lines += in.Lines
		}
		if lines != wantLines || rep.Totals.Requests != wantRequests || rep.Unreadable.Count != wantBad {
			t.Fatalf("round %d: %d lines, %d requests, %d unreadable; want %d, %d, %d", round, lines, rep.Totals.Requests, rep.Unreadable.Count, wantLines, wantRequests, wantBad)
		}
		shown = shown[:min(len(shown), logreport.MaxExamples)]
		if len(rep.Unreadable.Examples) != len(shown) {
			t.Fatalf("round %d: %d examples, want %d", round, len(rep.Unreadable.Examples), len(shown))
		}
		for i, ex := range rep.Unreadable.Examples {
			if w := shown[i]; ex.Input != w.name || ex.Line != w.line || (w.text != "" && ex.Text != w.text) {
				t.Errorf("round %d: example %d is %s:%d %q (%s), want %s:%d %.40q", round, i, ex.Input, ex.Line, ex.Text, ex.Reason, w.name, w.line, w.text)
			}
		}
	}
}

// repeatReader is a log of n copies of line, made as it is read, that notes the most heap
// live every two megabytes read.
type repeatReader struct {
	line     []byte
	n, at    int
	read     int
	peakHeap *atomic.Uint64
}

func (r *repeatReader) Read(p []byte) (int, error) {
	if r.n == 0 {
		return 0, io.EOF
	}
	copied := 0
	for r.n > 0 && copied < len(p) {
		c := copy(p[copied:], r.line[r.at:])
		copied += c
		if r.at += c; r.at == len(r.line) {
			r.at, r.n = 0, r.n-1
		}
	}
	if r.read += copied; r.read >= 2<<20 {
		r.read = 0
		live := liveHeap()
		for old := r.peakHeap.Load(); live > old && !r.peakHeap.CompareAndSwap(old, live); old = r.peakHeap.Load() {
		}
	}
	return copied, nil
}

// TestReadLogsStreams: logs are read as they come, not whole: reading 24 MB of logs with 2
// workers holds under 6 MB of heap (a log read whole would hold 8 MB alone; the bound
// leaves room for what the workers allocate while the collector measures).
func TestReadLogsStreams(t *testing.T) {
	if raceEnabled {
		t.Skip("the race detector's memory is not the report's; run without -race")
	}
	rp, err := policycheck.NewReplay(loadSite(t, false), "https://example.com")
	if err != nil {
		t.Fatal(err)
	}
	defer rp.Close()
	line := []byte(clfLine("20.15.240.64", "/articles/a", "GPTBot/1.2", time.Date(2026, 11, 20, 10, 0, 0, 0, time.UTC), 1))
	var peak atomic.Uint64
	var logs []logreport.Log
	const size = 8 << 20 // per log
	for i := range 3 {
		logs = append(logs, logreport.Log{Name: fmt.Sprint("log", i), Open: func() (io.ReadCloser, error) {
			return io.NopCloser(&repeatReader{line: line, n: size / len(line), peakHeap: &peak}), nil
		}})
	}
	before := liveHeap()
	b := logreport.NewBuilder(rp, logreport.Options{})
	if errs := b.ReadLogs(logs, 2); len(errs) > 0 {
		t.Fatal(errs)
	}
	if rep := b.Report(); rep.Totals.Requests != 3*int64(size/len(line)) {
		t.Fatalf("%d requests, want %d", rep.Totals.Requests, 3*(size/len(line)))
	}
	// What the reading holds: its chunks, read buffers, workers' Builders.
	held := int64(peak.Load()) - int64(before)
	t.Logf("held %.1f MB, before %.1f", float64(held)/(1<<20), float64(before)/(1<<20))
	if peak.Load() == 0 || held > 6<<20 {
		t.Errorf("reading 24 MB of logs held %.1f MB of heap at most, want under 6", float64(held)/(1<<20))
	}
}

// liveHeap collects the garbage and returns the bytes of the heap the collection found live
// (not what the other goroutines allocate while it runs).
func liveHeap() uint64 {
	runtime.GC()
	m := []metrics.Sample{{Name: "/gc/heap/live:bytes"}}
	metrics.Read(m)
	return m[0].Value.Uint64()
}
