package bucket4j

import (
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"ratelab/algorithms"
)

func TestRead(t *testing.T) {
	tb := func(c, n int64, per time.Duration) algorithms.Policy {
		return algorithms.Policy{Algorithm: algorithms.TokenBucket, Capacity: c, Rate: algorithms.Rate{N: n, Per: per}}
	}
	ib := func(c, n int64, every time.Duration) algorithms.Policy {
		return algorithms.Policy{Algorithm: algorithms.IntervalBucket, Capacity: c, TokensPerFill: n, FillInterval: every}
	}
	for _, c := range []struct {
		name, src string
		want      []algorithms.Policy
		stacked   bool
		note      string
	}{
		{"simple", "Bandwidth limit = Bandwidth.simple(10, Duration.ofMinutes(1));", []algorithms.Policy{tb(10, 10, time.Minute)}, false, ""},
		{"classic greedy", "Bandwidth.classic(10, Refill.greedy(10, Duration.ofSeconds(1)))", []algorithms.Policy{tb(10, 10, time.Second)}, false, ""},
		{"classic intervally", "Bandwidth.classic(5, Refill.intervally(5, Duration.ofSeconds(10)))", []algorithms.Policy{ib(5, 5, 10*time.Second)}, false, ""},
		{"builder", "Bandwidth.builder()\n    .capacity(50)\n    .refillGreedy(10, Duration.ofSeconds(1))\n    .initialTokens(0)\n    .build();", []algorithms.Policy{{Algorithm: algorithms.TokenBucket, Capacity: 50, Rate: algorithms.Rate{N: 10, Per: time.Second}, StartsEmpty: true}}, false, ""},
		{"aligned", "Bandwidth.builder().capacity(100).refillIntervallyAligned(100, Duration.ofHours(1), Instant.now(), true).build()", []algorithms.Policy{ib(100, 100, time.Hour)}, false, "intervallyAligned"},
		{"two limits", "Bucket.builder()\n  .addLimit(Bandwidth.classic(10, Refill.greedy(10, Duration.ofSeconds(1))))\n  .addLimit(Bandwidth.classic(100, Refill.greedy(100, Duration.ofMinutes(1))))\n  .build();", []algorithms.Policy{tb(10, 10, time.Second), tb(100, 100, time.Minute)}, true, ""},
	} {
		fs, err := Read(c.src)
		if err != nil {
			t.Errorf("%s: %v", c.name, err)
			continue
		}
		var got []algorithms.Policy
		if c.stacked {
			if len(fs) != 1 {
				t.Errorf("%s: %d lanes, want one stacked", c.name, len(fs))
				continue
			}
			for _, l := range fs[0].Layers {
				got = append(got, l.Policy)
			}
		} else {
			for _, f := range fs {
				got = append(got, f.Policy)
			}
		}
		if len(got) != len(c.want) {
			t.Errorf("%s: %v, want %v", c.name, got, c.want)
			continue
		}
		for i := range got {
			if got[i] != c.want[i] {
				t.Errorf("%s: %v, want %v", c.name, got[i], c.want[i])
			}
		}
		if notes := strings.Join(fs[0].Notes, "; "); !strings.Contains(notes, c.note) || c.note == "" && notes != "" {
			t.Errorf("%s: notes %q, want %q", c.name, notes, c.note)
		}
	}
	for _, c := range []struct{ src, want string }{
		{"Bandwidth.builder().capacity().refillGreedy(10, Duration.ofSeconds(1)).build()", "line 1: capacity takes one number"},
		{"x", "no Bandwidth.simple"},
		{"Bandwidth.simple(0, Duration.ofMinutes(1))", "0 is wrong value for capacity"},
		{"Bandwidth.classic(5, Refill.sometimes(5, Duration.ofSeconds(1)))", "refill sometimes is not one Bucket4j has"},
		{"Bandwidth.builder().capacity(5).build()", "the builder sets no refill"},
	} {
		if _, err := Read(c.src); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q: %v, want %q", c.src, err, c.want)
		}
	}
}

func TestWriteReadsBack(t *testing.T) {
	r := rand.New(rand.NewPCG(21, 22))
	for range 200 {
		var layers []algorithms.Layer
		for k := range 1 + r.IntN(3) {
			var p algorithms.Policy
			if r.IntN(2) == 0 {
				p = algorithms.Policy{Algorithm: algorithms.TokenBucket, Capacity: 1 + r.Int64N(100), Rate: algorithms.Rate{N: 1 + r.Int64N(100), Per: time.Duration(1+r.Int64N(60)) * time.Second}, StartsEmpty: r.IntN(3) == 0}
			} else {
				p = algorithms.Policy{Algorithm: algorithms.IntervalBucket, Capacity: 1 + r.Int64N(100), TokensPerFill: 1 + r.Int64N(10), FillInterval: time.Duration(1+r.Int64N(60)) * time.Second}
			}
			if p.Validate() != nil {
				continue
			}
			layers = append(layers, algorithms.Layer{Name: string(rune('a' + k)), Policy: p})
		}
		if len(layers) == 0 {
			continue
		}
		text, err := Write("b", layers)
		if err != nil {
			t.Fatal(err)
		}
		fs, err := Read(text)
		if err != nil {
			t.Fatalf("%v\n%s", err, text)
		}
		got := []algorithms.Policy{fs[0].Policy}
		if len(layers) > 1 {
			got = nil
			for _, l := range fs[0].Layers {
				got = append(got, l.Policy)
			}
		}
		for i := range layers {
			if i >= len(got) || got[i] != layers[i].Policy {
				t.Fatalf("%v read back as %v\n%s", layers, got, text)
			}
		}
	}
}
