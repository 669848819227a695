//go:build race

package logreport_test

const raceEnabled = true
