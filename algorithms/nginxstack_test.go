package algorithms

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"
)

// refBoot is where nginx's clock (ngx_current_msec: milliseconds since the
// machine booted) stands when ratelab's time starts, in refLocation.
const refBoot = 1_000_000_000

// refLocation is a location's limit_req lines as nginx 1.22's
// ngx_http_limit_req_handler, ngx_http_limit_req_lookup,
// ngx_http_limit_req_account, ngx_http_limit_req_unlock and
// ngx_http_limit_req_expire read, written again apart from the limiter:
// a slice for each zone's queue (front first), a map for its tree, nodes
// with nginx's count, and nginx's clock counting from refBoot, so that a
// node made with last 0 is as old as nginx's would be. Cost 1.
type refLocation struct {
	zones  []*refLocZone
	dryRun bool
}

type refLocZone struct {
	rate, burst, delay int64 // thousandths; delay MaxCount×1000 for nodelay
	keys               int64 // nodes the zone holds, 0 for a zone that never fills (and frees none)
	queue              []string
	nodes              map[string]*refLocNode
	node               *refLocNode // ctx->node
}

type refLocNode struct{ excess, last, count int64 }

const (
	refOK = iota
	refAgain
	refBusy
)

func (z *refLocZone) lookup(now int64, key string, account bool) (int, int64) {
	if lr, ok := z.nodes[key]; ok {
		z.queue = slices.Insert(slices.DeleteFunc(z.queue, func(k string) bool { return k == key }), 0, key)
		ms := refElapsed(now, lr.last)
		excess := max(0, lr.excess-z.rate*ms/1000+1000)
		if excess > z.burst {
			return refBusy, excess
		}
		if account {
			lr.excess = excess
			if ms != 0 {
				lr.last = now
			}
			return refOK, excess
		}
		lr.count++
		z.node = lr
		return refAgain, excess
	}
	if z.keys > 0 {
		z.expire(now, 1)
		if int64(len(z.nodes)) == z.keys {
			z.expire(now, 0)
		}
	}
	lr := &refLocNode{}
	z.nodes[key] = lr
	z.queue = slices.Insert(z.queue, 0, key)
	if account {
		lr.last = now
		return refOK, 0
	}
	lr.count = 1
	z.node = lr
	return refAgain, 0
}

// refElapsed is the milliseconds lookup and account drain a node over:
// now − last, 1 when that is below −60000 (nginx's clock wrapped), 0 when
// below 0.
func refElapsed(now, last int64) int64 {
	switch ms := now - last; {
	case ms < -60000:
		return 1
	case ms < 0:
		return 0
	default:
		return ms
	}
}

func (z *refLocZone) expire(now int64, n int) {
	for ; n < 3; n++ {
		if len(z.queue) == 0 {
			return
		}
		key := z.queue[len(z.queue)-1]
		lr := z.nodes[key]
		if lr.count != 0 {
			return
		}
		if n != 0 {
			ms := now - lr.last
			if ms < 0 {
				ms = -ms
			}
			if ms < 60000 || lr.excess-z.rate*ms/1000 > 0 {
				return
			}
		}
		z.queue = z.queue[:len(z.queue)-1]
		delete(z.nodes, key)
	}
}

// handle is nginx's answer to a request whose key in zone i is keys[i], at
// ratelab's millisecond ms: its outcome and delay, and with dry run what
// it would have been.
func (loc *refLocation) handle(ms int64, keys []string) (out Outcome, delay int64, dry Outcome) {
	now := refBoot + ms
	rc, excess, n := refAgain, int64(0), 0
	for n = range loc.zones {
		rc, excess = loc.zones[n].lookup(now, keys[n], n == len(loc.zones)-1)
		if rc != refAgain {
			break
		}
	}
	if rc == refBusy {
		for _, z := range loc.zones[:n] { // ngx_http_limit_req_unlock
			if z.node != nil {
				z.node.count--
				z.node = nil
			}
		}
		if loc.dryRun {
			return Allowed, 0, Rejected
		}
		return Rejected, 0, Allowed
	}
	// ngx_http_limit_req_account
	last := loc.zones[n]
	if excess > last.delay {
		delay = (excess - last.delay) * 1000 / last.rate
	}
	for i := n - 1; i >= 0; i-- {
		z := loc.zones[i]
		lr := z.node
		if lr == nil {
			continue
		}
		ms := refElapsed(now, lr.last)
		e := max(0, lr.excess-z.rate*ms/1000+1000)
		if ms != 0 {
			lr.last = now
		}
		lr.excess = e
		lr.count--
		z.node = nil
		if e > z.delay {
			delay = max(delay, (e-z.delay)*1000/z.rate)
		}
	}
	switch {
	case delay == 0:
		return Allowed, 0, Allowed
	case loc.dryRun:
		return Allowed, 0, Delayed
	}
	return Delayed, delay, Allowed
}

// TestNginxZoneAgainstReference decides random traffic with a lane of one
// zone and with stacks of two or three nginx-limit-req policies, some
// with zones smaller than the keys the traffic has, some over all keys,
// some dry runs, at slow and fast rates, with the limiter and with
// refLocation: every decision, and every zone's queue, must be nginx's;
// and a clone made midway decides as the original while leaving it as it
// was.
func TestNginxZoneAgainstReference(t *testing.T) {
	r := rand.New(rand.NewPCG(22, 5))
	for round := range shortened(48) {
		n := 1 + round%3
		dry := r.IntN(4) == 0
		layers := make([]Layer, n)
		loc := &refLocation{dryRun: dry}
		for i := range layers {
			p := Policy{Algorithm: NginxLimitReq, Rate: Rate{int64(1 + r.IntN(90)), []time.Duration{time.Second, time.Minute}[r.IntN(2)]},
				Burst: int64(r.IntN(4)), DryRun: dry}
			switch r.IntN(3) {
			case 0:
				p.NoDelay = true
			case 1:
				p.Delay = int64(r.IntN(3))
			}
			all := i > 0 && r.IntN(3) == 0
			if n == 1 || !all && r.IntN(3) != 0 {
				p.Zone = int64(32+8*r.IntN(3)) << 10
			}
			layers[i] = Layer{Name: fmt.Sprintf("z%d", i), Policy: p, AllKeys: all}
			g := newNginx(p)
			z := &refLocZone{rate: g.rate, burst: g.burst, delay: g.threshold(), nodes: map[string]*refLocNode{}}
			if p.Zone != 0 {
				z.keys = NginxZoneKeys(p.Zone)
			}
			loc.zones = append(loc.zones, z)
		}
		ks := NewKeys()
		var lim Limiter
		var zones []*nginxZone
		if n == 1 {
			lim = mustNewWithKeys(t, layers[0].Policy, ks)
			zones = []*nginxZone{lim.(*nginxZone)}
		} else {
			s, err := NewStack(layers, ks)
			if err != nil {
				t.Fatal(err)
			}
			lim, zones = s, s.(*stack).zones
		}
		keys := 191 + 1 + r.IntN(150)
		var now time.Duration
		var clone Limiter
		var cloneAt int
		steps := shortened(5000)
		for i := range steps {
			now += time.Duration(r.IntN([]int{3, 40, 400}[round%3])) * time.Millisecond
			if r.IntN(200) == 0 {
				now += time.Duration(55+r.IntN(10)) * time.Second
			}
			key := fmt.Sprintf("k%d", r.IntN(keys))
			if r.IntN(3) == 0 { // a few hot keys
				key = fmt.Sprintf("k%d", r.IntN(5))
			}
			refKeys := make([]string, n)
			for j, l := range layers {
				refKeys[j] = key
				if l.AllKeys {
					refKeys[j] = AllKeysKey
				}
			}
			want, wantDelay, wantDry := loc.handle(msOf(now), refKeys)
			d := lim.Decide(now, key, 1)
			if d.Outcome != want || d.Delay != time.Duration(wantDelay)*time.Millisecond || d.DryRun != wantDry {
				t.Fatalf("round %d %v, request %d (%s at %v): %s %v dry run %s, want %s %d ms dry run %s: %s", round, layers, i, key, now, d.Outcome, d.Delay, d.DryRun, want, wantDelay, wantDry, d.Explain())
			}
			if clone != nil && i > cloneAt {
				if c := clone.Decide(now, key, 1); c.Outcome != d.Outcome || c.Delay != d.Delay || c.DryRun != d.DryRun {
					t.Fatalf("round %d, request %d: the clone decided %s, the original %s", round, i, c.Outcome, d.Outcome)
				}
			}
			if i == steps/2 {
				clone, cloneAt = lim.Clone(), i
			}
		}
		for j, z := range zones {
			if z == nil {
				continue
			}
			var order []string
			for _, id := range zoneOrder(z) {
				order = append(order, keyName(ks, int(id)))
			}
			if !slices.Equal(order, loc.zones[j].queue) || z.n != int64(len(order)) || z.n > z.keys {
				t.Errorf("round %d: zone %d's queue (%d keys, counted %d, at most %d) differs from nginx's (%d)", round, j, len(order), z.n, z.keys, len(loc.zones[j].queue))
			}
		}
	}
}

// TestNginxStackFill replays stackFill on the lane, with the answers real
// nginx 1.22.1 gave (TestNginxZoneAgainstRealNginx sends the same).
func TestNginxStackFill(t *testing.T) {
	p := Policy{Algorithm: NginxLimitReq, Rate: Rate{1, time.Minute}, Zone: 32 << 10}
	lim, err := NewStack([]Layer{{Name: "a", Policy: p}, {Name: "b", Policy: p}}, NewKeys())
	if err != nil {
		t.Fatal(err)
	}
	for i, s := range stackFill(int(NginxZoneKeys(p.Zone))) {
		at := time.Duration(i) * time.Millisecond
		if d := lim.Decide(at, s.key, 1); d.Outcome != s.want {
			t.Fatalf("step %d (%s at %v): %s, want %s: %s", i, s.key, at, d.Outcome, s.want, d.Explain())
		}
	}
}

// A stack of nginx's zones explains a refusal as nginx makes it: the zones
// after the one that refuses are not looked up, so they neither refuse nor
// "had all admitted", and only the first refusing zone is named.
func TestNginxStackExplainsTheZonesNotLookedUp(t *testing.T) {
	per := Policy{Algorithm: NginxLimitReq, Rate: Rate{N: 1, Per: time.Second}, Burst: 1, NoDelay: true, Zone: 32 << 10}
	all := Policy{Algorithm: NginxLimitReq, Rate: Rate{N: 1, Per: time.Second}, Burst: 5, NoDelay: true}
	ks := NewKeys()
	lim, err := NewStack([]Layer{{Name: "a", Policy: per}, {Name: "b", Policy: all, AllKeys: true}}, ks)
	if err != nil {
		t.Fatal(err)
	}
	k := ks.Key("x")
	var d Decision
	for range 3 {
		lim.DecideInto(&d, 0, k, 1)
	}
	// The third: a refuses (excess 2 > burst 1); b, which would admit it,
	// is not asked.
	got := d.Explain()
	for _, want := range []string{"b (all keys together): not looked up: nginx stops at the first zone that refuses", "⇒ refused by a: no policy spends it"} {
		if d.Outcome != Rejected || !strings.Contains(got, want) {
			t.Errorf("%s: %q lacks %q", d.Outcome, got, want)
		}
	}
	if strings.Contains(got, "had all admitted") || strings.Contains(got, "refused by a and b") {
		t.Errorf("%q", got)
	}
}
