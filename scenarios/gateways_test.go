package scenarios

import (
	"reflect"
	"strings"
	"testing"
	"time"

	"ratelab/algorithms"
	"ratelab/fleet"
)

// TestGatewaysFields: a lane's gateways, route and store and the scenario's
// seed are read, written back, and refused when wrong.
func TestGatewaysFields(t *testing.T) {
	src := `title: t
seed: 7
limiters:
  - {name: one, algorithm: token-bucket, capacity: 10, rate: 2/s}
  - {name: four, algorithm: token-bucket, capacity: 10, rate: 2/s, gateways: 4, route: random, store: split}
  - {name: race, algorithm: sliding-log, limit: 5, window: 1s, gateways: 2, store: racy, store_latency: 30ms}
  - {name: sync, algorithm: fixed-window, limit: 5, window: 1s, gateways: 3, store: synced, sync_every: 250ms}
  - {name: down, algorithm: gcra, burst: 3, rate: 1/s, store: shared, outages: [{from: 1s, until: 2s}, {from: 4s, until: 6s, lose_state: true}], fallback: local-cap}
  - {name: skew, algorithm: token-bucket, capacity: 3, rate: 1/s, gateways: 3, store: shared, expire_idle: 2s, clock_skew: [0s, 40ms, -25ms]}
traffic:
  - {at: 0s}
`
	s, err := Parse("g.yaml", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	want := fleet.Config{Gateways: 4, Route: fleet.Random, Store: fleet.Split, Seed: 7}
	race := fleet.Config{Gateways: 2, Store: fleet.Racy, Latency: 30 * time.Millisecond, Seed: 7}
	sync := fleet.Config{Gateways: 3, Store: fleet.Synced, SyncEvery: 250 * time.Millisecond, Seed: 7}
	if s.Seed != 7 || !s.Lanes[0].Fleet.Plain() || !reflect.DeepEqual(s.Lanes[1].Fleet, want) || !reflect.DeepEqual(s.Lanes[2].Fleet, race) || !reflect.DeepEqual(s.Lanes[3].Fleet, sync) {
		t.Fatalf("seed %d, lanes %+v", s.Seed, s.Lanes)
	}
	down := s.Lanes[4].Fleet
	if down.Plain() || down.Fallback != algorithms.FallbackLocalCap || len(down.Outages) != 2 || !down.Outages[1].LoseState || down.Outages[0].Until != 2*time.Second {
		t.Errorf("outages read as %+v", down)
	}
	if sk := s.Lanes[5].Fleet; sk.ExpireIdle != 2*time.Second || !reflect.DeepEqual(sk.Skew, []time.Duration{0, 40 * time.Millisecond, -25 * time.Millisecond}) {
		t.Errorf("expiry and skew read as %+v", sk)
	}
	if back := roundTrip(t, s, nil); back.Seed != 7 || !reflect.DeepEqual(back.Lanes, s.Lanes) {
		t.Errorf("read back %+v seed %d", back.Lanes, back.Seed)
	}
	for _, c := range []struct{ lane, want string }{
		{"gateways: 0", "want a whole number from 1 to 64"},
		{"gateways: 65", "want a whole number from 1 to 64"},
		{"gateways: 2, route: sticky", "want one of round-robin, by-key, random"},
		{"gateways: 2, store: redis", "want one of local, split, shared, racy, synced"},
		{"gateways: 2, store: synced", "missing sync_every"},
		{"gateways: 2, sync_every: 1s", "sync_every belongs to store: synced"},
		{"gateways: 2, store: local, store_latency: 5ms", "store_latency belongs to store: racy"},
		{"route: by-key", "route needs gateways: 2 or more"},
		{"gateways: 2, clock_skew: [0s]", "clock_skew has 1 offsets for 2 gateways"},
		{"gateways: 2, clock_skew: [0s, 5]", "a number needs a unit"},
		{"expire_idle: -1s", "want a positive Go duration"},
		{"gateways: 2, store: shared, outages: [{from: 5s, until: 3s}], fallback: open", "want from < until"},
		{"gateways: 2, store: local, outages: [{from: 1s, until: 3s}], fallback: open", "outages need a shared store"},
		{"gateways: 2, store: shared, outages: [{from: 1s, until: 3s}]", "outages need a fallback"},
		{"gateways: 2, store: shared, fallback: closed", "without outages decides nothing"},
		{"gateways: 2, store: shared, outages: [{from: 1s, until: 3s}], fallback: sideways", "want one of open, closed, local-cap"},
		{"gateways: 7, store: split, algorithm: nginx-limit-req, rate: 1r/s", "split over 7 gateways"},
	} {
		lane := "{name: l, algorithm: token-bucket, capacity: 10, rate: 2/s, " + c.lane + "}"
		if strings.Contains(c.lane, "algorithm:") {
			lane = "{name: l, " + c.lane + "}"
		}
		_, err := Parse("g.yaml", []byte("title: t\nlimiters:\n  - "+lane+"\n"))
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want %q", c.lane, err, c.want)
		}
	}
}
