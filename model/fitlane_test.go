package model

import (
	"strings"
	"testing"

	"ratelab/scenarios"
)

// TestToggleFit: F on which-burst's one-less (a token bucket of 21 at
// 1/s) adds one-less-fit, the smallest bucket at 1/s refusing none of
// the log's requests: 22, one less refusing 6; the lab decides it so;
// F again takes it away.
func TestToggleFit(t *testing.T) {
	s, err := scenarios.Canned("which-burst")
	if err != nil {
		t.Fatal(err)
	}
	with, done, err := ToggleFit(s, "one-less")
	if err != nil {
		t.Fatal(err)
	}
	if len(with.Lanes) != 4 || with.Lanes[2].Name != "one-less-fit" || with.Lanes[2].Policy.Capacity != 22 {
		t.Fatalf("lanes %v, want one-less-fit of capacity 22 after one-less", with.Lanes)
	}
	if !done.On || !done.SmallerValid || done.SmallerRefused != 6 || done.Requests != 2400 {
		t.Errorf("done %+v, want on, one less refusing 6 of 2400", done)
	}
	if !strings.Contains(done.String(), "token-bucket capacity 22, rate 1/s") || len(s.Lanes) != 3 {
		t.Errorf("%q; the scenario's own lanes %d", done, len(s.Lanes))
	}
	stats, err := Run(with, Options{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if stats[2].Rejected != 0 {
		t.Errorf("one-less-fit refused %d", stats[2].Rejected)
	}
	for _, name := range []string{"one-less-fit", "one-less"} {
		without, done, err := ToggleFit(with, name)
		if err != nil {
			t.Fatal(err)
		}
		if len(without.Lanes) != 3 || done.On || done.Lane != "one-less-fit" {
			t.Errorf("F on %s: lanes %v, done %+v; want the fitted lane taken away", name, without.Lanes, done)
		}
	}
}

func TestToggleFitRefuses(t *testing.T) {
	for _, tc := range []struct{ lesson, lane, want string }{
		{"pay-later", "reserve", "fit cannot fit a x-time-rate-reserve"},
		{"global-cap", "both", "a stack of policies"},
		{"four-gateways", "local", "a lane of gateways"},
		{"boundary", "nope", "no lane is called nope"},
	} {
		s, err := scenarios.Canned(tc.lesson)
		if err != nil {
			t.Fatal(err)
		}
		if _, _, err := ToggleFit(s, tc.lane); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s, lane %s: %v, want %q", tc.lesson, tc.lane, err, tc.want)
		}
	}
}

// TestToggleFitXTimeRate: F on burst-admits-eleven's x/time/rate lane
// (burst 10 at 2/s, refusing 2 of 21) fits the library's own burst, the
// bucket's capacity, and the library run over the traffic refuses none.
func TestToggleFitXTimeRate(t *testing.T) {
	s, err := scenarios.Canned("burst-admits-eleven")
	if err != nil {
		t.Fatal(err)
	}
	bucket, _, err := ToggleFit(s, "bucket")
	if err != nil {
		t.Fatal(err)
	}
	with, done, err := ToggleFit(s, "x-time-rate")
	if err != nil {
		t.Fatal(err)
	}
	fitted := with.Lanes[3]
	if fitted.Name != "x-time-rate-fit" || fitted.Policy.Burst != bucket.Lanes[1].Policy.Capacity || fitted.Policy.Burst <= 10 {
		t.Fatalf("fitted %s %s; the bucket's fit %s", fitted.Name, fitted.Policy, bucket.Lanes[1].Policy)
	}
	if !done.SmallerValid || done.SmallerRefused == 0 {
		t.Errorf("done %+v: one less should refuse", done)
	}
	stats, err := Run(with, Options{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if stats[3].Rejected != 0 || stats[2].Rejected == 0 {
		t.Errorf("x-time-rate-fit refused %d, x-time-rate %d", stats[3].Rejected, stats[2].Rejected)
	}
}
