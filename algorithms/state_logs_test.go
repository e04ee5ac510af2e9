package algorithms

import (
	"fmt"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"
	"time"
)

// logStatePolicies are policies of the logs whose states are written as
// whole numbers: tiny and larger limits, odd windows, one under 1ms (where
// the collapsing log's newest member may be outside the window already).
var logStatePolicies = []Policy{
	{Algorithm: SlidingLog, Limit: 5, Window: time.Second},
	{Algorithm: SlidingLog, Limit: 1, Window: 700 * time.Millisecond},
	{Algorithm: SlidingLog, Limit: 120, Window: time.Minute},
	{Algorithm: AttemptLog, Limit: 5, Window: 10 * time.Second},
	{Algorithm: AttemptLog, Limit: 1, Window: 3 * time.Millisecond},
	{Algorithm: AttemptLog, Limit: 7, Window: 700 * time.Millisecond},
	{Algorithm: CollapsingLog, Limit: 5, Window: time.Second},
	{Algorithm: CollapsingLog, Limit: 3, Window: 2500 * time.Microsecond},
	{Algorithm: CollapsingLog, Limit: 4, Window: 300 * time.Microsecond},
}

// TestLogStateRoundTrip: after every request of random traffic on several
// keys, the key's state written as numbers reads back into a limiter that
// writes it again the same and shows it the same (its snapshot); and a limiter that imports every key's state
// halfway decides the rest exactly as the original (why texts and states).
func TestLogStateRoundTrip(t *testing.T) {
	keys := []string{"a", "b", "c"}
	for i, p := range logStatePolicies {
		for seed := range uint64(4) {
			t.Run(fmt.Sprintf("%s-%d-%d", p.Algorithm, i, seed), func(t *testing.T) {
				r := rand.New(rand.NewPCG(seed, uint64(i)))
				ks := NewKeys()
				orig, err := NewWithKeys(p, ks)
				if err != nil {
					t.Fatal(err)
				}
				trace := randTrace(r, p, 400, true)
				var imported Limiter
				for n, rq := range trace {
					k := ks.Key(keys[r.IntN(len(keys))])
					if n == len(trace)/2 {
						imported = mustImportAll(t, p, ks, orig)
					}
					want := orig.DecideKey(rq.at, k, rq.cost)
					st, ok := orig.(StateCodec).ExportKey(k)
					if !ok {
						t.Fatalf("request %d: no state after a decision", n)
					}
					scratch, _ := NewWithKeys(p, ks)
					if err := scratch.(StateCodec).ImportKey(k, st); err != nil {
						t.Fatalf("request %d: state %v does not read back: %v", n, st, err)
					}
					if again, _ := scratch.(StateCodec).ExportKey(k); !sameLogState(again, st) {
						t.Fatalf("request %d: state %v reads back as %v", n, st, again)
					}
					// What a learner sees of it too (the admitted ones among
					// the attempts, the collapsed admissions).
					if a, b := scratch.Snapshot(rq.at, k.String()), orig.Snapshot(rq.at, k.String()); !reflect.DeepEqual(a, b) {
						t.Fatalf("request %d: state %v reads back showing %+v, not %+v", n, st, a, b)
					}
					if imported == nil {
						continue
					}
					got := imported.DecideKey(rq.at, k, rq.cost)
					if got.Explain() != want.Explain() || got.Outcome != want.Outcome || got.RetryAfter != want.RetryAfter {
						t.Fatalf("request %d (at %s cost %d): imported %q, original %q", n, FormatSeconds(rq.at), rq.cost, got.Explain(), want.Explain())
					}
					if mine, _ := imported.(StateCodec).ExportKey(k); !sameLogState(mine, st) {
						t.Fatalf("request %d: imported holds %v, original %v", n, mine, st)
					}
				}
			})
		}
	}
}

// mustImportAll is a new limiter of p holding every key's state of src.
func mustImportAll(t *testing.T, p Policy, ks *Keys, src Limiter) Limiter {
	t.Helper()
	dst, err := NewWithKeys(p, ks)
	if err != nil {
		t.Fatal(err)
	}
	for k := range ks.All {
		if st, ok := src.(StateCodec).ExportKey(k); ok {
			if err := dst.(StateCodec).ImportKey(k, st); err != nil {
				t.Fatalf("key %s: %v", k, err)
			}
		}
	}
	return dst
}

func sameLogState(a, b State) bool {
	return fmt.Sprint(a.Fields) == fmt.Sprint(b.Fields) && fmt.Sprint(a.Log) == fmt.Sprint(b.Log)
}

// TestLogStateRejects: states no limiter of the policy could hold are
// refused, each with its reason.
func TestLogStateRejects(t *testing.T) {
	sec := int64(time.Second)
	ms := int64(time.Millisecond)
	slide := Policy{Algorithm: SlidingLog, Limit: 5, Window: time.Second}
	tried := Policy{Algorithm: AttemptLog, Limit: 5, Window: time.Second}
	coll := Policy{Algorithm: CollapsingLog, Limit: 5, Window: time.Second}
	tests := []struct {
		p    Policy
		st   State
		want string // in the error; "" for a state that is fine
	}{
		{slide, State{Fields: []int64{2 * sec}, Log: []int64{sec + 1, 2, 2 * sec, 3}}, ""},
		{slide, State{Fields: []int64{2 * sec}}, ""},
		{slide, State{Fields: []int64{-1}}, "negative"},
		{slide, State{Fields: []int64{sec / 2}, Log: []int64{-1, 1}}, "outside the window"},
		{slide, State{Fields: []int64{2 * sec}, Log: []int64{sec, 1}}, "outside the window"},
		{slide, State{Fields: []int64{2 * sec}, Log: []int64{2*sec + 1, 1}}, "outside the window"},
		{slide, State{Fields: []int64{2 * sec}, Log: []int64{2 * sec, 1, sec + 5, 1}}, "out of order"},
		{slide, State{Fields: []int64{2 * sec}, Log: []int64{2 * sec, 0}}, "cost 0"},
		{slide, State{Fields: []int64{2 * sec}, Log: []int64{2 * sec, 6}}, "cost 6"},
		{slide, State{Fields: []int64{2 * sec}, Log: []int64{sec + 1, 3, 2 * sec, 3}}, "past the limit"},
		{slide, State{Fields: []int64{2 * sec}, Log: []int64{2 * sec}}, "not whole items"},
		{tried, State{Fields: []int64{2 * sec}, Log: []int64{sec + 1, 3, 1, sec + 2, 3, 0, 2 * sec, 3, 0}}, ""},
		{tried, State{Fields: []int64{2 * sec}, Log: []int64{sec + 1, 3, 1, sec + 2, 3, 1}}, "past the limit"},
		{tried, State{Fields: []int64{2 * sec}, Log: []int64{sec + 1, 3, 2}}, "mark is 2"},
		{tried, State{Fields: []int64{2 * sec}, Log: []int64{sec, 3, 1}}, "outside the window"},
		{coll, State{Fields: []int64{2 * sec, 4, 2}, Log: []int64{1001, 2, 2000, 3}}, ""},
		{coll, State{Fields: []int64{2 * sec, 4, 1}, Log: []int64{1001, 2, 2000, 3}}, "admitted ≥ added ≥ members"},
		{coll, State{Fields: []int64{2 * sec, 1, 2}}, "admitted ≥ added"},
		{coll, State{Fields: []int64{2 * sec, 4, 2}, Log: []int64{2000, 2, 2000, 1}}, "out of order"},
		{coll, State{Fields: []int64{2 * sec, 4, 2}, Log: []int64{2001, 2}}, "not a millisecond"},
		{coll, State{Fields: []int64{2 * sec, 4, 2}, Log: []int64{1000, 2}}, "outside the window"},
		{coll, State{Fields: []int64{2 * sec, 4, 2}, Log: []int64{1001, 3, 2000, 3}}, "past the limit"},
		{coll, State{Fields: []int64{2*sec + ms/2, 4, 2}, Log: []int64{2000, 3}}, ""},
		{Policy{Algorithm: CollapsingLog, Limit: 5, Window: time.Microsecond},
			State{Fields: []int64{2*sec + ms/2, 4, 2}, Log: []int64{2000, 3}}, ""},
		{Policy{Algorithm: CollapsingLog, Limit: 5, Window: time.Microsecond},
			State{Fields: []int64{2*sec + ms/2, 4, 2}, Log: []int64{1999, 1, 2000, 3}}, "outside the window"},
	}
	for i, tt := range tests {
		ks := NewKeys()
		l, err := NewWithKeys(tt.p, ks)
		if err != nil {
			t.Fatal(err)
		}
		err = l.(StateCodec).ImportKey(ks.Key("k"), tt.st)
		switch {
		case tt.want == "" && err != nil:
			t.Errorf("%d: %s %v: %v", i, tt.p.Algorithm, tt.st, err)
		case tt.want != "" && (err == nil || !strings.Contains(err.Error(), tt.want)):
			t.Errorf("%d: %s %v: error %v, want one saying %q", i, tt.p.Algorithm, tt.st, err, tt.want)
		case err == nil:
			if back, _ := l.(StateCodec).ExportKey(ks.Key("k")); !sameLogState(back, tt.st) {
				t.Errorf("%d: %v reads back as %v", i, tt.st, back)
			}
		}
	}
}
