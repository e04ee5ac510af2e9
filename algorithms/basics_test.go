package algorithms

import (
	"encoding/json"
	"math"
	"math/big"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"
	"time"
)

func TestParseRate(t *testing.T) {
	tests := []struct {
		in      string
		want    Rate
		str     string // Rate.String of the result
		wantErr string
	}{
		{in: "2/s", want: Rate{2, sec}, str: "2/s"},
		{in: " 120 / min ", want: Rate{120, time.Minute}, str: "120/min"},
		{in: "5/h", want: Rate{5, time.Hour}, str: "5/h"},
		{in: "1/hour", want: Rate{1, time.Hour}, str: "1/h"},
		{in: "1/500ms", want: Rate{1, 500 * ms}, str: "1/500ms"},
		{in: "3/2s", want: Rate{3, 2 * sec}, str: "3/2s"},
		{in: "1/1m30s", want: Rate{1, 90 * sec}, str: "1/90s"},
		{in: "7/ms", want: Rate{7, ms}, str: "7/1ms"},
		{in: "1/µs", want: Rate{1, time.Microsecond}, str: "1/1µs"},
		{in: "9/ns", want: Rate{9, 1}, str: "9/1ns"},
		{in: "2147483648/s", want: Rate{1 << 31, sec}, str: "2147483648/s"},
		// nginx's spelling (limit_req_zone's rate=, ngx_http_limit_req_zone).
		{in: "2r/s", want: Rate{2, sec}, str: "2/s"},
		{in: "30r/m", want: Rate{30, time.Minute}, str: "30/min"},
		{in: " 1r / m ", want: Rate{1, time.Minute}, str: "1/min"},
		{in: "2r/h", wantErr: "Nr/s or Nr/m"},
		{in: "2r/min", wantErr: "Nr/s or Nr/m"},
		{in: "r/s", wantErr: "N must be a positive integer"},
		{in: "0r/s", wantErr: "N must be a positive integer"},
		{in: "2", wantErr: "want N/D"},
		{in: "0/s", wantErr: "N must be a positive integer"},
		{in: "-1/s", wantErr: "N must be a positive integer"},
		{in: "1.5/s", wantErr: "N must be a positive integer"},
		{in: "x/s", wantErr: "N must be a positive integer"},
		{in: "1/", wantErr: "D must be a unit"},
		{in: "1/fortnight", wantErr: "D must be a unit"},
		{in: "1/0s", wantErr: "D must be a unit"},
		{in: "1/-1s", wantErr: "D must be a unit"},
		{in: "2147483649/s", wantErr: "at most 2147483648"},
	}
	for _, tt := range tests {
		got, err := ParseRate(tt.in)
		if tt.wantErr != "" {
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Errorf("ParseRate(%q) = %v, %v; want error containing %q", tt.in, got, err, tt.wantErr)
			}
			continue
		}
		if err != nil || got != tt.want {
			t.Errorf("ParseRate(%q) = %v, %v; want %v", tt.in, got, err, tt.want)
			continue
		}
		if got.String() != tt.str {
			t.Errorf("ParseRate(%q).String() = %q, want %q", tt.in, got.String(), tt.str)
		}
		if back, err := ParseRate(got.String()); err != nil || back != got {
			t.Errorf("ParseRate(%q) = %v, %v; does not round-trip %v", got.String(), back, err, got)
		}
	}
}

func TestRateText(t *testing.T) {
	var v struct{ R Rate }
	if err := json.Unmarshal([]byte(`{"R":"120/min"}`), &v); err != nil || v.R != (Rate{120, time.Minute}) {
		t.Fatalf("unmarshal: %v, %v", v.R, err)
	}
	out, err := json.Marshal(v)
	if err != nil || string(out) != `{"R":"120/min"}` {
		t.Fatalf("marshal: %s, %v", out, err)
	}
	if err := json.Unmarshal([]byte(`{"R":"fast"}`), &v); err == nil {
		t.Fatal("unmarshal of \"fast\" succeeded")
	}
}

func TestQuantity(t *testing.T) {
	tests := []struct {
		q     Quantity
		str   string
		exact bool
		floor int64
	}{
		{Quantity{}, "0", true, 0},
		{Quantity{5, 1}, "5", true, 5},
		{Quantity{11, 2}, "5.5", true, 5},
		{Quantity{1, 3}, "0.333", false, 0},
		{Quantity{2, 3}, "0.667", false, 0},
		{Quantity{1, 8}, "0.125", true, 0},
		{Quantity{1, 16}, "0.063", false, 0},  // 0.0625 rounds half up
		{Quantity{1999, 2000}, "1", false, 0}, // 0.9995 rounds up to 1
		{Quantity{80 * 60e9, 60e9}, "80", true, 80},
		{Quantity{5e8, 1e9}, "0.5", true, 0},
		// Beyond 2^53 in both parts: still exact, no overflow.
		{Quantity{1 << 62, 1 << 61}, "2", true, 2},
		{Quantity{(1 << 62) + 1, 1 << 61}, "2", false, 2},
		{Quantity{3 << 58, 1 << 61}, "0.375", true, 0},
		{Quantity{math.MaxInt64, math.MaxInt64 - 1}, "1", false, 1},
		// Not a Quantity's use, but formatted sensibly.
		{Quantity{-3, 2}, "-1.5", true, -2},
		{Quantity{-1, 3000}, "0", false, -1},
		{Quantity{5, -1}, "0", true, 0},
	}
	for _, tt := range tests {
		if got := tt.q.String(); got != tt.str {
			t.Errorf("%d/%d String() = %q, want %q", tt.q.Num, tt.q.Den, got, tt.str)
		}
		if got := tt.q.Exact(); got != tt.exact {
			t.Errorf("%d/%d Exact() = %v, want %v", tt.q.Num, tt.q.Den, got, tt.exact)
		}
		if got := tt.q.Floor(); got != tt.floor {
			t.Errorf("%d/%d Floor() = %d, want %d", tt.q.Num, tt.q.Den, got, tt.floor)
		}
	}
	if got := (Quantity{3, 4}).Float64(); got != 0.75 {
		t.Errorf("Float64 = %v", got)
	}
	if got := (Quantity{}).Float64(); got != 0 {
		t.Errorf("zero Float64 = %v", got)
	}
	if got := exactish(1, 3); got != "≈0.333" {
		t.Errorf("exactish(1, 3) = %q", got)
	}
}

func TestFormatSeconds(t *testing.T) {
	tests := []struct {
		d    time.Duration
		want string
	}{
		{0, "0s"},
		{250 * ms, "0.25s"},
		{1, "0.000000001s"},
		{2 * time.Minute, "120s"},
		{58500 * ms, "58.5s"},
		{-1500 * ms, "-1.5s"},
		{Never, "9223372036.854775807s"},
		{math.MinInt64, "-9223372036.854775808s"},
	}
	for _, tt := range tests {
		if got := FormatSeconds(tt.d); got != tt.want {
			t.Errorf("FormatSeconds(%d) = %q, want %q", tt.d, got, tt.want)
		}
	}
}

func TestRetryAfterHeader(t *testing.T) {
	tests := []struct {
		d    time.Duration
		want int64
	}{
		{Never, -1},
		{-sec, 0},
		{0, 0},
		{1, 1},
		{sec, 1},
		{sec + 1, 2},
		{58500 * ms, 59},
	}
	for _, tt := range tests {
		if got := RetryAfterHeader(tt.d); got != tt.want {
			t.Errorf("RetryAfterHeader(%v) = %d, want %d", tt.d, got, tt.want)
		}
	}
	d := mustNew(t, Policy{Algorithm: FixedWindow, Limit: 1, Window: time.Minute}).Decide(0, "k", 2)
	if d.RetryAfterSeconds() != -1 {
		t.Errorf("RetryAfterSeconds of a Never rejection = %d", d.RetryAfterSeconds())
	}
}

func TestPolicyValidate(t *testing.T) {
	rate := Rate{2, sec}
	tests := []struct {
		name    string
		p       Policy
		wantErr string // "" for valid
	}{
		{"fixed", Policy{Algorithm: FixedWindow, Limit: 10, Window: sec}, ""},
		{"log", Policy{Algorithm: SlidingLog, Limit: 10, Window: sec}, ""},
		{"counter", Policy{Algorithm: SlidingCounter, Limit: 10, Window: sec}, ""},
		{"bucket", Policy{Algorithm: TokenBucket, Capacity: 10, Rate: rate}, ""},
		{"gcra", Policy{Algorithm: GCRA, Burst: 10, Rate: rate}, ""},
		{"leaky", Policy{Algorithm: LeakyBucket, Queue: 10, Rate: rate}, ""},
		{"unknown", Policy{Algorithm: "token_bucket", Capacity: 10, Rate: rate}, "unknown algorithm"},
		{"empty", Policy{}, "unknown algorithm"},
		{"missing limit", Policy{Algorithm: FixedWindow, Window: sec}, "fixed-window needs limit"},
		{"missing window", Policy{Algorithm: SlidingLog, Limit: 3}, "sliding-log needs window"},
		{"missing rate", Policy{Algorithm: GCRA, Burst: 3}, "gcra needs rate"},
		{"missing queue", Policy{Algorithm: LeakyBucket, Rate: rate}, "leaky-bucket needs queue"},
		{"stray rate", Policy{Algorithm: SlidingCounter, Limit: 3, Window: sec, Rate: rate}, "sliding-counter takes no rate"},
		{"stray capacity", Policy{Algorithm: GCRA, Burst: 3, Capacity: 3, Rate: rate}, "gcra takes no capacity"},
		{"stray burst", Policy{Algorithm: TokenBucket, Capacity: 3, Burst: 3, Rate: rate}, "token-bucket takes no burst"},
		{"stray window", Policy{Algorithm: LeakyBucket, Queue: 3, Window: sec, Rate: rate}, "leaky-bucket takes no window"},
		{"negative limit", Policy{Algorithm: FixedWindow, Limit: -1, Window: sec}, "limit -1 must be positive"},
		{"negative window", Policy{Algorithm: FixedWindow, Limit: 1, Window: -sec}, "window -1s must be positive"},
		{"negative capacity", Policy{Algorithm: TokenBucket, Capacity: -2, Rate: rate}, "capacity -2 must be positive"},
		{"zero rate N", Policy{Algorithm: TokenBucket, Capacity: 2, Rate: Rate{0, sec}}, "must be positive"},
		{"negative per", Policy{Algorithm: GCRA, Burst: 2, Rate: Rate{1, -sec}}, "must be positive"},
		{"zero per", Policy{Algorithm: LeakyBucket, Queue: 2, Rate: Rate{1, 0}}, "must be positive"},
		{"rate N too big", Policy{Algorithm: GCRA, Burst: 2, Rate: Rate{1<<31 + 1, sec}}, "at most 2147483648"},
		{"count too big", Policy{Algorithm: TokenBucket, Capacity: 1<<40 + 1, Rate: Rate{1, 1}}, "at most 2^40"},
		{"count at bound", Policy{Algorithm: TokenBucket, Capacity: 1 << 40, Rate: Rate{1, 1}}, ""},
		{"limit × window too big", Policy{Algorithm: FixedWindow, Limit: 1 << 10, Window: 1<<52 + 1}, "too large for exact arithmetic"},
		{"limit × window at bound", Policy{Algorithm: SlidingLog, Limit: 1 << 10, Window: 1 << 52}, ""},
		{"capacity × per too big", Policy{Algorithm: TokenBucket, Capacity: 1 << 30, Rate: Rate{1, 1<<32 + 1}}, "too large for exact arithmetic"},
		{"queue + 1 × per too big", Policy{Algorithm: LeakyBucket, Queue: 1, Rate: Rate{1, 1<<61 + 1}}, "(queue 1 + 1)"},
		{"queue + 1 × per at bound", Policy{Algorithm: LeakyBucket, Queue: 1, Rate: Rate{1, 1 << 61}}, ""},
		{"counter's two windows too long", Policy{Algorithm: SlidingCounter, Limit: 1, Window: 1<<61 + 1}, "two windows"},
		{"counter's two windows at bound", Policy{Algorithm: SlidingCounter, Limit: 1, Window: 1 << 61}, ""},
	}
	for _, tt := range tests {
		err := tt.p.Validate()
		switch {
		case tt.wantErr == "" && err != nil:
			t.Errorf("%s: Validate() = %v, want nil", tt.name, err)
		case tt.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tt.wantErr)):
			t.Errorf("%s: Validate() = %v, want error containing %q", tt.name, err, tt.wantErr)
		}
		if _, nerr := New(tt.p); (nerr == nil) != (err == nil) {
			t.Errorf("%s: New error %v, Validate %v", tt.name, nerr, err)
		}
	}
}

func TestPolicyDescriptions(t *testing.T) {
	tests := []struct {
		p       Policy
		str     string
		maxCost int64
		horizon time.Duration
	}{
		{Policy{Algorithm: FixedWindow, Limit: 120, Window: time.Minute}, "fixed-window limit 120 per 60s", 120, time.Minute},
		{Policy{Algorithm: SlidingLog, Limit: 3, Window: sec}, "sliding-log limit 3 per 1s", 3, sec},
		{Policy{Algorithm: SlidingCounter, Limit: 3, Window: sec}, "sliding-counter limit 3 per 1s", 3, 2 * sec},
		{Policy{Algorithm: TokenBucket, Capacity: 10, Rate: Rate{2, sec}}, "token-bucket capacity 10, rate 2/s", 10, 5 * sec},
		{Policy{Algorithm: GCRA, Burst: 1, Rate: Rate{3, sec}}, "gcra burst 1, rate 3/s", 1, 333333334},
		{Policy{Algorithm: LeakyBucket, Queue: 10, Rate: Rate{2, sec}}, "leaky-bucket queue 10, rate 2/s", 11, 5 * sec},
	}
	for _, tt := range tests {
		if got := tt.p.String(); got != tt.str {
			t.Errorf("String() = %q, want %q", got, tt.str)
		}
		if got := tt.p.MaxCost(); got != tt.maxCost {
			t.Errorf("%v MaxCost() = %d, want %d", tt.p, got, tt.maxCost)
		}
		if got := tt.p.Horizon(); got != tt.horizon {
			t.Errorf("%v Horizon() = %v, want %v", tt.p, got, tt.horizon)
		}
	}
}

func TestOutcome(t *testing.T) {
	for o, want := range map[Outcome]string{Allowed: "allowed", Delayed: "delayed", Rejected: "rejected", 7: "unknown"} {
		if o.String() != want {
			t.Errorf("Outcome(%d).String() = %q", o, o.String())
		}
		if o.Admitted() != (o == Allowed || o == Delayed) {
			t.Errorf("Outcome(%d).Admitted() = %v", o, o.Admitted())
		}
	}
	var zero Decision
	if zero.Explain() != "allowed" || zero.Policy() != (Policy{}) {
		t.Errorf("zero Decision: %q, %v", zero.Explain(), zero.Policy())
	}
}

// eachPolicy is one small policy per algorithm.
var eachPolicy = []Policy{
	{Algorithm: FixedWindow, Limit: 3, Window: sec},
	{Algorithm: SlidingLog, Limit: 3, Window: sec},
	{Algorithm: SlidingCounter, Limit: 3, Window: sec},
	{Algorithm: TokenBucket, Capacity: 3, Rate: Rate{3, sec}},
	{Algorithm: GCRA, Burst: 3, Rate: Rate{3, sec}},
	{Algorithm: LeakyBucket, Queue: 3, Rate: Rate{3, sec}},
}

// TestCloneIndependence: after Clone, the original and the clone each
// decide, and show every key, exactly as a limiter that saw only their own
// requests, however these interleave, on a key both had and on one new to
// both.
func TestCloneIndependence(t *testing.T) {
	keys := []string{"k", "new"}
	r := rand.New(rand.NewPCG(13, 13))
	for _, alg := range Algorithms {
		t.Run(string(alg), func(t *testing.T) {
			for range shortened(40) {
				p := randPolicy(r, alg)
				reqs := randTrace(r, p, 150, false)
				shared, after := reqs[:50], reqs[50:]
				a := mustNew(t, p)
				run(a, shared)
				b := a.Clone()
				if b.Policy() != p {
					t.Fatalf("clone policy %v, want %v", b.Policy(), p)
				}
				// What a and b must do: limiters that saw only the shared
				// requests, then each its own.
				lims, refs := [2]Limiter{a, b}, [2]Limiter{mustNew(t, p), mustNew(t, p)}
				run(refs[0], shared)
				run(refs[1], shared)
				for i, rq := range after {
					j, key := r.IntN(2), keys[r.IntN(2)]
					got, want := lims[j].Decide(rq.at, key, rq.cost), refs[j].Decide(rq.at, key, rq.cost)
					if got.Outcome != want.Outcome || got.Delay != want.Delay || got.RetryAfter != want.RetryAfter || got.Explain() != want.Explain() {
						t.Fatalf("%v, limiter %d, request %d: %s\nwant %s", p, j, i, got.Explain(), want.Explain())
					}
					// Both, every key: deciding on one must not show in the other.
					for o := range lims {
						for _, key := range keys {
							if got, want := lims[o].Snapshot(rq.at, key), refs[o].Snapshot(rq.at, key); !reflect.DeepEqual(got, want) {
								t.Fatalf("%v, after request %d on limiter %d, limiter %d key %q:\n got  %+v\n want %+v", p, i, j, o, key, got, want)
							}
						}
					}
				}
			}
		})
	}
}

// TestSnapshotUnseenKey: a key never seen is shown as a fresh one at now,
// and looking does not create state.
func TestSnapshotUnseenKey(t *testing.T) {
	want := map[Algorithm]Snapshot{
		FixedWindow:    FixedWindowSnapshot{Now: 2500 * ms, Limit: 3, Window: sec, Start: 2 * sec, End: 3 * sec},
		SlidingLog:     SlidingLogSnapshot{Now: 2500 * ms, Limit: 3, Window: sec},
		SlidingCounter: SlidingCounterSnapshot{Now: 2500 * ms, Limit: 3, Window: sec, SubWindows: 1, SubWindow: sec, Start: 2 * sec, Weight: Quantity{5e8, 1e9}, Estimate: Quantity{0, 1e9}},
		TokenBucket:    TokenBucketSnapshot{Now: 2500 * ms, Capacity: 3, Rate: Rate{3, sec}, Available: Quantity{3e9, 1e9}, FullAt: 2500 * ms},
		GCRA:           GCRASnapshot{Now: 2500 * ms, Burst: 3, Rate: Rate{3, sec}, Interval: Quantity{1e9, 3}, Tolerance: Quantity{3e9, 3}, TAT: 2500 * ms, Available: Quantity{3e9, 1e9}},
		LeakyBucket:    LeakyBucketSnapshot{Now: 2500 * ms, Queue: 3, Rate: Rate{3, sec}, Interval: Quantity{1e9, 3}, NextFree: 2500 * ms},
	}
	for _, p := range eachPolicy {
		l := mustNew(t, p)
		l.Decide(0, "seen", 3)
		if got := l.Snapshot(2500*ms, "unseen"); !reflect.DeepEqual(got, want[p.Algorithm]) {
			t.Errorf("%s unseen key:\n got  %+v\n want %+v", p.Algorithm, got, want[p.Algorithm])
		}
		if k := l.(interface{ keys() int }).keys(); k != 1 {
			t.Errorf("%s: Snapshot of an unseen key made state: %d keys", p.Algorithm, k)
		}
	}
}

// TestEarlierTimeClamped: a request earlier than the key's latest is
// decided as if it came at the latest time, and its wait is counted from
// its own arrival, by every algorithm.
func TestEarlierTimeClamped(t *testing.T) {
	l := mustNew(t, Policy{Algorithm: TokenBucket, Capacity: 2, Rate: Rate{2, sec}})
	run(l, []req{{0, 2}, {sec, 1}}) // at 1s: 2 refilled, 1 spent, 1 left
	d := l.Decide(500*ms, "k", 2)
	// At 0.5s the bucket would have held 1 before the request at 1s was
	// taken; decided at 1s it holds 1: 1 short, refilled in 0.5s, so 1s
	// after arrival.
	if d.Outcome != Rejected || d.RetryAfter != sec || d.At != 500*ms {
		t.Fatalf("earlier request: %v retry %v at %v: %s", d.Outcome, d.RetryAfter, d.At, d.Explain())
	}
	want := "arrived at 0.5s, before this key's latest request: decided as at 1s; available = min(2, 1 + 0s × 2/s) = 1 < cost 2 → rejected; retry after (2 − 1) / 2/s = 0.5s, 1s after arrival"
	if d.Explain() != want {
		t.Errorf("explanation:\n got  %s\n want %s", d.Explain(), want)
	}
	if s := l.Snapshot(0, "k").(TokenBucketSnapshot); s.Now != sec || s.Available != (Quantity{1e9, 1e9}) {
		t.Errorf("snapshot at an earlier time: %+v", s)
	}
	// The time does not refill twice: at 1.5s the balance is 1 + 1.
	if d := l.Decide(1500*ms, "k", 2); d.Outcome != Allowed {
		t.Errorf("at 1.5s: %s", d.Explain())
	}

	// Every algorithm: a request at 0 after one of cost 3 at 1s, decided as
	// at 1s, waits from 0.
	wantEach := map[Algorithm]struct {
		o            Outcome
		delay, retry time.Duration
	}{
		FixedWindow:    {Rejected, 0, 2 * sec},           // [1s, 2s) is full
		SlidingLog:     {Rejected, 0, 2 * sec},           // the admission at 1s expires at 2s
		SlidingCounter: {Rejected, 0, 2*sec + 333333334}, // 3 × (1s − e)/1s + 1 ≤ 3 from e = ⅓s into [2s, 3s)
		TokenBucket:    {Rejected, 0, sec + 333333334},   // empty at 1s; a token takes ⅓s
		GCRA:           {Rejected, 0, sec + 333333334},   // the same
		LeakyBucket:    {Delayed, 2 * sec, 0},            // the pipe is busy until 2s, a delay of 1s ≤ 3 × ⅓s
	}
	for _, p := range eachPolicy {
		l := mustNew(t, p)
		run(l, []req{{sec, 3}})
		w := wantEach[p.Algorithm]
		if d := l.Decide(0, "k", 1); d.Outcome != w.o || d.Delay != w.delay || d.RetryAfter != w.retry {
			t.Errorf("%s: a request at 0 after 3 at 1s: %v delay %v retry %v, want %v delay %v retry %v: %s",
				p.Algorithm, d.Outcome, d.Delay, d.RetryAfter, w.o, w.delay, w.retry, d.Explain())
		}
	}
}

func TestDecidePanicsOnZeroCost(t *testing.T) {
	for _, p := range eachPolicy {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("%s: Decide with cost 0 did not panic", p.Algorithm)
				}
			}()
			mustNew(t, p).Decide(0, "k", 0)
		}()
	}
}

// TestKeysIndependent: each key has its own state, the empty key too, also
// when it is the first key a limiter sees.
func TestKeysIndependent(t *testing.T) {
	for _, p := range eachPolicy {
		l := mustNew(t, p)
		if d := l.Decide(0, "", p.MaxCost()); d.Outcome != Allowed {
			t.Fatalf("%s: %s", p.Algorithm, d.Explain())
		}
		if d := l.Decide(0, "", 1); d.Outcome == Allowed {
			t.Errorf("%s: key \"\" not full: %s", p.Algorithm, d.Explain())
		}
		if d := l.Decide(0, "b", p.MaxCost()); d.Outcome != Allowed {
			t.Errorf("%s: key b affected by \"\": %s", p.Algorithm, d.Explain())
		}
		if d := l.Decide(0, "", 1); d.Outcome == Allowed {
			t.Errorf("%s: key \"\" emptied by b: %s", p.Algorithm, d.Explain())
		}
	}
}

// TestInstant checks the 1/den ns grid arithmetic against big.Rat on random
// walks: every result normalised (0 ≤ frac < den), equal in value, and
// before, ceil and minus agreeing with exact comparison and rounding.
func TestInstant(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 3))
	val := func(x instant, den int64) *big.Rat {
		return new(big.Rat).Add(big.NewRat(x.ns, 1), big.NewRat(x.frac, den))
	}
	for range 200 {
		den := []int64{1, 2, 3, 7, 1000, 1 << 31, 1 + r.Int64N(1<<31)}[r.IntN(7)]
		x := instant{ns: r.Int64N(1e12) - 5e11}
		want := val(x, den)
		for range 50 {
			d := []int64{0, 1, den - 1, den, den + 1, r.Int64N(4 * den), r.Int64N(1 << 40)}[r.IntN(7)]
			y := x.add(d, den)
			if r.IntN(2) == 0 {
				y = x.sub(d, den)
				want.Sub(want, big.NewRat(d, den))
			} else {
				want.Add(want, big.NewRat(d, den))
			}
			if y.frac < 0 || y.frac >= den || val(y, den).Cmp(want) != 0 {
				t.Fatalf("den %d: %v ± %d/%d = %v, want %v", den, x, d, den, y, want.RatString())
			}
			if got, cmp := x.before(y), val(x, den).Cmp(val(y, den)); got != (cmp < 0) {
				t.Fatalf("%v.before(%v) = %v", x, y, got)
			}
			// ⌈x⌉ = −⌊−x⌋, and big.Int.Div floors for a positive divisor.
			neg := new(big.Rat).Neg(want)
			ceil := new(big.Int).Neg(new(big.Int).Div(neg.Num(), neg.Denom()))
			if got := y.ceil(); got != ceil.Int64() {
				t.Fatalf("%v.ceil() = %d, want ⌈%s⌉ = %v", y, got, want.RatString(), ceil)
			}
			if !y.before(x) {
				diff := y.minus(x, den)
				if diff.frac < 0 || diff.frac >= den || val(diff, den).Cmp(new(big.Rat).Sub(val(y, den), val(x, den))) != 0 {
					t.Fatalf("%v − %v = %v", y, x, diff)
				}
			}
			x = y
		}
	}
}

// TestInstantSeconds: an instant off the nanosecond grid is written "≈" and
// its nearest nanosecond, a half rounded up.
func TestInstantSeconds(t *testing.T) {
	for _, tt := range []struct {
		t    instant
		den  int64
		want string
	}{
		{instant{5, 0}, 3, "0.000000005s"},
		{instant{5, 1}, 3, "≈0.000000005s"},
		{instant{5, 1}, 2, "≈0.000000006s"},
		{instant{5, 2}, 3, "≈0.000000006s"},
	} {
		if got := instantSeconds(tt.t, tt.den); got != tt.want {
			t.Errorf("instantSeconds(%v, %d) = %q, want %q", tt.t, tt.den, got, tt.want)
		}
	}
	if got := gridSeconds(1e9, 3); got != "≈0.333333333s" {
		t.Errorf("gridSeconds(1e9, 3) = %q", got)
	}
	if got := gridSeconds(3e9, 3); got != "1s" {
		t.Errorf("gridSeconds(3e9, 3) = %q", got)
	}
}

func TestIntegerHelpers(t *testing.T) {
	for _, tt := range []struct{ a, b, ceil, floor int64 }{
		{7, 2, 4, 3}, {8, 2, 4, 4}, {0, 5, 0, 0}, {1, 1 << 40, 1, 0}, {-7, 2, -3, -4}, {-8, 2, -4, -4},
	} {
		if tt.a >= 0 && ceilDiv(tt.a, tt.b) != tt.ceil {
			t.Errorf("ceilDiv(%d, %d) = %d", tt.a, tt.b, ceilDiv(tt.a, tt.b))
		}
		if floorDiv(tt.a, tt.b) != tt.floor {
			t.Errorf("floorDiv(%d, %d) = %d", tt.a, tt.b, floorDiv(tt.a, tt.b))
		}
	}
	for _, tt := range []struct {
		a, b int64
		fits bool
	}{
		{1 << 31, 1 << 31, true}, {1 << 40, 1 << 22, true}, {1 << 40, 1<<22 + 1, false},
		{math.MaxInt64, 2, false}, {-1, 1, false}, {0, math.MaxInt64, true},
	} {
		if mulFits(tt.a, tt.b) != tt.fits {
			t.Errorf("mulFits(%d, %d) = %v", tt.a, tt.b, !tt.fits)
		}
	}
}

// TestSlidingLogRebase: the log's running totals are rebased before they
// could overflow; a log whose totals start near 2^62 decides exactly like a
// fresh one.
func TestSlidingLogRebase(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 5))
	for range 20 {
		p := randPolicy(r, SlidingLog)
		alg := newSlidingLog(p)
		fresh, shifted := alg.start(0), alg.start(0)
		shifted.base, shifted.total = maxScaled-3, maxScaled-3
		for i, rq := range randTrace(r, p, 200, false) {
			a := alg.decide(&fresh, &mem{}, rq.at, rq.cost)
			b := alg.decide(&shifted, &mem{}, rq.at, rq.cost)
			if a.Outcome != b.Outcome || a.RetryAfter != b.RetryAfter || a.v != b.v {
				t.Fatalf("%v request %d: fresh %s; rebased %s", p, i, a.Explain(), b.Explain())
			}
		}
		if shifted.total > maxScaled {
			t.Fatalf("running total %d not rebased", shifted.total)
		}
	}
}

// TestGCRAExplainNearOverflow: with an interval of 2^62 ns the new TAT
// would not fit an int64, and the explanation takes allow at directly.
func TestGCRAExplainNearOverflow(t *testing.T) {
	p := Policy{Algorithm: GCRA, Burst: 1, Rate: Rate{1, 1 << 62}}
	l := mustNew(t, p)
	l.Decide(0, "k", 1)
	d := l.Decide(1, "k", 1)
	want := "allow at = max(TAT 4611686018.427387904s, now 0.000000001s) − (1 − 1) × 4611686018.427387904s = 4611686018.427387904s > now 0.000000001s → rejected; retry after 4611686018.427387904s − 0.000000001s = 4611686018.427387903s"
	if d.RetryAfter != 1<<62-1 || d.Explain() != want {
		t.Fatalf("retry %d: %s\nwant %s", d.RetryAfter, d.Explain(), want)
	}
}

func TestFormatDuration(t *testing.T) {
	for _, tt := range []struct {
		d    time.Duration
		want string
	}{
		{0, "0s"}, {1, "1ns"}, {1500, "1.5µs"}, {100 * time.Millisecond, "100ms"},
		{time.Second, "1s"}, {59900 * time.Millisecond, "59.9s"}, {time.Minute, "60s"},
		{60100 * time.Millisecond, "60.1s"}, {time.Second + 1, "1.000000001s"},
		{time.Hour, "1h"}, {90 * time.Minute, "5400s"}, {8784 * time.Hour, "8784h"},
	} {
		got := FormatDuration(tt.d)
		if got != tt.want {
			t.Errorf("FormatDuration(%d) = %q, want %q", tt.d, got, tt.want)
		}
		if back, err := time.ParseDuration(got); err != nil || back != tt.d {
			t.Errorf("ParseDuration(%q) = %v, %v; want %v", got, back, err, tt.d)
		}
	}
}
