//go:build race

package nethttp_test

// raceEnabled: the tests are built with the race detector, which makes floods slower.
const raceEnabled = true
