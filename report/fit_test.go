package report

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"ratelab/algorithms"
	"ratelab/fit"
	"ratelab/scenarios"
)

// updateGoldens is the -update flag (registered here unless a golden
// package already has): go test ./report -run Fit -update rewrites the
// fit goldens.
var updateGoldens = func() func() bool {
	if flag.Lookup("update") == nil {
		flag.Bool("update", false, "rewrite the golden files")
	}
	return func() bool { return flag.Lookup("update").Value.String() == "true" }
}()

// fitGolden compares got with testdata/fit_<name>.golden.
func fitGolden(t *testing.T, name, got string) {
	t.Helper()
	path := filepath.Join("testdata", "fit_"+name+".golden")
	if updateGoldens() {
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run with -update to write it)", err)
	}
	if got != string(want) {
		t.Errorf("%s differs from the golden:\n--- got\n%s\n--- want\n%s", path, got, want)
	}
}

// fitTraffic is a deterministic bursty traffic: n requests over keys,
// costs 1 to 3, from a linear congruential generator.
func fitTraffic(n, keys int) []scenarios.Request {
	var reqs []scenarios.Request
	x := uint64(12345)
	next := func(m uint64) uint64 {
		x = x*6364136223846793005 + 1442695040888963407
		return (x >> 33) % m
	}
	var at time.Duration
	for range n {
		switch next(10) {
		case 0: // the same instant
		case 1:
			at += time.Duration(next(uint64(5 * time.Second)))
		default:
			at += time.Duration(next(uint64(200 * time.Millisecond)))
		}
		key := string(rune('a' + next(uint64(keys))))
		if next(3) == 0 {
			key = "a"
		}
		reqs = append(reqs, scenarios.Request{At: at, Key: key, Cost: 1 + int64(next(3))})
	}
	return reqs
}

func fitOf(t *testing.T, reqs []scenarios.Request, o fit.Options) *fit.Result {
	t.Helper()
	r, err := fit.Fit(fit.Requests(reqs), o)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func TestWriteFitGoldens(t *testing.T) {
	cases := []struct {
		name string
		reqs []scenarios.Request
		o    fit.Options
		v    FitView
	}{
		{"all", fitTraffic(600, 4), fit.Options{}, FitView{}},
		{"bykey_budget", fitTraffic(600, 6), fit.Options{ByKey: true, KeyShare: 500_000, RejectAtMost: 20_000, Confirm: fit.ConfirmAll,
			Algorithms: []algorithms.Algorithm{algorithms.TokenBucket, algorithms.LeakyBucket, algorithms.SlidingLog}}, FitView{TopKeys: 2}},
		// 1/h cannot hold a cost of 2^21 (2^21 × 1h passes 2^62 ns): a point
		// with no policy; nginx takes no rate per hour.
		{"infeasible", []scenarios.Request{{At: 0, Key: "k", Cost: 1 << 21}, {At: time.Second, Key: "k", Cost: 1}},
			fit.Options{Algorithms: []algorithms.Algorithm{algorithms.TokenBucket, algorithms.NginxLimitReq}, Rates: []algorithms.Rate{{N: 1, Per: time.Hour}}}, FitView{NoChart: true}},
		{"empty", nil, fit.Options{Algorithms: []algorithms.Algorithm{algorithms.GCRA}}, FitView{}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var b bytes.Buffer
			if err := WriteFit(&b, fitOf(t, c.reqs, c.o), c.v); err != nil {
				t.Fatal(err)
			}
			fitGolden(t, c.name, b.String())
		})
	}
}

// The picture is 8 rows of at most 60 columns of bars, between its
// labelled axes (the last rate ending where the axis does); the tallest
// bar is the largest size, full to the top.
func TestFitChartShape(t *testing.T) {
	r := fitOf(t, fitTraffic(400, 1), fit.Options{Algorithms: []algorithms.Algorithm{algorithms.TokenBucket}})
	var b bytes.Buffer
	writeChart(&b, &r.Frontiers[0])
	lines := strings.Split(strings.TrimRight(b.String(), "\n"), "\n")
	if len(lines) != 1+chartRows+2 {
		t.Fatalf("%d lines:\n%s", len(lines), b.String())
	}
	if !strings.Contains(lines[0], "capacity (tokens), a bar a row of the table") || !strings.HasSuffix(lines[len(lines)-1], r.Frontiers[0].Points[len(r.Frontiers[0].Points)-1].Rate.String()) {
		t.Errorf("axes not labelled:\n%s", b.String())
	}
	var top int64
	for _, p := range r.Frontiers[0].Points {
		top = max(top, p.Size)
	}
	if !strings.Contains(lines[1], itoa(top)+" ┤█") {
		t.Errorf("the top row does not start with the largest size's full bar: %q", lines[1])
	}
	for _, l := range lines[1 : 1+chartRows] {
		_, bars, _ := strings.Cut(l, "┤")
		if !strings.Contains(l, "┤") {
			_, bars, _ = strings.Cut(l, "│")
		}
		if n := utf8.RuneCountInString(bars); n > chartWidth {
			t.Errorf("a row %d columns wide: %q", n, l)
		}
	}
	if !strings.Contains(lines[len(lines)-1], "◆") {
		t.Errorf("the knee is not marked under the axis: %q", lines[len(lines)-1])
	}
}

func TestFitNumbers(t *testing.T) {
	for _, c := range []struct {
		ppm  int64
		want string
	}{{990_000, "99%"}, {999_000, "99.9%"}, {500, "0.05%"}, {1, "0.0001%"}, {1_000_000, "100%"}} {
		if got := ppmText(c.ppm); got != c.want {
			t.Errorf("ppmText(%d) = %q, want %q", c.ppm, got, c.want)
		}
	}
	if got := quantileName(999_000); got != "p99.9" {
		t.Errorf("quantileName = %q", got)
	}
}
