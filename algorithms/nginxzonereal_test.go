package algorithms

import (
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// zoneReq is one request of TestNginxZoneAgainstRealNginx: to /loc with
// X-Key: key; when expect is set, want is the outcome the test expects of
// nginx, whatever the lane says.
type zoneReq struct {
	loc, key string
	want     Outcome
	expect   bool
}

// zoneResult is a request's answer, its send time from the start, and
// nginx's $limit_req_status for it.
type zoneResult struct {
	q        zoneReq
	id       string
	status   int
	at       time.Duration
	limitReq string
}

// TestNginxZoneAgainstRealNginx runs the real nginx (skipped without it,
// unless CI is set) with zones of 32k, 40k, 1286144 and 1990656 bytes at
// 1r/m without burst, keyed by X-Key, and fills each as zoneFill says:
// a key spends its allowance, NginxZoneKeys − 1 new keys fill the zone, the
// first key is still refused (the zone holds that many), and one more new
// key frees the least recently used one, which is then admitted as new (it
// does not hold one more). Two more locations show the freeing of idle
// drained nodes after 61.5s, one limit_req_dry_run on, and one of two
// zones of 32k stacked, as stackFill says. Every answer,
// status and $limit_req_status, must be the lane's on the same requests at
// the instants the test sent them, and the test's own expectations.
// Without -short it waits 61.5s; the zones' part alone takes a few seconds.
func TestNginxZoneAgainstRealNginx(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: leaves out the run against real nginx")
	}
	bin := realNginx(t)
	slow := Policy{Algorithm: NginxLimitReq, Rate: Rate{1, time.Minute}}
	sized := func(name string, size int64) realLoc {
		p := slow
		p.Zone = size
		return realLoc{name: name, zones: []realZone{{p: p}}}
	}
	dry := Policy{Algorithm: NginxLimitReq, Rate: Rate{1, time.Minute}, Burst: 2, Delay: 1, DryRun: true}
	zoned := slow
	zoned.Zone = 32 << 10
	locs := []realLoc{
		sized("z32k", 32<<10), sized("z40k", 40<<10), sized("zodd", 1286144), sized("zodd2", 1990656),
		sized("idle", 32<<10), sized("kept", 32<<10),
		{name: "dry", zones: []realZone{{p: dry}}},
		{name: "zstack", zones: []realZone{{p: zoned}, {p: zoned}}},
	}
	for i := range locs {
		l, err := locs[i].withLane()
		if err != nil {
			t.Fatalf("%s: %v", locs[i].name, err)
		}
		locs[i] = l
	}
	// idle's and kept's first requests; zone filling, location by
	// location; the dry run; then, 61.5s after the start, idle's and
	// kept's second ones.
	first := []zoneReq{
		{"idle", "a", Allowed, true}, {"idle", "b", Allowed, true}, {"idle", "c", Allowed, true},
		{"kept", "a", Allowed, true}}
	for _, loc := range locs[:4] {
		for _, s := range zoneFill(int(NginxZoneKeys(loc.zones[0].p.Zone))) {
			first = append(first, zoneReq{loc.name, s.key, s.want, true})
		}
	}
	for range 5 {
		first = append(first, zoneReq{loc: "dry", key: "d"})
	}
	for _, s := range stackFill(int(NginxZoneKeys(32 << 10))) {
		first = append(first, zoneReq{"zstack", s.key, s.want, true})
	}
	second := []zoneReq{
		// d frees a and b, idle and drained, not c (two at most).
		{"idle", "d", Allowed, true}, {"idle", "c", Rejected, true}, {"idle", "b", Allowed, true}, {"idle", "a", Allowed, true},
		// No new key: a stays, 16 × 61.5 / 1000 short of drained.
		{"kept", "a", Rejected, true},
	}

	addr, dir, stop := startNginx(t, bin, locs)
	client := &http.Client{Timeout: 5 * time.Second}
	start := time.Now()
	var results []zoneResult
	send := func(qs []zoneReq) {
		for _, q := range qs {
			res := zoneResult{q: q, id: fmt.Sprintf("z%d", len(results))}
			req, err := http.NewRequest("GET", "http://"+addr+"/"+q.loc, nil)
			if err != nil {
				t.Fatal(err)
			}
			req.Host = "ratelab"
			req.Header.Set("X-Key", q.key)
			req.Header.Set("X-Req", res.id)
			res.at = time.Since(start)
			resp, err := client.Do(req)
			if err != nil {
				t.Fatalf("%s key %s: %v", q.loc, q.key, err)
			}
			io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
			res.status = resp.StatusCode
			results = append(results, res)
		}
	}
	send(first)
	sentFirst := time.Since(start)
	time.Sleep(time.Until(start.Add(61500 * time.Millisecond)))
	send(second)
	// nginx logs a request before it reads the next on its connection,
	// and before it closes one: a last request that closes it makes sure
	// every line is written before nginx stops.
	last, err := http.NewRequest("GET", "http://"+addr+"/health", nil)
	if err != nil {
		t.Fatal(err)
	}
	last.Close = true
	if resp, err := client.Do(last); err == nil {
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
	}
	client.CloseIdleConnections()
	stop() // nginx has written every line
	access, err := os.ReadFile(filepath.Join(dir, "access.log"))
	if err != nil {
		t.Fatal(err)
	}
	seen := realAccessLog(access)

	lanes := map[string]Limiter{}
	for _, l := range locs {
		lanes[l.name] = l.fresh.Clone()
	}
	compared := 0
	for _, r := range results {
		q := r.q
		s, ok := seen[r.id]
		if !ok {
			t.Errorf("%s key %s (%s): no line in nginx's access log", q.loc, q.key, r.id)
			continue
		}
		d := lanes[q.loc].Decide(r.at, q.key, 1)
		wantStatus, wantLimitReq := realZoneAnswer(d)
		if r.status != wantStatus || s.limitReq != wantLimitReq {
			t.Errorf("%s key %s at %v (%s): nginx answered %d %s, the lane %d %s: %s", q.loc, q.key, r.at, r.id, r.status, s.limitReq, wantStatus, wantLimitReq, d.Explain())
		}
		if q.expect && d.Outcome != q.want {
			t.Errorf("%s key %s at %v: the lane %s, the test expects %s", q.loc, q.key, r.at, d.Outcome, q.want)
		}
		compared++
	}
	if t.Failed() {
		t.Logf("nginx's access log:\n%s", access)
	}
	t.Logf("%d answers compared (the zones' %d sent in %v)", compared, len(first), sentFirst.Round(time.Millisecond))
}

// realZoneAnswer is the HTTP status and $limit_req_status nginx answers
// the decision d of a single-zone lane with.
func realZoneAnswer(d Decision) (int, string) {
	switch {
	case d.DryRun == Rejected:
		return 200, "REJECTED_DRY_RUN"
	case d.DryRun == Delayed:
		return 200, "DELAYED_DRY_RUN"
	case d.Outcome == Rejected:
		return int(nginxStatus(d.Policy())), "REJECTED"
	case d.Outcome == Delayed:
		return 200, "DELAYED"
	}
	return 200, "PASSED"
}

// stackFill is the requests of TestNginxZoneAgainstRealNginx for a
// location of two zones (a, then b) of keys keys each, at 1r/m without
// burst, with nginx's answers: k0 and keys − 1 new keys fill both; k0,
// refused by a, moves to a's front only (b is not looked up); m1, new,
// frees the least recently used node of each: n1 in a, k0 in b. Then each
// of n1 … n(keys−1) again: a makes it a new node (its own was freed by the
// one before), freeing the next, and b refuses it, spent, so that a's node
// stays, never accounted; the last of them frees k0 in a too. So k0 is new
// in both zones and admitted. Were the nodes a made for the refused
// requests dropped, a would never fill again and would still refuse k0.
func stackFill(keys int) []zoneStep {
	steps := []zoneStep{{key: "k0", want: Allowed}}
	for n := 1; n < keys; n++ {
		steps = append(steps, zoneStep{key: fmt.Sprintf("n%d", n), want: Allowed})
	}
	steps = append(steps, zoneStep{key: "k0", want: Rejected}, zoneStep{key: "m1", want: Allowed})
	for n := 1; n < keys; n++ {
		steps = append(steps, zoneStep{key: fmt.Sprintf("n%d", n), want: Rejected})
	}
	return append(steps, zoneStep{key: "k0", want: Allowed})
}
