package logreport

import "time"

// The timeline's fixed series; crawlers' series follow.
const (
	seriesOther      = 0
	seriesViolations = 1
	seriesImpostors  = 2
)

// timeline counts events in at most max buckets of equal width (in seconds), aligned to
// multiples of it: when an event falls outside max buckets, the width doubles and neighbours
// merge, so a timeline of any range stays max buckets at most, in any order of events.
type timeline struct {
	max   int
	width int64 // seconds
	start int64 // a multiple of width; valid once n > 0
	n     int   // buckets in use
	data  [][]int64
	// tool says, per series, whether it is a tool's (Report.Tools).
	tool []bool
}

func (t *timeline) init(max int) {
	t.max, t.width = max, 60
	t.data = [][]int64{make([]int64, max), make([]int64, max), make([]int64, max)}
	t.tool = make([]bool, len(t.data))
}

// newSeries adds the series of a crawler, or of a tool.
func (t *timeline) newSeries(tool bool) int {
	t.data = append(t.data, make([]int64, t.max))
	t.tool = append(t.tool, tool)
	return len(t.data) - 1
}

func floorDiv(a, b int64) int64 {
	q := a / b
	if a%b != 0 && (a < 0) != (b < 0) {
		q--
	}
	return q
}

// add counts an event at ts (Unix seconds) in series s.
func (t *timeline) add(ts int64, s int) { t.addN(ts, s, 1) }

// addN counts n events at ts in series s.
func (t *timeline) addN(ts int64, s int, n int64) {
	if t.n == 0 {
		t.start, t.n = floorDiv(ts, t.width)*t.width, 1
	}
	for {
		i := floorDiv(ts-t.start, t.width)
		if i >= 0 && i < int64(t.n) {
			t.data[s][i] += n
			return
		}
		if i >= int64(t.n) && i < int64(t.max) {
			t.n = int(i) + 1
			continue
		}
		if i < 0 && -i+int64(t.n) <= int64(t.max) {
			t.shift(int(-i))
			continue
		}
		t.coarsen()
	}
}

// shift moves the start k buckets earlier.
func (t *timeline) shift(k int) {
	for _, d := range t.data {
		copy(d[k:t.n+k], d[:t.n])
		clear(d[:k])
	}
	t.start -= int64(k) * t.width
	t.n += k
}

// coarsen doubles the width.
func (t *timeline) coarsen() {
	w := t.width * 2
	start := floorDiv(t.start, w) * w
	off := int((t.start - start) / t.width) // 0 or 1
	n := (t.n + off + 1) / 2
	for _, d := range t.data {
		out := make([]int64, t.max)
		for i := 0; i < t.n; i++ {
			out[(i+off)/2] += d[i]
		}
		copy(d, out)
	}
	t.start, t.width, t.n = start, w, n
}

func (t *timeline) series(s int) []int64 {
	out := make([]int64, t.n)
	copy(out, t.data[s][:t.n])
	return out
}

// summary is the report's timeline: its buckets and the totals of its fixed series, the
// crawlers' summed and the tools' summed.
func (t *timeline) summary() Timeline {
	tl := Timeline{BucketSeconds: t.width, Crawlers: make([]int64, t.n), Tools: make([]int64, t.n), Other: t.series(seriesOther), Violations: t.series(seriesViolations), Impostors: t.series(seriesImpostors)}
	if t.n > 0 {
		tl.Start = time.Unix(t.start, 0).UTC()
	}
	for s := seriesImpostors + 1; s < len(t.data); s++ {
		sum := tl.Crawlers
		if t.tool[s] {
			sum = tl.Tools
		}
		for i := range t.n {
			sum[i] += t.data[s][i]
		}
	}
	return tl
}

// Timeline is the requests over time in buckets of equal width: bucket i counts the requests
// from Start + i×BucketSeconds (inclusive) to the next bucket.
type Timeline struct {
	Start         time.Time `json:"start,omitzero"`
	BucketSeconds int64     `json:"bucket_seconds"`
	// Crawlers, Tools, Other, Impostors and Violations are, per bucket, the requests of
	// crawlers, of tools, of other clients, of impostors, and the violations.
	Crawlers   []int64 `json:"crawlers"`
	Tools      []int64 `json:"tools"`
	Other      []int64 `json:"other"`
	Impostors  []int64 `json:"impostors"`
	Violations []int64 `json:"violations"`
}
