package fleet

import (
	"fmt"
	"testing"
	"time"

	"ratelab/algorithms"
)

// TestSnapshotShowsAnExpiredKeyNew: once a key has been idle for the
// store's expiry, the store holds nothing of it, so its snapshot is a new
// key's (what its next request finds), before that request comes; every
// gateway's view of it too, and a split store's share.
func TestSnapshotShowsAnExpiredKeyNew(t *testing.T) {
	p := algorithms.Policy{Algorithm: algorithms.TokenBucket, Capacity: 6, Rate: algorithms.Rate{N: 1, Per: 10 * sec}}
	for _, c := range []Config{
		{Gateways: 2, Store: Shared, ExpireIdle: 3 * sec},
		{Gateways: 2, Store: Local, ExpireIdle: 3 * sec},
		{Gateways: 2, Store: Split, ExpireIdle: 3 * sec},
		{Gateways: 2, Store: Racy, Latency: 50 * time.Millisecond, ExpireIdle: 3 * sec},
		{Gateways: 2, Store: Synced, SyncEvery: sec, ExpireIdle: 3 * sec},
	} {
		t.Run(string(c.Store), func(t *testing.T) {
			l := lane(t, p, c)
			// Apart, so that each racy read finds the write before it.
			for i := range 6 {
				l.Decide(time.Duration(i)*100*time.Millisecond, "k", 1)
			}
			last := 500 * time.Millisecond
			if at, ok := l.ExpiredAt(last+3*sec-1, "k"); ok {
				t.Fatalf("expired at %v before its idle time was up", at)
			}
			before := fmt.Sprint(l.Snapshot(last+3*sec-1, "k"))
			share := p
			if c.Store == Split {
				share = algorithms.SplitPolicy(p, 2)
			}
			fresh := plain(t, share)
			if before == fmt.Sprint(fresh.Snapshot(last+3*sec-1, "k")) {
				t.Fatalf("the key's spent state %s reads as a new key's before it expired", before)
			}
			at, ok := l.ExpiredAt(4*sec, "k")
			if !ok || at != last+3*sec {
				t.Fatalf("ExpiredAt(4s) = %v, %v; want 3.5s, true", at, ok)
			}
			want := fmt.Sprint(fresh.Snapshot(4*sec, "k"))
			if got := fmt.Sprint(l.Snapshot(4*sec, "k")); got != want {
				t.Errorf("snapshot at 4s: %s, want a new key's %s", got, want)
			}
			if c.Store != Racy { // a racy gateway shows what it last read
				for g := range l.Gateways() {
					if got := fmt.Sprint(l.GatewaySnapshot(g, 4*sec, "k")); got != want {
						t.Errorf("gateway %d at 4s: %s, want a new key's %s", g, got, want)
					}
				}
			}
			if d := l.Decide(4*sec, "k", 1); !d.Outcome.Admitted() {
				t.Fatalf("the next request found the key spent: %v", d.Outcome)
			}
			if _, ok := l.ExpiredAt(4*sec, "k"); ok {
				t.Fatal("still expired after a request touched it")
			}
		})
	}
}

// TestKeyBytesOfAnExpiredKey: an expired key's state takes what a new
// key's does, as its snapshot shows it, not what the store last held.
func TestKeyBytesOfAnExpiredKey(t *testing.T) {
	p := algorithms.Policy{Algorithm: algorithms.SlidingLog, Limit: 100, Window: 10 * sec}
	for _, store := range []Store{Shared, Local, Racy} {
		ids := algorithms.NewKeys()
		l, err := New(p, Config{Gateways: 2, Store: store, ExpireIdle: 3 * sec}, ids)
		if err != nil {
			t.Fatal(err)
		}
		k := ids.Key("k")
		for i := range 40 {
			l.DecideKey(time.Duration(i)*time.Millisecond, k, 1)
		}
		fresh := plain(t, p)
		n := int64(1)
		if store == Local {
			n = 2 // a new key in each gateway's store
		}
		want := n * fresh.KeyBytes(4*sec, algorithms.NewKeys().Key("k"))
		if held := l.KeyBytes(sec, k); held <= want {
			t.Fatalf("%s: 40 admissions take %d bytes, no more than a new key's %d", store, held, want)
		}
		if got := l.KeyBytes(4*sec, k); got != want {
			t.Errorf("%s: the expired key takes %d bytes, want a new key's %d", store, got, want)
		}
	}
}
