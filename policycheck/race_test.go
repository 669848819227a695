//go:build race

package policycheck

const raceEnabled = true
