//go:build race

package robotsgen

const raceEnabled = true
