package ui

import (
	"strings"
	"testing"
	"time"

	"ratelab/algorithms"
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
	requireScreen(t, a, "steps 250µs", "250µs/column")
	if out := screen(a); strings.Contains(out, "≈0s") {
		t.Errorf("the screen shows ≈0s:\n%s", out)
	}
}

func TestQuantityDuration(t *testing.T) {
	for _, c := range []struct {
		q    algorithms.Quantity
		want string
	}{
		{algorithms.Quantity{Num: 1000, Den: 3}, "≈333ns"},
		{algorithms.Quantity{Num: 2500000, Den: 3}, "≈833.333µs"},
		{algorithms.Quantity{Num: 1e9, Den: 3}, "≈0.333s"},
		{algorithms.Quantity{Num: 5e8, Den: 1}, "0.5s"},
		{algorithms.Quantity{Num: 0, Den: 0}, "0s"},
	} {
		if got := quantityDuration(c.q); got != c.want {
			t.Errorf("quantityDuration(%v/%v) = %q, want %q", c.q.Num, c.q.Den, got, c.want)
		}
	}
}
