//go:build race

package serve

// raceEnabled shrinks the property tests under the race detector.
const raceEnabled = true
