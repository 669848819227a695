//go:build !race

package usage

// raceEnabled is false without -race. The race detector slows the property tests several
// times, so under it they look only for races, over a fraction of their cases; ./test.sh
// runs them at full size without it too.
const raceEnabled = false
