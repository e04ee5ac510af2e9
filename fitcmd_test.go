package main

import (
	"path/filepath"
	"strings"
	"testing"
)

// TestFitALogThenCheckIt: fit finds the knee on the shipped log, per key,
// confirmed by the real limiter; the scenario it saves checks.
func TestFitALogThenCheckIt(t *testing.T) {
	saved := filepath.Join(t.TempDir(), "fitted.yaml")
	code, out, errs := ratelab(t, "fit", "--by-key", "--algorithm", "token-bucket", "--save", saved, "scenarios/canned/logs/api.log")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	for _, want := range []string{
		"fit of 2,400 requests",
		"capacity 22 refuses 0; 21 refuses 6 of 2,400, the first at 120s",
		"knee ◆: token-bucket capacity 22, rate 1/s",
		"10.20.0.5 ", // the batch job: the key the knee is sized for
		"log api.log: 2,400 requests from 2,400 lines",
		"saved " + saved,
	} {
		if !strings.Contains(out, want) {
			t.Errorf("the fit does not say %q:\n%s", want, out)
		}
	}
	if code, out, errs := ratelab(t, "check", saved); code != 0 || !strings.Contains(out, "hold") {
		t.Errorf("check %s: exit %d\n%s%s", saved, code, out, errs)
	}
}

// TestFitWithABudgetSavesWhatItMeasured: --reject-at-most saves the
// budget's policy, expecting the refusals the real limiter counted.
func TestFitWithABudgetSavesWhatItMeasured(t *testing.T) {
	saved := filepath.Join(t.TempDir(), "fitted.yaml")
	code, out, errs := ratelab(t, "fit", "--algorithm", "gcra,leaky-bucket", "--rate", "6/s", "--reject-at-most", "1%", "--save", saved, "scenarios/canned/logs/api.log")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	if !strings.Contains(out, "left out of "+saved+": leaky-bucket, which delays") {
		t.Errorf("the shaper left out unsaid:\n%s", out)
	}
	if code, out, errs := ratelab(t, "check", saved); code != 0 {
		t.Errorf("check %s: exit %d\n%s%s", saved, code, out, errs)
	}
}

func TestFitRefusesBadFlags(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"fit", "--algorithm", "guava", "boundary"}, "not an algorithm fit can fit"},
		{[]string{"fit", "--reject-at-most", "1", "boundary"}, "want a percentage"},
		{[]string{"fit", "--reject-at-most", "101%", "boundary"}, "from 0% to 100%"},
		{[]string{"fit", "--rate", "fast", "boundary"}, "--rate"},
		{[]string{"fit"}, "usage: ratelab fit"},
	} {
		code, _, errs := ratelab(t, tc.args...)
		if code != 2 || !strings.Contains(errs, tc.want) {
			t.Errorf("%v: exit %d, %q; want 2 and %q", tc.args, code, errs, tc.want)
		}
	}
}

func TestParseShare(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want int64
		bad  bool
	}{
		{"1%", 10_000, false}, {"0.5%", 5_000, false}, {"99.9999%", 999_999, false}, {"100%", 1_000_000, false},
		{"0%", 0, false}, {"0.00001%", 0, true}, {"-1%", 0, true}, {"1", 0, true}, {"%", 0, true}, {"100.1%", 0, true},
	} {
		got, err := parseShare(tc.in)
		if (err != nil) != tc.bad || got != tc.want {
			t.Errorf("parseShare(%q) = %d, %v; want %d, error %v", tc.in, got, err, tc.want, tc.bad)
		}
	}
}
