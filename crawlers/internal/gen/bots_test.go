package gen

import (
	"encoding/json"
	"os"
	"strings"
	"testing"
)

func TestPatternName(t *testing.T) {
	for p, want := range map[string]string{
		`Googlebot\/`:            "Googlebot",
		`AdsBot-Google([^-]|$)`:  "AdsBot-Google",
		`^LCC`:                   "LCC",
		`(^| )sentry\/`:          "sentry",
		`AI2Bot\s`:               "AI2Bot",
		`Mail\.RU_Bot`:           "Mail.RU_Bot",
		`Jamie's Spider`:         "Jamie's Spider",
		`[wW]get`:                "",
		`Face(book){0,1}[Bb]ot`:  "",
		`BlogTraffic\/\d\.\d+`:   "",
		`collection@infegy\.com`: "",
		`https:\/\/developers\.cloudflare\.com\/security-center\/`: "",
	} {
		got, ok := PatternName(p)
		if got != want || ok != (want != "") {
			t.Errorf("PatternName(%q) = %q, %v; want %q", p, got, ok, want)
		}
	}
}

func TestParseBotsErrors(t *testing.T) {
	for in, want := range map[string]string{
		`[{"id": "x", "categories": ["search-engine"], "pattern": {"accepted": ["[xX]bot"]}}]`:                                                 `bot "x": pattern "[xX]bot" is not a plain name: add the names`,
		`[{"id": "x", "categories": ["dating"], "pattern": {"accepted": ["xbot"]}}]`:                                                           `category "dating" is neither in BotCategories nor a vendor`,
		`[{"id": "x", "categories": [], "pattern": {"accepted": ["xbot"]}}, {"id": "y", "categories": [], "pattern": {"accepted": ["XBot"]}}]`: `name "xbot" is a name of x and y: say which bot it identifies in BotNameOwners`,
		`[{"id": "x", "categories": [], "pattern": {"accepted": ["xbot"]}}, {"id": "x", "categories": [], "pattern": {"accepted": ["ybot"]}}]`: `bot "x": duplicate id`,
		`[{"id": "x", "categories": [], "pattern": {"accepted": ["xbot"]}, "verification": [{"type": "magic"}]}]`:                              `verification type "magic" unknown`,
		`[{"id": "x", "categories": [], "pattern": {"accepted": ["xbot"]}}]`:                                                                   `BotNames has "anthropic-crawler", which the data does not: remove it`,
	} {
		_, err := ParseBots([]byte(in))
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("ParseBots(%s):\n%v\nwant an error saying %q", in, err, want)
		}
	}
}

// TestParseBotsVerification: every verification entry of the data is kept (address documents
// of "cidr" and "ip" entries, inline addresses, host masks), and an entry the generator reads
// nothing from is an error, not a silent loss.
func TestParseBotsVerification(t *testing.T) {
	data, err := os.ReadFile("../../data/well-known-bots.json")
	if err != nil {
		t.Fatal(err)
	}
	var raw []struct {
		Verification []struct {
			Sources []any
			IPs     []string
			Masks   []string
		}
	}
	if err := json.Unmarshal(data, &raw); err != nil {
		t.Fatal(err)
	}
	want, verifiable := 0, 0
	for _, b := range raw {
		for _, v := range b.Verification {
			want += len(v.Sources) + len(v.IPs) + len(v.Masks)
		}
		if len(b.Verification) > 0 {
			verifiable++
		}
	}
	bots, err := ParseBots(data)
	if err != nil {
		t.Fatal(err)
	}
	got, gotVerifiable := 0, 0
	for _, b := range bots {
		n := len(b.IPRanges) + len(b.IPs) + len(b.HostMasks)
		got += n
		if n > 0 {
			gotVerifiable++
		}
	}
	if got != want || gotVerifiable != verifiable || verifiable != 62 {
		t.Errorf("kept %d verification items of %d, for %d bots of %d (the snapshot has 62)", got, want, gotVerifiable, verifiable)
	}
	_, err = ParseBots([]byte(`[{"id": "a", "categories": [], "pattern": {"accepted": ["abot"]}, "verification": [{"type": "ip"}]}]`))
	if err == nil || !strings.Contains(err.Error(), `a "ip" verification entry with nothing the generator reads`) {
		t.Errorf("empty ip entry: %v", err)
	}
}
