package ui

import (
	"strings"
	"testing"
	"time"
)

// TestGatewaysOnScreen: a lane of gateways names its store in its title and
// how far it went beyond its policy in its totals; the why panel names the
// gateway that decided and shows each gateway's own view of the key.
func TestGatewaysOnScreen(t *testing.T) {
	a := newTestApp(t, "four-gateways", 160, 48)
	a.lab.Seek(125 * time.Millisecond)
	a.focus = 1 // local
	out := screen(a)
	for _, want := range []string{"×4 local", "×4 split", "beyond +30", "gateway 3 of 4", "each gateway: g1 ", "▸g3 "} {
		if !strings.Contains(out, want) {
			t.Errorf("the screen lacks %q:\n%s", want, out)
		}
	}
	press(a, "a")
	if about := strings.Join(strings.Fields(screen(a)), " "); !strings.Contains(about, "4 gateways, by-key, each enforcing 1/4 of the policy (split)") {
		t.Errorf("the about page does not say what the gateways do:\n%s", screen(a))
	}
}

// TestFallbackAndBeyondMarked: a lane's verdict says when the store was
// down (503, not a rate-limit refusal) and when an admission went beyond
// the policy.
func TestFallbackAndBeyondMarked(t *testing.T) {
	a := newTestApp(t, "store-outage", 160, 48)
	a.lab.Seek(5250 * time.Millisecond)
	if out := screen(a); !strings.Contains(out, "rejected 503 (store down)") || !strings.Contains(out, "(store down, fails open)") {
		t.Errorf("the outage's decisions are not marked:\n%s", out)
	}
	b := newTestApp(t, "racy-store", 160, 48)
	b.lab.Seek(10 * time.Millisecond)
	if out := screen(b); !strings.Contains(out, "beyond the policy") {
		t.Errorf("the double spend is not marked:\n%s", out)
	}
}
