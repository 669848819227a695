//go:build !race

package mimetype

const raceEnabled = false
