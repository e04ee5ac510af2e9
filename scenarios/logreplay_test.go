package scenarios

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"
)

// TestReplayPacksExactly: what a recording yields back is what it was
// given, whatever the gaps (zero, a nanosecond, a second, a year), keys
// (new, back to an old one) and costs; a gap the packing cannot hold drops
// the recording.
func TestReplayPacksExactly(t *testing.T) {
	type req struct {
		at   time.Duration
		id   uint64
		cost int64
	}
	keys := []keyFirst{{key: "a"}, {key: "b"}, {key: "c"}}
	for _, tc := range []struct {
		name string
		reqs []req
		ok   bool
	}{
		{"none", nil, true},
		{"one", []req{{0, 0, 1}}, true},
		{"a late first", []req{{5 * time.Second, 2, 7}}, true},
		{"gaps and keys", []req{{0, 0, 1}, {0, 0, 1}, {1, 1, 1}, {time.Second, 0, 3}, {time.Second, 0, 3},
			{365 * 24 * time.Hour, 2, 1}, {365*24*time.Hour + 1, 1, 1 << 40}}, true},
		{"the largest gap", []req{{0, 0, 1}, {maxGap, 0, 1}}, true},
		{"a gap too large", []req{{0, 0, 1}, {maxGap + 1, 0, 1}}, false},
		{"back in time", []req{{2, 0, 1}, {1, 0, 1}}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rec := newReplayRecorder()
			if rec == nil {
				t.Fatal("no temporary file")
			}
			for _, r := range tc.reqs {
				rec.add(r.at, r.id, r.cost)
			}
			rp := rec.finish(keys)
			if !tc.ok {
				if rp != nil {
					t.Fatal("the recording was kept")
				}
				return
			}
			if rp == nil {
				t.Fatal("the recording was dropped")
			}
			defer rp.f.Close()
			var got []req
			err := rp.each(func(at time.Duration, key string, cost int64) bool {
				id := slices.IndexFunc(keys, func(k keyFirst) bool { return k.key == key })
				got = append(got, req{at, uint64(id), cost})
				return true
			})
			if err != nil || !slices.Equal(got, tc.reqs) {
				t.Fatalf("replayed %v (%v), want %v", got, err, tc.reqs)
			}
		})
	}
}

// TestReplayCutShortIsAnError: a replay whose file lost its end says so.
func TestReplayCutShortIsAnError(t *testing.T) {
	rec := newReplayRecorder()
	for i := range 100 {
		rec.add(time.Duration(i)*time.Second, 0, 1)
	}
	rp := rec.finish([]keyFirst{{key: "a"}})
	defer rp.f.Close()
	rp.size /= 2
	n := 0
	if err := rp.each(func(time.Duration, string, int64) bool { n++; return true }); err != errReplayShort || n == 100 {
		t.Fatalf("a cut replay gave %d requests and %v", n, err)
	}
}

// TestReplayLeavesNothing: reading a log leaves no file in the temporary
// directory, and the copy's file is closed once the scenario is garbage.
func TestReplayLeavesNothing(t *testing.T) {
	tmp := t.TempDir()
	t.Setenv("TMPDIR", tmp)
	lines := []string{combinedLine("192.0.2.1", 0, "/", 200), combinedLine("192.0.2.2", 1, "/", 200)}
	s, err := writeScenario(t, lines, "{log: access.log}")
	if err != nil {
		t.Fatal(err)
	}
	if s.Logs[0].replay == nil {
		t.Fatal("the log's requests were not kept")
	}
	if left, _ := os.ReadDir(tmp); len(left) != 0 {
		t.Errorf("the temporary directory holds %d entries after reading a log", len(left))
	}
	fd := s.Logs[0].replay.f.Fd()
	link := filepath.Join("/proc/self/fd", strconv.Itoa(int(fd)))
	if _, err := os.Readlink(link); err != nil {
		t.Skipf("no /proc/self/fd here (%v): the closing is not observed", err)
	}
	s = nil
	for range 20 {
		runtime.GC()
		time.Sleep(10 * time.Millisecond)
		if target, err := os.Readlink(link); err != nil || filepath.Dir(target) != filepath.Clean(tmp) {
			return // closed, or the number reused by another file
		}
	}
	t.Error("the copy's file is still open after its scenario was collected")
}

// BenchmarkReplayEach is one pass over a million recorded requests: 100
// keys, most at the instant of the one before, a few costing more.
func BenchmarkReplayEach(b *testing.B) {
	rec := newReplayRecorder()
	keys := make([]keyFirst, 100)
	for i := range keys {
		keys[i].key = strconv.Itoa(i)
	}
	for i := range 1_000_000 {
		rec.add(time.Duration(i/10)*time.Second, uint64(i*7%100), 1+int64(i%50/49))
	}
	rp := rec.finish(keys)
	defer rp.f.Close()
	b.ReportAllocs()
	for b.Loop() {
		n := 0
		if err := rp.each(func(time.Duration, string, int64) bool { n++; return true }); err != nil || n != 1_000_000 {
			b.Fatal(n, err)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/1e6, "ns/request")
}

// TestObserveSeesEveryPass: LogOptions.Observe is told of the requests
// every pass then yields, in their order, once.
func TestObserveSeesEveryPass(t *testing.T) {
	dir := t.TempDir()
	var lines []string
	for i := range 40 {
		lines = append(lines, combinedLine(fmt.Sprintf("192.0.2.%d", i%3), 40-i/2, "/api/x", 200))
	}
	path := filepath.Join(dir, "access.log")
	if err := os.WriteFile(path, []byte(strings.Join(lines, "\n")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	var seen []Request
	s, err := ReplayLog(path, LogOptions{Spread: "even", Observe: func(at time.Duration, key string, cost int64) {
		seen = append(seen, Request{At: at, Key: key, Cost: cost})
	}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if got := requestsOf(s); len(seen) != 40 || !slices.Equal(seen, got) {
		t.Fatalf("observed %v\npasses yield %v", seen, got)
	}
	requestsOf(s)
	if len(seen) != 40 {
		t.Errorf("observed %d requests after two more passes, want the 40 of the reading", len(seen))
	}
}
