//go:build !race

package serve

// raceEnabled: the race detector makes code allocate, so allocation tests skip under it.
const raceEnabled = false
