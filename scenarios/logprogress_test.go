package scenarios

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"ratelab/progress"
)

// A replayed log's reading draws its progress: the meter is told of
// every request, so a log of 20,000 lines read in more than the meter's
// interval shows its line (it drew nothing below 4 million requests when
// it was told of one request in 1,024).
func TestReplayShowsProgress(t *testing.T) {
	var log strings.Builder
	for i := range 20_000 {
		fmt.Fprintf(&log, "192.0.2.%d - - [10/Oct/2026:00:%02d:%02d +0000] \"GET / HTTP/1.1\" 200 5 \"-\" \"x\"\n", i%200, i/3600%60, i/60%60)
	}
	path := filepath.Join(t.TempDir(), "access.log")
	if err := os.WriteFile(path, []byte(log.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	clock := time.Unix(0, 0)
	tick := func() time.Time { clock = clock.Add(50 * time.Millisecond); return clock } // each look at the clock: 50 ms later
	var lastLines int64
	opt := LogOptions{Progress: func(size int64) (func(lines, bytes int64), func()) {
		m := progress.New(&out, size, true, progress.WithClock(tick))
		return func(lines, bytes int64) { lastLines = lines; m.Update(lines, bytes) }, m.Done
	}}
	if _, err := ReplayLog(path, opt, nil); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out.String(), " lines") {
		t.Fatalf("no progress drawn while reading 20,000 lines: %q", out.String())
	}
	if lastLines < 19_000 {
		t.Errorf("the meter was last told of line %d of 20,000", lastLines)
	}
}
