package model

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"ratelab/scenarios"
)

// replayed is a scenario replaying a log of n requests, eight a second from
// 2026-11-24 09:00 UTC, cycling over keys addresses, through the default
// lanes; and the log's path.
func replayed(t *testing.T, n, keys int) (*scenarios.Scenario, string) {
	t.Helper()
	var b strings.Builder
	for i := range n {
		at := time.Date(2026, 11, 24, 9, 0, 0, 0, time.UTC).Add(time.Duration(i/8) * time.Second)
		fmt.Fprintf(&b, "192.0.2.%d - - [%s] \"GET / HTTP/1.1\" 200 1 \"-\" \"x\"\n", i%keys, at.Format("02/Jan/2006:15:04:05 -0700"))
	}
	path := filepath.Join(t.TempDir(), "access.log")
	if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	s, err := scenarios.ReplayLog(path, scenarios.LogOptions{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	return s, path
}

// TestALogRunsAsItsRequests: Run, RunKeys and the lab's timeline see the
// log's requests, with their keys; the lab decides them as Run does.
func TestALogRunsAsItsRequests(t *testing.T) {
	s, _ := replayed(t, 500, 3)
	stats, err := Run(s, Options{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	keys, err := RunKeys(s, Options{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if keys.Len() != 3 {
		t.Errorf("RunKeys saw %d keys, want 3", keys.Len())
	}
	lab, err := New(s, 0)
	if err != nil {
		t.Fatal(err)
	}
	if lab.Len() != 500 || lab.Request(1).Key != "192.0.2.1" || lab.Request(499).At != 62*time.Second {
		t.Fatalf("the lab holds %d requests, the second of key %q, the last at %v; want 500, 192.0.2.1, 62s", lab.Len(), lab.Request(1).Key, lab.Request(499).At)
	}
	lab.Seek(s.Duration)
	for lane := range stats {
		if got, want := lab.Stats(lane), stats[lane]; got.Admitted != want.Admitted || got.Rejected != want.Rejected {
			t.Errorf("lane %d: the lab admitted %d and refused %d, Run %d and %d", lane, got.Admitted, got.Rejected, want.Admitted, want.Rejected)
		}
	}
	if stats[0].Rejected == 0 {
		t.Errorf("the fixed window refused nothing: the test's traffic teaches nothing")
	}
}

// TestALogIsReadOnce: the log is read when the scenario is; a run after
// the file is gone replays the requests read then, the same decisions.
func TestALogIsReadOnce(t *testing.T) {
	s, path := replayed(t, 200, 3)
	before, err := Run(s, Options{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Remove(path); err != nil {
		t.Fatal(err)
	}
	after, err := Run(s, Options{}, nil)
	if err != nil {
		t.Fatalf("Run on a log removed after reading: %v", err)
	}
	for lane := range before {
		if before[lane].Admitted != after[lane].Admitted || before[lane].Rejected != after[lane].Rejected {
			t.Errorf("lane %d: %d admitted and %d refused before the log was removed, %d and %d after", lane, before[lane].Admitted, before[lane].Rejected, after[lane].Admitted, after[lane].Rejected)
		}
	}
}

// TestALogGoneIsAnError: where no temporary copy could be made (no
// temporary directory), each pass reads the log again, and a log that can
// no longer be read fails the run instead of ending it early as if it were
// complete.
func TestALogGoneIsAnError(t *testing.T) {
	t.Setenv("TMPDIR", filepath.Join(t.TempDir(), "missing"))
	s, path := replayed(t, 10, 1)
	if err := os.Remove(path); err != nil {
		t.Fatal(err)
	}
	if _, err := Run(s, Options{}, nil); err == nil || !strings.Contains(err.Error(), "access.log") {
		t.Errorf("Run on a log removed: %v, want an error naming it", err)
	}
	if _, err := RunKeys(s, Options{}, nil); err == nil {
		t.Error("RunKeys on a log removed: no error")
	}
	if _, err := Check(s); err == nil {
		t.Error("Check on a log removed: no error")
	}
	if _, err := New(s, 0); err == nil {
		t.Error("the lab on a log removed: no error")
	}
}
