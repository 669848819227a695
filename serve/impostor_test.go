package serve_test

import (
	"errors"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/sitepolicy/caddy-robots/configerr"
	"github.com/sitepolicy/caddy-robots/identity"
	"github.com/sitepolicy/caddy-robots/policy"
	"github.com/sitepolicy/caddy-robots/robotsgen"
	"github.com/sitepolicy/caddy-robots/serve"
	"github.com/sitepolicy/caddy-robots/webbotauth"
)

// impostorConfig keeps GPTBot out of /private/ and enforces it, answering impostors with
// status (0: the default).
func impostorConfig(status int, impostors bool) policy.Config {
	rt := &policy.RobotsTxt{
		Groups: []robotsgen.Group{
			{UserAgents: []string{"GPTBot"}, Rules: []robotsgen.Rule{{Type: robotsgen.Disallow, Path: "/private/"}}},
			{UserAgents: []string{"*"}, Rules: []robotsgen.Rule{{Type: robotsgen.Allow, Path: "/"}}},
		},
		Enforce: &policy.Enforce{},
	}
	if impostors {
		rt.Enforce.Impostors = &policy.Impostors{Status: status}
	}
	return policy.Config{RobotsTxt: rt}
}

// identifyByHeader is a stand-in for the front end's verification: the test says, per
// request, what the verification found.
func identifyByHeader(r *http.Request) identity.Identity {
	switch r.Header.Get("X-Test-Identity") {
	case "impostor":
		return identity.Identity{Bot: "google-crawler", Status: identity.Impostor, Failed: identity.CheckIPList}
	case "verified":
		return identity.Identity{Bot: "google-crawler", Status: identity.Verified, By: "ip-list"}
	case "pending":
		return identity.Identity{Bot: "google-crawler", Status: identity.Pending}
	}
	return identity.Identity{}
}

func TestEnforceImpostors(t *testing.T) {
	const googlebot = "Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)"
	for _, c := range []struct {
		name      string
		cfg       policy.Config
		identify  func(*http.Request) identity.Identity
		ua, path  string
		claim     string
		wantBlock bool
		status    int
	}{
		{"impostor anywhere", impostorConfig(0, true), identifyByHeader, googlebot, "/", "impostor", true, 403},
		{"impostor, its own status", impostorConfig(451, true), identifyByHeader, googlebot, "/open/page", "impostor", true, 451},
		{"verified crawler served", impostorConfig(0, true), identifyByHeader, googlebot, "/", "verified", false, 0},
		{"pending is no proof", impostorConfig(0, true), identifyByHeader, googlebot, "/", "pending", false, 0},
		{"impostors not asked for", impostorConfig(0, false), identifyByHeader, googlebot, "/", "impostor", false, 0},
		{"no verification in this front end", impostorConfig(0, true), nil, googlebot, "/", "impostor", false, 0},
		// The file's enforcement is unchanged beside it.
		{"file enforcement kept", impostorConfig(0, true), identifyByHeader, "GPTBot/1.2", "/private/x", "", true, 403},
	} {
		t.Run(c.name, func(t *testing.T) {
			core, err := serve.New(c.cfg, serve.Options{Identify: c.identify})
			if err != nil {
				t.Fatal(err)
			}
			r := httptest.NewRequest("GET", c.path, nil)
			r.Header.Set("User-Agent", c.ua)
			r.Header.Set("X-Test-Identity", c.claim)
			b, blocked := core.Enforce(r)
			if blocked != c.wantBlock {
				t.Fatalf("blocked = %v, want %v (%+v)", blocked, c.wantBlock, b)
			}
			if !blocked {
				return
			}
			if b.Status != c.status {
				t.Errorf("status %d, want %d", b.Status, c.status)
			}
			if c.claim == "impostor" {
				if b.Impostor == nil || b.Impostor.Bot != "google-crawler" || b.Token != "Googlebot" {
					t.Errorf("block %+v does not name the impostor's claim", b)
				}
				if want := "refused as an impostor: its User-Agent names Googlebot, but its address is not in Google's published address lists"; b.Message() != want || b.LogRule() != "impostor: ip-list" {
					t.Errorf("message %q, rule %q; want %q, impostor: ip-list", b.Message(), b.LogRule(), want)
				}
			} else if b.Impostor != nil {
				t.Errorf("a file rule's block marked as impostor: %+v", b)
			}
			// robots.txt is served to everyone, impostors included.
			rr := httptest.NewRequest("GET", "/robots.txt", nil)
			rr.Header = r.Header.Clone()
			if !core.IsRobotsTxt(rr) {
				t.Error("robots.txt not answered by the core")
			}
			if _, blocked := core.Enforce(rr); blocked {
				t.Error("robots.txt refused")
			}
		})
	}
}

func TestEnforceImpostorsStatusError(t *testing.T) {
	for _, status := range []int{200, 302, 600, -1} {
		_, err := serve.New(impostorConfig(status, true), serve.Options{Identify: identifyByHeader})
		var ce *configerr.Error
		if !errors.As(err, &ce) || ce.Path != "robots_txt.enforce.impostors.status" {
			t.Errorf("status %d: error %v, want one at robots_txt.enforce.impostors.status", status, err)
		}
	}
}

// TestEnforceImpostorsAlone: a file that names no crawler may still answer impostors (the
// file's own enforcement then never applies); without impostors it stays an error.
func TestEnforceImpostorsAlone(t *testing.T) {
	rt := &policy.RobotsTxt{
		Groups:  []robotsgen.Group{{UserAgents: []string{"*"}, Rules: []robotsgen.Rule{{Type: robotsgen.Disallow, Path: "/admin/"}}}},
		Enforce: &policy.Enforce{Impostors: &policy.Impostors{}},
	}
	core, err := serve.New(policy.Config{RobotsTxt: rt}, serve.Options{Identify: identifyByHeader})
	if err != nil {
		t.Fatal(err)
	}
	r := httptest.NewRequest("GET", "/admin/x", nil)
	r.Header.Set("User-Agent", "GPTBot/1.2")
	if _, blocked := core.Enforce(r); blocked {
		t.Error("a crawler the file does not name was refused")
	}
	r.Header.Set("X-Test-Identity", "impostor")
	if b, blocked := core.Enforce(r); !blocked || b.Impostor == nil || b.Status != 403 {
		t.Errorf("impostor not refused: %+v %v", b, blocked)
	}
	rt.Enforce.Impostors = nil
	if _, err := serve.New(policy.Config{RobotsTxt: rt}, serve.Options{}); err == nil {
		t.Error("enforce without impostors and without a named group accepted")
	}
}

// TestEnforceAcceptSignature: with accept_signature, every refusal (impostor or the file's)
// carries the Accept-Signature field asking for a Web Bot Auth signature; without it, none.
func TestEnforceAcceptSignature(t *testing.T) {
	for _, on := range []bool{true, false} {
		cfg := impostorConfig(0, true)
		cfg.RobotsTxt.Enforce.AcceptSignature = on
		core, err := serve.New(cfg, serve.Options{Identify: identifyByHeader})
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range []*http.Request{
			func() *http.Request {
				r := httptest.NewRequest("GET", "/", nil)
				r.Header.Set("X-Test-Identity", "impostor")
				return r
			}(),
			func() *http.Request {
				r := httptest.NewRequest("GET", "/private/x", nil)
				r.Header.Set("User-Agent", "GPTBot/1.2")
				return r
			}(),
		} {
			b, blocked := core.Enforce(r)
			if !blocked {
				t.Fatal("not refused")
			}
			if got := b.AcceptSignature; (got == webbotauth.AcceptSignature("sig1")) != on || on != (got != "") {
				t.Errorf("accept_signature %v: the refusal carries %q", on, got)
			}
		}
	}
}
