package logreport

import (
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"
)

// TestTimeTicks: over generated ranges from a minute to three years, the axis has between 2
// and 11 ticks, on round times (a step of tickSteps, from a multiple of it in UTC), evenly
// spaced, within the range, labelled distinctly, with the date where the day changes.
func TestTimeTicks(t *testing.T) {
	rnd := rand.New(rand.NewPCG(7, 9))
	base := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	for round := range 20000 {
		start := base.Add(time.Duration(rnd.Int64N(int64(400 * 24 * time.Hour)))).Truncate(time.Minute)
		span := time.Duration(float64(2*time.Minute) * math.Pow(1.001, rnd.Float64()*13400)) // 2 min .. ~3 y
		end := start.Add(span)
		ticks := timeTicks(start, end, 10)
		if len(ticks) < 2 || len(ticks) > 11 {
			t.Fatalf("round %d: %v to %v: %d ticks", round, start, end, len(ticks))
		}
		step := ticks[1].At.Sub(ticks[0].At)
		if !slices.Contains(tickSteps, step) || ticks[0].At.Truncate(step) != ticks[0].At {
			t.Fatalf("round %d: step %v from %v: not round", round, step, ticks[0].At)
		}
		var labels []string
		for i, tk := range ticks {
			if tk.At.Before(start) || tk.At.After(end) || (i > 0 && tk.At.Sub(ticks[i-1].At) != step) {
				t.Fatalf("round %d: tick %d at %v, range %v to %v, step %v", round, i, tk.At, start, end, step)
			}
			if i == 0 || tk.At.YearDay() != ticks[i-1].At.YearDay() {
				if !strings.Contains(tk.Text, tk.At.Format("Jan 2")) {
					t.Fatalf("round %d: tick %v labelled %q, without its date", round, tk.At, tk.Text)
				}
			}
			labels = append(labels, tk.Text)
		}
		if len(slices.Compact(slices.Clone(labels))) != len(labels) {
			t.Fatalf("round %d: labels repeat: %q", round, labels)
		}
	}
	if got := timeTicks(base, base, 10); got != nil {
		t.Errorf("an empty range has ticks %v", got)
	}
}

// TestNiceStep: the count axis is divided in round steps, in at most most parts.
func TestNiceStep(t *testing.T) {
	for peak := int64(1); peak < 1e7; peak = peak*3/2 + 1 {
		s := niceStep(peak, 5)
		m := s
		for m%10 == 0 {
			m /= 10
		}
		smaller := s / 2 // the round step below s: 5 below 10, 1 below 2, 2 below 5
		if m == 5 {
			smaller = s * 2 / 5
		}
		if (m != 1 && m != 2 && m != 5) || peak/s >= 5 || (s > 1 && peak/smaller < 5) {
			t.Errorf("niceStep(%d) = %d", peak, s)
		}
	}
}
