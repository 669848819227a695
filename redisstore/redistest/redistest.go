// Package redistest starts a real redis-server on a free loopback port for tests, never a
// mock: Start, then Kill and Restart it (on the same port) to test an outage.
//
// When redis-server is not on PATH, Start skips the test, saying which test did not run and
// why; with the environment variable ROBOTS_REQUIRE_REDIS=1 (CI sets it) it fails it instead.
package redistest

import (
	"bufio"
	"fmt"
	"net"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// RequireEnv is the environment variable that makes a missing redis-server a failure.
const RequireEnv = "ROBOTS_REQUIRE_REDIS"

// Server is a redis-server process on 127.0.0.1, without persistence.
type Server struct {
	// Addr is its address, "127.0.0.1:port"; it stays the same across Restart.
	Addr string

	t    testing.TB
	path string
	port int
	mu   sync.Mutex
	cmd  *exec.Cmd
}

// Start starts a redis-server on a free port and stops it when the test ends. Without
// redis-server on PATH it skips t (fails it with ROBOTS_REQUIRE_REDIS=1).
func Start(t testing.TB) *Server {
	t.Helper()
	path, err := exec.LookPath("redis-server")
	if err != nil {
		msg := fmt.Sprintf("%s needs redis-server on PATH (install Redis or Valkey's redis-server; %s=1 makes this a failure): %v", t.Name(), RequireEnv, err)
		if os.Getenv(RequireEnv) == "1" {
			t.Fatal(msg)
		}
		t.Skip(msg)
	}
	s := &Server{t: t, path: path}
	for attempt := 0; ; attempt++ {
		s.port = freePort(t)
		s.Addr = net.JoinHostPort("127.0.0.1", strconv.Itoa(s.port))
		err := s.start()
		if err == nil {
			break
		}
		if attempt == 4 { // another process took the port each time
			t.Fatalf("redis-server: %v", err)
		}
	}
	t.Cleanup(s.Kill)
	return s
}

func freePort(t testing.TB) int {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}

// start runs the server and waits until it accepts connections (it says "Ready to accept").
func (s *Server) start() error {
	cmd := exec.Command(s.path, "--port", strconv.Itoa(s.port), "--bind", "127.0.0.1",
		"--save", "", "--appendonly", "no", "--loglevel", "notice")
	out, err := cmd.StdoutPipe()
	if err != nil {
		return err
	}
	cmd.Stderr = cmd.Stdout
	if err := cmd.Start(); err != nil {
		return err
	}
	ready := make(chan error, 1)
	go func() {
		sc := bufio.NewScanner(out)
		var lines []string
		for sc.Scan() {
			if strings.Contains(sc.Text(), "Ready to accept connections") {
				ready <- nil
				for sc.Scan() { // drain, so that the server never blocks writing its log
				}
				return
			}
			lines = append(lines, sc.Text())
		}
		ready <- fmt.Errorf("exited before accepting connections:\n%s", strings.Join(lines, "\n"))
	}()
	select {
	case err := <-ready:
		if err != nil {
			cmd.Wait()
			return err
		}
	case <-time.After(30 * time.Second):
		cmd.Process.Kill()
		cmd.Wait()
		return fmt.Errorf("not ready after 30s")
	}
	s.mu.Lock()
	s.cmd = cmd
	s.mu.Unlock()
	return nil
}

// Kill stops the server at once (SIGKILL), as a crash would. It does nothing if it is not
// running.
func (s *Server) Kill() {
	s.mu.Lock()
	cmd := s.cmd
	s.cmd = nil
	s.mu.Unlock()
	if cmd != nil {
		cmd.Process.Kill()
		cmd.Wait()
	}
}

// Restart starts the server again on the same port, empty (it keeps nothing on disk), after
// Kill.
func (s *Server) Restart() {
	s.t.Helper()
	s.Kill()
	var err error
	for deadline := time.Now().Add(10 * time.Second); ; {
		if err = s.start(); err == nil {
			return
		}
		if time.Now().After(deadline) { // the old socket's port was not free yet
			s.t.Fatalf("redis-server restart on %s: %v", s.Addr, err)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// Pause stops the server without closing its connections (SIGSTOP): a server that hangs,
// whose clients wait for answers that do not come, until Resume.
func (s *Server) Pause() { s.signal(syscall.SIGSTOP) }

// Resume continues a paused server (SIGCONT).
func (s *Server) Resume() { s.signal(syscall.SIGCONT) }

func (s *Server) signal(sig syscall.Signal) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.cmd != nil {
		s.cmd.Process.Signal(sig)
	}
}
