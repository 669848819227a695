package redistest

import (
	"fmt"
	"runtime"
	"strings"
	"testing"
)

// recorder is a testing.TB whose Skip and Fatal record their message and end the goroutine,
// as the real ones end the test.
type recorder struct {
	testing.TB
	skipped, failed string
}

func (r *recorder) Skip(args ...any)  { r.skipped = fmt.Sprint(args...); runtime.Goexit() }
func (r *recorder) Fatal(args ...any) { r.failed = fmt.Sprint(args...); runtime.Goexit() }

func (r *recorder) start() {
	done := make(chan struct{})
	go func() {
		defer close(done)
		Start(r)
	}()
	<-done
}

// TestStartWithoutRedis: without redis-server on PATH, Start skips the test, naming it and
// the way to make it a failure; with ROBOTS_REQUIRE_REDIS=1 it fails it.
func TestStartWithoutRedis(t *testing.T) {
	t.Setenv("PATH", t.TempDir())
	t.Setenv(RequireEnv, "")
	r := &recorder{TB: t}
	r.start()
	if r.failed != "" || !strings.Contains(r.skipped, t.Name()) || !strings.Contains(r.skipped, "redis-server") || !strings.Contains(r.skipped, RequireEnv+"=1") {
		t.Fatalf("without redis-server: skipped %q, failed %q", r.skipped, r.failed)
	}
	t.Setenv(RequireEnv, "1")
	r = &recorder{TB: t}
	r.start()
	if r.skipped != "" || !strings.Contains(r.failed, t.Name()) {
		t.Fatalf("without redis-server, %s=1: skipped %q, failed %q", RequireEnv, r.skipped, r.failed)
	}
}
