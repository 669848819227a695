package serve

import (
	"math/rand/v2"
	"net/http"
	"strings"
	"testing"

	"github.com/sitepolicy/caddy-robots/tdmrep"
)

// lenient is the reservation an agent that reads every comma-separated element of every line
// takes from tdm-reservation lines: the greatest it finds.
func lenient(lines []string) tdmrep.Reservation {
	r := tdmrep.Unset
	for _, l := range lines {
		for _, e := range strings.Split(l, ",") {
			r = max(r, tdmrep.ParseReservation(e))
		}
	}
	return r
}

// TestSetTDMNeverWeakens: over generated handler tdm-reservation lines (repeated, listed,
// malformed) and every route declaration, setTDM never lowers what a lenient agent reads, a
// route's 1 always reaches a strict agent (one line "1"), and a route's 0 reaches it where the
// handler's lines hold no 1.
func TestSetTDMNeverWeakens(t *testing.T) {
	elems := []string{"1", "0", " 1", "1 ", "01", "yes", "", "2", "-0", " 0 "}
	routes := []tdmrep.Declaration{{Reservation: tdmrep.NotReserved}, {Reservation: tdmrep.Reserved}, {Reservation: tdmrep.NotReserved, Policy: "https://r.example/p"}, {Reservation: tdmrep.Reserved, Policy: "https://r.example/p"}}
	rng := rand.New(rand.NewPCG(3, 4))
	for range 20000 {
		var lines []string
		for range rng.IntN(4) {
			var es []string
			for range 1 + rng.IntN(3) {
				es = append(es, elems[rng.IntN(len(elems))])
			}
			lines = append(lines, strings.Join(es, ","))
		}
		for _, d := range routes {
			o := newTDMOutput(d)
			h := http.Header{}
			if lines != nil {
				h[tdmrep.ReservationField] = append([]string(nil), lines...)
			}
			meta := setTDM(h, &o)
			after := h[tdmrep.ReservationField]
			if lenient(after) < lenient(lines) {
				t.Fatalf("route %v, handler %q: sent %q, weaker to a lenient agent", d, lines, after)
			}
			strict := tdmrep.Unset
			if len(after) == 1 {
				strict = tdmrep.ParseReservation(after[0])
			}
			if d.Reservation == tdmrep.Reserved && strict != tdmrep.Reserved {
				t.Fatalf("route 1, handler %q: sent %q", lines, after)
			}
			if d.Reservation == tdmrep.NotReserved && lenient(lines) != tdmrep.Reserved && strict != tdmrep.NotReserved {
				t.Fatalf("route 0, handler %q: sent %q", lines, after)
			}
			if meta.Reservation < d.Reservation && !meta.IsEmpty() || !meta.IsEmpty() && lenient(after) > meta.Reservation {
				t.Fatalf("route %v, handler %q: sent %q and meta %v, which would weaken it", d, lines, after, meta)
			}
		}
	}
}
