//go:build !race

// Marks the package for ./test.sh's run without the race detector, in which the tests that
// skip under it (allocation counts, memory bounds) run.

package identity_test
