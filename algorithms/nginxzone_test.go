package algorithms

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"
	"unsafe"
)

// TestNginxZoneKeys holds NginxZoneKeys to what nginx 1.22.1 was measured
// to hold (TestNginxZoneAgainstRealNginx measures those marked): the
// sizes in bytes are ones where one more or one less byte of the pool's
// header, or 24 bytes fewer per page, would give another count.
func TestNginxZoneKeys(t *testing.T) {
	for _, c := range []struct {
		size string
		keys int64
	}{
		{"32k", 191},       // measured: the smallest zone nginx takes
		{"40k", 255},       // measured
		{"1286144", 9951},  // measured: 9919 with an 8-byte larger pool header
		{"1990656", 15391}, // measured: 15423 with an 8-byte smaller one
		{"64k", 447},
		{"1m", 8095},
		{"10m", 81375},
		{"100m", 814367},
	} {
		size, err := ParseSize(c.size)
		if err != nil {
			t.Fatal(err)
		}
		if got := NginxZoneKeys(size); got != c.keys {
			t.Errorf("NginxZoneKeys(%s) = %d, want %d", c.size, got, c.keys)
		}
	}
}

func TestParseSize(t *testing.T) {
	for _, c := range []struct {
		in   string
		want int64
		back string
		err  string
	}{
		{"10m", 10 << 20, "10m", ""},
		{"10M", 10 << 20, "10m", ""},
		{"64k", 64 << 10, "64k", ""},
		{"1024k", 1 << 20, "1m", ""},
		{"32768", 32 << 10, "32k", ""},
		{"1286144", 1286144, "1256k", ""},
		{"1000", 1000, "1000", ""},
		{"1048576m", 1 << 40, "1048576m", ""},
		{"1048577m", 0, "", "from 1 byte to 2^40"},
		{"0", 0, "", "from 1 byte"},
		{"", 0, "", "not a size"},
		{"m", 0, "", "not a size"},
		{"-1k", 0, "", "not a size"},
		{"+1k", 0, "", "not a size"},
		{"1g", 0, "", "not a size"},
		{"1.5m", 0, "", "not a size"},
	} {
		got, err := ParseSize(c.in)
		if c.err != "" {
			if err == nil || !strings.Contains(err.Error(), c.err) {
				t.Errorf("ParseSize(%q) = %d, %v; want an error saying %q", c.in, got, err, c.err)
			}
			continue
		}
		if err != nil || got != c.want || FormatSize(got) != c.back {
			t.Errorf("ParseSize(%q) = %d, %v (written %q); want %d, written %q", c.in, got, err, FormatSize(got), c.want, c.back)
		}
	}
}

func TestNginxZoneValidate(t *testing.T) {
	base := Policy{Algorithm: NginxLimitReq, Rate: Rate{1, time.Minute}}
	for _, c := range []struct {
		zone int64
		err  string
	}{
		{32 << 10, ""},
		{32<<10 - 1, "at least 32k"},
		{1 << 40, ""},
		{1<<40 + 1, "at most 2^40"},
	} {
		p := base
		p.Zone = c.zone
		err := p.Validate()
		if (err == nil) != (c.err == "") || err != nil && !strings.Contains(err.Error(), c.err) {
			t.Errorf("zone %d: %v, want %q", c.zone, err, c.err)
		}
	}
	p := base
	p.Zone = 32 << 10
	if got := p.MaxKeys(); got != 191 {
		t.Errorf("MaxKeys of zone 32k = %d, want 191", got)
	}
	if got := base.MaxKeys(); got != 0 {
		t.Errorf("MaxKeys without a zone = %d, want 0", got)
	}
	if got := p.String(); got != "nginx-limit-req rate=1r/m zone=32k" {
		t.Errorf("String = %q", got)
	}
	if _, err := NewStack([]Layer{{Name: "a", Policy: p}, {Name: "b", Policy: base}}, NewKeys()); err != nil {
		t.Errorf("a stack of nginx-limit-req policies with a zone: %v", err)
	}
	bucket := Policy{Algorithm: TokenBucket, Capacity: 3, Rate: Rate{1, time.Second}}
	dry := base
	dry.DryRun = true
	for _, c := range []struct {
		name   string
		layers []Layer
		err    string
	}{
		{"a zone beside a bucket", []Layer{{Name: "a", Policy: p}, {Name: "b", Policy: bucket}}, "stacks only with nginx-limit-req"},
		{"dry_run beside a bucket", []Layer{{Name: "a", Policy: bucket}, {Name: "b", Policy: dry}}, "stacks only with nginx-limit-req"},
		{"dry_run in one zone only", []Layer{{Name: "a", Policy: p}, {Name: "b", Policy: dry}}, "dry_run applies to all"},
	} {
		if _, err := NewStack(c.layers, NewKeys()); err == nil || !strings.Contains(err.Error(), c.err) {
			t.Errorf("%s: %v, want %q", c.name, err, c.err)
		}
	}
	if _, err := NewStack([]Layer{{Name: "a", Policy: p, AllKeys: true}}, NewKeys()); err != nil {
		t.Errorf("a stack of one policy with a zone: %v", err)
	}
}

// zoneStep is a request of one key, at a time, and what nginx answered it.
type zoneStep struct {
	at   time.Duration
	key  string
	want Outcome
}

// TestNginxZoneEvicts replays what real nginx 1.22.1 answered in a zone of
// 32k (191 keys) at 1r/m without burst, keyed by a query argument, all
// within a few seconds (TestNginxZoneAgainstRealNginx sends the same):
// k0 spends its allowance; 190 new keys fill the zone; k0 is still refused
// (and moves to the front), n1 too; m1, the 192nd key, frees n2, the least
// recently used, so n2 is admitted again as new (freeing n3, which is
// admitted as new in turn).
func TestNginxZoneEvicts(t *testing.T) {
	p := Policy{Algorithm: NginxLimitReq, Rate: Rate{1, time.Minute}, Zone: 32 << 10}
	steps := zoneFill(191)
	lim := mustNew(t, p)
	for i, s := range steps {
		if d := lim.Decide(s.at, s.key, 1); d.Outcome != s.want {
			t.Fatalf("step %d (%s at %v): %s, want %s: %s", i, s.key, s.at, d.Outcome, s.want, d.Explain())
		}
	}
	// Without a zone, nothing is freed: n2, n3 and n4 are refused.
	p.Zone = 0
	lim = mustNew(t, p)
	var got []Outcome
	for _, s := range steps {
		got = append(got, lim.Decide(s.at, s.key, 1).Outcome)
	}
	if tail := got[len(got)-3:]; !slices.Equal(tail, []Outcome{Rejected, Rejected, Rejected}) {
		t.Errorf("without a zone, the last three: %v, want all rejected", tail)
	}
}

// zoneFill is the requests of TestNginxZoneEvicts for a zone of keys
// keys, 1 ms apart, with nginx's answers at 1r/m without burst.
func zoneFill(keys int) []zoneStep {
	var steps []zoneStep
	add := func(key string, want Outcome) {
		steps = append(steps, zoneStep{time.Duration(len(steps)) * time.Millisecond, key, want})
	}
	add("k0", Allowed)
	add("k0", Rejected)
	for n := 1; n < keys; n++ {
		add(fmt.Sprintf("n%d", n), Allowed)
	}
	add("k0", Rejected) // the zone is full: k0 is still there
	add("n1", Rejected)
	add("m1", Allowed) // frees n2
	add("n2", Allowed) // new again, frees n3
	add("n3", Allowed) // frees n4
	add("n4", Allowed)
	return steps
}

// TestNginxZoneFreesDrained: a node idle 60s or more whose excess has
// drained is freed when a new key comes (two at most), and then decides as
// new; at 1r/m (16 thousandths a second) a node 61s idle has drained to
// 0 − 976 but would still give excess 24 > burst 0. As measured on real
// nginx 1.22.1 (TestNginxZoneAgainstRealNginx).
func TestNginxZoneFreesDrained(t *testing.T) {
	p := Policy{Algorithm: NginxLimitReq, Rate: Rate{1, time.Minute}, Zone: 32 << 10}
	s61 := 61 * time.Second
	for _, c := range []struct {
		name  string
		steps []zoneStep
	}{
		{"a new key frees a", []zoneStep{{0, "a", Allowed}, {s61, "b", Allowed}, {s61, "a", Allowed}}},
		{"no new key: a stays", []zoneStep{{0, "a", Allowed}, {s61, "a", Rejected}}},
		{"59.999s is not idle enough", []zoneStep{{0, "a", Allowed}, {59999 * time.Millisecond, "b", Allowed}, {59999 * time.Millisecond, "a", Rejected}}},
		{"60s is", []zoneStep{{0, "a", Allowed}, {60 * time.Second, "b", Allowed}, {60 * time.Second, "a", Allowed}}},
		// Two at most: a, b and c idle; d frees a and b, not c.
		{"two at most", []zoneStep{{0, "a", Allowed}, {1, "b", Allowed}, {2, "c", Allowed}, {s61, "d", Allowed},
			{s61, "c", Rejected}, {s61, "b", Allowed}, {s61, "a", Allowed}}},
		// A refusal moves a node to the front but leaves its last: a,
		// refused at 30s, is freed at 61s as idle since 0.
		{"a refusal keeps last", []zoneStep{{0, "a", Allowed}, {30 * time.Second, "a", Rejected}, {30 * time.Second, "b", Allowed},
			{s61, "d", Allowed}, {s61, "a", Allowed}}},
		// The back of the queue is the least recently looked up: a
		// refusal of a at 40s puts b, idle 31s, behind it, which stops
		// the freeing.
		{"the back stops it", []zoneStep{{0, "a", Allowed}, {30 * time.Second, "b", Allowed}, {40 * time.Second, "a", Rejected},
			{s61, "d", Allowed}, {s61, "a", Rejected}}},
	} {
		lim := mustNew(t, p)
		for i, s := range c.steps {
			if d := lim.Decide(s.at, s.key, 1); d.Outcome != s.want {
				t.Errorf("%s: step %d (%s at %v): %s, want %s: %s", c.name, i, s.key, s.at, d.Outcome, s.want, d.Explain())
			}
		}
	}
}

// keyName is the key numbered id in ks.
func keyName(ks *Keys, id int) string {
	for k := range ks.All {
		if k.ID() == id {
			return k.String()
		}
	}
	return ""
}

// TestNginxZoneStateFromOutside: ForgetKey takes a key out of the zone,
// ImportKey of a node puts it back at the front, making room as a new key
// would; a state without a node takes it out.
func TestNginxZoneStateFromOutside(t *testing.T) {
	p := Policy{Algorithm: NginxLimitReq, Rate: Rate{1, time.Minute}, Zone: 32 << 10}
	lim := mustNew(t, p).(*nginxZone)
	for i := range 191 {
		lim.Decide(time.Duration(i)*time.Millisecond, fmt.Sprintf("n%d", i), 1)
	}
	ks := lim.ids
	n0, _ := ks.Lookup("n0")
	st, ok := lim.ExportKey(n0)
	if !ok || lim.n != 191 {
		t.Fatalf("n0 exported %v, %d keys", ok, lim.n)
	}
	lim.ForgetKey(n0)
	if lim.n != 190 || lim.has(n0.ID()) {
		t.Fatalf("after ForgetKey: %d keys, n0 in: %v", lim.n, lim.has(n0.ID()))
	}
	if d := lim.Decide(time.Second, "n0", 1); d.Outcome != Allowed {
		t.Errorf("n0 forgotten: %s, want allowed as new", d.Outcome)
	}
	// The zone is full again; n1, at the back, makes room for a node put
	// back from outside.
	n1, _ := ks.Lookup("n1")
	x := ks.Key("x")
	if err := lim.ImportKey(x, st); err != nil {
		t.Fatal(err)
	}
	if lim.n != 191 || !lim.has(x.ID()) || lim.has(n1.ID()) || lim.head != int32(x.ID()) {
		t.Errorf("after ImportKey: %d keys, x in %v at the front %v, n1 in %v", lim.n, lim.has(x.ID()), lim.head == int32(x.ID()), lim.has(n1.ID()))
	}
	if err := lim.ImportKey(x, State{Fields: []int64{0, 0, 0, 0}}); err != nil {
		t.Fatal(err)
	}
	if lim.n != 190 || lim.has(x.ID()) {
		t.Errorf("after ImportKey of no node: %d keys, x in %v", lim.n, lim.has(x.ID()))
	}
	if m := lim.Memory(); m.State <= mustNew(t, Policy{Algorithm: NginxLimitReq, Rate: Rate{1, time.Minute}}).Memory().State {
		t.Errorf("a zone's memory %d counts no queue", m.State)
	}
}

// TestNginxDryRun: with dry_run a lane decides and accounts every request
// as without it, and lets each through at once, saying what it would have
// done; the explanation says it too.
func TestNginxDryRun(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 5))
	for round := range shortened(40) {
		p := Policy{Algorithm: NginxLimitReq, Rate: Rate{int64(1 + r.IntN(20)), []time.Duration{time.Second, time.Minute}[r.IntN(2)]},
			Burst: int64(r.IntN(6)), Delay: int64(r.IntN(3))}
		if r.IntN(4) == 0 {
			p.Delay, p.NoDelay = 0, true
		}
		if r.IntN(3) == 0 {
			p.Zone = 32 << 10
		}
		dry := p
		dry.DryRun = true
		real, pretend := mustNew(t, p), mustNew(t, dry)
		var now time.Duration
		var seen [3]int
		for i := range shortened(2000) {
			now += time.Duration(r.IntN(100)) * time.Millisecond
			key := fmt.Sprintf("k%d", r.IntN(8))
			cost := int64(1 + r.IntN(3))
			want := real.Decide(now, key, cost)
			got := pretend.Decide(now, key, cost)
			seen[want.Outcome]++
			if got.Outcome != Allowed || got.Delay != 0 || got.RetryAfter != 0 || got.DryRun != want.Outcome && want.Outcome != Allowed ||
				want.Outcome == Allowed && got.DryRun != Allowed {
				t.Fatalf("round %d %v, request %d: dry run %s %v (would %s), without it %s %v", round, dry, i, got.Outcome, got.Delay, got.DryRun, want.Outcome, want.Delay)
			}
			why := got.Explain()
			if word := map[Outcome]string{Delayed: "DELAYED_DRY_RUN", Rejected: "REJECTED_DRY_RUN"}[want.Outcome]; word != "" && !strings.Contains(why, word) {
				t.Fatalf("round %d, request %d: the explanation %q does not say %s", round, i, why, word)
			}
		}
		if seen[Rejected] == 0 {
			t.Errorf("round %d %v: no rejection to pretend", round, p)
		}
	}
	if _, err := NewStack([]Layer{{Name: "a", Policy: Policy{Algorithm: NginxLimitReq, Rate: Rate{1, time.Second}, DryRun: true}},
		{Name: "b", Policy: Policy{Algorithm: NginxLimitReq, Rate: Rate{1, time.Second}}}}, NewKeys()); err == nil || !strings.Contains(err.Error(), "dry_run") {
		t.Errorf("a stack with dry_run: %v, want a refusal", err)
	}
}

// TestNginxZoneClonesShareQueue: a zone and its clone, each then given its
// own traffic (evicting, freeing drained nodes, taking new keys), decide
// and keep their queues exactly as zones that saw only their own traffic,
// although they share the queue's chunks of links until they change them;
// and a clone costs a pointer per chunk of links, not the links.
func TestNginxZoneClonesShareQueue(t *testing.T) {
	p := Policy{Algorithm: NginxLimitReq, Rate: Rate{2, sec}, Burst: 1, Zone: 32 << 10}
	r := rand.New(rand.NewPCG(22, 19))
	for round := range shortened(8) {
		ks := NewKeys()
		keys := make([]Key, 600) // more than the zone's 191
		for i := range keys {
			keys[i] = ks.Key(fmt.Sprintf("k%d", i))
		}
		type step struct {
			at  time.Duration
			key Key
		}
		var now time.Duration
		steps := func(n int) []step {
			s := make([]step, n)
			for i := range s {
				now += time.Duration(r.IntN(400)) * time.Millisecond
				s[i] = step{now, keys[r.IntN(len(keys))]}
			}
			return s
		}
		decide := func(l Limiter, ss []step) []Outcome {
			var out []Outcome
			for _, s := range ss {
				out = append(out, l.DecideKey(s.at, s.key, 1).Outcome)
			}
			return out
		}
		shared := steps(2000)
		from := now
		a := mustNewWithKeys(t, p, ks)
		decide(a, shared)
		b := a.Clone()
		ownA := steps(1500)
		now = from
		ownB := steps(1500)
		for i, c := range []struct {
			lim Limiter
			own []step
		}{{a, ownA}, {b, ownB}} {
			ref := mustNewWithKeys(t, p, ks)
			decide(ref, shared)
			want := decide(ref, c.own)
			if got := decide(c.lim, c.own); !slices.Equal(got, want) {
				t.Fatalf("round %d, limiter %d: its decisions differ from a zone that saw only its own traffic", round, i)
			}
			z, rz := c.lim.(*nginxZone), ref.(*nginxZone)
			if order, wantOrder := zoneOrder(z), zoneOrder(rz); !slices.Equal(order, wantOrder) || z.n != rz.n || z.tail != rz.tail {
				t.Fatalf("round %d, limiter %d: queue %v (%d keys), want %v (%d)", round, i, order, z.n, wantOrder, rz.n)
			}
		}
		z := a.(*nginxZone)
		links := int64(len(z.links)) * int64(unsafe.Sizeof(zoneLinks{}))
		if m := a.Memory(); m.Clone-z.keyed.Memory().Clone >= links {
			t.Errorf("round %d: a clone of the zone costs %d bytes beside its states, as much as the links (%d)", round, m.Clone-z.keyed.Memory().Clone, links)
		}
	}
}

// zoneOrder is z's queue, front to back, by key number.
func zoneOrder(z *nginxZone) []int32 {
	var order []int32
	for id := z.head; id >= 0; id = z.link(id).next {
		order = append(order, id)
	}
	return order
}
