package main

import (
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/alicebob/miniredis/v2"

	"ratelab/scenarios"
)

// storeURLs are the Redis servers the store tests run against: an
// in-process miniredis, and the real server and the cluster .ci/run starts
// (RATELAB_REDIS_URL, RATELAB_REDIS_CLUSTER) when set.
func storeURLs(t *testing.T) []string {
	t.Helper()
	urls := []string{"redis://" + miniredis.RunT(t).Addr() + "/0"}
	for _, env := range []string{"RATELAB_REDIS_URL", "RATELAB_REDIS_CLUSTER"} {
		if u := os.Getenv(env); u != "" {
			urls = append(urls, u)
		}
	}
	return urls
}

// slowOnAStore are the canned lessons that take seconds through a store
// (memory-price keeps a sliding log of 12,000 entries, global-cap fifty
// accounts' buckets, memory-fleet a thousand sellers' logs: 117 s on
// miniredis): `go test -short` leaves them out of the store tests,
// which then run every other lesson, each algorithm, store mode and client
// rule among them, in a few seconds.
var slowOnAStore = map[string]bool{"memory-price": true, "global-cap": true, "memory-fleet": true}

// notOnAStore are the canned lessons with a lane no store can decide, and
// what the refusal says: nginx keeps a zone's keys in its own memory and
// frees the oldest for a new one, which a script deciding each key alone
// cannot (the lesson's nginx lane is read from its limit_req_zone, size
// and all).
var notOnAStore = map[string]string{"same-words": "frees one for another, which a script deciding each key's hash alone cannot"}

// TestStoreRunsEveryLessonAlike: `run --format json --store URL` prints
// every canned lesson byte for byte as the run in memory does, and
// `check --store URL` passes them all. With -short, the lessons in
// slowOnAStore are left out; on miniredis they always are (the real
// Redis and Redis Cluster of RATELAB_REDIS_URL and RATELAB_REDIS_CLUSTER
// run them).
func TestStoreRunsEveryLessonAlike(t *testing.T) {
	var names []string
	for _, info := range scenarios.List() {
		if testing.Short() && slowOnAStore[info.Name] {
			continue
		}
		if why, refused := notOnAStore[info.Name]; refused {
			if code, _, errs := ratelab(t, "run", "--format", "json", "--store", storeURLs(t)[0], info.Name); code != 2 || !strings.Contains(errs, why) {
				t.Errorf("%s on a store: exit %d, %s; want exit 2 saying %q", info.Name, code, strings.TrimSpace(errs), why)
			}
			continue
		}
		names = append(names, info.Name)
	}
	if len(names) < 10 {
		t.Fatalf("only %d lessons to run on a store: %v", len(names), names)
	}
	for i, url := range storeURLs(t) {
		names := names
		if i == 0 {
			// miniredis, first, runs Lua a hundred times slower than
			// Redis: the slow lessons are left to the real servers
			// (memory-price alone took 37 s on it, and pushed the
			// package past its 10 minutes).
			names = slices.DeleteFunc(slices.Clone(names), func(n string) bool { return slowOnAStore[n] })
		}
		for _, name := range names {
			t.Run(name, func(t *testing.T) {
				_, want, _ := ratelab(t, "run", "--format", "json", name)
				code, got, errs := ratelab(t, "run", "--format", "json", "--store", url, name)
				if code != 0 || got != want {
					t.Errorf("%s on %s: exit %d, %s; output the same as in memory: %v", name, url, code, strings.TrimSpace(errs), got == want)
				}
			})
		}
		code, out, errs := ratelab(t, append([]string{"check", "--store", url}, names...)...)
		if code != 0 || strings.Count(out, "ok ") != len(names) {
			t.Errorf("check --store %s: exit %d\n%s%s", url, code, out, errs)
		}
	}
}

// TestStoreErrorsAreOneLine: a store that cannot be reached, or a lane it
// cannot decide exactly, is one line on stderr and exit 2.
func TestStoreErrorsAreOneLine(t *testing.T) {
	mini := miniredis.RunT(t)
	big := writeFile(t, "big.yaml", `title: too big for Lua
limiters:
  - {name: huge, algorithm: token-bucket, capacity: 1000000, rate: 1000000/1h}
traffic:
  - {at: 0s}
`)
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"run", "--store", "redis://127.0.0.1:1/0", "boundary"}, "refused the connection"},
		{[]string{"check", "--store", "nonsense", "boundary"}, "want redis://HOST:PORT/DB"},
		{[]string{"run", "--store", "redis://" + mini.Addr() + "/0", big}, "lane huge: capacity × rate period in ns, plus the rate's N is 3600000000001000000, past 2^53"},
	} {
		code, out, errs := ratelab(t, c.args...)
		if code != 2 || out != "" || strings.Count(errs, "\n") != 1 || !strings.Contains(errs, c.want) {
			t.Errorf("%v: exit %d, stdout %q, stderr %q; want exit 2 and one line saying %q", c.args, code, out, errs, c.want)
		}
	}
}

// TestStoreFailureStopsCheck: a store that fails on one scenario (here a
// resetting window whose attempts' count would pass 2^53 in Lua, which no
// policy bound can foresee) stops check there with one line and exit 2:
// the scenarios after it are not run on a failed store, each to say so
// again.
func TestStoreFailureStopsCheck(t *testing.T) {
	grow := writeFile(t, "grow.yaml", `title: a count past 2^53
limiters:
  - {name: grow, algorithm: resetting-window, limit: 1099511627776, window: 4ms}
traffic:
  - {every: 1ms, until: 9s, cost: 1099511627776}
`)
	for _, url := range storeURLs(t) {
		code, out, errs := ratelab(t, "check", "--store", url, grow, "boundary", "dashboard")
		if code != 2 || strings.Count(errs, "\n") != 1 || !strings.Contains(errs, "lane grow, key default, at 8.191s") ||
			!strings.Contains(errs, "reaches 2^53") || strings.Contains(out, "boundary") {
			t.Errorf("%s: exit %d, stdout %q, stderr %q", url, code, out, errs)
		}
	}
}
