package algorithms

import (
	"reflect"
	"testing"
	"time"
)

const (
	ms  = time.Millisecond
	sec = time.Second
)

// step is one request of a worked example and what must come of it; an
// empty explain is not checked.
type step struct {
	at      time.Duration
	cost    int64
	want    Outcome
	delay   time.Duration
	retry   time.Duration
	explain string
}

// playSteps decides steps in order for one key of a fresh limiter of p and
// requires each outcome, delay and retry, and each explanation given.
func playSteps(t *testing.T, p Policy, steps []step) {
	t.Helper()
	l := mustNew(t, p)
	for i, s := range steps {
		d := l.Decide(s.at, "k", s.cost)
		if d.Outcome != s.want || d.Delay != s.delay || d.RetryAfter != s.retry {
			t.Fatalf("step %d at %v cost %d: %v delay %v retry %v, want %v delay %v retry %v\n%s",
				i, s.at, s.cost, d.Outcome, d.Delay, d.RetryAfter, s.want, s.delay, s.retry, d.Explain())
		}
		if s.explain != "" && d.Explain() != s.explain {
			t.Errorf("step %d explanation:\n got  %s\n want %s", i, d.Explain(), s.explain)
		}
	}
}

// shortStep is a step with no explanation to check, for tables written
// positionally: {at, cost, outcome, delay, retry}.
type shortStep struct {
	at           time.Duration
	cost         int64
	o            Outcome
	delay, retry time.Duration
}

// playShortSteps is playSteps for shortSteps.
func playShortSteps(t *testing.T, p Policy, steps []shortStep) {
	t.Helper()
	full := make([]step, len(steps))
	for i, s := range steps {
		full[i] = step{at: s.at, cost: s.cost, want: s.o, delay: s.delay, retry: s.retry}
	}
	playSteps(t, p, full)
}

// TestWorkedExamples plays the lesson's examples and asserts every
// decision, wait and explanation exactly.
func TestWorkedExamples(t *testing.T) {
	tests := []struct {
		name  string
		p     Policy
		steps []step
	}{
		{
			name: "token bucket drained at 0 holds half a token at 0.25s",
			p:    Policy{Algorithm: TokenBucket, Capacity: 10, Rate: Rate{2, sec}},
			steps: []step{
				{at: 0, cost: 10, want: Allowed,
					explain: "available = min(10, 10 + 0s × 2/s) = 10 ≥ cost 10 → allowed; 0 left"},
				{at: 250 * ms, cost: 1, want: Rejected, retry: 250 * ms,
					explain: "available = min(10, 0 + 0.25s × 2/s) = 0.5 < cost 1 → rejected; retry after (1 − 0.5) / 2/s = 0.25s"},
				{at: 500*ms - 1, cost: 1, want: Rejected, retry: 1},
				{at: 500 * ms, cost: 1, want: Allowed},
				{at: sec, cost: 1, want: Allowed,
					explain: "available = min(10, 0 + 0.5s × 2/s) = 1 ≥ cost 1 → allowed; 0 left"},
				{at: 100 * sec, cost: 11, want: Rejected, retry: Never,
					explain: "cost 11 > capacity 10 → rejected; this request can never fit"},
				{at: 100 * sec, cost: 10, want: Allowed},
			},
		},
		{
			name: "gcra drained at 0, same numbers as the token bucket",
			p:    Policy{Algorithm: GCRA, Burst: 10, Rate: Rate{2, sec}},
			steps: []step{
				{at: 0, cost: 10, want: Allowed,
					explain: "new TAT = max(TAT 0s, now 0s) + 10 × 0.5s = 5s; allow at = 5s − 10 × 0.5s = 0s ≤ now 0s → allowed"},
				{at: 250 * ms, cost: 1, want: Rejected, retry: 250 * ms,
					explain: "new TAT = max(TAT 5s, now 0.25s) + 1 × 0.5s = 5.5s; allow at = 5.5s − 10 × 0.5s = 0.5s > now 0.25s → rejected; retry after 0.5s − 0.25s = 0.25s"},
				{at: 500 * ms, cost: 1, want: Allowed},
				{at: 500 * ms, cost: 11, want: Rejected, retry: Never,
					explain: "cost 11 > burst 10 → rejected; this request can never fit"},
			},
		},
		{
			name: "gcra with an interval of a third of a second",
			p:    Policy{Algorithm: GCRA, Burst: 3, Rate: Rate{3, sec}},
			steps: []step{
				{at: 0, cost: 3, want: Allowed},
				{at: 0, cost: 1, want: Rejected, retry: 333333334,
					explain: "new TAT = max(TAT 1s, now 0s) + 1 × ≈0.333333333s = ≈1.333333333s; allow at = ≈1.333333333s − 3 × ≈0.333333333s = ≈0.333333333s > now 0s → rejected; retry after ≈0.333333333s − 0s = 0.333333334s"},
				{at: 333333333, cost: 1, want: Rejected, retry: 1},
				// Three intervals of 1/3 s are exactly 1s: no drift.
				{at: sec - 1, cost: 3, want: Rejected, retry: 1},
				{at: sec, cost: 3, want: Allowed},
				{at: 2*sec - 1, cost: 3, want: Rejected, retry: 1},
				{at: 2 * sec, cost: 3, want: Allowed},
			},
		},
		{
			name: "fixed window: rejected 61.5s into a full window",
			p:    Policy{Algorithm: FixedWindow, Limit: 120, Window: time.Minute},
			steps: []step{
				{at: 59 * sec, cost: 120, want: Allowed},
				{at: 60 * sec, cost: 119, want: Allowed,
					explain: "window [60s, 120s): count 0 + cost 119 = 119 ≤ limit 120 → allowed"},
				{at: 61 * sec, cost: 1, want: Allowed},
				{at: 61500 * ms, cost: 1, want: Rejected, retry: 58500 * ms,
					explain: "window [60s, 120s): count 120 + cost 1 = 121 > limit 120 → rejected; retry after 120s − 61.5s = 58.5s"},
				{at: 120*sec - 1, cost: 1, want: Rejected, retry: 1},
				{at: 120 * sec, cost: 120, want: Allowed},
				{at: 120 * sec, cost: 121, want: Rejected, retry: Never,
					explain: "cost 121 > limit 120 → rejected; this request can never fit"},
			},
		},
		{
			name: "sliding log of 3: an admission at t expires at exactly t + W",
			p:    Policy{Algorithm: SlidingLog, Limit: 3, Window: sec},
			steps: []step{
				{at: 0, cost: 1, want: Allowed,
					explain: "recent = cost admitted in (-1s, 0s] = 0; 0 + cost 1 = 1 ≤ limit 3 → allowed"},
				{at: 100 * ms, cost: 1, want: Allowed},
				{at: 200 * ms, cost: 1, want: Allowed},
				{at: 500 * ms, cost: 1, want: Rejected, retry: 500 * ms,
					explain: "recent = cost admitted in (-0.5s, 0.5s] = 3; 3 + cost 1 = 4 > limit 3 → rejected; 1 must expire: the admissions up to 0s free 1 at 0s + 1s = 1s; retry after 1s − 0.5s = 0.5s"},
				{at: sec - 1, cost: 1, want: Rejected, retry: 1},
				// At exactly 0 + W the first admission no longer counts.
				{at: sec, cost: 1, want: Allowed},
				{at: sec, cost: 2, want: Rejected, retry: 200 * ms,
					explain: "recent = cost admitted in (0s, 1s] = 3; 3 + cost 2 = 5 > limit 3 → rejected; 2 must expire: the admissions up to 0.2s free 2 at 0.2s + 1s = 1.2s; retry after 1.2s − 1s = 0.2s"},
				{at: 1200 * ms, cost: 2, want: Allowed},
				{at: 1200 * ms, cost: 4, want: Rejected, retry: Never,
					explain: "cost 4 > limit 3 → rejected; this request can never fit"},
			},
		},
		{
			name: "sliding counter: 20 + 120 × 0.5 = 80 halfway through the window",
			p:    Policy{Algorithm: SlidingCounter, Limit: 120, Window: time.Minute},
			steps: []step{
				{at: 0, cost: 120, want: Allowed},
				// At 60s the whole previous window weighs: 120 + 20 > 120.
				{at: 60 * sec, cost: 20, want: Rejected, retry: 10 * sec,
					explain: "estimate = 0 + 120 × (60s − 0s)/60s = 120; 120 + cost 20 = 140 > limit 120 → rejected; retry after 10s, when estimate = 0 + 120 × (60s − 10s)/60s = 100 and 100 + cost 20 ≤ 120"},
				{at: 90 * sec, cost: 20, want: Allowed},
				{at: 90 * sec, cost: 1, want: Allowed,
					explain: "estimate = 20 + 120 × (60s − 30s)/60s = 80; 80 + cost 1 = 81 ≤ limit 120 → allowed"},
				// 81 + 40 > 120; at 90.5s the estimate is 21 + 59 = 80.
				{at: 90 * sec, cost: 40, want: Rejected, retry: 500 * ms,
					explain: "estimate = 21 + 120 × (60s − 30s)/60s = 81; 81 + cost 40 = 121 > limit 120 → rejected; retry after 0.5s, when estimate = 21 + 120 × (60s − 30.5s)/60s = 80 and 80 + cost 40 ≤ 120"},
				// 21 + 99 = 120 leaves no room for the previous window: it
				// fits exactly when the next one starts.
				{at: 90 * sec, cost: 99, want: Rejected, retry: 30 * sec,
					explain: "estimate = 21 + 120 × (60s − 30s)/60s = 81; 81 + cost 99 = 180 > limit 120 → rejected; retry after 30s, when estimate = 0 + 21 × (60s − 0s)/60s = 21 and 21 + cost 99 ≤ 120"},
				// 21 + 100 > 120 whatever the previous window: wait for the
				// next one, where 21 weighs (60s − e)/60s: e ≥ 60s/21.
				{at: 90 * sec, cost: 100, want: Rejected, retry: 30*sec + 2857142858,
					explain: "estimate = 21 + 120 × (60s − 30s)/60s = 81; 81 + cost 100 = 181 > limit 120 → rejected; retry after 32.857142858s, when estimate = 0 + 21 × (60s − 2.857142858s)/60s = ≈20 and ≈20 + cost 100 ≤ 120"},
				// A full-limit request must wait for both windows to empty.
				{at: 90 * sec, cost: 120, want: Rejected, retry: 90 * sec,
					explain: "estimate = 21 + 120 × (60s − 30s)/60s = 81; 81 + cost 120 = 201 > limit 120 → rejected; retry after 90s, when estimate = 0 + 0 × (60s − 0s)/60s = 0 and 0 + cost 120 ≤ 120"},
				{at: 180*sec - 1, cost: 120, want: Rejected, retry: 1},
				{at: 180 * sec, cost: 120, want: Allowed},
			},
		},
		{
			name: "leaky bucket queue 10 at 2/s: 1 now, 10 delayed 0.5s…5s, the 12th rejected",
			p:    Policy{Algorithm: LeakyBucket, Queue: 10, Rate: Rate{2, sec}},
			steps: []step{
				{at: 0, cost: 1, want: Allowed,
					explain: "free = max(next free 0s, now 0s) = 0s; delay = 0s − 0s = 0s ≤ queue 10 × 0.5s = 5s → allowed, released now; 0 waiting"},
				{at: 0, cost: 1, want: Delayed, delay: 500 * ms,
					explain: "free = max(next free 0.5s, now 0s) = 0.5s; delay = 0.5s − 0s = 0.5s ≤ queue 10 × 0.5s = 5s → delayed 0.5s; 1 waiting"},
				{at: 0, cost: 1, want: Delayed, delay: 1000 * ms},
				{at: 0, cost: 1, want: Delayed, delay: 1500 * ms},
				{at: 0, cost: 1, want: Delayed, delay: 2000 * ms},
				{at: 0, cost: 1, want: Delayed, delay: 2500 * ms},
				{at: 0, cost: 1, want: Delayed, delay: 3000 * ms},
				{at: 0, cost: 1, want: Delayed, delay: 3500 * ms},
				{at: 0, cost: 1, want: Delayed, delay: 4000 * ms},
				{at: 0, cost: 1, want: Delayed, delay: 4500 * ms},
				{at: 0, cost: 1, want: Delayed, delay: 5000 * ms,
					explain: "free = max(next free 5s, now 0s) = 5s; delay = 5s − 0s = 5s ≤ queue 10 × 0.5s = 5s → delayed 5s; 10 waiting"},
				{at: 0, cost: 1, want: Rejected, retry: 500 * ms,
					explain: "free = max(next free 5.5s, now 0s) = 5.5s; delay = 5.5s − 0s = 5.5s > queue 10 × 0.5s = 5s → rejected (10 waiting); retry after 5.5s − 5s = 0.5s"},
				{at: 0, cost: 2, want: Rejected, retry: sec,
					explain: "free = max(next free 5.5s, now 0s) = 5.5s; delay = 5.5s − 0s = 5.5s; 5.5s + (2 − 1) × 0.5s = 6s > queue 10 × 0.5s = 5s → rejected (10 waiting); retry after 6s − 5s = 1s"},
				{at: 0, cost: 12, want: Rejected, retry: Never,
					explain: "cost 12 > queue 10 + 1 → rejected; this request can never fit"},
				{at: 500*ms - 1, cost: 1, want: Rejected, retry: 1},
				// The first delayed request left at 0.5s: one place free.
				{at: 500 * ms, cost: 1, want: Delayed, delay: 5 * sec},
				{at: 500 * ms, cost: 1, want: Rejected, retry: 500 * ms},
			},
		},
		{
			name: "leaky bucket: a request of cost Queue + 1 fits only an idle pipe",
			p:    Policy{Algorithm: LeakyBucket, Queue: 2, Rate: Rate{1, sec}},
			steps: []step{
				{at: 0, cost: 3, want: Allowed},
				// It holds the pipe for 3s: a delay of 3s > 2 × 1s.
				{at: 0, cost: 1, want: Rejected, retry: sec},
				{at: sec, cost: 1, want: Delayed, delay: 2 * sec},
				{at: 3 * sec, cost: 3, want: Rejected, retry: sec},
				{at: 4 * sec, cost: 3, want: Allowed},
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) { playSteps(t, tt.p, tt.steps) })
	}
}

// TestSnapshots checks each Snapshot's fields on a worked example.
func TestSnapshots(t *testing.T) {
	tests := []struct {
		name  string
		p     Policy
		reqs  []req
		at    time.Duration
		want  Snapshot
		alias func(Snapshot) // mutates the snapshot's slices, if any
	}{
		{
			name: "token bucket half a token at 0.25s",
			p:    Policy{Algorithm: TokenBucket, Capacity: 10, Rate: Rate{2, sec}},
			reqs: []req{{0, 10}, {250 * ms, 1}},
			at:   250 * ms,
			want: TokenBucketSnapshot{Now: 250 * ms, Capacity: 10, Rate: Rate{2, sec},
				Available: Quantity{5e8, 1e9}, FullAt: 5 * sec},
		},
		{
			name: "gcra after a burst of 10 at 2/s",
			p:    Policy{Algorithm: GCRA, Burst: 10, Rate: Rate{2, sec}},
			reqs: []req{{0, 10}},
			at:   250 * ms,
			want: GCRASnapshot{Now: 250 * ms, Burst: 10, Rate: Rate{2, sec},
				Interval: Quantity{1e9, 2}, Tolerance: Quantity{10e9, 2}, TAT: 5 * sec,
				Available: Quantity{5e8, 1e9}},
		},
		{
			name: "gcra idle: TAT is now",
			p:    Policy{Algorithm: GCRA, Burst: 2, Rate: Rate{3, sec}},
			reqs: []req{{0, 1}},
			at:   10 * sec,
			want: GCRASnapshot{Now: 10 * sec, Burst: 2, Rate: Rate{3, sec},
				Interval: Quantity{1e9, 3}, Tolerance: Quantity{2e9, 3}, TAT: 10 * sec,
				Available: Quantity{2e9, 1e9}},
		},
		{
			name: "fixed window keeps the previous count",
			p:    Policy{Algorithm: FixedWindow, Limit: 5, Window: time.Minute},
			reqs: []req{{10 * sec, 3}, {70 * sec, 1}, {80 * sec, 1}},
			at:   90 * sec,
			want: FixedWindowSnapshot{Now: 90 * sec, Limit: 5, Window: time.Minute,
				Start: time.Minute, End: 2 * time.Minute, Count: 2, Previous: 3},
		},
		{
			name: "fixed window two windows later: both counts zero",
			p:    Policy{Algorithm: FixedWindow, Limit: 5, Window: time.Minute},
			reqs: []req{{10 * sec, 3}},
			at:   125 * sec,
			want: FixedWindowSnapshot{Now: 125 * sec, Limit: 5, Window: time.Minute,
				Start: 2 * time.Minute, End: 3 * time.Minute},
		},
		{
			name: "sliding log drops the entry at exactly now − W",
			p:    Policy{Algorithm: SlidingLog, Limit: 3, Window: sec},
			reqs: []req{{0, 1}, {100 * ms, 2}, {200 * ms, 1}},
			at:   sec,
			want: SlidingLogSnapshot{Now: sec, Limit: 3, Window: sec,
				Entries: []LogEntry{{100 * ms, 2}}, Count: 2, OldestExpiresAt: 1100 * ms},
			alias: func(s Snapshot) { s.(SlidingLogSnapshot).Entries[0].Cost = 99 },
		},
		{
			name: "sliding log empty",
			p:    Policy{Algorithm: SlidingLog, Limit: 3, Window: sec},
			reqs: []req{{0, 1}},
			at:   5 * sec,
			want: SlidingLogSnapshot{Now: 5 * sec, Limit: 3, Window: sec},
		},
		{
			name: "sliding counter halfway: 20 + 120 × 0.5 = 80",
			p:    Policy{Algorithm: SlidingCounter, Limit: 120, Window: time.Minute},
			reqs: []req{{0, 120}, {90 * sec, 20}},
			at:   90 * sec,
			want: SlidingCounterSnapshot{Now: 90 * sec, Limit: 120, Window: time.Minute, SubWindows: 1, SubWindow: time.Minute,
				Start: time.Minute, Current: 20, Previous: 120,
				Weight: Quantity{30e9, 60e9}, Estimate: Quantity{80 * 60e9, 60e9}},
		},
		{
			name: "leaky bucket queue at 1.2s",
			p:    Policy{Algorithm: LeakyBucket, Queue: 4, Rate: Rate{2, sec}},
			reqs: []req{{0, 1}, {0, 1}, {0, 1}, {0, 2}},
			at:   1200 * ms,
			want: LeakyBucketSnapshot{Now: 1200 * ms, Queue: 4, Rate: Rate{2, sec},
				Interval: Quantity{1e9, 2},
				Waiting:  []Release{{Arrived: 0, At: 1500 * ms, Cost: 2}},
				NextFree: 2500 * ms},
			alias: func(s Snapshot) { s.(LeakyBucketSnapshot).Waiting[0].Cost = 99 },
		},
		{
			name: "leaky bucket idle",
			p:    Policy{Algorithm: LeakyBucket, Queue: 3, Rate: Rate{2, sec}},
			reqs: []req{{0, 1}},
			at:   sec,
			want: LeakyBucketSnapshot{Now: sec, Queue: 3, Rate: Rate{2, sec},
				Interval: Quantity{1e9, 2}, NextFree: sec},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			l := mustNew(t, tt.p)
			run(l, tt.reqs)
			got := l.Snapshot(tt.at, "k")
			if !reflect.DeepEqual(got, tt.want) {
				t.Fatalf("snapshot\n got  %+v\n want %+v", got, tt.want)
			}
			if got.Moment() != tt.at {
				t.Errorf("Moment() = %v, want %v", got.Moment(), tt.at)
			}
			if tt.alias != nil {
				tt.alias(got)
				if again := l.Snapshot(tt.at, "k"); !reflect.DeepEqual(again, tt.want) {
					t.Errorf("changing a snapshot's slice changed the state: %+v", again)
				}
			}
		})
	}
}
