//go:build race

package identity_test

func init() { raceEnabled = true }
