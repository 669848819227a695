package webbotauth

import (
	"runtime"
	"testing"
)

// TestDirectoryMemory: what entryBytes counts is at least what the cache holds. 300 agents of
// MaxKeys keys under 1 KB URLs: the heap grows by no more than the bytes counted (plus the one
// idle connection of the client); and with a budget of 256 KiB it grows by no more than the
// budget (plus the same), where the count alone let it grow by the whole 300 directories.
func TestDirectoryMemory(t *testing.T) {
	if raceEnabled {
		t.Skip("the race detector changes the heap: ./test.sh runs this test without it")
	}
	const n, slack = 300, 192 << 10
	b := newBigDirServer(t)
	for _, budget := range []int{1 << 40, 256 << 10} {
		var before, after runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&before)
		dir := b.directory(budget)
		floodDirectory(t, b, dir, n, func(int) {})
		dir.client.CloseIdleConnections()
		runtime.GC()
		runtime.ReadMemStats(&after)
		grew := int(after.HeapAlloc) - int(before.HeapAlloc)
		dir.mu.Lock()
		counted := dir.untrustedBytes
		dir.mu.Unlock()
		t.Logf("budget %d: %d directories cached, %d bytes counted, the heap grew %d", budget, dir.untrusted, counted, grew)
		if grew > counted+slack {
			t.Errorf("budget %d: the heap grew %d bytes, %d counted", budget, grew, counted)
		}
		if grew > budget+slack {
			t.Errorf("budget %d: the heap grew %d bytes", budget, grew)
		}
		runtime.KeepAlive(dir)
	}
}
