package fleet

import (
	"fmt"
	"testing"
	"time"

	"github.com/alicebob/miniredis/v2"

	"ratelab/algorithms"
	"ratelab/redisstore"
)

// TestRacyStoreHeldAtTheClock: a racy lane on a store outside the process
// has the store hold, at any clock, forward or back, the key's state as
// the lane shows it then: the latest write landed by the clock, else the
// state the writes before left; a write still in flight is not there.
// Writes landing for two keys are both shown.
func TestRacyStoreHeldAtTheClock(t *testing.T) {
	mini := miniredis.RunT(t)
	st, err := redisstore.Open("redis://" + mini.Addr() + "/0")
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	p := algorithms.Policy{Algorithm: algorithms.TokenBucket, Capacity: 5, Rate: algorithms.Rate{N: 1, Per: time.Second}}
	c := Config{Gateways: 2, Store: Racy, Latency: 50 * time.Millisecond}
	ks := algorithms.NewKeys()
	mem, err := New(p, c, ks)
	if err != nil {
		t.Fatal(err)
	}
	red, err := NewOn(p, c, ks, st.Maker("racy", time.Hour))
	if err != nil {
		t.Fatal(err)
	}
	keys := []algorithms.Key{ks.Key("a"), ks.Key("b")}
	for i := range 8 {
		at := time.Duration(i) * time.Millisecond
		k := keys[i%2]
		mem.DecideKey(at, k, 1)
		red.DecideKey(at, k, 1)
	}
	form := p.StateForm()
	for _, now := range []time.Duration{40, 50, 60, 40, 7, 56, 57, 20} {
		now *= time.Millisecond
		if err := red.Hold(now); err != nil {
			t.Fatal(err)
		}
		for _, k := range keys {
			// What the store holds at now, in memory: the latest write
			// landed by now, else the store's own state.
			src := mem.gws[0]
			for _, w := range mem.pending {
				if w.at <= now && w.key == k {
					src = w.from
				}
			}
			var want []string
			if s, ok := src.(algorithms.StateCodec).ExportKey(k); ok {
				for i, f := range form.Fields {
					want = append(want, fmt.Sprintf("%s %d", f, s.Fields[i]))
				}
			}
			if got := red.Inspect(k.String()).Contents; fmt.Sprint(got) != fmt.Sprint(want) {
				t.Errorf("at %s, key %s: the store holds %v, the lane shows %v", algorithms.FormatSeconds(now), k, got, want)
			}
		}
	}
	if err := st.Err(); err != nil {
		t.Fatal(err)
	}
}

// TestARacyGatewayShowsItsReadOfThatKeyOnly: a gateway whose latest read
// was of another key shows the store's state of this one, not a blank.
func TestARacyGatewayShowsItsReadOfThatKeyOnly(t *testing.T) {
	p := algorithms.Policy{Algorithm: algorithms.TokenBucket, Capacity: 5, Rate: algorithms.Rate{N: 1, Per: time.Second}}
	l, err := New(p, Config{Gateways: 2, Store: Racy, Latency: time.Millisecond}, algorithms.NewKeys())
	if err != nil {
		t.Fatal(err)
	}
	l.Decide(0, "a", 3)                   // gateway 0 reads a, its write lands at 1ms
	l.Decide(10*time.Millisecond, "b", 1) // gateway 1 reads b
	now := 11 * time.Millisecond
	got, want := fmt.Sprint(l.GatewaySnapshot(1, now, "a")), fmt.Sprint(l.storeSnapshot(now, "a"))
	if got != want {
		t.Errorf("gateway 1 shows a as %s, the store holds %s", got, want)
	}
}
