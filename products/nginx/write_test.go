package nginx

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"ratelab/algorithms"
)

// randomNginxLayers are 1 to 4 nginx-limit-req layers of one status, some
// over all keys.
func randomNginxLayers(r *rand.Rand) []algorithms.Layer {
	status := []int64{0, 429, 444}[r.IntN(3)]
	n := 1 + r.IntN(algorithms.MaxLayers)
	var ls []algorithms.Layer
	for i := range n {
		p := algorithms.Policy{Algorithm: algorithms.NginxLimitReq, Status: status,
			Rate:  algorithms.Rate{N: 1 + r.Int64N(600), Per: []time.Duration{time.Second, time.Minute}[r.IntN(2)]},
			Burst: r.Int64N(30)}
		switch r.IntN(3) {
		case 0:
			p.NoDelay = true
		case 1:
			p.Delay = 1 + r.Int64N(10)
		}
		ls = append(ls, algorithms.Layer{Name: fmt.Sprintf("z%d", i), Policy: p, AllKeys: r.IntN(3) == 0})
	}
	dry := r.IntN(3) == 0 // the location's: every layer's or none
	for i := range ls {
		if !ls[i].AllKeys && r.IntN(2) == 0 {
			ls[i].Policy.Zone = []int64{32 << 10, 64 << 10, 10 << 20, 1286144}[r.IntN(4)]
		}
		ls[i].Policy.DryRun = dry
	}
	return ls
}

// readBack is the policy import reads back for layer, written with zones
// of zoneSize: a layer keyed by client has that zone's size, when it had
// none.
func readBack(layer algorithms.Layer, zoneSize int64) algorithms.Policy {
	p := layer.Policy
	if !layer.AllKeys && p.Zone == 0 {
		p.Zone = zoneSize
	}
	return p
}

// What Write writes, import reads back to the same policies, scopes,
// status, zone and dry run: import ∘ export is the identity on nginx lanes
// (a layer keyed by client without a size reads back with the size
// written).
func TestWriteReadsBack(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for i := range 300 {
		layers := randomNginxLayers(r)
		text, err := Write("lane", layers, 1<<20)
		if err != nil {
			t.Fatal(err)
		}
		cfg, err := Parse("w.conf", []byte(text))
		if err != nil {
			t.Fatalf("%d: %v\n%s", i, err, text)
		}
		lanes, _, err := cfg.Lanes()
		if err != nil || len(lanes) != 1 {
			t.Fatalf("%d: %d lanes, %v\n%s", i, len(lanes), err, text)
		}
		got := lanes[0].Layers
		if len(got) != len(layers) {
			t.Fatalf("%d: %d layers back, want %d\n%s", i, len(got), len(layers), text)
		}
		for j := range got {
			if got[j].Policy != readBack(layers[j], 1<<20) || got[j].AllKeys != layers[j].AllKeys {
				t.Fatalf("%d: layer %d read back as %+v, was %+v\n%s", i, j, got[j], layers[j], text)
			}
		}
	}
}

// Real nginx takes what Write writes.
func TestRealNginxTakesWhatIsWritten(t *testing.T) {
	bin := nginxBinary(t)
	r := rand.New(rand.NewPCG(3, 4))
	for range 10 {
		text, err := Write("lane", randomNginxLayers(r), 64<<10)
		if err != nil {
			t.Fatal(err)
		}
		if got := nginxTest(t, bin, text); got != "" {
			t.Errorf("nginx -t: %s\n%s", got, text)
		}
	}
}

// Nearest keeps an nginx policy, and otherwise comes no faster and no
// larger than the policy, saying what differs.
func TestNearest(t *testing.T) {
	sec, min := time.Second, time.Minute
	nginx := func(n int64, per time.Duration, burst int64, nodelay bool) algorithms.Policy {
		return algorithms.Policy{Algorithm: algorithms.NginxLimitReq, Rate: algorithms.Rate{N: n, Per: per}, Burst: burst, NoDelay: nodelay}
	}
	for _, c := range []struct {
		p      algorithms.Policy
		want   algorithms.Policy
		differ string
	}{
		{nginx(7, sec, 3, false), nginx(7, sec, 3, false), ""},
		{algorithms.Policy{Algorithm: algorithms.TokenBucket, Capacity: 10, Rate: algorithms.Rate{N: 2, Per: sec}}, nginx(2, sec, 9, true), ""},
		{algorithms.Policy{Algorithm: algorithms.TokenBucket, Capacity: 10, Rate: algorithms.Rate{N: 1, Per: 7 * sec}}, nginx(8, min, 9, true), "8r/m for 1/7s"},
		{algorithms.Policy{Algorithm: algorithms.TokenBucket, Capacity: 10, Rate: algorithms.Rate{N: 120, Per: min}}, nginx(2, sec, 9, true), ""},
		{algorithms.Policy{Algorithm: algorithms.GCRA, Burst: 5, Rate: algorithms.Rate{N: 10, Per: sec}}, nginx(10, sec, 4, true), ""},
		{algorithms.Policy{Algorithm: algorithms.LeakyBucket, Queue: 4, Rate: algorithms.Rate{N: 2, Per: sec}}, nginx(2, sec, 4, false), "without nodelay"},
		{algorithms.Policy{Algorithm: algorithms.FixedWindow, Limit: 120, Window: min}, nginx(2, sec, 119, true), "counts up to 120 requests a 60s window"},
		{algorithms.Policy{Algorithm: algorithms.RedisCell, MaxBurst: 4, CountPerPeriod: 30, Period: min}, nginx(30, min, 4, true), ""},
	} {
		got, differs, err := Nearest(c.p)
		if err != nil {
			t.Errorf("%v: %v", c.p, err)
			continue
		}
		if got != c.want {
			t.Errorf("%v: %v, want %v", c.p, got, c.want)
		}
		if all := strings.Join(differs, "; "); c.differ == "" && all != "" || !strings.Contains(all, c.differ) {
			t.Errorf("%v: differs %q, want %q", c.p, all, c.differ)
		}
	}
	if _, _, err := Nearest(algorithms.Policy{Algorithm: algorithms.TokenBucket, Capacity: 3, Rate: algorithms.Rate{N: 1, Per: time.Hour}}); err == nil || !strings.Contains(err.Error(), "slower than nginx's slowest, 1r/m") {
		t.Errorf("1/h: %v", err)
	}
}
