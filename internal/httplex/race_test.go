//go:build race

package httplex

func init() { raceEnabled = true }
