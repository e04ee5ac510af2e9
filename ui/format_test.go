package ui

import (
	"strings"
	"testing"
	"time"
)

func TestSecs(t *testing.T) {
	for _, c := range []struct {
		d    time.Duration
		want string
	}{
		{0, "0s"},
		{1500 * time.Millisecond, "1.5s"},
		{59*time.Second + 999*time.Millisecond + 166666, "≈59.999s"},
		{500 * time.Microsecond, "500µs"},
		{1500 * time.Microsecond, "1.5ms"},
		{999*time.Millisecond + 1, "999.000001ms"},
		{-250 * time.Microsecond, "-250µs"},
		{time.Second + 1, "≈1s"},
	} {
		if got := secs(c.d); got != c.want {
			t.Errorf("secs(%v) = %q, want %q", c.d, got, c.want)
		}
	}
}

// TestSubMillisecondStep: a scenario stepping 250µs labels its step and its
// timeline exactly, not "≈0s".
func TestSubMillisecondStep(t *testing.T) {
	a := newYAMLApp(t, "title: fine\nstep: 250us\nlimiters:\n  - {name: b, algorithm: token-bucket, capacity: 3, rate: 1000/s}\ntraffic:\n  - {every: 500us, until: 20ms}\n", 120, 40)
	requireScreen(t, a, "step 250µs", "250µs/column")
	if out := screen(a); strings.Contains(out, "≈0s") {
		t.Errorf("the screen shows ≈0s:\n%s", out)
	}
}
