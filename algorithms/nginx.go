package algorithms

import (
	"fmt"
	"strconv"
	"time"
)

// NginxLimitReq: nginx's limit_req, with nginx's own integer arithmetic, as
// src/http/modules/ngx_http_limit_req_module.c implements it. The rate is
// kept in thousandths of a request per second, truncated (2r/s is 2000,
// 30r/m is 30 × 1000 / 60 = 500, 1r/m is 16); the clock is whole
// milliseconds: ratelab's nanosecond time, truncated (nginx reads a clock
// cached once per pass of its event loop; ratelab takes each request's own
// millisecond). Each key has a node
// holding excess (thousandths of a request) and last (the millisecond of its
// last update). A key's first request makes its node with excess 0 and is
// admitted. Otherwise, with ms = now − last:
//
//	excess = node excess − rate × ms / 1000 + 1000   (truncated; 0 if negative)
//
// and the request is rejected, with HTTP 503 (or status, nginx's
// limit_req_status), iff excess > burst × 1000; a
// rejection changes nothing. An admitted request stores excess and last =
// now, and is delayed by (excess − delay × 1000) × 1000 / rate milliseconds
// (truncated) if excess > delay × 1000, where delay is 0 unless given and
// nodelay makes it infinite. So burst N admits N + 1 at one instant, and
// without nodelay all but the first wait their turn at the rate.
//
// nginx has no cost: ratelab charges a request of cost c as c requests
// arriving in the same millisecond would be, the first as above, each other
// one adding 1000 (so c ≤ burst + 1), all admitted or none; a delayed one
// waits as the last of them would.
//
// The nodes live in the zone, limit_req_zone's shared memory, in the order
// of their last lookup (nginx's queue: every request of a key, refused or
// not, moves its node to the front). Before it makes a new key's node,
// nginx frees the one or two nodes at the back that have been idle 60s or
// more (|now − last| ≥ 60000) and whose excess has drained (node excess −
// rate × idle / 1000 ≤ 0); if the zone is still full, it frees the node at
// the back whatever it holds, then again up to two idle drained ones
// (ngx_http_limit_req_expire). A freed key's next request makes a new node,
// with excess 0: its spent burst is forgiven. (A new key's request of a
// cost above burst + 1, refused whole, makes no node.) With zone (the size nginx
// allocates, such as 10m) ratelab keeps exactly that order and that
// many nodes: NginxZoneKeys of the size. Without zone the zone never
// fills and ratelab frees no node: it decides as nginx does except that a
// node idle 60s or more, drained but for less than one request, still
// counts (nginx frees it when a new key comes, so a slow rate such as 1r/m
// may admit there what ratelab refuses).
//
// With dry_run (limit_req_dry_run on) nginx decides and accounts every
// request exactly as above but lets each through at once: a request it
// would refuse or delay is logged as REJECTED_DRY_RUN or DELAYED_DRY_RUN
// and served. ratelab's decision is then Allowed, with DryRun saying what
// nginx would have done.
const NginxLimitReq Algorithm = "nginx-limit-req"

// The parameters of nginx's limit_req directive that only it takes; its
// rate= and burst= are RateParam and BurstParam.
var (
	NoDelayParam = Param{Name: "nodelay", Kind: Flag, Optional: true,
		Want:  "true to admit the whole burst at once (nginx's nodelay); false or left out to delay it",
		field: func(p *Policy) any { return &p.NoDelay }}
	DelayParam = Param{Name: "delay", Kind: Count, Amount: true, Optional: true,
		Want:  "a whole number of excess requests admitted before nginx delays; 0 or left out delays all",
		field: func(p *Policy) any { return &p.Delay }}
	StatusParam = Param{Name: "status", Kind: Count, Optional: true,
		Want:  "the HTTP status of a refused request, 400 to 599 (nginx's limit_req_status); 503 if left out",
		field: func(p *Policy) any { return &p.Status }}
	ZoneParam = Param{Name: "zone", Kind: Bytes, Optional: true,
		Want:  "the zone's size as limit_req_zone writes it, such as 10m or 64k, at least 32k: nginx frees the least recently used key when it is full; left out, a zone that never fills",
		field: func(p *Policy) any { return &p.Zone }}
	DryRunParam = Param{Name: "dry_run", Kind: Flag, Optional: true,
		Want:  "true to decide and account as nginx does but let every request through at once (limit_req_dry_run on); false or left out to refuse and delay",
		field: func(p *Policy) any { return &p.DryRun }}
)

// nginxStatus is the status nginx refuses with under p: limit_req_status,
// or 503.
func nginxStatus(p Policy) int64 {
	if p.Status != 0 {
		return p.Status
	}
	return 503
}

func init() {
	register(Description{
		Algorithm:      NginxLimitReq,
		explain:        explainNginx,
		Family:         Library,
		Source:         "nginx src/http/modules/ngx_http_limit_req_module.c",
		Status:         503,
		NoRetryAfter:   true,
		DelaysInAStack: true,
		Params: []Param{RateParam,
			Optional(BurstParam, "a whole number of requests beyond the first admitted at once; 0 if left out"),
			DelayParam, NoDelayParam, StatusParam, ZoneParam, DryRunParam},
		Size:     "burst",
		InFlight: 1, // burst N admits N + 1: the first request sets excess 0
		MaxKeys: func(p Policy) int64 {
			if p.Zone == 0 {
				return 0
			}
			return NginxZoneKeys(p.Zone)
		},
		Rule: "excess = max(0, excess − rate×ms/1000 + 1000) in thousandths; 503 iff excess > burst×1000; else delayed (excess − delay×1000)×1000/rate ms",
		MaxDelay: func(p Policy) time.Duration {
			return time.Duration(newNginx(p).maxDelayMs()) * time.Millisecond
		},
		Horizon: func(p Policy) time.Duration {
			return time.Duration(newNginx(p).drainMs()) * time.Millisecond
		},
		Words: func(p Policy) string {
			g := newNginx(p)
			w := fmt.Sprintf("nginx limit_req: %s, burst %d", nginxRate(p.Rate), p.Burst)
			if p.NoDelay {
				w += " nodelay"
			} else if p.Delay > 0 {
				w += fmt.Sprintf(" delay=%d", p.Delay)
			}
			w += fmt.Sprintf(": admits %d in one instant", p.Burst+1)
			switch {
			case p.Burst == 0:
			case g.threshold() >= p.Burst*1000:
				w += ", all passed now"
			case p.Delay > 0:
				w += fmt.Sprintf(", passes the first %d now and holds the rest back to the rate", p.Delay+1)
			default:
				w += ", passes the first now and holds the rest back to the rate"
			}
			w += fmt.Sprintf("; %d beyond", nginxStatus(p))
			if p.Zone != 0 {
				w += fmt.Sprintf("; zone %s holds %d keys, the least recently used freed first", FormatSize(p.Zone), NginxZoneKeys(p.Zone))
			}
			if p.DryRun {
				w += "; dry run: every request let through at once, what nginx would do only counted"
			}
			return w
		},
		Line: func(p Policy) string {
			s := fmt.Sprintf("%s rate=%s", p.Algorithm, nginxRate(p.Rate))
			if p.Burst > 0 {
				s += " burst=" + strconv.FormatInt(p.Burst, 10)
			}
			if p.Delay > 0 {
				s += " delay=" + strconv.FormatInt(p.Delay, 10)
			}
			if p.NoDelay {
				s += " nodelay"
			}
			if p.Status != 0 {
				s += " status=" + strconv.FormatInt(p.Status, 10)
			}
			if p.Zone != 0 {
				s += " zone=" + FormatSize(p.Zone)
			}
			if p.DryRun {
				s += " dry_run"
			}
			return s
		},
		CostBound: func(p Policy) string {
			return fmt.Sprintf("burst %d admits at most %d at once", p.Burst, p.Burst+1)
		},
		check: checkNginx,
		Examples: []Example{
			{Name: "nginx", Policy: Policy{Algorithm: NginxLimitReq, Rate: Rate{N: 2, Per: time.Second}, Burst: 10}},
		},
		Edges: []Policy{
			{Algorithm: NginxLimitReq, Rate: Rate{N: 7, Per: time.Second}},            // burst left out: one at a time
			{Algorithm: NginxLimitReq, Rate: Rate{N: 30, Per: time.Minute}, Burst: 3}, // 30r/m is 500 thousandths a second, 7r/m truncates to 116
			{Algorithm: NginxLimitReq, Rate: Rate{N: 7, Per: time.Minute}, Burst: 2},
			{Algorithm: NginxLimitReq, Rate: Rate{N: 7, Per: time.Second}, Burst: 5, Delay: 2}, // delay=2: the first 3 pass at once, the rest are delayed
			{Algorithm: NginxLimitReq, Rate: Rate{N: 2, Per: time.Second}, Burst: 4, NoDelay: true},
			{Algorithm: NginxLimitReq, Rate: Rate{N: 1000, Per: time.Second}, Burst: 60},
			{Algorithm: NginxLimitReq, Rate: Rate{N: 10, Per: time.Second}, Burst: 5, Status: 429}, // limit_req_status 429
		},
		new:   newNginxLimiter,
		State: nginxForm,
	})
}

func checkNginx(p Policy) error {
	if err := p.Rate.Validate(); err != nil {
		return err
	}
	if p.Rate.Per != time.Second && p.Rate.Per != time.Minute {
		return fmt.Errorf("rate %s: nginx takes a rate per second or per minute only, such as 2r/s or 30r/m", p.Rate)
	}
	for _, c := range []struct {
		name string
		v    int64
	}{{"burst", p.Burst}, {"delay", p.Delay}} {
		if c.v < 0 {
			return fmt.Errorf("%s %d must not be negative", c.name, c.v)
		}
		if c.v > MaxCount {
			return fmt.Errorf("%s %d is too large (at most 2^40)", c.name, c.v)
		}
	}
	if p.Status != 0 && (p.Status < 400 || p.Status > 599) {
		return fmt.Errorf("status %d: nginx's limit_req_status takes 400 to 599", p.Status)
	}
	if p.Zone != 0 && (p.Zone < nginxMinZone || p.Zone > MaxCount) {
		return fmt.Errorf("zone %s: nginx takes a zone of at least 32k (8 pages), and ratelab at most 2^40 bytes", FormatSize(p.Zone))
	}
	if p.NoDelay && p.Delay > 0 {
		// nginx itself keeps whichever of the two is written last; a
		// policy has no order to tell.
		return fmt.Errorf("delay %d and nodelay together: nginx keeps whichever is written last; give only one", p.Delay)
	}
	if !mulFits(newNginx(p).drainMs(), int64(time.Millisecond)) {
		return fmt.Errorf("burst %d at rate %s takes too long to drain for exact arithmetic (at most 2^62 ns)", p.Burst, nginxRate(p.Rate))
	}
	return nil
}

// nginxRate writes a rate as nginx's limit_req_zone does: "2r/s", "30r/m".
func nginxRate(r Rate) string {
	if r.Per == time.Minute {
		return strconv.FormatInt(r.N, 10) + "r/m"
	}
	return strconv.FormatInt(r.N, 10) + "r/s"
}

// NginxRateMilli is the rate as nginx keeps it: thousandths of a request per
// second, truncated (N × 1000 for Nr/s, N × 1000 / 60 for Nr/m).
func NginxRateMilli(r Rate) int64 {
	if r.Per == time.Minute {
		return r.N * 1000 / 60
	}
	return r.N * 1000
}

// nginx is the limit_req of one policy: its numbers as nginx keeps them.
type nginx struct {
	p     Policy
	rate  int64 // thousandths of a request per second
	burst int64 // burst × 1000
	// delay is delay × 1000; nodelay is -1 (no excess is delayed).
	delay int64
	// drain is the milliseconds after which any node drains to nothing:
	// rate × drain / 1000 ≥ (burst + 1) × 1000.
	drain int64
}

// nginxState is a key's node: what nginx stores, and the latest time the
// key was decided at (for requests that arrive late).
type nginxState struct {
	node bool // nginx has made the key's node (a first request was admitted)
	// bare is a node a zone's lookup made for a request that a later zone
	// of its stack refused: nginx keeps it, never accounted (excess 0,
	// lr->last 0, long before nginx's clock, which counts from the
	// machine's boot), so it decides as a new key's node would, and is
	// drained and idle for ngx_http_limit_req_expire.
	bare   bool
	excess int64         // lr->excess: thousandths of a request
	last   int64         // lr->last: milliseconds
	at     time.Duration // latest time decided at
}

func newNginx(p Policy) *nginx {
	g := &nginx{p: p, rate: NginxRateMilli(p.Rate), burst: p.Burst * 1000, delay: p.Delay * 1000}
	if p.NoDelay {
		g.delay = -1
	}
	if g.rate > 0 {
		g.drain = ceilDiv((p.Burst+1)*1000*1000, g.rate)
	}
	return g
}

// threshold is the excess above which a request is delayed, in thousandths
// (MaxCount × 1000 for nodelay: above any burst).
func (g *nginx) threshold() int64 {
	if g.delay < 0 {
		return MaxCount * 1000
	}
	return g.delay
}

// drainMs is how long the policy remembers, in milliseconds.
func (g *nginx) drainMs() int64 { return g.drain }

// maxDelayMs is the longest delay nginx gives: that of excess burst × 1000.
func (g *nginx) maxDelayMs() int64 { return g.delayMs(g.burst) }

// delayMs is ngx_http_limit_req_account's delay for an excess.
func (g *nginx) delayMs(excess int64) int64 {
	if t := g.threshold(); excess > t {
		return (excess - t) * 1000 / g.rate
	}
	return 0
}

func (g *nginx) policy() *Policy { return &g.p }

func (g *nginx) start(now time.Duration) nginxState { return nginxState{at: now} }

// msOf is nginx's clock at a ratelab time: whole milliseconds, truncated.
func msOf(t time.Duration) int64 { return int64(t / time.Millisecond) }

// drained is rate × ms / 1000, nginx's drain over ms milliseconds; ms is cut
// at the drain time, past which every excess is gone anyway, so that the
// product never overflows.
func (g *nginx) drained(ms int64) int64 {
	return g.rate * min(ms, g.drain) / 1000
}

// excessFor is the excess nginx computes for a request of cost c at
// millisecond now: ngx_http_limit_req_lookup's for the first of c requests,
// then 1000 more for each other one.
func (g *nginx) excessFor(s *nginxState, now, cost int64) int64 {
	var e int64
	if s.node && !s.bare {
		e = max(0, s.excess-g.drained(now-s.last)+1000)
	}
	return e + (cost-1)*1000
}

func (g *nginx) decide(s *nginxState, _ *mem, now time.Duration, cost int64) Decision {
	d := g.verdict(s, now, cost)
	if g.p.DryRun && d.Outcome != Allowed {
		// limit_req_dry_run: accounted as decided, let through at once.
		d.DryRun, d.Outcome, d.Delay, d.RetryAfter = d.Outcome, Allowed, 0, 0
	}
	return d
}

// verdict is nginx's decision without dry_run: what decide returns unless
// the policy only pretends.
func (g *nginx) verdict(s *nginxState, now time.Duration, cost int64) (d Decision) {
	eff := max(now, s.at)
	s.at = eff
	d = Decision{At: now, Cost: cost, policy: &g.p, explain: explainNginx, v: [4]int64{s.excess, s.last, int64(eff)}}
	switch {
	case !s.node:
		d.v[3] = 1
	case s.bare:
		d.v[3] = 2
	}
	if cost > g.p.Burst+1 {
		d.Outcome, d.RetryAfter = Rejected, Never
		return d
	}
	ms := msOf(eff)
	e := g.excessFor(s, ms, cost)
	if e > g.burst {
		// Admitted once rate × elapsed / 1000 ≥ need, that is from
		// ⌈need × 1000 / rate⌉ ms after last (need > 0 and s.node: a new
		// node admits any cost up to burst + 1).
		need := s.excess + cost*1000 - g.burst
		at := s.last + ceilDiv(need*1000, g.rate)
		d.Outcome, d.RetryAfter = Rejected, time.Duration(at)*time.Millisecond-now
		return d
	}
	s.node, s.bare, s.excess, s.last = true, false, e, ms
	if delay := g.delayMs(e); delay > 0 {
		d.Outcome, d.Delay = Delayed, time.Duration(delay)*time.Millisecond
	}
	return d
}

// NginxLimitReqSnapshot shows a key's node in nginx's limit_req: its excess
// in thousandths of a request and the millisecond it was last updated, and
// what they come to at Now.
type NginxLimitReqSnapshot struct {
	Now time.Duration
	// Rate is the policy's; RateMilli is nginx's: thousandths of a request
	// per second, truncated (30r/m is 500).
	Rate      Rate
	RateMilli int64
	Burst     int64
	// Delay is the excess, in requests, above which a request is delayed
	// (nginx's delay=, 0 if left out); NoDelay says it is infinite.
	Delay   int64
	NoDelay bool
	// Node says whether nginx has a node for the key; without one, the next
	// request makes it, with excess 0.
	Node bool
	// Excess and Last are the node as stored: thousandths of a request, and
	// milliseconds (nginx's clock, ratelab's time truncated).
	Excess, Last int64
	// Left is the stored excess drained to Now, rate × (Now in ms − Last) /
	// 1000 truncated, and never below 0: what the picture shows.
	Left int64
	// Next is the excess a request of cost 1 at Now would be given (0 for a
	// key without a node); it is admitted iff Next ≤ Burst × 1000.
	Next int64
	// NextDelay is that request's delay, if admitted: 0, or whole ms.
	NextDelay time.Duration
}

func (s NginxLimitReqSnapshot) Moment() time.Duration { return s.Now }

func (g *nginx) snapshot(s nginxState, now time.Duration) Snapshot {
	now = max(now, s.at)
	ms := msOf(now)
	snap := NginxLimitReqSnapshot{
		Now: now, Rate: g.p.Rate, RateMilli: g.rate, Burst: g.p.Burst, Delay: g.p.Delay, NoDelay: g.p.NoDelay,
		Node: s.node, Excess: s.excess, Last: s.last,
		Next: g.excessFor(&s, ms, 1),
	}
	if s.node {
		snap.Left = max(0, s.excess-g.drained(ms-s.last))
	}
	if snap.Next <= g.burst {
		snap.NextDelay = time.Duration(g.delayMs(snap.Next)) * time.Millisecond
	}
	return snap
}

func (g *nginx) clone(s *nginxState, _ *mem) nginxState { return *s }

func (g *nginx) tables(*nginxState) int64 { return 0 }

// nginxForm: node, 1 once nginx has made the key's node (its first request
// admitted), 2 for a bare node (made by a zone's lookup for a request a
// later zone of a stack refused, never accounted), else 0; the node's
// excess, in thousandths of a request, and last_ms, nginx's lr->last: the
// millisecond of its latest admission (both 0 without a node or with a
// bare one); and latest, the time of the latest request in ns (a
// rejection moves it, not the node).
var nginxForm = StateForm{Fields: []string{"node", "excess", "last_ms", "latest"}}

func (g *nginx) encode(s *nginxState) State {
	node := int64(0)
	switch {
	case s.bare:
		node = 2
	case s.node:
		node = 1
	}
	return State{Fields: []int64{node, s.excess, s.last, int64(s.at)}}
}

func (g *nginx) decode(st State, _ *mem) (nginxState, error) {
	f := st.Fields
	s := nginxState{node: f[0] == 1 || f[0] == 2, bare: f[0] == 2, excess: f[1], last: f[2], at: time.Duration(f[3])}
	switch {
	case f[0] < 0 || f[0] > 2:
		return s, fmt.Errorf("nginx state %v: node %d is not 0, 1 or 2", f, f[0])
	case s.bare && (s.excess != 0 || s.last != 0):
		return s, fmt.Errorf("nginx state %v: a bare node (2), never accounted, yet an excess or a last_ms", f)
	case s.at < 0:
		return s, fmt.Errorf("nginx state %v: latest %d before the scenario's start", f, f[3])
	case !s.node && (s.excess != 0 || s.last != 0):
		return s, fmt.Errorf("nginx state %v: no node, yet an excess or a last_ms", f)
	case s.excess < 0 || s.excess > g.burst:
		return s, fmt.Errorf("nginx state %v: excess %s not in [0, burst %d]", f, NginxMilli(s.excess), g.p.Burst)
	case s.last < 0 || s.last > msOf(s.at):
		return s, fmt.Errorf("nginx state %v: last_ms %d not in [0, latest's %d ms]", f, s.last, msOf(s.at))
	}
	return s, nil
}

// NginxMilli writes thousandths of a request as nginx's log does: "7.500".
func NginxMilli(v int64) string { return string(AppendNginxMilli(nil, v)) }

// AppendNginxMilli appends NginxMilli(v) to b.
func AppendNginxMilli(b []byte, v int64) []byte {
	u := uint64(v)
	if v < 0 {
		b = append(b, '-')
		u = -u
	}
	b = append(strconv.AppendUint(b, u/1000, 10), '.')
	m := u % 1000
	return append(b, byte('0'+m/100), byte('0'+m/10%10), byte('0'+m%10))
}

// nginxCite ends every explanation: the file the rule follows.
const nginxCite = " (nginx ngx_http_limit_req_module.c)"

// explainNginx: v = {node's excess, node's last ms, time decided at, 1 if
// the key had no node, 2 if a bare one}.
func explainNginx(b []byte, d Decision) []byte {
	g := newNginx(*d.policy)
	excess, last, eff, fresh, bare := d.v[0], d.v[1], time.Duration(d.v[2]), d.v[3] == 1, d.v[3] == 2
	ms := msOf(eff)
	s := nginxState{node: !fresh, bare: bare, excess: excess, last: last}
	e := g.excessFor(&s, ms, d.Cost)
	b = lateNote(&d, eff).appendTo(b)
	if fresh || bare {
		if bare {
			b = appendf(b, d.times, "a node made for a request a later zone refused, never accounted (last 0, long before nginx's clock) at %d ms: excess 0.000", ms)
		} else {
			b = appendf(b, d.times, "no node yet at %d ms: nginx makes one with excess 0.000", ms)
		}
		if d.Cost > 1 {
			b = appendf(b, d.times, ", + (%d − 1) × 1.000 = %s", d.Cost, milli(e))
		}
	} else if elapsed := ms - last; !mulFits(g.rate, elapsed) {
		b = appendf(b, d.times, "%d ms since the node's %d ms, enough to drain any excess: excess = 0.000", elapsed, last)
		if d.Cost > 1 {
			b = appendf(b, d.times, " + (%d − 1) × 1.000 = %s", d.Cost, milli(e))
		}
	} else if elapsed == 0 {
		b = appendf(b, d.times, "same ms as the node (%d ms): excess = %s + 1.000", ms, milli(excess))
		if d.Cost > 1 {
			b = appendf(b, d.times, ", + (%d − 1) × 1.000", d.Cost)
		}
		b = appendf(b, d.times, " = %s", milli(e))
	} else {
		drained := g.rate * elapsed / 1000 // nginx's own product: it fits
		b = appendf(b, d.times, "%d ms since the node's %d ms: excess = %s − %s×%d/1000 (%s) + 1.000",
			elapsed, last, milli(excess), milli(g.rate), elapsed, milli(drained))
		if excess-drained+1000 < 0 {
			b = append(b, " < 0, so 0.000"...)
		}
		if d.Cost > 1 {
			b = appendf(b, d.times, ", + (%d − 1) × 1.000", d.Cost)
		}
		b = appendf(b, d.times, " = %s", milli(e))
	}
	switch {
	case d.DryRun == Rejected:
		b = appendf(b, d.times, " > burst %d → would be rejected with %d, the node left as it was; dry run (limit_req_dry_run): let through at once, logged REJECTED_DRY_RUN",
			d.policy.Burst, nginxStatus(*d.policy))
		return append(b, nginxCite...)
	case d.Outcome == Rejected:
		b = appendf(b, d.times, " > burst %d → rejected with %d and no Retry-After, the node left as it was; it would fit from %d ms, after %s",
			d.policy.Burst, nginxStatus(*d.policy), msOf(d.At+d.RetryAfter), retryFrom(&d, eff))
		return append(b, nginxCite...)
	}
	b = appendf(b, d.times, " ≤ burst %d", d.policy.Burst)
	switch t := g.threshold(); {
	case d.DryRun == Delayed:
		b = appendf(b, d.times, " → would be delayed (%s − delay %d) × 1000 / %s = %d ms; dry run (limit_req_dry_run): let through at once, logged DELAYED_DRY_RUN",
			milli(e), d.policy.Delay, milli(g.rate), g.delayMs(e))
	case d.Outcome == Delayed:
		b = appendf(b, d.times, " → delayed (%s − delay %d) × 1000 / %s = %d ms", milli(e), d.policy.Delay, milli(g.rate), int64(d.Delay/time.Millisecond))
	case d.policy.NoDelay:
		b = append(b, " → allowed at once (nodelay)"...)
	case e > t:
		b = appendf(b, d.times, " → allowed: (%s − delay %d) × 1000 / %s truncates to 0 ms", milli(e), d.policy.Delay, milli(g.rate))
	default:
		b = appendf(b, d.times, " → allowed at once: excess ≤ delay %d", d.policy.Delay)
	}
	return append(b, nginxCite...)
}
