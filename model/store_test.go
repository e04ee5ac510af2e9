package model

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/alicebob/miniredis/v2"

	"ratelab/algorithms"
	"ratelab/fleet"
	"ratelab/redisstore"
	"ratelab/scenarios"
)

// TestLabOnAStore: a lab whose lanes decide in Redis (here miniredis)
// shows what the lab in memory shows, through seeks back and forth
// (instances rewound from checkpoints write their states back before they
// decide), fired requests and undos, on lessons of every store mode; and
// its store view holds the focused key's hash.
func TestLabOnAStore(t *testing.T) {
	mini := miniredis.RunT(t)
	st, err := redisstore.Open("redis://" + mini.Addr() + "/0")
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	for _, name := range []string{"empty-start", "shaping-vs-policing", "four-gateways", "racy-store", "store-outage", "idle-expiry", "memory-price"} {
		t.Run(name, func(t *testing.T) { labOnAStore(t, mini, st, name) })
	}
}

// labOnAStore takes a lab on the store st (in mini) and one in memory along
// the same random clock path, through seeks, fires and undos: they decide
// and show alike, and every plain lane's hash holds the live state.
func labOnAStore(t *testing.T, mini *miniredis.Miniredis, st *redisstore.Store, name string) {
	s, err := scenarios.Canned(name)
	if err != nil {
		t.Fatal(err)
	}
	red, err := NewOn(s, 0, st.Maker)
	if err != nil {
		t.Fatal(err)
	}
	mem, err := New(s, 0)
	if err != nil {
		t.Fatal(err)
	}
	r := rand.New(rand.NewPCG(3, uint64(len(name))))
	steps, reach := rounds(12, 4), 3000 // four: a seek, a fire, a seek, an undo
	if name == "memory-price" {
		// Its sliding log of 12,000 makes each step a second in the
		// in-process Redis's Lua (ten under the race detector).
		switch {
		case testing.Short():
			steps, reach = 1, 300 // a seek: the sliding logs and counters on the store
		case raceDetector:
			steps = 3
		}
	}
	for step := range steps {
		pos := r.IntN(min(mem.Len(), reach) + 1)
		switch step % 4 {
		case 1:
			for _, l := range []*Lab{mem, red} {
				l.SeekPos(pos)
				if _, err := l.Fire(s.Keys()[0], 1); err != nil {
					t.Fatal(err)
				}
			}
		case 3:
			mem.Undo()
			red.Undo()
		default:
			mem.SeekPos(pos)
			red.SeekPos(pos)
		}
		if err := st.Err(); err != nil {
			t.Fatalf("%s, step %d: %v", name, step, err)
		}
		key := s.Keys()[0]
		for lane := range mem.Lanes() {
			a, okA := mem.LastDecision(lane)
			b, okB := red.LastDecision(lane)
			if okA != okB || a.Decision.Explain() != b.Decision.Explain() || a.Decision.Outcome != b.Decision.Outcome {
				t.Fatalf("%s, step %d, lane %d: %v %q, in memory %v %q", name, step, lane, okB, b.Decision.Explain(), okA, a.Decision.Explain())
			}
			if x, y := fmt.Sprint(mem.Snapshot(lane, key)), fmt.Sprint(red.Snapshot(lane, key)); x != y {
				t.Fatalf("%s, step %d, lane %d: snapshot %s, in memory %s", name, step, lane, y, x)
			}
			// Every plain lane's hash holds the live state at the
			// clock, focused or not, as a client reading the server
			// (not through the lab) sees it: its scalar fields here.
			if def := mem.Lanes()[lane]; def.Fleet.Plain() {
				k, _ := mem.clock.live.keys.Lookup(key)
				st, ok := mem.clock.live.limiters[lane].(algorithms.StateCodec).ExportKey(k)
				var got, want []string
				for i, f := range def.Policy.StateForm().Fields {
					if v := mini.HGet(redisstore.HashKey(def.Name, key), f); v != "" {
						got = append(got, f+" "+v)
					}
					if ok {
						want = append(want, fmt.Sprintf("%s %d", f, st.Fields[i]))
					}
				}
				if fmt.Sprint(got) != fmt.Sprint(want) {
					t.Fatalf("%s, step %d, lane %s: Redis holds %v, the lab shows %v", name, step, def.Name, got, want)
				}
			}
		}
	}
	for lane, def := range red.Lanes() {
		view, ok := red.StoreView(lane, s.Keys()[0])
		want := redisstore.HashKey(def.Name, s.Keys()[0])
		if st := def.Fleet.Store; !def.Fleet.Plain() && st != fleet.Shared && st != fleet.Racy {
			want = "" // the gateways keep their own state in memory
		}
		if !ok || view.Err != nil || view.Key != want {
			t.Errorf("%s, lane %s: store view %+v, %v; want the key %q", name, def.Name, view, ok, want)
		}
	}
	if red.StoreFailure() != nil {
		t.Errorf("%s: %v", name, red.StoreFailure())
	}
	if _, ok := mem.StoreView(0, s.Keys()[0]); ok {
		t.Errorf("%s: a lab in memory has a store view", name)
	}
}
