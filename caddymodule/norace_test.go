//go:build !race

package caddymodule

// raceEnabled: the tests are built without the race detector, and so are the binaries they
// build.
const raceEnabled = false
