//go:build race

package x402_test

const raceEnabled = true
