//go:build race

package prom_test

const raceEnabled = true
