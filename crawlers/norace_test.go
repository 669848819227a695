//go:build !race

package crawlers_test

// raceEnabled is false without -race; the race detector makes code allocate,
// so allocation tests skip when it is true.
const raceEnabled = false
