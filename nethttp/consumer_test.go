package nethttp_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestConsumerDoesNotDownloadCaddy builds a scratch module that imports nethttp, as a Go app
// would, and checks that after `go mod tidy` neither its go.sum nor its build mentions Caddy
// or the Redis client: the Caddy adapter and the fleet's Redis store (redisstore) live in
// modules of their own so that library users never download them.
func TestConsumerDoesNotDownloadCaddy(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the go command")
	}
	goBin, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go command on PATH")
	}
	root, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	files := map[string]string{
		"go.mod": "module example.com/consumer\n\ngo 1.26\n\nrequire github.com/sitepolicy/caddy-robots v0.0.0-00010101000000-000000000000\n\nreplace github.com/sitepolicy/caddy-robots => " + root + "\n",
		// The README's net/http program is the consumer, so the README cannot drift from
		// the API either.
		"main.go": readmeGoProgram(t),
	}
	for name, content := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	run := func(args ...string) string {
		t.Helper()
		cmd := exec.Command(goBin, args...)
		cmd.Dir = dir
		// -mod=mod added to the caller's GOFLAGS, not in their place: ./test.sh's -trimpath
		// lets go vet reuse the packages the tests compiled instead of compiling the module
		// (and, on an empty build cache, the standard library) again.
		cmd.Env = append(os.Environ(), "GOWORK=off", "GOFLAGS="+strings.TrimSpace(os.Getenv("GOFLAGS")+" -mod=mod"))
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("go %s: %v\n%s", strings.Join(args, " "), err, out)
		}
		return string(out)
	}
	run("mod", "tidy")
	sum, err := os.ReadFile(filepath.Join(dir, "go.sum"))
	if err != nil {
		t.Fatal(err)
	}
	for _, bad := range []string{"caddyserver", "redis"} {
		if strings.Contains(string(sum), bad) {
			t.Fatalf("go.sum of a nethttp consumer mentions %s:\n%s", bad, sum)
		}
	}
	deps := run("list", "-deps", ".")
	for _, bad := range []string{"caddyserver", "grobotstxt", "temoto", "redis"} {
		if strings.Contains(deps, bad) {
			t.Errorf("a nethttp consumer builds %s", bad)
		}
	}

	// The program compiles and passes go vet. Vetted in a workspace with this repository's
	// module rather than through the replace: this repository's module is then a main module,
	// as in ./test.sh's go vet, so that under -trimpath its packages have the same paths and
	// are found compiled in the build cache; through the replace their paths would carry the
	// required version, and on an empty build cache they would all be compiled again.
	// (A workspace module needs no requirement: the workspace provides it.)
	gomod := files["go.mod"][:strings.Index(files["go.mod"], "\nrequire ")+1]
	if err := os.WriteFile(filepath.Join(dir, "go.mod"), []byte(gomod), 0o644); err != nil {
		t.Fatal(err)
	}
	rootMod, err := os.ReadFile(filepath.Join(root, "go.mod"))
	if err != nil {
		t.Fatal(err)
	}
	goLine := regexp.MustCompile(`(?m)^go [0-9.]+$`).Find(rootMod) // a workspace's go is at least its modules'
	if err := os.WriteFile(filepath.Join(dir, "go.work"), []byte(string(goLine)+"\n\nuse (\n\t.\n\t"+root+"\n)\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	vet := exec.Command(goBin, "vet", ".")
	vet.Dir = dir
	vet.Env = append(os.Environ(), "GOWORK="+filepath.Join(dir, "go.work"))
	if out, err := vet.CombinedOutput(); err != nil {
		t.Fatalf("go vet: %v\n%s", err, out)
	}
}

// readmeGoProgram returns the README's net/http example program.
func readmeGoProgram(t *testing.T) string {
	t.Helper()
	prog := docBlock(t, filepath.Join("..", "README.md"), "nethttp-program", "go")
	if !strings.HasPrefix(prog, "package main\n") {
		t.Fatalf("the README's Go program is not a main package:\n%s", prog)
	}
	return prog
}
