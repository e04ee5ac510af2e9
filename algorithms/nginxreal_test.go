package algorithms

import (
	"bufio"
	"bytes"
	"cmp"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// The nginx-limit-req lane against the real nginx: TestNginxAgainstRealNginx
// starts nginx with a generated configuration, sends it planned traffic at
// planned wall-clock times, and compares every answer with the lane's
// decision on the same traffic.

// realZone is one limit_req line of a location: its zone's policy, and
// whether the zone is keyed by the server's name (one allowance that every
// key spends together) rather than by the request's X-Key header.
type realZone struct {
	p       Policy
	allKeys bool
}

// realLoc is one location of the generated nginx.conf, /name, with its
// limit_req lines (one zone each, name0, name1, …) and what the lane
// needs to decide as it.
type realLoc struct {
	name  string
	zones []realZone
	keys  int
	// grid is what every planned time is a multiple of.
	grid time.Duration
	// fresh is the lane before any request (withLane): each decision of
	// a trace starts from a clone of it.
	fresh Limiter
}

// perKey says whether every zone is keyed by X-Key: then the keys are
// independent, and each key's traffic can be planned alone.
func (l realLoc) perKey() bool {
	for _, z := range l.zones {
		if z.allKeys {
			return false
		}
	}
	return true
}

// withLane gives l its lane, the limiter that should decide as the
// location: the policy itself for one zone per key, else a stack of the
// zones in their order.
func (l realLoc) withLane() (realLoc, error) {
	var err error
	if len(l.zones) == 1 && !l.zones[0].allKeys {
		l.fresh, err = New(l.zones[0].p)
		return l, err
	}
	layers := make([]Layer, len(l.zones))
	for i, z := range l.zones {
		layers[i] = Layer{Name: fmt.Sprintf("%s%d", l.name, i), Policy: z.p, AllKeys: z.allKeys}
	}
	l.fresh, err = NewStack(layers, NewKeys())
	return l, err
}

// conf appends the location's limit_req_zone lines to zones and its
// location block to locs.
func (l realLoc) conf(zones, locs *strings.Builder) {
	fmt.Fprintf(locs, "        location = /%s {\n", l.name)
	for i, z := range l.zones {
		key := "$http_x_key"
		if z.allKeys {
			key = "$server_name"
		}
		size := "1m"
		if z.p.Zone != 0 {
			size = FormatSize(z.p.Zone)
		}
		fmt.Fprintf(zones, "    limit_req_zone %s zone=%s%d:%s rate=%s;\n", key, l.name, i, size, nginxRate(z.p.Rate))
		fmt.Fprintf(locs, "            limit_req zone=%s%d", l.name, i)
		if z.p.Burst > 0 {
			fmt.Fprintf(locs, " burst=%d", z.p.Burst)
		}
		if z.p.Delay > 0 {
			fmt.Fprintf(locs, " delay=%d", z.p.Delay)
		}
		if z.p.NoDelay {
			locs.WriteString(" nodelay")
		}
		locs.WriteString(";\n")
	}
	// limit_req_status is the location's: every zone's policy has it.
	if st := l.zones[0].p.Status; st != 0 {
		fmt.Fprintf(locs, "            limit_req_status %d;\n", st)
	}
	// So is limit_req_dry_run.
	if l.zones[0].p.DryRun {
		locs.WriteString("            limit_req_dry_run on;\n")
	}
	locs.WriteString("        }\n")
}

// realReq is one planned request: sent at offset at from the shared start
// instant, with the header X-Key: key. Of requests at one instant, the
// lane decides those of a smaller tie first, then in their order.
type realReq struct {
	at  time.Duration
	key string
	tie time.Duration
}

// realDecide decides reqs, in time order (ties by tie, then in their
// order), on a fresh lane, and gives each request's decision at its index
// in reqs.
func realDecide(l realLoc, reqs []realReq) []Decision {
	lim := l.fresh.Clone()
	order := make([]int, len(reqs))
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(a, b int) int {
		return cmp.Or(cmp.Compare(reqs[a].at, reqs[b].at), cmp.Compare(reqs[a].tie, reqs[b].tie))
	})
	ds := make([]Decision, len(reqs))
	for _, i := range order {
		ds[i] = lim.Decide(reqs[i].at, reqs[i].key, 1)
	}
	return ds
}

// realShifts calls f with reqs where one request alone, or it and every
// request after it, has moved by ms either way: for ms from 1 to most, each
// request, each of the two moves and each way, until f returns false.
func realShifts(reqs []realReq, most int, f func(ms int, shifted []realReq) bool) {
	shifted := make([]realReq, len(reqs))
	for ms := 1; ms <= most; ms++ {
		for i := range reqs {
			for _, suffix := range []bool{false, true} {
				for _, sign := range []time.Duration{-1, 1} {
					copy(shifted, reqs)
					for j := range shifted {
						if j == i || suffix && (reqs[j].at > reqs[i].at || j > i && reqs[j].at == reqs[i].at) {
							shifted[j].at += sign * time.Duration(ms) * time.Millisecond
						}
					}
					if !f(ms, shifted) {
						return
					}
				}
			}
		}
	}
}

// realMargin is the smallest of realShifts' moves, in whole milliseconds
// from 1 to most, that changes whether some request of reqs is admitted;
// most + 1 if none does. nginx's arithmetic is on whole milliseconds, so no
// move between two whole ones changes anything they do not. Every time in
// reqs must be at least most ms.
func realMargin(l realLoc, reqs []realReq, most int) int {
	base := realDecide(l, reqs)
	margin := most + 1
	realShifts(reqs, most, func(ms int, shifted []realReq) bool {
		for j, d := range realDecide(l, shifted) {
			if d.Outcome.Admitted() != base[j].Outcome.Admitted() {
				margin = ms
				return false
			}
		}
		return true
	})
	return margin
}

// realNeed is the margin every planned decision must have, in ms.
const realNeed = 20

// realCandidates are requests one key might send over span: bursts of
// requests one or two grid steps apart, runs near the rate of the
// location's first zone, single requests and idle gaps, all on the grid
// and from 100 ms on.
func realCandidates(r *rand.Rand, l realLoc, key string, span time.Duration) []realReq {
	p := l.zones[0].p
	interval := p.Rate.Per / time.Duration(p.Rate.N)
	onGrid := func(d time.Duration) time.Duration { return max(l.grid, d/l.grid*l.grid) }
	var out []realReq
	t := 100*time.Millisecond + time.Duration(r.IntN(8))*l.grid
	emit := func(n int, step time.Duration) {
		for range n {
			if t < span {
				out = append(out, realReq{at: t, key: key})
			}
			t += step
		}
	}
	for t < span {
		switch r.IntN(5) {
		case 0, 1:
			emit(2+r.IntN(int(p.Burst)+3), time.Duration(1+r.IntN(2))*l.grid)
		case 2:
			emit(3+r.IntN(4), onGrid(interval*time.Duration(60+r.IntN(80))/100))
		case 3:
			emit(1, 0)
		case 4:
			t += onGrid(time.Duration(800+r.IntN(1500)) * time.Millisecond)
		}
		t += l.grid
	}
	return out
}

// realPlan is the location's traffic: each key's candidates, merged in
// time order and kept one by one while the lane's own arithmetic gives
// each a margin of at least realNeed + 2 ms (realExcessMargin). Where a
// zone is shared by every key, a candidate less than a grid step after the
// last one kept is left out too, so that no shift of up to realNeed ms
// reorders two requests. realMargin then checks the plan by shifting.
func realPlan(r *rand.Rand, l realLoc, span time.Duration) []realReq {
	var cands []realReq
	for k := range l.keys {
		cands = append(cands, realCandidates(r, l, fmt.Sprintf("k%d", k), span)...)
	}
	slices.SortStableFunc(cands, func(a, b realReq) int { return cmp.Compare(a.at, b.at) })
	lim := l.fresh.Clone()
	var plan []realReq
	for _, c := range cands {
		if !l.perKey() && len(plan) > 0 && c.at-plan[len(plan)-1].at < l.grid {
			continue
		}
		if realExcessMargin(l, lim, c) >= realNeed+2 {
			lim.Decide(c.at, c.key, 1)
			plan = append(plan, c)
		}
	}
	return plan
}

// realExcessMargin is, in ms, how far request q is from the other outcome
// in the lane's arithmetic, lim having decided every request before it:
// an excess e ≤ burst × 1000 turns into a rejection once rate × ms / 1000
// more is left undrained, one above it into an admission once that much
// more drains. Moving one request, or it and all after it, moves the
// drain of one stretch between two requests of a key by as much (the
// drains of the stretches after it add up the same), so no such move of
// fewer ms should change an outcome; realMargin checks that it does not.
// Over several zones: an admission's nearest zone; a rejection's farthest
// refusing zone.
func realExcessMargin(l realLoc, lim Limiter, q realReq) int64 {
	var admit, refuse int64 = 1 << 62, -1
	for z := range l.zones {
		var s NginxLimitReqSnapshot
		if st, ok := lim.(Stacked); ok {
			s = st.LayerSnapshot(z, q.at, q.key).(NginxLimitReqSnapshot)
		} else {
			s = lim.Snapshot(q.at, q.key).(NginxLimitReqSnapshot)
		}
		if b := s.Burst * 1000; s.Next <= b {
			admit = min(admit, (b-s.Next)*1000/s.RateMilli)
		} else {
			refuse = max(refuse, (s.Next-b)*1000/s.RateMilli)
		}
	}
	if refuse >= 0 {
		return refuse
	}
	return admit
}

// realGroups splits a location's plan into what decides independently:
// each key's requests when the keys are, else the whole.
func realGroups(l realLoc, plan []realReq) [][]realReq {
	if !l.perKey() {
		return [][]realReq{plan}
	}
	byKey := map[string][]realReq{}
	var keys []string
	for _, q := range plan {
		if byKey[q.key] == nil {
			keys = append(keys, q.key)
		}
		byKey[q.key] = append(byKey[q.key], q)
	}
	var out [][]realReq
	for _, k := range keys {
		out = append(out, byKey[k])
	}
	return out
}

// realNginx is the nginx binary: on PATH or Debian's /usr/sbin/nginx. It
// skips the test without one, unless CI is set: CI installs nginx, so
// there its absence fails.
func realNginx(t *testing.T) string {
	t.Helper()
	if bin, err := exec.LookPath("nginx"); err == nil {
		return bin
	}
	if _, err := os.Stat("/usr/sbin/nginx"); err == nil {
		return "/usr/sbin/nginx"
	}
	if os.Getenv("CI") != "" {
		t.Fatal("nginx is not on PATH nor at /usr/sbin/nginx, and CI is set: CI installs it (.ci/run)")
	}
	t.Skip("nginx is not on PATH nor at /usr/sbin/nginx")
	return ""
}

// startNginx starts bin in the foreground, one process, as the current
// user, on a configuration of locs in a temporary directory that also
// holds its logs, pid and temporary files; it returns the address it
// listens on once it answers, the directory, and stop, which kills nginx
// and waits for it. stop is called when the test ends too.
func startNginx(t *testing.T, bin string, locs []realLoc) (addr, dir string, stop func()) {
	t.Helper()
	dir = t.TempDir()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr = l.Addr().String()
	l.Close()
	html := filepath.Join(dir, "html")
	for _, d := range []string{html, filepath.Join(dir, "tmp")} {
		if err := os.Mkdir(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	var zones, blocks strings.Builder
	files := []string{"health"}
	for _, loc := range locs {
		loc.conf(&zones, &blocks)
		files = append(files, loc.name)
	}
	for _, f := range files {
		if err := os.WriteFile(filepath.Join(html, f), []byte("ok\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	tmp := func(name string) string { return fmt.Sprintf("%q", filepath.Join(dir, "tmp", name)) }
	// return 200 would answer in the rewrite phase, before limit_req's
	// preaccess phase: each location serves a small file instead.
	conf := fmt.Sprintf(`worker_processes 1;
pid %q;
error_log %q info;
events {
    worker_connections 1024;
}
http {
    default_type text/plain;
    log_format ratelab '$http_x_req $msec $request_time $status $limit_req_status $uri $http_x_key';
    access_log %q ratelab;
    client_body_temp_path %s;
    proxy_temp_path %s;
    fastcgi_temp_path %s;
    uwsgi_temp_path %s;
    scgi_temp_path %s;
%s    server {
        listen %s;
        server_name ratelab;
        root %q;
        location = /health {
        }
%s    }
}
`, filepath.Join(dir, "nginx.pid"), filepath.Join(dir, "error.log"), filepath.Join(dir, "access.log"),
		tmp("body"), tmp("proxy"), tmp("fastcgi"), tmp("uwsgi"), tmp("scgi"),
		zones.String(), addr, html, blocks.String())
	confPath := filepath.Join(dir, "nginx.conf")
	if err := os.WriteFile(confPath, []byte(conf), 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(bin, "-p", dir+"/", "-c", confPath, "-e", filepath.Join(dir, "error.log"),
		"-g", "daemon off; master_process off;")
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan struct{})
	go func() { cmd.Wait(); close(exited) }()
	var once sync.Once
	stop = func() {
		once.Do(func() {
			cmd.Process.Kill()
			<-exited
		})
	}
	t.Cleanup(stop)
	deadline := time.Now().Add(10 * time.Second)
	for {
		select {
		case <-exited:
			errLog, _ := os.ReadFile(filepath.Join(dir, "error.log"))
			t.Fatalf("nginx exited at start: %s\n%s%s", cmd.ProcessState, out.String(), errLog)
		default:
		}
		resp, err := (&http.Client{Timeout: time.Second}).Get("http://" + addr + "/health")
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode == 200 {
				return addr, dir, stop
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("nginx does not answer on %s after 10s: %v", addr, err)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// realResult is what nginx answered one request: its status, and when it
// was sent and its answer's head read, from the shared start.
type realResult struct {
	status     int
	sent, done time.Duration
	err        error
}

// realSend connects 200 ms ahead, sends q to /loc at its planned instant
// with the header X-Req: id (which nginx's access log writes first), and
// reads the answer.
func realSend(addr string, start time.Time, loc, id string, q realReq) (res realResult) {
	time.Sleep(time.Until(start.Add(q.at - 200*time.Millisecond)))
	c, err := net.DialTimeout("tcp", addr, 2*time.Second)
	if err != nil {
		res.err = err
		return res
	}
	defer c.Close()
	c.SetDeadline(start.Add(q.at + 10*time.Second))
	msg := "GET /" + loc + " HTTP/1.1\r\nHost: ratelab\r\nX-Key: " + q.key + "\r\nX-Req: " + id + "\r\nConnection: close\r\n\r\n"
	time.Sleep(time.Until(start.Add(q.at)))
	res.sent = time.Since(start)
	if _, err := io.WriteString(c, msg); err != nil {
		res.err = err
		return res
	}
	br := bufio.NewReader(c)
	resp, err := http.ReadResponse(br, nil)
	res.done = time.Since(start)
	if err != nil {
		res.err = err
		return res
	}
	res.status = resp.StatusCode
	// To the end of the connection: nginx writes its access log line
	// before it closes.
	io.Copy(io.Discard, br)
	return res
}

// TestNginxAgainstRealNginx runs the real nginx (skipped without it,
// unless CI is set) with a location for each kind of limit_req line:
// burst without nodelay, no burst, with nodelay, delay=, limit_req_status
// 429, a rate per minute, and two zones in one location (one per key, one
// for all keys): both nodelay, both delaying, or one of each. It plans each location's
// traffic (several keys, bursts, runs, idle gaps) on a grid so that every
// decision of the lane keeps its outcome when any request alone, or it and
// all after it, moves by up to realNeed ms either way, and sends every
// request at its planned instant, one connection each. Every answer must
// then be the lane's: 200 for an admitted request, the lane's refusal
// status for a rejected one (its policy's status, the location's
// limit_req_status, or 503), and the answer read when the lane's delay
// ends (a stack's: the longest of its zones'), within a tolerance.
//
// The lane decides twice: on the plan, and on the instants nginx itself
// saw (its access log: $msec less $request_time is the millisecond its
// limit_req decided at, on the wall clock where nginx's own is the
// monotonic one: the two differ by at most 1 ms in any gap). On nginx's
// instants, every status whose admission stays when they move by up to
// 3 ms is compared, and every outcome (allowed, delayed, rejected) that
// stays is compared with nginx's $limit_req_status; the rest are counted,
// not compared. A run in which every request reached nginx within
// realNeed − 2 ms of its plan must also give the plan's decisions.
// Answers are timed from nginx's instants. A run that is late (a request
// beyond that, or an answer beyond the tolerance: a busy machine) is run
// again on a fresh nginx, up to realRuns runs. A status or outcome unlike
// the lane's, or an answer sooner than its delay, fails the test at once;
// an answer later than the tolerance (by nginx's own $request_time too)
// fails it in a last run where every request reached nginx on time, and
// is only reported in one where nginx fell behind.
func TestNginxAgainstRealNginx(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: leaves out the run against real nginx")
	}
	bin := realNginx(t)
	ms := time.Millisecond
	locs := []realLoc{
		{name: "burst", zones: []realZone{{p: nginxPolicy(Rate{10, sec}, 5, 0, false)}}, keys: 3, grid: 25 * ms},
		{name: "noburst", zones: []realZone{{p: nginxPolicy(Rate{5, sec}, 0, 0, false)}}, keys: 2, grid: 25 * ms},
		{name: "nodelay", zones: []realZone{{p: nginxPolicy(Rate{10, sec}, 5, 0, true)}}, keys: 3, grid: 25 * ms},
		{name: "delay", zones: []realZone{{p: nginxPolicy(Rate{10, sec}, 6, 3, false)}}, keys: 3, grid: 25 * ms},
		{name: "status", zones: []realZone{{p: Policy{Algorithm: NginxLimitReq, Rate: Rate{4, sec}, Burst: 3, Delay: 1, Status: 429}}}, keys: 2, grid: 25 * ms},
		{name: "perminute", zones: []realZone{{p: nginxPolicy(Rate{100, time.Minute}, 3, 0, false)}}, keys: 2, grid: 50 * ms},
		{name: "stacked", zones: []realZone{
			{p: nginxPolicy(Rate{5, sec}, 2, 0, true)},
			{p: nginxPolicy(Rate{10, sec}, 6, 0, true), allKeys: true},
		}, keys: 4, grid: 25 * ms},
		{name: "stackdelay", zones: []realZone{
			{p: nginxPolicy(Rate{5, sec}, 3, 0, false)},
			{p: nginxPolicy(Rate{10, sec}, 6, 2, false), allKeys: true},
		}, keys: 4, grid: 25 * ms},
		{name: "stackmixed", zones: []realZone{
			{p: nginxPolicy(Rate{5, sec}, 2, 0, true)},
			{p: nginxPolicy(Rate{10, sec}, 5, 0, false), allKeys: true},
		}, keys: 3, grid: 25 * ms},
	}
	const span = 7 * time.Second

	planStart := time.Now()
	r := rand.New(rand.NewPCG(22, 1))
	plans := make([][]realReq, len(locs))
	decisions := make([][]Decision, len(locs))
	smallest, count := realNeed*10, 0
	var counts [3]int
	for i := range locs {
		l, err := locs[i].withLane()
		if err != nil {
			t.Fatalf("%s: %v", l.name, err)
		}
		locs[i] = l
		plans[i] = realPlan(r, l, span)
		decisions[i] = realDecide(l, plans[i])
		for _, g := range realGroups(l, plans[i]) {
			m := realMargin(l, g, 2*realNeed)
			if m <= realNeed {
				t.Fatalf("%s: the plan's margin is %d ms, not above %d", l.name, m, realNeed)
			}
			smallest = min(smallest, m)
		}
		count += len(plans[i])
		for _, d := range decisions[i] {
			counts[d.Outcome]++
		}
	}
	planned := time.Since(planStart)

	var v realVerdict
	for runs := 1; ; runs++ {
		runtime.GC() // the planning's garbage, collected before the clock matters
		v = realRun(t, bin, locs, plans, decisions)
		v.runs = runs
		if len(v.bad) > 0 || v.onTime() && len(v.slow) == 0 || runs == realRuns {
			break
		}
		why := fmt.Sprintf("a request reached nginx %v late", v.late)
		if len(v.slow) > 0 {
			why = fmt.Sprintf("%d answers out of time, the first: %s", len(v.slow), v.slow[0])
		}
		t.Logf("run %d was late (%s): running again", runs, why)
	}
	for _, b := range v.bad {
		t.Error(b)
	}
	switch {
	case len(v.slow) > 0 && v.onTime():
		for _, b := range v.slow {
			t.Error(b)
		}
	case len(v.slow) > 0:
		t.Logf("%d answers came later than the tolerance in run %d, where nginx fell behind too (a request reached it %v late): "+
			"reported, not failed; the first: %s", len(v.slow), v.runs, v.late, v.slow[0])
	}
	if t.Failed() {
		t.Logf("nginx's access log (X-Req location.request, $msec, $request_time, status, $limit_req_status, uri, key):\n%s", v.access)
	}
	plan := "every request reached nginx on time, and the lane decided as on the plan"
	if !v.onTime() {
		plan = fmt.Sprintf("a request reached nginx %v late, so the plan's decisions were not compared", v.late)
	}
	t.Logf("%d requests (on the plan allowed/delayed/rejected %v) in %d locations, smallest margin %d ms (more than %d required), planned in %v; "+
		"run %d, sent over %v: %d statuses compared with the lane on nginx's instants, %d too near a change to tell, %d outcomes with $limit_req_status; %s; "+
		"answers at most %v from when the lane said",
		count, counts, len(locs), smallest, realNeed, planned.Round(ms), v.runs, v.sent.Round(ms), v.compared, v.unsure, v.classed, plan, v.worst)
}

// realRuns is how many runs the test gets in all, when they are late.
const realRuns = 3

// tolerance bounds how much later an answer may come than the lane's
// delay after the instant nginx began the request (nginx's timer's and the
// reader's lateness), by the test's clock or by nginx's own ($request_time
// in its log); early, how much sooner by the test's clock (the clocks'
// whole milliseconds, a delay's truncation).
const tolerance, early = realNeed * time.Millisecond, 3 * time.Millisecond

// realVerdict is what a run found.
type realVerdict struct {
	// bad are statuses or outcomes unlike the lane's on nginx's
	// instants, requests without an answer or a log line, and plan
	// decisions unlike them in a run on time: each fails the test. slow
	// are answers out of time, too late or too early (a busy machine
	// makes nginx read its cached clock late, which moves the instant it
	// logs): they fail it in a last run on time.
	bad, slow []string
	// compared and unsure count the statuses compared and those too near
	// a change of admission to be; classed, the outcomes compared with
	// $limit_req_status (allowed, delayed or rejected: those not within
	// 3 ms of another).
	compared, unsure, classed int
	// early and late are how much sooner and later than planned a
	// request reached nginx at most; worst the largest gap between an
	// answer and when it was due; sent how long the sending took.
	early, late, worst, sent time.Duration
	// runs is the run's number; access nginx's access log.
	runs   int
	access []byte
}

// onTime says whether every request reached nginx within realNeed − 2 ms
// of its planned instant (2 for the clocks' whole milliseconds).
func (v *realVerdict) onTime() bool {
	return v.early <= 2*time.Millisecond && v.late <= (realNeed-2)*time.Millisecond
}

// realRun starts nginx on locs, sends every location's plan at its planned
// instants from a shared start, stops nginx, and compares its answers with
// the lane: see TestNginxAgainstRealNginx.
func realRun(t *testing.T, bin string, locs []realLoc, plans [][]realReq, decisions [][]Decision) (v realVerdict) {
	t.Helper()
	addr, dir, stop := startNginx(t, bin, locs)
	results := make([][]realResult, len(locs))
	start := time.Now().Add(time.Second)
	var wg sync.WaitGroup
	for i, l := range locs {
		results[i] = make([]realResult, len(plans[i]))
		for j, q := range plans[i] {
			wg.Go(func() { results[i][j] = realSend(addr, start, l.name, fmt.Sprintf("%d.%d", i, j), q) })
		}
	}
	wg.Wait()
	v.sent = time.Since(start)
	stop()
	v.access, _ = os.ReadFile(filepath.Join(dir, "access.log"))
	seen := realAccessLog(v.access)
	// nginx's instants as offsets from start's whole millisecond, as the
	// lane takes them; frac is start's part of a millisecond, to time the
	// answers from start.
	base := start.UnixMilli()
	frac := time.Duration(start.UnixNano() - base*1e6)
	for i, l := range locs {
		obs := make([]realReq, len(plans[i]))
		took := make([]time.Duration, len(plans[i]))
		did := make([]string, len(plans[i]))
		complete := true
		for j, q := range plans[i] {
			res := results[i][j]
			s, ok := seen[fmt.Sprintf("%d.%d", i, j)]
			switch {
			case res.err != nil:
				v.bad = append(v.bad, fmt.Sprintf("%s key %s at %v: %v", l.name, q.key, q.at, res.err))
				complete = false
				continue
			case !ok:
				v.bad = append(v.bad, fmt.Sprintf("%s key %s at %v: answered %d, but not in nginx's access log", l.name, q.key, q.at, res.status))
				complete = false
				continue
			case s.status != res.status:
				v.bad = append(v.bad, fmt.Sprintf("%s key %s at %v: answered %d, logged %d", l.name, q.key, q.at, res.status, s.status))
			}
			// nginx reads requests that arrive together in the order
			// they were sent: the lane decides them so.
			obs[j] = realReq{time.Duration(s.began-base) * time.Millisecond, q.key, res.sent}
			took[j], did[j] = s.took, s.limitReq
			v.late = max(v.late, obs[j].at-frac-q.at)
			v.early = max(v.early, q.at-(obs[j].at-frac))
		}
		if !complete {
			continue
		}
		ds := realDecide(l, obs)
		stable, sure := realStable(l, obs, 3)
		for j, q := range plans[i] {
			d, res := ds[j], results[i][j]
			want := 200
			if d.Outcome == Rejected {
				want = d.Status(d.Policy())
			}
			what := fmt.Sprintf("%s key %s, planned at %v, reached nginx at %v: nginx answered %d after %v (%v, %s by its log); the lane on nginx's instants: %v, delay %v, so %d: %s",
				l.name, q.key, q.at, obs[j].at-frac, res.status, res.done-(obs[j].at-frac), took[j], did[j], d.Outcome, d.Delay, want, d.Explain())
			if !stable[j] {
				v.unsure++
			} else if v.compared++; res.status != want {
				v.bad = append(v.bad, what)
				continue
			}
			if sure[j] {
				if v.classed++; did[j] != realLimitReqStatus[d.Outcome] {
					v.bad = append(v.bad, what)
					continue
				}
			}
			if res.status != 200 {
				continue
			}
			off := res.done - (obs[j].at - frac + d.Delay)
			if d.Outcome.Admitted() {
				v.worst = max(v.worst, off, -off)
			}
			switch {
			case off < -early:
				v.slow = append(v.slow, "too early: "+what)
			case off > tolerance && took[j]-d.Delay > tolerance:
				// Late by the test's clock and by nginx's own: a
				// reader late to read an answer nginx sent in time is
				// the machine's, not nginx's.
				v.slow = append(v.slow, "too late: "+what)
			}
		}
		if !v.onTime() {
			continue
		}
		for j, q := range plans[i] {
			if got, want := ds[j].Outcome.Admitted(), decisions[i][j].Outcome.Admitted(); got != want {
				v.bad = append(v.bad, fmt.Sprintf("%s key %s at %v: every request on time, yet admitted %v on nginx's instants and %v on the plan: the plan's margin does not hold",
					l.name, q.key, q.at, got, want))
			}
		}
	}
	return v
}

// realSeen is what nginx's access log says of a request: the millisecond
// it began (its $msec less its $request_time: the instant its limit_req
// decided at, on the wall clock), how long it took, its status and what
// limit_req did.
type realSeen struct {
	began  int64
	took   time.Duration
	status int
	// limitReq is its $limit_req_status: PASSED, DELAYED or REJECTED.
	limitReq string
}

// realAccessLog reads the lines of the test's requests from nginx's
// access log, by their X-Req.
func realAccessLog(b []byte) map[string]realSeen {
	out := map[string]realSeen{}
	millis := func(s string) (int64, bool) {
		whole, frac, ok := strings.Cut(s, ".")
		n, err := strconv.ParseInt(whole+frac, 10, 64)
		return n, ok && len(frac) == 3 && err == nil
	}
	for line := range strings.Lines(string(b)) {
		f := strings.Fields(line)
		if len(f) < 5 || f[0] == "-" {
			continue
		}
		at, ok1 := millis(f[1])
		took, ok2 := millis(f[2])
		status, err := strconv.Atoi(f[3])
		if ok1 && ok2 && err == nil {
			out[f[0]] = realSeen{at - took, time.Duration(took) * time.Millisecond, status, f[4]}
		}
	}
	return out
}

// realStable says, for each request of reqs, whether its admission
// (admit) and its outcome (sure: allowed, delayed or rejected) stay as
// they are under every move of realShifts up to most ms.
func realStable(l realLoc, reqs []realReq, most int) (admit, sure []bool) {
	base := realDecide(l, reqs)
	admit, sure = make([]bool, len(reqs)), make([]bool, len(reqs))
	for j := range admit {
		admit[j], sure[j] = true, true
	}
	realShifts(reqs, most, func(_ int, shifted []realReq) bool {
		for j, d := range realDecide(l, shifted) {
			if d.Outcome.Admitted() != base[j].Outcome.Admitted() {
				admit[j] = false
			}
			if d.Outcome != base[j].Outcome {
				sure[j] = false
			}
		}
		return true
	})
	return admit, sure
}

// realLimitReqStatus is nginx's $limit_req_status for each outcome.
var realLimitReqStatus = [...]string{Allowed: "PASSED", Delayed: "DELAYED", Rejected: "REJECTED"}
