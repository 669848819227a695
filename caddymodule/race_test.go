//go:build race

package caddymodule

// The tests are built with the race detector, so the binaries they build are too (their
// packages then come from the same build cache as the test's, and the binary reports its own
// races).
func init() { raceEnabled = true }
