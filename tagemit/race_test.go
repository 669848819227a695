//go:build race

package tagemit

const raceEnabled = true
