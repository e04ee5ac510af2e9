package algorithms

import (
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"
	"time"
)

// windowStatePolicy draws a policy of alg; for the sliding counter, subs
// says whether it has sub-windows (N > 1) or not.
func windowStatePolicy(r *rand.Rand, alg Algorithm, subs bool) Policy {
	for {
		p := randPolicy(r, alg)
		if alg != SlidingCounter || (p.SubWindows > 1) == subs {
			return p
		}
	}
}

// TestWindowStatesRoundTrip: for the fixed window, the sliding counter
// (with and without sub-windows) and the resetting window, after random
// traffic on several keys, a key's state written as whole numbers reads
// back (ImportKey into a fresh limiter) as a state that writes the same
// numbers, and the limiter that imported it decides the key's next
// requests as the original does: outcome, retry-after, why text,
// snapshot, state and bytes held.
func TestWindowStatesRoundTrip(t *testing.T) {
	r := rand.New(rand.NewPCG(10, 4))
	cases := []struct {
		name string
		alg  Algorithm
		subs bool
	}{
		{"fixed-window", FixedWindow, false},
		{"sliding-counter", SlidingCounter, false},
		{"sliding-counter sub-windows", SlidingCounter, true},
		{"resetting-window", ResettingWindow, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			for range 80 {
				p := windowStatePolicy(r, c.alg, c.subs)
				if got, want := p.StateForm(), Describe(c.alg).StateFor; want == nil && !reflect.DeepEqual(got, Describe(c.alg).State) {
					t.Fatalf("%v: StateForm %v", p, got)
				}
				roundTrip(t, r, p)
			}
		})
	}
}

func roundTrip(t *testing.T, r *rand.Rand, p Policy) {
	t.Helper()
	keys := []string{"a", "b", "c"}
	reqs := randTrace(r, p, 120, true)
	ks := NewKeys()
	orig, err := NewWithKeys(p, ks)
	if err != nil {
		t.Fatal(err)
	}
	form := p.StateForm()
	names := make([]string, len(reqs))
	for i := range reqs {
		names[i] = keys[r.IntN(len(keys))]
	}
	for i, q := range reqs {
		orig.DecideKey(q.at, ks.Key(names[i]), q.cost)
		if r.IntN(8) != 0 {
			continue
		}
		k := ks.Key(names[i])
		st, ok := orig.(StateCodec).ExportKey(k)
		if !ok {
			t.Fatalf("%v: no state for %s after a decision", p, k)
		}
		if err := form.checkShape(st); err != nil {
			t.Fatalf("%v: %v", p, err)
		}
		cp, err := NewWithKeys(p, ks)
		if err != nil {
			t.Fatal(err)
		}
		if err := cp.(StateCodec).ImportKey(k, st); err != nil {
			t.Fatalf("%v after request %d: ImportKey(%v): %v", p, i, st, err)
		}
		again, _ := cp.(StateCodec).ExportKey(k)
		if !reflect.DeepEqual(again, st) {
			t.Fatalf("%v after request %d: exported %v, imported and exported again %v", p, i, st, again)
		}
		o := orig.Clone()
		at := q.at
		if got, want := cp.KeyBytes(at, k), o.KeyBytes(at, k); got != want {
			t.Fatalf("%v after request %d (%v): holds %d bytes, the original %d", p, i, st, got, want)
		}
		for j, n := range reqs[i+1 : min(len(reqs), i+40)] {
			if r.IntN(3) == 0 {
				n.at = max(0, q.at-time.Duration(r.Int64N(int64(p.Window)+1)))
			}
			a, b := o.DecideKey(n.at, k, n.cost), cp.DecideKey(n.at, k, n.cost)
			if a.Outcome != b.Outcome || a.RetryAfter != b.RetryAfter || a.Explain() != b.Explain() {
				t.Fatalf("%v, imported %v, then request %d %+v:\n original %s\n imported %s", p, st, j, n, a.Explain(), b.Explain())
			}
			if sa, sb := o.Snapshot(n.at, k.String()), cp.Snapshot(n.at, k.String()); !reflect.DeepEqual(sa, sb) {
				t.Fatalf("%v, imported %v, then request %d: snapshots\n original %+v\n imported %+v", p, st, j, sa, sb)
			}
			ea, _ := o.(StateCodec).ExportKey(k)
			eb, _ := cp.(StateCodec).ExportKey(k)
			if !reflect.DeepEqual(ea, eb) {
				t.Fatalf("%v, imported %v, then request %d: states %v and %v", p, st, j, ea, eb)
			}
		}
	}
}

// TestWindowStatesRejected: states no run makes are refused with an error.
func TestWindowStatesRejected(t *testing.T) {
	fixed := Policy{Algorithm: FixedWindow, Limit: 5, Window: 10 * time.Second}
	counter := Policy{Algorithm: SlidingCounter, Limit: 5, Window: 10 * time.Second}
	subs := Policy{Algorithm: SlidingCounter, Limit: 5, Window: 10 * time.Second, SubWindows: 2}
	resetting := Policy{Algorithm: ResettingWindow, Limit: 5, Window: 10 * time.Second}
	s := int64(time.Second)
	for _, c := range []struct {
		p    Policy
		st   State
		want string // "" for a state that is accepted
	}{
		{fixed, State{Fields: []int64{5, 5, 15 * s}}, ""},
		{fixed, State{Fields: []int64{6, 0, 15 * s}}, "out of range"},
		{fixed, State{Fields: []int64{0, -1, 15 * s}}, "out of range"},
		{fixed, State{Fields: []int64{0, 0, -1}}, "out of range"},
		{fixed, State{Fields: []int64{0, 1, 5 * s}}, "first window"},
		{fixed, State{Fields: []int64{0, 0}}, "2 fields, want 3"},
		{counter, State{Fields: []int64{2, 3, 10 * s}}, ""},
		{counter, State{Fields: []int64{2, 4, 10 * s}}, "estimate"},
		{counter, State{Fields: []int64{2, 5, 16 * s}}, ""},
		{counter, State{Fields: []int64{2, 5, 13 * s}}, "estimate"},
		{subs, State{Fields: []int64{12 * s}}, ""},
		{subs, State{Fields: []int64{12 * s}, Log: []int64{1, 2, 2}}, ""},
		{subs, State{Fields: []int64{12 * s}, Log: []int64{3, 2, 2}}, "estimate"},
		{subs, State{Fields: []int64{12 * s}, Log: []int64{0, 4, 2}}, "estimate"},
		{subs, State{Fields: []int64{12 * s}, Log: []int64{0, 2}}, "want none or 3"},
		{subs, State{Fields: []int64{12 * s}, Log: []int64{0, -1, 2}}, "out of range"},
		{subs, State{Fields: []int64{3 * s}, Log: []int64{1, 0, 2}}, "before t = 0"},
		{subs, State{Fields: []int64{-1}}, "before t = 0"},
		{resetting, State{Fields: []int64{7, 12 * s, 1 * s, 5 * s}}, ""},
		{resetting, State{Fields: []int64{0, 0, 0, 5 * s}}, ""},
		{resetting, State{Fields: []int64{3, 5 * s, 1 * s, 5 * s}}, "an expired key"},
		{resetting, State{Fields: []int64{0, 12 * s, 1 * s, 5 * s}}, "out of range"},
		{resetting, State{Fields: []int64{7, 16 * s, 1 * s, 5 * s}}, "out of range"},
		{resetting, State{Fields: []int64{7, 12 * s, 3 * s, 5 * s}}, "out of range"},
		{resetting, State{Fields: []int64{7, 12 * s, 1 * s, -1}}, "before t = 0"},
	} {
		l := mustNew(t, c.p).(StateCodec)
		err := l.ImportKey(NewKeys().Key("k"), c.st)
		if (err == nil) != (c.want == "") || err != nil && !strings.Contains(err.Error(), c.want) {
			t.Errorf("%v: ImportKey(%v) = %v, want %q", c.p, c.st, err, c.want)
		}
	}
}
