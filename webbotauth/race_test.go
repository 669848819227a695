//go:build race

package webbotauth

func init() { raceEnabled = true }
