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

func statesText(t *testing.T, lab *Lab, key string, at []time.Duration) [][]string {
	t.Helper()
	states, ok := lab.StatesAt(key, at, math.MaxInt)
	if !ok {
		t.Fatal("no trace with an unbounded budget")
	}
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
			if got := statesText(t, lab, key, at); !reflect.DeepEqual(got, want) {
				t.Fatalf("states at the clock's end differ from a clock seeked to each instant:\n got %v\nwant %v", got, want)
			}
			// The clock halfway: only the instants before it.
			half := at[len(at)/2]
			lab.Seek(half)
			if got := statesText(t, lab, key, at); !reflect.DeepEqual(got, want[:len(at)/2]) {
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
			if got := statesText(t, lab, key, at); !reflect.DeepEqual(got, want) {
				t.Fatalf("after a fired request the trace differs from a clock seeked there:\n got %v\nwant %v", got, want)
			}
		})
	}
}

// TestStatesAtKeepsItsBudget: a walk longer than the budget is refused,
// and one already answered costs nothing the second time.
func TestStatesAtKeepsItsBudget(t *testing.T) {
	s, err := scenarios.Canned("boundary")
	if err != nil {
		t.Fatal(err)
	}
	lab := newLab(t, s)
	lab.Seek(lab.End())
	at := instants(lab.End(), 50)
	if _, ok := lab.StatesAt(scenarios.DefaultKey, at, 100); ok {
		t.Fatal("240 requests replayed within a budget of 100")
	}
	if _, ok := lab.StatesAt(scenarios.DefaultKey, at, 240); !ok {
		t.Fatal("240 requests refused within a budget of 240")
	}
	if _, ok := lab.StatesAt(scenarios.DefaultKey, at, 0); !ok {
		t.Fatal("the same instants again, with nothing to replay, refused")
	}
}
