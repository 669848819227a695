//go:build race

package crawlers_test

const raceEnabled = true
