package peak_test

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"ratelab/model"
	"ratelab/model/internal/peak"
	"ratelab/scenarios"
)

// delayingLanes are the limiters that delay, with queues and rates that
// keep requests waiting on random traffic.
var delayingLanes = []string{
	"{name: leaky, algorithm: leaky-bucket, queue: 40, rate: 20/s}",
	"{name: reserve, algorithm: x-time-rate-reserve, burst: 5, rate: 30/s}",
	"{name: reserve-wait, algorithm: x-time-rate-reserve, burst: 5, rate: 7/s, max_wait: 2s}",
	"{name: guava, algorithm: guava, rate: 13/s}",
	"{name: guava-try, algorithm: guava-try, rate: 11/s, timeout: 1500ms}",
	"{name: nginx, algorithm: nginx-limit-req, rate: 9r/s, burst: 40}",
	"{name: nginx-delay, algorithm: nginx-limit-req, rate: 17r/s, burst: 30, delay: 6}",
}

// randomDelayedTraffic is a few keys' bursts, metronomes and random
// arrivals of costs 1 to 3, some of them clients that retry, give up at a
// deadline and cancel their wait.
func randomDelayedTraffic(rng *rand.Rand) string {
	var y strings.Builder
	fmt.Fprintf(&y, "seed: %d\n", rng.IntN(1000))
	y.WriteString(`clients:
  - {name: eager, retry: at-once, attempts: 3}
  - {name: hasty, retry: give-up, deadline: 800ms, cancel: true}
  - {name: patient, retry: give-up, deadline: 900ms}
traffic:
`)
	for range 3 + rng.IntN(6) {
		key := fmt.Sprintf("k%d", rng.IntN(4))
		cost := 1 + rng.IntN(3)
		client := ""
		if rng.IntN(3) == 0 {
			client = ", client: " + []string{"eager", "hasty", "patient"}[rng.IntN(3)]
		}
		from := time.Duration(rng.IntN(3000)) * time.Millisecond
		switch rng.IntN(3) {
		case 0:
			fmt.Fprintf(&y, "  - {at: %v, count: %d, spread: %v, key: %s, cost: %d%s}\n", from, 1+rng.IntN(60), time.Duration(rng.IntN(2000))*time.Millisecond, key, cost, client)
		case 1:
			fmt.Fprintf(&y, "  - {every: %v, from: %v, until: %v, key: %s, cost: %d%s}\n", time.Duration(1+rng.IntN(80))*time.Millisecond, from, from+time.Duration(1+rng.IntN(3000))*time.Millisecond, key, cost, client)
		default:
			fmt.Fprintf(&y, "  - {poisson: %d/s, from: %v, until: %v, key: %s, cost: %d%s}\n", 5+rng.IntN(60), from, from+time.Duration(1+rng.IntN(3000))*time.Millisecond, key, cost, client)
		}
	}
	return y.String()
}

// TestDelayingLanesReleaseEachKeyInOrder: what InFlight counts on, seen
// through model.Run. On random traffic of several keys and costs, retries
// and cancelled waits included, every delaying algorithm releases each
// key's admitted requests in the order it admits them (a release is never
// before the key's latest), so a key's releases make one group. The lanes
// of gateways are shown too: one keeping a key's state apart per gateway
// releases each (key, gateway) in order, which is what Source groups by,
// and a store shared loosely (racy, synced) may not, which the loose heap
// takes.
func TestDelayingLanesReleaseEachKeyInOrder(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(21, 1))
	stores := []string{"", ", gateways: 3, route: random, store: local", ", gateways: 3, store: shared",
		", gateways: 2, store: racy, store_latency: 30ms", ", gateways: 2, store: synced, sync_every: 200ms"}
	loose := map[string]int{}
	trials := 60
	if testing.Short() {
		trials = 15
	}
	for trial := range trials {
		traffic := randomDelayedTraffic(rng)
		for _, lane := range delayingLanes {
			for si, store := range stores {
				l := strings.Replace(lane, "}", store+"}", 1)
				if strings.Contains(l, "nginx") && si == 4 {
					continue // nginx's rate, split for a synced store's views, may be no nginx rate
				}
				tr := traffic
				if store != "" { // gateways cannot give a slot back
					tr = strings.Replace(tr, ", cancel: true", "", 1)
				}
				s, err := scenarios.Parse("order.yaml", []byte("title: order\nlimiters:\n  - "+l+"\n"+tr))
				if err != nil {
					t.Fatalf("trial %d: %v\n%s", trial, err, tr)
				}
				latest := map[int64]time.Duration{}
				keyIDs := map[string]int{}
				back := 0
				_, err = model.Run(s, model.Options{}, func(r model.Record) error {
					if !r.Decision.Outcome.Admitted() || r.Attempt.Cancelled {
						return nil
					}
					id, ok := keyIDs[r.Request.Key]
					if !ok {
						id = len(keyIDs)
						keyIDs[r.Request.Key] = id
					}
					src := peak.Source(id, r.Decision.Gateway)
					release := r.Request.At + r.Decision.Delay
					if last, ok := latest[src]; ok && release < last {
						back++
					}
					latest[src] = max(latest[src], release)
					return nil
				})
				if err != nil {
					t.Fatal(err)
				}
				if back > 0 && (store == "" || strings.Contains(store, "local") || strings.Contains(store, "shared")) {
					t.Errorf("trial %d, %s: %d releases before their key's latest\n%s", trial, l, back, tr)
				}
				loose[store] += back
			}
		}
	}
	t.Logf("releases before their source's latest, by store: %v", loose)
}
