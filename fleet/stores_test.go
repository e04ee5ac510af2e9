package fleet

import (
	"fmt"
	"maps"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"github.com/alicebob/miniredis/v2"

	"ratelab/algorithms"
	"ratelab/redisstore"
)

// TestRacyWithoutLatencyIsShared: a racy store whose writes land at once
// decides as the plain limiter, whatever the route.
func TestRacyWithoutLatencyIsShared(t *testing.T) {
	r := rand.New(rand.NewPCG(4, 9))
	for _, p := range policies {
		want, got := plain(t, p), lane(t, p, Config{Gateways: 3, Store: Racy, Route: Random, Seed: 1})
		for i, q := range trace(r, 300) {
			w, g := want.Decide(q.at, q.key, q.cost), got.Decide(q.at, q.key, q.cost)
			if !same(w, g) || g.Beyond != 0 {
				t.Fatalf("%v request %d: %v, plain %v", p, i, g.Outcome, w.Outcome)
			}
		}
	}
}

// TestRacyDoubleSpends: every read before the first write lands sees the
// full bucket, so all of a burst is admitted; the writes then land, last
// one winning (the bucket less one token), and a read after them sees it.
func TestRacyDoubleSpends(t *testing.T) {
	p := algorithms.Policy{Algorithm: algorithms.TokenBucket, Capacity: 5, Rate: algorithms.Rate{N: 1, Per: sec}}
	l := lane(t, p, Config{Gateways: 2, Store: Racy, Latency: 50 * time.Millisecond})
	beyond := 0
	for i := range 10 {
		d := l.Decide(time.Duration(i)*time.Millisecond, "k", 1)
		if d.Outcome != algorithms.Allowed {
			t.Fatalf("request %d of the burst: %v; every read should see 5 tokens", i, d.Outcome)
		}
		beyond += int(d.Beyond)
	}
	if beyond != 5 || l.InFlight(9*time.Millisecond) != 10 {
		t.Errorf("beyond %d (want 5), in flight %d (want 10)", beyond, l.InFlight(9*time.Millisecond))
	}
	// Before the writes land the store still holds 5 tokens; each gateway
	// saw 5 on its last read and spent 1 of them.
	store := l.Snapshot(9*time.Millisecond, "k").(algorithms.TokenBucketSnapshot)
	read := l.GatewaySnapshot(1, 9*time.Millisecond, "k").(algorithms.TokenBucketSnapshot)
	if store.Available.Float64() < 5 || read.Available.Float64() < 4 || read.Available.Float64() >= 4.01 {
		t.Errorf("at 9ms the store holds %v tokens (want 5), gateway 2's last read %v (want 4)", store.Available.Float64(), read.Available.Float64())
	}
	// The last write, from the read at 9ms, left 4 tokens at 9ms.
	snap := l.Snapshot(60*time.Millisecond, "k").(algorithms.TokenBucketSnapshot)
	if want := (algorithms.Quantity{}); snap.Available == want || snap.Available.Float64() < 4.05 || snap.Available.Float64() > 4.06 {
		t.Errorf("after the writes landed: %v tokens, want 4 + 0.051", snap.Available.Float64())
	}
	if err := (Config{Gateways: 2, Store: Shared, Latency: sec}).Validate(p); err == nil {
		t.Errorf("store_latency without a racy store is valid")
	}
}

// TestSyncedOneGatewayIsPlain: one gateway synced with the shared state
// decides as the plain limiter (its view is the state, and each sync
// takes in exactly what it decided).
func TestSyncedOneGatewayIsPlain(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 9))
	for _, p := range policies {
		for _, every := range []time.Duration{time.Nanosecond, 300 * time.Millisecond, 7 * sec} {
			want, got := plain(t, p), lane(t, p, Config{Gateways: 1, Store: Synced, SyncEvery: every})
			for i, q := range trace(r, 300) {
				w, g := want.Decide(q.at, q.key, q.cost), got.Decide(q.at, q.key, q.cost)
				if !same(w, g) || g.Beyond != 0 {
					t.Fatalf("%v every %v request %d: %v, plain %v", p, every, i, g.Outcome, w.Outcome)
				}
			}
		}
	}
}

// TestSyncedSpendsApart: four gateways synced every second admit four
// buckets' worth of a burst; the sync takes in what the bucket can count,
// and every view restarts from it.
func TestSyncedSpendsApart(t *testing.T) {
	p := algorithms.Policy{Algorithm: algorithms.TokenBucket, Capacity: 10, Rate: algorithms.Rate{N: 2, Per: sec}}
	l := lane(t, p, Config{Gateways: 4, Store: Synced, SyncEvery: sec})
	admitted := 0
	for range 50 {
		if l.Decide(0, "k", 1).Outcome.Admitted() {
			admitted++
		}
	}
	if admitted != 40 {
		t.Errorf("the burst: %d admitted, want 40 (10 on each gateway's view)", admitted)
	}
	// The sync at 1s takes in 10 of the 40 (the bucket could count no
	// more): the shared bucket is empty at 0s and holds 2 tokens at 1s, and
	// every view restarts from it. A burst at 1s then finds 2 tokens on
	// each of the four views: 8 admitted where the policy allows 2.
	admitted = 0
	for range 12 {
		if l.Decide(sec, "k", 1).Outcome.Admitted() {
			admitted++
		}
	}
	if shared := l.gws[0].Snapshot(sec, "k").(algorithms.TokenBucketSnapshot); admitted != 8 || shared.Available.Float64() != 2 {
		t.Errorf("burst at 1s: %d admitted (want 8); shared bucket %v tokens (want 2)", admitted, shared.Available.Float64())
	}
	if err := (Config{Gateways: 2, Store: Synced}).Validate(p); err == nil {
		t.Errorf("a synced store without sync_every is valid")
	}
}

// TestOutages: in an outage, open admits everything and closed nothing
// (each marked as the fallback's, a closed refusal told to come back when
// the store does); outside it the lane is the plain limiter; a store that
// comes back empty grants a full allowance again; local-cap gives each
// gateway 1/N.
func TestOutages(t *testing.T) {
	r := rand.New(rand.NewPCG(6, 9))
	out := []Outage{{From: 3 * sec, Until: 6 * sec}, {From: 9 * sec, Until: 11 * sec}}
	for _, p := range policies {
		for _, fb := range []algorithms.Fallback{algorithms.FallbackOpen, algorithms.FallbackClosed} {
			l := lane(t, p, Config{Gateways: 2, Store: Shared, Outages: out, Fallback: fb})
			want := plain(t, p)
			for i, q := range trace(r, 300) {
				d := l.Decide(q.at, q.key, q.cost)
				down := q.at >= 3*sec && q.at < 6*sec || q.at >= 9*sec && q.at < 11*sec
				if !down {
					if w := want.Decide(q.at, q.key, q.cost); !same(d, w) || d.Fallback != algorithms.NoFallback {
						t.Fatalf("%v %s request %d at %v, the store up: %v, plain %v", p, fb, i, q.at, d.Outcome, w.Outcome)
					}
					continue
				}
				switch {
				case d.Fallback != fb:
					t.Fatalf("%v request %d at %v in an outage: decided by %q", p, i, q.at, d.Fallback)
				case fb == algorithms.FallbackOpen && d.Outcome != algorithms.Allowed:
					t.Fatalf("%v: open refused at %v", p, q.at)
				case fb == algorithms.FallbackClosed && (d.Outcome != algorithms.Rejected || q.at+d.RetryAfter != 6*sec && q.at+d.RetryAfter != 11*sec):
					t.Fatalf("%v: closed at %v: %v, retry at %v", p, q.at, d.Outcome, q.at+d.RetryAfter)
				}
			}
		}
	}
	// A bucket of 5 spent at 0s, its store restarted empty at 2s: 5 more
	// at 2s where the policy refills 2 × 1/s = 2.
	p := algorithms.Policy{Algorithm: algorithms.TokenBucket, Capacity: 5, Rate: algorithms.Rate{N: 1, Per: sec}}
	count := func(l *Limiter, at time.Duration) (n int) {
		for range 8 {
			if l.Decide(at, "k", 1).Outcome.Admitted() {
				n++
			}
		}
		return n
	}
	lost := lane(t, p, Config{Gateways: 2, Store: Shared, Outages: []Outage{{From: sec, Until: 2 * sec, LoseState: true}}, Fallback: algorithms.FallbackClosed})
	kept := lane(t, p, Config{Gateways: 2, Store: Shared, Outages: []Outage{{From: sec, Until: 2 * sec}}, Fallback: algorithms.FallbackClosed})
	var forgot int
	forgetful := lane(t, p, Config{Gateways: 2, Store: Shared, Outages: []Outage{{From: sec, Until: 2 * sec, LoseState: true}}, Fallback: algorithms.FallbackClosed})
	for _, at := range []time.Duration{0, 2 * sec} {
		for range 8 {
			forgot += int(forgetful.Decide(at, "k", 1).Forgot)
		}
	}
	if forgot != 3 {
		t.Errorf("the restart that forgot admitted %d more than one that remembers, want 3", forgot)
	}
	if a, b := count(lost, 0)+count(lost, 2*sec), count(kept, 0)+count(kept, 2*sec); a != 10 || b != 7 {
		t.Errorf("a restart that forgets: %d admitted (want 10); one that remembers: %d (want 7)", a, b)
	}
	capped := lane(t, p, Config{Gateways: 2, Store: Shared, Outages: []Outage{{From: sec, Until: 2 * sec}}, Fallback: algorithms.FallbackLocalCap})
	if n := count(capped, sec); n != 6 {
		t.Errorf("local-cap: two gateways of 3 (5/2 rounded up) admit %d of 8, want 6", n)
	}
}

// TestExpireIdle: an expiry at or above the policy's safe expiry changes
// nothing; a shorter one hands a key that paused a fresh state, admitted
// beyond the policy.
func TestExpireIdle(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 9))
	for _, p := range policies {
		for _, extra := range []time.Duration{0, 1, sec} {
			c := Config{Gateways: 2, Store: Shared, ExpireIdle: SafeExpiry(p) + extra}
			want, got := plain(t, p), lane(t, p, c)
			for i, q := range trace(r, 300) {
				w, g := want.Decide(q.at, q.key, q.cost), got.Decide(q.at, q.key, q.cost)
				if !same(w, g) || g.Beyond != 0 {
					t.Fatalf("%v expire %v (safe %v) request %d: %v, plain %v", p, c.ExpireIdle, SafeExpiry(p), i, g.Outcome, w.Outcome)
				}
			}
		}
	}
	p := algorithms.Policy{Algorithm: algorithms.TokenBucket, Capacity: 5, Rate: algorithms.Rate{N: 1, Per: sec}}
	if SafeExpiry(p) != 5*sec {
		t.Fatalf("safe expiry of %v: %v, want 5s", p, SafeExpiry(p))
	}
	l := lane(t, p, Config{Gateways: 2, Store: Shared, ExpireIdle: sec})
	for range 5 {
		l.Decide(0, "k", 1)
	}
	n, beyond, forgot := 0, 0, 0
	for range 5 {
		d := l.Decide(2*sec, "k", 1)
		if d.Outcome.Admitted() {
			n++
		}
		beyond += int(d.Beyond)
		forgot += int(d.Forgot)
	}
	if n != 5 || beyond != 3 || forgot != 3 {
		t.Errorf("after 2s idle with a 1s expiry: %d admitted (want 5, a fresh bucket), %d beyond (want 3: the policy refilled 2), %d through the expiry (want 3)", n, beyond, forgot)
	}
}

// TestOutageEdges: each outage gives local-cap fresh caps; a racy store
// that comes back empty loses the writes still in flight; and a key's
// state is shown from the gateway that took its latest request.
func TestOutageEdges(t *testing.T) {
	p := algorithms.Policy{Algorithm: algorithms.TokenBucket, Capacity: 4, Rate: algorithms.Rate{N: 1, Per: time.Hour}}
	capped := lane(t, p, Config{Gateways: 2, Store: Shared, Fallback: algorithms.FallbackLocalCap,
		Outages: []Outage{{From: sec, Until: 2 * sec}, {From: 3 * sec, Until: 4 * sec}}})
	count := func(l *Limiter, at time.Duration, n int) (admitted int) {
		for range n {
			if l.Decide(at, "k", 1).Outcome.Admitted() {
				admitted++
			}
		}
		return admitted
	}
	if a, b := count(capped, sec, 10), count(capped, 3*sec, 10); a != 4 || b != 4 {
		t.Errorf("local-cap: %d admitted in the first outage and %d in the second, want two caps of 2 each time", a, b)
	}
	racy := lane(t, p, Config{Gateways: 2, Store: Racy, Latency: 500 * time.Millisecond, Fallback: algorithms.FallbackClosed,
		Outages: []Outage{{From: 100 * time.Millisecond, Until: 200 * time.Millisecond, LoseState: true}}})
	count(racy, 0, 3) // three writes in flight, landing at 0.5s
	if racy.InFlight(0) != 3 {
		t.Fatalf("%d writes in flight", racy.InFlight(0))
	}
	// Every read after the restart sees the new, full bucket (no write of
	// them has landed); the three writes of before are gone with the store.
	if n := count(racy, 300*time.Millisecond, 10); n != 10 || racy.InFlight(300*time.Millisecond) != 10 {
		t.Errorf("after the restart: %d admitted (want 10), %d in flight (want the 10 new writes only)", n, racy.InFlight(300*time.Millisecond))
	}
	local := lane(t, p, Config{Gateways: 3})
	for i := range 5 {
		local.Decide(time.Duration(i)*sec, "k", 1)
	}
	if g := local.LatestGateway("k"); g != 1 {
		t.Fatalf("the 5th request went to gateway %d, want 1 (round-robin)", g)
	}
	want := local.GatewaySnapshot(1, 5*sec, "k").(algorithms.TokenBucketSnapshot)
	if got := local.Snapshot(5*sec, "k").(algorithms.TokenBucketSnapshot); got != want || got == local.GatewaySnapshot(0, 5*sec, "k").(algorithms.TokenBucketSnapshot) {
		t.Errorf("the lane shows %+v, gateway 2's state is %+v", got, want)
	}
}

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
			src := mem.storeOf(k)
			for _, w := range mem.pending {
				if w.at <= now && int(w.id) == k.ID() {
					src = mem.reads.layers[w.layer].lim
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

// freshRacy is a racy store as the lane kept one before its reads were
// recycled: every read a limiter of its own, made for it and never changed
// after its decision, the reference a recycled read must match.
type freshRacy struct {
	p       algorithms.Policy
	ids     *algorithms.Keys
	c       Config
	store   algorithms.Limiter
	pending []freshWrite
	reads   []freshWrite // each gateway's latest read
	serial  int
	over    int
	touched map[algorithms.Key]time.Duration
}

type freshWrite struct {
	at  time.Duration
	key algorithms.Key
	lim algorithms.Limiter
}

func (f *freshRacy) clone() *freshRacy {
	c := *f
	c.store = f.store.Clone()
	c.pending = slices.Clone(f.pending) // never changed again: shared
	c.reads = slices.Clone(f.reads)
	c.touched = maps.Clone(f.touched)
	return &c
}

// decide is the lane's round-robin, its outages failing closed.
func (f *freshRacy) decide(now time.Duration, key algorithms.Key, cost int64) algorithms.Decision {
	g := f.serial % f.c.Gateways
	f.serial++
	if f.c.ExpireIdle > 0 {
		if last, ok := f.touched[key]; ok && now-last >= f.c.ExpireIdle {
			f.land(last + f.c.ExpireIdle) // what the store took in before it expired the key
			f.store.(algorithms.KeyCopier).ForgetKey(key)
		}
		f.touched[key] = now
	}
	for f.over < len(f.c.Outages) && f.c.Outages[f.over].Until <= now {
		if f.c.Outages[f.over].LoseState {
			f.store, _ = algorithms.NewWithKeys(f.p, f.ids)
			f.pending = nil
		}
		f.over++
	}
	if o := f.c.Outages; f.over < len(o) && o[f.over].From <= now {
		return algorithms.Decision{Outcome: algorithms.Rejected, At: now, Cost: cost, RetryAfter: o[f.over].Until - now, Fallback: f.c.Fallback}
	}
	f.land(now)
	read, _ := algorithms.NewWithKeys(f.p, f.ids)
	read.(algorithms.KeyCopier).CopyKey(f.store, key)
	d := read.DecideKey(now, key, cost)
	f.reads[g] = freshWrite{key: key, lim: read}
	if f.c.Latency == 0 {
		f.store.(algorithms.KeyCopier).CopyKey(read, key)
	} else {
		f.pending = append(f.pending, freshWrite{now + f.c.Latency, key, read})
	}
	return d
}

// land writes into the store the writes landed by t.
func (f *freshRacy) land(t time.Duration) {
	n := 0
	for _, w := range f.pending {
		if w.at > t {
			break
		}
		f.store.(algorithms.KeyCopier).CopyKey(w.lim, w.key)
		n++
	}
	f.pending = f.pending[n:]
}

func (f *freshRacy) storeSnapshot(now time.Duration, key string) algorithms.Snapshot {
	if expired(f.c, f.touched, f.ids, now, key) {
		return newKey(f.p, now, key)
	}
	for i := len(f.pending) - 1; i >= 0; i-- {
		if w := f.pending[i]; w.at <= now && w.key.String() == key {
			return w.lim.Snapshot(now, key)
		}
	}
	return f.store.Snapshot(now, key)
}

func (f *freshRacy) gatewaySnapshot(g int, now time.Duration, key string) algorithms.Snapshot {
	if r := f.reads[g]; r.lim != nil && r.key.String() == key {
		return r.lim.Snapshot(now, key)
	}
	return f.storeSnapshot(now, key)
}

// expired is whether the store has dropped key, idle for the lane's
// expiry by now, touched holding each key's latest request.
func expired(c Config, touched map[algorithms.Key]time.Duration, ids *algorithms.Keys, now time.Duration, key string) bool {
	k, ok := ids.Lookup(key)
	last, seen := touched[k]
	return ok && seen && c.ExpireIdle > 0 && last+c.ExpireIdle <= now
}

// newKey is a new key's snapshot under p: what a store that dropped the
// key shows of it.
func newKey(p algorithms.Policy, now time.Duration, key string) algorithms.Snapshot {
	l, _ := algorithms.New(p)
	return l.Snapshot(now, key)
}

// TestRacyReadsAsFreshCopies: a racy lane, whose reads take slots that
// later reads take again, decides, explains and shows every key, the
// store's state and each gateway's latest read, exactly as one whose every
// read is a limiter of its own; on every algorithm, several writes in
// flight for one key or none, a store that comes back empty, keys expired,
// and clones going their own ways.
func TestRacyReadsAsFreshCopies(t *testing.T) {
	r := rand.New(rand.NewPCG(11, 9))
	configs := []Config{
		{Gateways: 3, Store: Racy},
		{Gateways: 8, Store: Racy, Latency: 40 * time.Millisecond},
		{Gateways: 2, Store: Racy, Latency: 700 * time.Millisecond},
		{Gateways: 4, Store: Racy, Latency: 300 * time.Millisecond, Fallback: algorithms.FallbackClosed,
			Outages: []Outage{{From: 2 * sec, Until: 2500 * time.Millisecond, LoseState: true}, {From: 4 * sec, Until: 4100 * time.Millisecond}}},
		{Gateways: 2, Store: Racy, Latency: 20 * time.Millisecond, ExpireIdle: 150 * time.Millisecond},
	}
	n := 400
	if testing.Short() {
		n = 150
	}
	for _, a := range algorithms.Algorithms {
		for _, ex := range algorithms.Describe(a).Examples {
			p := ex.Policy
			if p.MaxCost() < 2 {
				continue
			}
			for _, c := range configs {
				ids := algorithms.NewKeys()
				keys := []algorithms.Key{ids.Key("a"), ids.Key("b"), ids.Key("c")}
				l, err := New(p, c, ids)
				if err != nil {
					t.Fatal(err)
				}
				store, _ := algorithms.NewWithKeys(p, ids)
				ref := &freshRacy{p: p, ids: ids, c: c, store: store, reads: make([]freshWrite, c.Gateways), touched: map[algorithms.Key]time.Duration{}}
				var got, want []algorithms.Decision
				check := func(l *Limiter, ref *freshRacy, reqs []req) {
					for i, q := range reqs {
						k := ids.Key(q.key)
						d, w := l.DecideKey(q.at, k, q.cost), ref.decide(q.at, k, q.cost)
						if !same(d, w) {
							t.Fatalf("%v %+v request %d at %v: %v, fresh reads %v", p, c, i, q.at, d.Outcome, w.Outcome)
						}
						got, want = append(got, d), append(want, w)
						for _, k := range keys {
							s, ws := fmt.Sprint(l.Snapshot(q.at, k.String())), fmt.Sprint(ref.storeSnapshot(q.at, k.String()))
							if s != ws {
								t.Fatalf("%v %+v request %d at %v: the store shows %s as %s, fresh reads %s", p, c, i, q.at, k, s, ws)
							}
							for g := range c.Gateways {
								s, ws := fmt.Sprint(l.GatewaySnapshot(g, q.at, k.String())), fmt.Sprint(ref.gatewaySnapshot(g, q.at, k.String()))
								if s != ws {
									t.Fatalf("%v %+v request %d at %v: gateway %d shows %s as %s, fresh reads %s", p, c, i, q.at, g, k, s, ws)
								}
							}
						}
					}
				}
				reqs := trace(r, n)
				for i := range reqs {
					reqs[i].at /= 20 // bursts within the latencies
				}
				check(l, ref, reqs[:n/2])
				cl, cref := l.Clone().(*Limiter), ref.clone()
				check(l, ref, reqs[n/2:])
				// The clone takes other requests from the same point.
				more := trace(r, n/2)
				for i := range more {
					more[i].at = reqs[n/2-1].at + more[i].at/20
				}
				check(cl, cref, more)
				for i := range got {
					if got[i].Explain() != want[i].Explain() {
						t.Fatalf("%v %+v decision %d explained as %q, fresh reads %q", p, c, i, got[i].Explain(), want[i].Explain())
					}
				}
			}
		}
	}
}

// clonedSync is a synced store as the lane kept one before its syncs
// copied only the keys that changed: at every sync that takes something
// in, each view is replaced by a Clone of the shared state.
type clonedSync struct {
	c        Config
	p        algorithms.Policy
	ids      *algorithms.Keys
	shared   algorithms.Limiter
	views    []algorithms.Limiter
	unsynced []admission
	synced   int64
	serial   int
	touched  map[algorithms.Key]time.Duration
}

func (s *clonedSync) clone() *clonedSync {
	c := *s
	c.shared = s.shared.Clone()
	c.views = make([]algorithms.Limiter, len(s.views))
	for i, v := range s.views {
		c.views[i] = v.Clone()
	}
	c.unsynced = slices.Clone(s.unsynced)
	c.touched = maps.Clone(s.touched)
	return &c
}

// decide is the lane's round-robin, as on gateway clocks skewed by c.Skew.
func (s *clonedSync) decide(arrived time.Duration, key algorithms.Key, cost int64) algorithms.Decision {
	g := s.serial % s.c.Gateways
	s.serial++
	now := arrived
	if len(s.c.Skew) > 0 {
		now = max(now+s.c.Skew[g], 0)
	}
	if s.c.ExpireIdle > 0 {
		if last, ok := s.touched[key]; ok && arrived-last >= s.c.ExpireIdle {
			s.sync(last + s.c.ExpireIdle) // what the store took in before it expired the key
			s.shared.(algorithms.KeyCopier).ForgetKey(key)
			for _, v := range s.views {
				v.(algorithms.KeyCopier).ForgetKey(key)
			}
		}
		s.touched[key] = arrived
	}
	s.sync(arrived)
	d := s.views[g].DecideKey(now, key, cost)
	if d.Outcome.Admitted() {
		s.unsynced = append(s.unsynced, admission{arrived, now, key, cost})
	}
	return d
}

// viewSnapshot is key as gateway g's view shows it: a new key's once the
// store has expired it.
func (s *clonedSync) viewSnapshot(g int, now time.Duration, key string) algorithms.Snapshot {
	if expired(s.c, s.touched, s.ids, now, key) {
		return newKey(s.p, now, key)
	}
	return s.views[g].Snapshot(now, key)
}

// sync runs the syncs due by t, each cloning the shared state whole.
func (s *clonedSync) sync(t time.Duration) {
	every := s.c.SyncEvery
	due := int64(t / every)
	for s.synced < due {
		next := time.Duration(s.synced+1) * every
		if len(s.unsynced) == 0 || s.unsynced[0].at >= next {
			skip := due
			if len(s.unsynced) > 0 {
				skip = min(due, int64(s.unsynced[0].at/every))
			}
			if skip > s.synced {
				s.synced = skip
				continue
			}
		}
		n := 0
		for _, a := range s.unsynced {
			if a.at >= next {
				break
			}
			s.shared.DecideKey(a.t, a.key, a.cost)
			n++
		}
		s.unsynced = append(s.unsynced[:0], s.unsynced[n:]...)
		for g := range s.views {
			s.views[g] = s.shared.Clone()
		}
		s.synced++
	}
}

// TestSyncedCopiesWhatChanged: a synced store whose syncs copy into each
// view only the keys that changed decides, explains and shows each
// gateway's view of every key exactly as one whose syncs clone the shared
// state whole (as it still does when many keys changed); on every
// algorithm, with idle keys expired, clocks skewed, and clones going their
// own ways.
func TestSyncedCopiesWhatChanged(t *testing.T) {
	r := rand.New(rand.NewPCG(12, 9))
	configs := []Config{
		{Gateways: 3, Store: Synced, SyncEvery: 300 * time.Millisecond},
		{Gateways: 8, Store: Synced, SyncEvery: 40 * time.Millisecond, ExpireIdle: 150 * time.Millisecond},
		{Gateways: 2, Store: Synced, SyncEvery: time.Second, Skew: []time.Duration{0, -70 * time.Millisecond}},
	}
	n := 400
	if testing.Short() {
		n = 150
	}
	for _, a := range algorithms.Algorithms {
		for _, ex := range algorithms.Describe(a).Examples {
			p := ex.Policy
			if p.MaxCost() < 2 {
				continue
			}
			for _, c := range configs {
				ids := algorithms.NewKeys()
				// Nine keys: a sync of a few copies each, one of many
				// clones the shared state.
				var keys []algorithms.Key
				for _, k := range []string{"a", "b", "c"} {
					for i := range 3 {
						keys = append(keys, ids.Key(fmt.Sprint(k, i)))
					}
				}
				l, err := New(p, c, ids)
				if err != nil {
					t.Fatal(err)
				}
				shared, _ := algorithms.NewWithKeys(p, ids)
				ref := &clonedSync{c: c, p: p, ids: ids, shared: shared, touched: map[algorithms.Key]time.Duration{}}
				for range c.Gateways {
					ref.views = append(ref.views, shared.Clone())
				}
				var got, want []algorithms.Decision
				check := func(l *Limiter, ref *clonedSync, reqs []req) {
					for i, q := range reqs {
						k := keys[3*int(q.key[0]-'a')+i%3]
						d, w := l.DecideKey(q.at, k, q.cost), ref.decide(q.at, k, q.cost)
						if !same(d, w) {
							t.Fatalf("%v %+v request %d at %v: %v, cloned views %v", p, c, i, q.at, d.Outcome, w.Outcome)
						}
						got, want = append(got, d), append(want, w)
						for _, k := range keys {
							for g := range c.Gateways {
								s, ws := fmt.Sprint(l.GatewaySnapshot(g, q.at, k.String())), fmt.Sprint(ref.viewSnapshot(g, q.at, k.String()))
								if s != ws {
									t.Fatalf("%v %+v request %d at %v: gateway %d shows %s as %s, cloned views %s", p, c, i, q.at, g, k, s, ws)
								}
							}
						}
					}
				}
				reqs := trace(r, n)
				for i := range reqs {
					reqs[i].at /= 10
					if i%7 == 3 {
						reqs[i].cost = p.MaxCost() + 1 // never fits: a view may hold a key the shared state never takes in
					}
				}
				check(l, ref, reqs[:n/2])
				cl, cref := l.Clone().(*Limiter), ref.clone()
				check(l, ref, reqs[n/2:])
				more := trace(r, n/2)
				for i := range more {
					more[i].at = reqs[n/2-1].at + more[i].at/10
				}
				check(cl, cref, more)
				for i := range got {
					if got[i].Explain() != want[i].Explain() {
						t.Fatalf("%v %+v decision %d explained as %q, cloned views %q", p, c, i, got[i].Explain(), want[i].Explain())
					}
				}
			}
		}
	}
}

// TestLongLogsExpire: logs and queues longer than a chunk of items, their
// keys expired when idle, decide and show as in TestSyncedCopiesWhatChanged
// and TestRacyReadsAsFreshCopies: a state that shares its items with
// another is never changed in place under it.
func TestLongLogsExpire(t *testing.T) {
	for _, p := range []algorithms.Policy{
		{Algorithm: algorithms.SlidingLog, Limit: 600, Window: 10 * sec},
		{Algorithm: algorithms.LeakyBucket, Queue: 600, Rate: algorithms.Rate{N: 1, Per: sec}},
	} {
		for _, c := range []Config{
			{Gateways: 2, Store: Synced, SyncEvery: 50 * time.Millisecond, ExpireIdle: 100 * time.Millisecond},
			{Gateways: 3, Store: Racy, Latency: 30 * time.Millisecond, ExpireIdle: 100 * time.Millisecond},
		} {
			ids := algorithms.NewKeys()
			l, err := New(p, c, ids)
			if err != nil {
				t.Fatal(err)
			}
			shared, _ := algorithms.NewWithKeys(p, ids)
			synced := &clonedSync{c: c, p: p, ids: ids, shared: shared, touched: map[algorithms.Key]time.Duration{}}
			for range c.Gateways {
				synced.views = append(synced.views, shared.Clone())
			}
			store, _ := algorithms.NewWithKeys(p, ids)
			racy := &freshRacy{p: p, ids: ids, c: c, store: store, reads: make([]freshWrite, c.Gateways), touched: map[algorithms.Key]time.Duration{}}
			k := ids.Key("k")
			var at time.Duration
			for i := range 2100 {
				at += time.Millisecond
				if i%700 == 699 {
					at += 300 * time.Millisecond // idle: the key expires
				}
				d := l.DecideKey(at, k, 1)
				var w algorithms.Decision
				if c.Store == Synced {
					w = synced.decide(at, k, 1)
				} else {
					w = racy.decide(at, k, 1)
				}
				if !same(d, w) {
					t.Fatalf("%v %s request %d: %v, want %v", p, c.Store, i, d.Outcome, w.Outcome)
				}
				for g := range c.Gateways {
					var want algorithms.Snapshot
					if c.Store == Synced {
						want = synced.viewSnapshot(g, at, "k")
					} else {
						want = racy.gatewaySnapshot(g, at, "k")
					}
					if a, b := fmt.Sprint(l.GatewaySnapshot(g, at, "k")), fmt.Sprint(want); a != b {
						t.Fatalf("%v %s request %d: gateway %d shows %s, want %s", p, c.Store, i, g, a, b)
					}
				}
			}
		}
	}
}
