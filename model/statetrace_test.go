package model

import (
	"fmt"
	"math"
	"reflect"
	"testing"
	"time"

	"ratelab/scenarios"
)

// wantStates is every lane's Snapshot of key with a lab of s seeked to
// each instant: what StatesAt must answer, by another road.
func wantStates(t *testing.T, s *scenarios.Scenario, key string, at []time.Duration, fired func(*Lab)) [][]string {
	t.Helper()
	ref := newLab(t, s)
	if fired != nil {
		fired(ref)
	}
	out := make([][]string, len(at))
	for i, x := range at {
		ref.Seek(x)
		for lane := range ref.Lanes() {
			out[i] = append(out[i], fmt.Sprintf("%#v", ref.Snapshot(lane, key)))
		}
	}
	return out
}

// statesText traces key's states at at in slices of n requests, each
// slice replaying no more than n, then reads them.
func statesText(t *testing.T, lab *Lab, key string, at []time.Duration, n int) [][]string {
	t.Helper()
	for i := 0; ; i++ {
		did, more := lab.TraceStates(key, at, n)
		if did > n || did == 0 && more || i > 1_000_000 {
			t.Fatalf("slice %d replayed %d of %d, more %v", i, did, n, more)
		}
		if !more {
			break
		}
	}
	states := lab.StatesAt(key, at)
	out := make([][]string, len(states))
	for i, lanes := range states {
		for _, s := range lanes {
			out[i] = append(out[i], fmt.Sprintf("%#v", s))
		}
	}
	return out
}

// instants are n instants spread over [0, end), ascending.
func instants(end time.Duration, n int) []time.Duration {
	at := make([]time.Duration, n)
	for i := range at {
		at[i] = end * time.Duration(i) / time.Duration(n)
	}
	return at
}

// TestStatesAtIsTheClockSeeked: on every canned lesson (clients that
// retry, shapers, gateways, stacks), the trace at each instant is the
// state a clock seeked there shows; asked again with the clock moved back,
// it answers only the instants before the clock; after a fired request, it
// answers from the new decisions.
func TestStatesAtIsTheClockSeeked(t *testing.T) {
	for _, info := range scenarios.List() {
		t.Run(info.Name, func(t *testing.T) {
			s, err := scenarios.Canned(info.Name)
			if err != nil {
				t.Fatal(err)
			}
			lab := newLab(t, s)
			keys := lab.Keys()
			key := keys[len(keys)-1]
			at := instants(lab.End(), 37)
			lab.Seek(lab.End())
			want := wantStates(t, s, key, at, nil)
			if got := statesText(t, lab, key, at, math.MaxInt); !reflect.DeepEqual(got, want) {
				t.Fatalf("states at the clock's end differ from a clock seeked to each instant:\n got %v\nwant %v", got, want)
			}
			// The clock halfway: only the instants before it.
			half := at[len(at)/2]
			lab.Seek(half)
			if got := statesText(t, lab, key, at, 7); !reflect.DeepEqual(got, want[:len(at)/2]) {
				t.Fatalf("with the clock at %v: %d states, want the %d before it, equal", half, len(got), len(at)/2)
			}
			// A request fired at the quarter changes what follows it.
			fire := func(l *Lab) {
				if _, err := l.FireAt(at[len(at)/4], key, 1); err != nil {
					t.Fatal(err)
				}
			}
			fire(lab)
			lab.Seek(lab.End())
			want = wantStates(t, s, key, at, fire)
			if got := statesText(t, lab, key, at, 100); !reflect.DeepEqual(got, want) {
				t.Fatalf("after a fired request the trace differs from a clock seeked there:\n got %v\nwant %v", got, want)
			}
		})
	}
}

// TestTraceStatesKeepsItsBudget: a slice replays no more than it is
// given, StatesAt answers the instants found so far and replays nothing,
// and instants answered once cost nothing the second time.
func TestTraceStatesKeepsItsBudget(t *testing.T) {
	s, err := scenarios.Canned("boundary")
	if err != nil {
		t.Fatal(err)
	}
	lab := newLab(t, s)
	lab.Seek(lab.End())
	at := instants(lab.End(), 50)
	if did, more := lab.TraceStates(scenarios.DefaultKey, at, 100); did != 100 || !more {
		t.Fatalf("a slice of 100 replayed %d, more %v; want 100 of the 240, more", did, more)
	}
	// The instants are 2.5s apart; the burst starts at 59.9s, after the
	// 24th (57.5s).
	if got := len(lab.StatesAt(scenarios.DefaultKey, at)); got != 24 {
		t.Fatalf("%d instants answered after 100 requests, want the 24 before the burst", got)
	}
	if did, more := lab.TraceStates(scenarios.DefaultKey, at, 1000); did != 140 || more {
		t.Fatalf("the rest replayed %d, more %v; want 140, done", did, more)
	}
	if did, more := lab.TraceStates(scenarios.DefaultKey, at, 1000); did != 0 || more {
		t.Fatalf("the same instants again replayed %d, more %v", did, more)
	}
	if got := len(lab.StatesAt(scenarios.DefaultKey, at)); got != len(at) {
		t.Fatalf("%d instants answered, want %d", got, len(at))
	}
}
