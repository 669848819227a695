//go:build race

package mimetype

// raceEnabled: the tests are built with the race detector, which changes allocation counts.
const raceEnabled = true
