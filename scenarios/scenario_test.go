package scenarios

import (
	"testing"
	"time"

	"ratelab/algorithms"
)

func TestExpectationSelects(t *testing.T) {
	e := Expectation{From: time.Second, Until: 2 * time.Second}
	for _, tt := range []struct {
		r    Request
		want bool
	}{
		{Request{At: time.Second - 1}, false},
		{Request{At: time.Second}, true},
		{Request{At: 2*time.Second - 1}, true},
		{Request{At: 2 * time.Second}, false},
	} {
		if got := e.Selects(tt.r); got != tt.want {
			t.Errorf("from 1s until 2s selects %v: %v, want %v", tt.r.At, got, tt.want)
		}
	}
	e = Expectation{From: time.Second, Until: time.Second + 1, Instant: true, Key: "a"}
	if !e.Selects(Request{At: time.Second, Key: "a"}) || e.Selects(Request{At: time.Second, Key: "b"}) || e.Selects(Request{At: time.Second + 1, Key: "a"}) {
		t.Error("at 1s with key a selects wrongly")
	}
	want := `fixed key "a" at 1s: admitted 3, peak 4 per 2s, every request rejected`
	e.Lane, e.Admitted, e.Peak, e.PeakWindow, e.Outcome = "fixed", int64p(3), int64p(4), 2*time.Second, outcomep(algorithms.Rejected)
	if got := e.String(); got != want {
		t.Errorf("String = %q, want %q", got, want)
	}
	for _, tt := range []struct {
		e    Expectation
		want string
	}{
		{Expectation{Lane: "fixed", Until: 61 * time.Second, Admitted: int64p(240)}, "fixed until 61s: admitted 240"},
		{Expectation{Lane: "shaper", From: time.Second, Until: 2 * time.Second, Allowed: int64p(1), Delayed: int64p(0), Rejected: int64p(2)},
			"shaper from 1s until 2s: allowed 1, delayed 0, rejected 2"},
		{Expectation{Lane: "log", Key: "seller-1", From: 15 * time.Second, Until: 15*time.Second + 1, Instant: true, StatePerKey: int64p(800), StateTotal: int64p(800)},
			`log key "seller-1" at 15s: state per key 800 bytes, state total 800 bytes`},
		{Expectation{Lane: "log", Until: time.Minute, StateTotal: int64p(2936000)}, "log until 60s: state total 2936000 bytes"},
		{Expectation{Lane: "bucket", From: 250 * time.Millisecond, Until: 250*time.Millisecond + 1, Instant: true, RetryAfter: int64p(1), Wait: durationp(250 * time.Millisecond)},
			"bucket at 250ms: every rejection Retry-After 1, every rejection a wait of 250ms"},
		{Expectation{Lane: "reserve", Until: 8 * time.Second, LatencyP50: durationp(time.Second), LatencyP99: durationp(3750 * time.Millisecond)},
			"reserve until 8s: latency p50 1s, latency p99 3.75s"},
	} {
		if got := tt.e.String(); got != tt.want {
			t.Errorf("String = %q, want %q", got, tt.want)
		}
	}
}

func TestFormString(t *testing.T) {
	for f, want := range map[Form]string{Single: "single", Burst: "burst", Periodic: "periodic", 7: "Form(7)"} {
		if got := f.String(); got != want {
			t.Errorf("Form(%d).String() = %q, want %q", uint8(f), got, want)
		}
	}
}
