package main

import (
	"bytes"
	"context"
	"crypto/ed25519"
	"crypto/x509"
	"encoding/base64"
	"encoding/json"
	"encoding/pem"
	"fmt"
	"net"
	"net/http"
	"net/netip"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/sitepolicy/caddy-robots/crawlers"
	"github.com/sitepolicy/caddy-robots/docs"
	"github.com/sitepolicy/caddy-robots/policycheck"
	"github.com/sitepolicy/caddy-robots/policycheck/cli"
	"github.com/sitepolicy/caddy-robots/webbotauth"
)

// binary builds the command once into a temporary directory.
func binary(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	bin := filepath.Join(dir, "robots")
	out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput()
	if err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	return bin
}

func write(t *testing.T, dir, name, content string) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// TestCommand runs the built command as a user does and checks output and exit status.
func TestCommand(t *testing.T) {
	bin := binary(t)
	dir := t.TempDir()
	example, err := filepath.Abs("../../policycheck/testdata/example.json")
	if err != nil {
		t.Fatal(err)
	}
	clean := write(t, dir, "clean.json", `{"robots_txt": {"groups": [{"user_agents": ["*"], "rules": [{"type": "disallow", "path": "/admin/"}]}]},
	  "robots_tag": [{"paths": ["/drafts/*"], "rules": {"*": ["noindex"]}}, {"content_usage": {"train-ai": "n"}}]}`)
	invalid := write(t, dir, "invalid.json", `{"robots_tag": [{"rules": {"*": ["noindx"]}}]}`)
	unknownField := write(t, dir, "unknown.json", `{"robots_txt": {"group": []}}`)
	theirs := write(t, dir, "theirs.txt", "User-agent: *\nDisallow: /private\n")
	for _, tc := range []struct {
		name   string
		args   []string
		status int
		out    []string // substrings of stdout
		errOut string   // substring of stderr
	}{
		{"allowed", []string{"check", "--config", example, "--url", "https://example.com/articles/a", "--agent", "Googlebot"}, 0,
			[]string{"robots.txt: ALLOWED for /articles/a", "Robots-Tag:     *;max-image-preview=large;unavailable_after=", "rules for Googlebot: max-image-preview=large, max-snippet=50, unavailable_after=2027-01-01T00:00:00Z"}, ""},
		{"disallowed", []string{"check", "--config", example, "--url", "https://example.com/drafts/x", "--agent", "Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)"}, 1,
			[]string{"DISALLOWED for /drafts/x", "rule:   line 13: Disallow: /drafts/", `found the crawler name "Googlebot"`, `HTML <head>:    <meta name="robots" content="noindex, nosnippet, max-image-preview:large">`, "Note: robots.txt keeps Googlebot from fetching"}, ""},
		{"backend header", []string{"check", "--config", clean, "--url", "https://example.com/drafts/a", "--backend-header", "Robots-Tag: nofollow", "--backend-header", "X-Other: 1"}, 0,
			[]string{"backend sends   Robots-Tag: nofollow", "Robots-Tag:     *;noindex;nofollow"}, ""},
		{"robots file", []string{"check", "--robots-file", theirs, "--url", "https://other.example/private/x"}, 1,
			[]string{"DISALLOWED for /private/x (file " + theirs + ")", "rule:   line 2: Disallow: /private"}, ""},
		{"json", []string{"check", "--config", example, "--url", "https://example.com/x.pdf", "--format", "json"}, 0, []string{`"product_token": "*"`}, ""},
		{"bad url", []string{"check", "--config", example, "--url", "/drafts/x"}, 2, nil, "must be an absolute http(s) URL"},
		{"no url", []string{"check", "--config", example}, 2, nil, "--url is required"},
		{"no config", []string{"lint"}, 2, nil, "--config is required"},
		{"bad format", []string{"lint", "--config", clean, "--format", "yaml"}, 2, nil, `--format "yaml"`},
		{"unknown flag", []string{"lint", "--config", clean, "--url", "x"}, 2, nil, "flag provided but not defined"},
		{"no command", []string{"verify"}, 2, nil, "usage:"},
		{"invalid config", []string{"check", "--config", invalid, "--url", "https://example.com/"}, 2, nil, `robots_tag[0].rules["*"]`},
		{"unknown field", []string{"lint", "--config", unknownField}, 2, nil, `unknown field "group"`},
		{"missing file", []string{"lint", "--config", filepath.Join(dir, "nope.json")}, 2, nil, "no such file"},
		{"lint findings", []string{"lint", "--config", example, "--host", "example.com"}, 1,
			[]string{`robots_tag[1].rules["*"]: warning: robots_tag gives every crawler (*) noindex on /drafts/*`, "[unseen-tags]", "\tfix: ", "[training-unstated]", "0 errors, 2 warnings, 2 infos"}, ""},
		{"lint clean", []string{"lint", "--config", clean}, 0, []string{"no findings"}, ""},
		{"lint invalid", []string{"lint", "--config", invalid}, 2, nil, `robots_tag[0].rules["*"]`},
		// With --format json an error is JSON on stdout too (found by review).
		{"invalid config, json", []string{"check", "--config", invalid, "--url", "https://example.com/", "--format", "json"}, 2,
			[]string{`"error": `, `"path": "robots_tag[0].rules[\"*\"][0]"`, `"value": "noindx"`, `"suggestion": "noindex"`}, `robots_tag[0].rules["*"]`},
		{"missing file, json", []string{"lint", "--config", filepath.Join(dir, "nope.json"), "--format", "json"}, 2,
			[]string{`"error": `, `"path": ""`}, "no such file"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cmd := exec.Command(bin, tc.args...)
			var stdout, stderr bytes.Buffer
			cmd.Stdout, cmd.Stderr = &stdout, &stderr
			err := cmd.Run()
			status := 0
			if ee, ok := err.(*exec.ExitError); ok {
				status = ee.ExitCode()
			} else if err != nil {
				t.Fatal(err)
			}
			if status != tc.status {
				t.Fatalf("exit %d, want %d\nstdout:\n%s\nstderr:\n%s", status, tc.status, stdout.String(), stderr.String())
			}
			for _, s := range tc.out {
				if !strings.Contains(stdout.String(), s) {
					t.Errorf("stdout lacks %q:\n%s", s, stdout.String())
				}
			}
			if tc.errOut != "" && !strings.Contains(stderr.String(), tc.errOut) {
				t.Errorf("stderr lacks %q:\n%s", tc.errOut, stderr.String())
			}
			if tc.status == 2 && !slices.Contains(tc.args, "json") && stdout.Len() > 0 {
				t.Errorf("an error with output on stdout:\n%s", stdout.String())
			}
			if tc.status == 2 && slices.Contains(tc.args, "json") {
				var r cli.ErrorReport
				dec := json.NewDecoder(&stdout)
				dec.DisallowUnknownFields()
				if err := dec.Decode(&r); err != nil || r.Error == "" {
					t.Errorf("stdout is not an error report: %v %+v", err, r)
				}
			}
		})
	}
}

// TestCommandJSON checks the JSON outputs against the Go API's types, unknown members refused.
func TestCommandJSON(t *testing.T) {
	example := "../../policycheck/testdata/example.json"
	var out, errOut bytes.Buffer
	if st := run([]string{"check", "--config", example, "--url", "https://example.com/drafts/x", "--agent", "GPTBot", "--format", "json"}, &out, &errOut); st != 1 {
		t.Fatalf("status %d: %s", st, errOut.String())
	}
	var rep policycheck.Report
	dec := json.NewDecoder(&out)
	dec.DisallowUnknownFields()
	if err := dec.Decode(&rep); err != nil || rep.Allowed || rep.RobotsTxt.Rule == nil || rep.RobotsTxt.Rule.Path != "/" || rep.ProductToken != "GPTBot" {
		t.Fatalf("%v %+v", err, rep)
	}
	out.Reset()
	if st := run([]string{"lint", "--config", example, "--format", "json"}, &out, &errOut); st != 1 {
		t.Fatalf("status %d: %s", st, errOut.String())
	}
	var res cli.LintResult
	dec = json.NewDecoder(&out)
	dec.DisallowUnknownFields()
	if err := dec.Decode(&res); err != nil || !res.Failed || len(res.Findings) == 0 {
		t.Fatalf("%v %+v", err, res)
	}
	for _, f := range res.Findings {
		if f.Location.JSONPath == "" || f.Fix == "" {
			t.Errorf("finding %+v", f)
		}
	}
}

// TestREADMEOutput runs the cmd/robots commands of the documentation (the console blocks
// after the markers cmd-robots-check in docs/check.md and cmd-robots-report in README.md)
// from the repository root and compares their output and exit status with the pages. A
// console block of the documentation that runs cmd/robots without one of those markers fails
// the test: none goes unchecked.
func TestREADMEOutput(t *testing.T) {
	checked := map[[2]string]bool{{"../../docs/check.md", "cmd-robots-check"}: true, {"../../README.md", "cmd-robots-report"}: true}
	const prefix = "$ go run github.com/sitepolicy/caddy-robots/cmd/robots@latest "
	pages, err := filepath.Glob("../../docs/*.md")
	if err != nil || len(pages) == 0 {
		t.Fatalf("no pages in docs/: %v", err)
	}
	for _, p := range append(pages, "../../README.md") {
		src, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		blocks, err := docs.Blocks(src)
		if err != nil {
			t.Fatalf("%s: %v", p, err)
		}
		for _, b := range blocks {
			if b.Info == "console" && strings.HasPrefix(b.Text, prefix) && !checked[[2]string{p, b.Marker}] {
				t.Errorf("%s:%d: a console block runs cmd/robots without a marker this test checks", p, b.Line)
			}
		}
	}
	for pm := range checked {
		page, marker := pm[0], pm[1]
		src, err := os.ReadFile(page)
		if err != nil {
			t.Fatal(err)
		}
		block, err := docs.Marked(src, marker, "console")
		if err != nil {
			t.Fatalf("%s: %v", page, err)
		}
		line, want, _ := strings.Cut(block, "\n")
		args, ok := strings.CutPrefix(line, prefix)
		if !ok {
			t.Fatalf("%s, block %s: %q does not run cmd/robots", page, marker, line)
		}
		i := strings.LastIndex(want, "[exit status ")
		var status int
		if _, err := fmt.Sscanf(want[max(i, 0):], "[exit status %d]", &status); i < 0 || err != nil {
			t.Fatalf("%s, block %s: %q has no exit status", page, marker, line)
		}
		// The page's paths are from the repository root.
		fields := strings.Fields(args)
		for k, f := range fields {
			if strings.HasPrefix(f, "policycheck/") || strings.HasPrefix(f, "logreport/") {
				fields[k] = filepath.Join("..", "..", f)
			}
		}
		var out, errOut bytes.Buffer
		st := run(fields, &out, &errOut)
		got := strings.ReplaceAll(out.String(), filepath.Join("..", "..")+"/", "")
		if got != want[:i] || st != status {
			t.Errorf("%s: status %d (%s %d)\n%s\n%s:\n%s\n%s", line, st, page, status, got, page, want[:i], errOut.String())
		}
	}
}

// fakeResolver answers reverse DNS for the tests (testResolver): never the network.
type fakeResolver map[string]string // address -> host name that resolves back to it

func (f fakeResolver) LookupAddr(_ context.Context, addr string) ([]string, error) {
	if n, ok := f[addr]; ok {
		return []string{n + "."}, nil
	}
	return nil, &net.DNSError{Err: "no such host", Name: addr, IsNotFound: true}
}

func (f fakeResolver) LookupNetIP(_ context.Context, _, host string) ([]netip.Addr, error) {
	for a, n := range f {
		if n+"." == host { // asked rooted
			return []netip.Addr{netip.MustParseAddr(a)}, nil
		}
	}
	return nil, &net.DNSError{Err: "no such host", Name: host, IsNotFound: true}
}

// TestCommandIdentity: with a lists directory or list files, check verifies the crawler from
// --client-ip and says its identity, enforce's answer to an impostor and the state of the
// lists; it reads the lists and fetches none.
func TestCommandIdentity(t *testing.T) {
	testResolver = fakeResolver{"66.249.90.1": "crawl-66-249-90-1.googlebot.com"}
	t.Cleanup(func() { testResolver = nil })
	dir := t.TempDir()
	config := write(t, dir, "site.json", `{"robots_txt": {"groups": [{"user_agents": ["GPTBot"], "rules": [{"type": "disallow", "path": "/"}]}],
	  "enforce": {"impostors": {"status": 410}}}}`)
	const googlebotUA = "Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)"
	g, _ := crawlers.BotByID("google-crawler")
	googleFile := g.Verification.IPRanges[0].URL + "=../../identity/testdata/googlebot.json"
	emptyDir := t.TempDir()
	check := []string{"check", "--config", config, "--url", "https://example.com/page"}
	for _, tc := range []struct {
		name   string
		args   []string
		status int
		out    []string // substrings of stdout
		errOut string   // substring of stderr
	}{
		{"impostor", []string{"--agent", googlebotUA, "--client-ip", "203.0.113.9", "--crawler-list-file", googleFile}, 0, []string{
			"Identity: claims Googlebot (google-crawler, Google; search-engine) from 203.0.113.9: impostor (its User-Agent names Googlebot, but its address is not in Google's published address lists, and its reverse DNS gives no host name of Google's that resolves back to it; enforce answers 410)\n",
			"Enforcement: BLOCKED with 410 (refused as an impostor: its User-Agent names Googlebot, but its address is not in Google's published address lists, and its reverse DNS",
			"Crawler verification: reverse DNS on",
			"  trusted  " + g.Verification.IPRanges[0].URL + " (local file ../../identity/testdata/googlebot.json): 5 prefixes, 340 bytes, less than a minute old\n",
		}, ""},
		{"verified by the list", []string{"--agent", googlebotUA, "--client-ip", "66.249.64.5", "--crawler-list-file", googleFile, "--no-reverse-dns"}, 0, []string{
			"from 66.249.64.5: verified by ip-list (66.249.64.5 is in Google's published list)\n", "Enforcement: passes", "Crawler verification: reverse DNS off\n",
		}, ""},
		{"verified by reverse DNS", []string{"--agent", "Googlebot", "--client-ip", "66.249.90.1", "--crawler-list-file", googleFile}, 0, []string{
			"from 66.249.90.1: verified by reverse-dns (66.249.90.1's host name is Google's and resolves back to it)\n",
		}, ""},
		{"lists directory", []string{"--agent", "GPTBot/1.2", "--client-ip", "203.0.113.9", "--crawler-lists", emptyDir, "--no-reverse-dns"}, 1, []string{
			"Identity: claims GPTBot (openai-crawler, OpenAI; ai, ",
			"pending (OpenAI's published list is missing)\n",
			"Crawler verification: reverse DNS off; copies of the lists kept in " + emptyDir + "\n",
			"  missing  https://openai.com/gptbot.json: no copy kept\n",
		}, ""},
		{"no address", []string{"--agent", "Googlebot", "--crawler-list-file", googleFile}, 0, []string{
			"pending (no client address: the claim cannot be verified without one)", "Note: give the client's address with --client-ip",
		}, ""},
		{"no verification", []string{"--agent", "Googlebot", "--client-ip", "203.0.113.9"}, 0, []string{
			"Note: the site verifies no crawlers, so the client address is not used\n", "Note: to verify crawlers as the middleware's Verifier does, give --crawler-lists DIR or --crawler-list-file URL=FILE\n",
		}, ""},
		{"bad address", []string{"--client-ip", "66.249.64", "--crawler-list-file", googleFile}, 2, nil, `--client-ip "66.249.64": give the client's IP address`},
		{"bad list file", []string{"--crawler-list-file", "https://example.com/list.json=list.json"}, 2, nil, `--crawler-list-file "https://example.com/list.json=list.json": give URL=FILE`},
		{"bad lists directory", []string{"--crawler-lists", filepath.Join(dir, "nope")}, 2, nil, "not a directory"},
		// A list file is input: a bad one is refused, naming the entry, as the Caddy module's
		// list_file is.
		{"list file with a bad entry", []string{"--client-ip", "66.249.64.5", "--crawler-list-file", g.Verification.IPRanges[0].URL + "=" + write(t, dir, "bad.json", `{"prefixes":[{"ipv4Prefix":"66.249.64.0/27"},{"ipv4Prefix":"66.249.64.300/27"}]}`)},
			2, nil, `list refused: entry $.prefixes[1].ipv4Prefix: "66.249.64.300/27" is neither an IP prefix nor an address`},
		{"list file not JSON", []string{"--client-ip", "66.249.64.5", "--crawler-list-file", g.Verification.IPRanges[0].URL + "=" + write(t, dir, "page.json", "<html>")},
			2, nil, `page.json": list refused: not a JSON document`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			status := run(append(slices.Clip(check), tc.args...), &stdout, &stderr)
			if status != tc.status {
				t.Fatalf("exit %d, want %d\nstdout:\n%s\nstderr:\n%s", status, tc.status, stdout.String(), stderr.String())
			}
			for _, s := range tc.out {
				if !strings.Contains(stdout.String(), s) {
					t.Errorf("stdout lacks %q:\n%s", s, stdout.String())
				}
			}
			if tc.errOut != "" && !strings.Contains(stderr.String(), tc.errOut) {
				t.Errorf("stderr lacks %q:\n%s", tc.errOut, stderr.String())
			}
		})
	}
	// The JSON carries the identity and the lists, as the Go API's types say.
	var out, errOut bytes.Buffer
	if st := run(append(slices.Clip(check), "--agent", googlebotUA, "--client-ip", "203.0.113.9", "--crawler-list-file", googleFile, "--format", "json"), &out, &errOut); st != 0 {
		t.Fatalf("status %d: %s", st, errOut.String())
	}
	var rep policycheck.Report
	dec := json.NewDecoder(&out)
	dec.DisallowUnknownFields()
	if err := dec.Decode(&rep); err != nil || rep.Verification == nil || rep.Verification.Identity.Status != "impostor" || !rep.Enforcement.Impostor || rep.Enforcement.Status != 410 ||
		len(rep.Verification.Lists) != 1 || !rep.Verification.Lists[0].Local || !rep.Verification.Lists[0].Trusted {
		t.Fatalf("%v %+v", err, rep.Verification)
	}
}

// TestCommandSignature: with --signature-agent, check judges the signature of the --header
// lines as nethttp.Options.Signatures does: verified by a trusted agent's key, a forged one an
// impostor that enforce refuses, explained; flags that are not URL=BOT=FILE are usage errors.
func TestCommandSignature(t *testing.T) {
	dir := t.TempDir()
	config := write(t, dir, "site.json", `{"robots_txt": {"groups": [{"user_agents": ["GPTBot"], "rules": [{"type": "disallow", "path": "/"}]}],
	  "enforce": {"impostors": {"status": 410}}}}`)
	priv := ed25519.NewKeyFromSeed([]byte("cmd/robots check signature test!"))
	jwk := fmt.Sprintf(`{"kty":"OKP","crv":"Ed25519","x":%q}`, base64.RawURLEncoding.EncodeToString(priv.Public().(ed25519.PublicKey)))
	key, _ := webbotauth.ParseJWK([]byte(jwk))
	keyFile := write(t, dir, "agent.jwk", jwk)
	sign := func(path string) []string {
		r, _ := http.NewRequest("GET", "https://example.com"+path, nil)
		r.Header.Set("Signature-Agent", `sig1="https://agent.example"`)
		now := time.Now().Unix()
		r.Header.Set("Signature-Input", fmt.Sprintf(`sig1=("@authority" "@path" "signature-agent";key="sig1");created=%d;expires=%d;keyid=%q;tag="web-bot-auth"`, now-1, now+300, key.ID))
		r.Header.Set("Signature", "sig1=:AA==:")
		sigs, _ := webbotauth.ParseSignatures(r.Header)
		base, _ := sigs[0].Base(r, webbotauth.Target{})
		var args []string
		for _, k := range []string{"Signature-Agent", "Signature-Input"} {
			args = append(args, "--header", k+": "+r.Header.Get(k))
		}
		return append(args, "--header", "Signature: sig1=:"+base64.StdEncoding.EncodeToString(ed25519.Sign(priv, base))+":")
	}
	agentFlag := []string{"--signature-agent", "https://agent.example=openai-crawler=" + keyFile}
	check := []string{"check", "--config", config, "--url", "https://example.com/page", "--agent", "Mozilla/5.0 (X11; Linux x86_64; rv:133.0) Gecko/20100101 Firefox/133.0"}
	for _, tc := range []struct {
		name   string
		args   []string
		status int
		out    []string
		errOut string
	}{
		{"verified", append(slices.Clip(agentFlag), sign("/page")...), 0, []string{
			"Identity: GPTBot (openai-crawler, OpenAI; ai", ": verified by signature (a valid Web Bot Auth signature of https://agent.example/",
			"keyid " + key.ID + ": verified\n", "  identity: now verified by signature (without it: none)\n", "    \"@path\": /page\n",
		}, ""},
		{"forged", append(slices.Clip(agentFlag), sign("/other")...), 0, []string{
			": impostor (the signature does not verify against the agent's key " + key.ID + ")\n",
			"Enforcement: BLOCKED with 410", "enforce's impostors refuse it with 410",
		}, ""},
		{"no verifier", sign("/page"), 0, []string{"Note: the site verifies no Web Bot Auth signatures, so the request's signature is not looked at\n"}, ""},
		{"bad flag", []string{"--signature-agent", "https://agent.example=" + keyFile}, 2, nil, "give URL=BOT=FILE"},
		{"bad bot", []string{"--signature-agent", "https://agent.example=GPTBot=" + keyFile}, 2, nil, `"GPTBot" is not the ID of a bot of the catalogue`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			status := run(append(slices.Clip(check), tc.args...), &stdout, &stderr)
			if status != tc.status {
				t.Fatalf("exit %d, want %d\nstdout:\n%s\nstderr:\n%s", status, tc.status, stdout.String(), stderr.String())
			}
			for _, s := range tc.out {
				if !strings.Contains(stdout.String(), s) {
					t.Errorf("stdout lacks %q:\n%s", s, stdout.String())
				}
			}
			if tc.errOut != "" && !strings.Contains(stderr.String(), tc.errOut) {
				t.Errorf("stderr lacks %q:\n%s", tc.errOut, stderr.String())
			}
		})
	}
}

// TestCommandSignKey: check --sign-key signs its request as the agent of --sign-agent, so a
// signature_agent setup can be tried without a signer. With generated key pairs (PEM and JWK
// private keys), the public key in the file --signature-agent trusts: the right key is
// verified by signature, another key proves nothing (unknown-key, its keyid is not the
// agent's), signing as another agent is only signed; misuse is a usage error naming the flag.
func TestCommandSignKey(t *testing.T) {
	dir := t.TempDir()
	config := write(t, dir, "site.json", `{"robots_txt": {"groups": [{"user_agents": ["GPTBot"], "rules": [{"type": "disallow", "path": "/private/"}]}]}}`)
	pub, priv, _ := ed25519.GenerateKey(nil)
	_, other, _ := ed25519.GenerateKey(nil)
	pemOf := func(k ed25519.PrivateKey) string {
		der, err := x509.MarshalPKCS8PrivateKey(k)
		if err != nil {
			t.Fatal(err)
		}
		return string(pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: der}))
	}
	jwk := webbotauth.JWKOf(pub)
	id, _ := jwk.Thumbprint()
	pubJSON, _ := json.Marshal(jwk)
	keyFile := write(t, dir, "agent.jwk", string(pubJSON))
	privJWK := fmt.Sprintf(`{"kty":"OKP","crv":"Ed25519","x":%q,"d":%q}`, jwk.X, base64.RawURLEncoding.EncodeToString(priv.Seed()))
	pemFile := write(t, dir, "agent.pem", pemOf(priv))
	jwkFile := write(t, dir, "agent-private.jwk", privJWK)
	otherFile := write(t, dir, "other.pem", pemOf(other))
	trust := []string{"--signature-agent", "https://agent.example=openai-crawler=" + keyFile}
	check := []string{"check", "--config", config, "--url", "https://example.com/page", "--agent", "Mozilla/5.0 (X11; Linux x86_64; rv:133.0) Gecko/20100101 Firefox/133.0"}
	for _, tc := range []struct {
		name   string
		args   []string
		status int
		out    []string
		not    string
		errOut string
	}{
		{"pem", append(slices.Clip(trust), "--sign-key", pemFile, "--sign-agent", "https://agent.example"), 0, []string{
			": verified by signature (a valid Web Bot Auth signature of https://agent.example/", "keyid " + id + ": verified\n",
			"covers:   \"@authority\" \"signature-agent\";key=\"sig1\"\n", "\"@authority\": example.com\n",
		}, "", ""},
		{"jwk", append(slices.Clip(trust), "--sign-key", jwkFile, "--sign-agent", "https://agent.example/"), 0, []string{": verified by signature", "keyid " + id + ": verified\n"}, "", ""},
		{"another key", append(slices.Clip(trust), "--sign-key", otherFile, "--sign-agent", "https://agent.example"), 0, []string{": unknown-key"}, "verified by signature", ""},
		{"another agent", append(slices.Clip(trust), "--sign-key", pemFile, "--sign-agent", "https://elsewhere.example"), 0, nil, "verified by signature", ""},
		{"no agent", append(slices.Clip(trust), "--sign-key", pemFile), 2, nil, "", "--sign-key needs --sign-agent"},
		{"no key", append(slices.Clip(trust), "--sign-agent", "https://agent.example"), 2, nil, "", "--sign-agent needs --sign-key"},
		{"public key", append(slices.Clip(trust), "--sign-key", keyFile, "--sign-agent", "https://agent.example"), 2, nil, "", "no private member d"},
		{"missing key", append(slices.Clip(trust), "--sign-key", filepath.Join(dir, "none.pem"), "--sign-agent", "https://agent.example"), 2, nil, "", "--sign-key: open"},
		{"http agent", append(slices.Clip(trust), "--sign-key", pemFile, "--sign-agent", "http://agent.example"), 2, nil, "", "--sign-agent \"http://agent.example\""},
		{"with a signature", append(slices.Clip(trust), "--sign-key", pemFile, "--sign-agent", "https://agent.example", "--header", "Signature: sig1=:AA==:"), 2, nil, "", "give no signature header lines"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			status := run(append(slices.Clip(check), tc.args...), &stdout, &stderr)
			if status != tc.status {
				t.Fatalf("exit %d, want %d\nstdout:\n%s\nstderr:\n%s", status, tc.status, stdout.String(), stderr.String())
			}
			for _, s := range tc.out {
				if !strings.Contains(stdout.String(), s) {
					t.Errorf("stdout lacks %q:\n%s", s, stdout.String())
				}
			}
			if tc.not != "" && strings.Contains(stdout.String(), tc.not) {
				t.Errorf("stdout has %q:\n%s", tc.not, stdout.String())
			}
			if tc.status == 0 && !strings.Contains(stdout.String(), "Signature: sig1 by https://") {
				t.Errorf("no signature judged:\n%s", stdout.String())
			}
			if tc.errOut != "" && !strings.Contains(stderr.String(), tc.errOut) {
				t.Errorf("stderr lacks %q:\n%s", tc.errOut, stderr.String())
			}
		})
	}
}
