//go:build !race

package tagemit

// raceEnabled is false without -race. The race detector slows the property tests about
// tenfold, so under it the longest of them run a tenth of their cases; ./test.sh runs them
// at full size without it too.
const raceEnabled = false
