package algorithms

import (
	"reflect"
	"sync"
	"testing"
	"time"
)

// Which layers a record holds by their state before the request, and
// whose refusals a stack puts back as those words (or leaves untouched,
// having decided on a copy): plain states, but not an nginx zone (whose
// lookup nginx keeps though a later zone refuses) nor a state that holds
// items.
func TestStackLayersDecideOnCopies(t *testing.T) {
	zone := Policy{Algorithm: NginxLimitReq, Rate: Rate{N: 10, Per: sec}, Burst: 5, NoDelay: true, Zone: 32 << 10}
	server := Policy{Algorithm: NginxLimitReq, Rate: Rate{N: 100, Per: sec}, Burst: 20, NoDelay: true}
	for _, c := range []struct {
		name   string
		layers []Layer
		copied uint8
		nums   int
	}{
		{"bucket, window, gcra, counter", benchLayers, 0b1111, 2 + 2 + 3 + 3},
		{"log, window", []Layer{logLayers[0], benchLayers[1]}, 0b10, 5 + 2},
		{"logs", logLayers[:3], 0, 3 * 5},
		{"zone, server", []Layer{{Name: "ip", Policy: zone}, {Name: "server", Policy: server, AllKeys: true}}, 0b10, 5 + 4},
	} {
		s := mustStack(t, c.layers...).(*stack)
		if s.copied != c.copied || s.info.nums != c.nums {
			t.Errorf("%s: copied %04b, %d numbers a record; want %04b, %d", c.name, s.copied, s.info.nums, c.copied, c.nums)
		}
	}
}

// A refused request leaves no trace in a layer that decided on a copy: a
// key it never saw still has no state (its snapshot is a new key's at any
// later time), and a key it saw keeps its state exactly.
func TestStackRefusalLeavesCopiesUntouched(t *testing.T) {
	never := Layer{Name: "closed", Policy: Policy{Algorithm: FixedWindow, Limit: 1, Window: time.Hour}, AllKeys: true}
	for _, l := range benchLayers {
		s := mustStack(t, Layer{Name: "it", Policy: l.Policy}, never).(*stack)
		s.Decide(0, "first", 1) // spends the closed window
		lone := mustNew(t, l.Policy)
		lone.Decide(0, "first", 1)
		for i := range 5 {
			at := time.Duration(i+1) * 7 * ms
			if d := s.Decide(at, "first", 1); d.Outcome != Rejected {
				t.Fatalf("%s: request %d %s, not refused", l.Policy.Algorithm, i, d.Outcome)
			}
			s.Decide(at, "new", 1)
		}
		later := 40 * ms
		if got, want := s.LayerSnapshot(0, later, "first"), lone.Snapshot(later, "first"); !reflect.DeepEqual(got, want) {
			t.Errorf("%s: a seen key's state %+v, want %+v", l.Policy.Algorithm, got, want)
		}
		if got, want := s.LayerSnapshot(0, later, "new"), lone.Snapshot(later, "new"); !reflect.DeepEqual(got, want) {
			t.Errorf("%s: a key only refused has %+v, want a new key's %+v", l.Policy.Algorithm, got, want)
		}
		if k, ok := s.lims[0].(*keyed[tokenBucketState]); ok && k.seen != 1 {
			t.Errorf("token bucket: %d keys with a state, want 1", k.seen)
		}
	}
}

// Decisions of a stack, explained from several goroutines at once (each
// re-deciding its layers from their states), say what they say explained
// one by one.
func TestStackExplainsFromGoroutines(t *testing.T) {
	s := mustStack(t, benchLayers...)
	var ds []Decision
	var want []string
	for _, r := range stackTrace(17, 400) {
		d := s.Decide(r.at, r.key, r.cost)
		ds, want = append(ds, d), append(want, d.Explain())
	}
	var wg sync.WaitGroup
	errs := make([]int, 4)
	for g := range errs {
		wg.Go(func() {
			var buf []byte
			for round := range 3 {
				for i := range ds {
					j := (i*(g+1) + round) % len(ds)
					if buf = ds[j].AppendExplain(buf[:0]); string(buf) != want[j] {
						errs[g]++
					}
				}
			}
		})
	}
	wg.Wait()
	for g, n := range errs {
		if n > 0 {
			t.Errorf("goroutine %d: %d explanations differ from the same decisions' explained one by one", g, n)
		}
	}
}

// A layer whose record is its state before the request decides the
// request again from the words its record holds (recordWords), the others
// zero and rebuilt, exactly as it decided it: the same outcome, wait,
// numbers and words, for every algorithm whose states are plain values,
// with late requests and costs too large among them.
func TestRecordedWordsDecideAgain(t *testing.T) {
	for _, a := range Algorithms {
		for _, p := range describedPolicies(a) {
			ks := NewKeys()
			lim, err := NewWithKeys(p, ks)
			if err != nil {
				t.Fatal(err)
			}
			sv, ok := lim.(stackLayer)
			if _, zone := lim.(*nginxZone); !ok || zone || !sv.plainState() || sv.stateWords() > stackWords {
				continue
			}
			mask, redecide := sv.recordWords(), sv.redecider()
			for i, r := range stackTrace(7, 300) {
				at := r.at
				switch {
				case i == 0:
					at = 0
				case i%9 == 8:
					at -= 50 * ms // late: before the key's latest request
				case i%5 == 4:
					at = at.Truncate(sec) // on a window's edge
				}
				var words [stackWords]int64
				var d Decision
				id := ks.Key(r.key).id
				if in := sv.peekState(&d, at, id, r.cost, &words); in == nil {
					sv.keepPeeked(id, at)
				}
				for j := range words {
					if mask>>j&1 == 0 {
						words[j] = 0
					}
				}
				again := redecide(words, at, r.cost)
				if again.Outcome != d.Outcome || again.RetryAfter != d.RetryAfter || again.Delay != d.Delay || again.v != d.v || again.Explain() != d.Explain() {
					t.Fatalf("%s, request %d: decided\n%s\nagain from its record's words %04b\n%s", p, i, d.Explain(), mask, again.Explain())
				}
			}
		}
	}
}
