// The allocation tests: the race detector changes allocation counts, so they skip under it
// (./test.sh runs them in its pass without -race).

package mimetype

import "testing"

// TestParseAllocs: reading a lower-case type and a parameter costs no allocation, so the
// per-response decision stays free.
func TestParseAllocs(t *testing.T) {
	if raceEnabled {
		t.Skip("the race detector changes allocation counts: ./test.sh runs this test without it")
	}
	lines := []string{"text/html; charset=utf-8"}
	var sink string
	if n := testing.AllocsPerRun(100, func() {
		m, _ := Extract(lines)
		sink, _ = m.Param("charset")
	}); n != 0 {
		t.Errorf("Extract and Param: %v allocations, want 0", n)
	}
	_ = sink
}
