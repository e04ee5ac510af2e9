package ui

import (
	"strings"
	"testing"
	"time"

	"github.com/charmbracelet/x/ansi"
)

// TestWhyShowsDisagreeingLanesFirst: when the why panel has room for one
// other lane only, it is one that decided otherwise.
func TestWhyShowsDisagreeingLanesFirst(t *testing.T) {
	a := newTestApp(t, "dashboard", 80, 24)
	a.lab.Seek(30*time.Second + 250*time.Millisecond)
	// The shaper rejects the reload's last request, as the bucket does; the
	// fixed window admits it. Six rows: heading, three of explanation, the
	// 429, one other lane.
	a.focus = 2
	views := laneViews(a.programContext)
	out := ansi.Strip(strings.Join(whyBlock(a.st, views, 2, 80, 6, labelWidth), "\n"))
	if !strings.Contains(out, "why shaper") || !strings.Contains(out, "  fixed   ✓ window") || strings.Contains(out, "bucket") {
		t.Errorf("the one other lane shown is not the one that disagrees:\n%s", out)
	}
}

// TestRetrySaysWhen: a rejection's retry is a time and a wait from the
// clock, which shrinks as the clock moves.
func TestRetrySaysWhen(t *testing.T) {
	a := newTestApp(t, "boundary", 160, 48)
	a.lab.Seek(60*time.Second + 50*time.Millisecond)
	press(a, "tab")
	requireScreen(t, a, "retry at 119.9s (in 59.85s)")
	press(a, "l")
	requireScreen(t, a, "retry at 119.9s (in 59.75s)")
}
