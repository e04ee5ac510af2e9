package scenarios

import (
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"
)

// TestParseAccounts checks that an item of accounts or keys decodes to one
// ordinary item per copy, in order, with only its key (and, staggered, its
// from and count) changed.
func TestParseAccounts(t *testing.T) {
	ms := time.Millisecond
	periodic := func(key string, from time.Duration, count int64) Traffic {
		return Traffic{Form: Periodic, Every: 500 * ms, From: from, Until: 2 * time.Second, Count: count, Key: key, Cost: 1}
	}
	tests := []struct {
		name, traffic string
		want          []Traffic
	}{
		{"accounts", "  - {at: 1s, accounts: 3}\n", []Traffic{
			{Form: Single, At: time.Second, Count: 1, Key: "acct-1", Cost: 1},
			{Form: Single, At: time.Second, Count: 1, Key: "acct-2", Cost: 1},
			{Form: Single, At: time.Second, Count: 1, Key: "acct-3", Cost: 1},
		}},
		{"accounts with key", "  - {at: 1s, count: 4, spread: 1s, accounts: 2, key: user, cost: 2}\n", []Traffic{
			{Form: Burst, At: time.Second, Spread: time.Second, Count: 4, Key: "user-1", Cost: 2},
			{Form: Burst, At: time.Second, Spread: time.Second, Count: 4, Key: "user-2", Cost: 2},
		}},
		{"one account", "  - {every: 500ms, until: 2s, accounts: 1}\n", []Traffic{periodic("acct-1", 0, 4)}},
		{"keys", "  - {every: 500ms, until: 2s, keys: [alice, bob, 42]}\n", []Traffic{
			periodic("alice", 0, 4), periodic("bob", 0, 4), periodic("42", 0, 4),
		}},
		{"stagger none", "  - {every: 500ms, until: 2s, accounts: 2, stagger: none}\n", []Traffic{
			periodic("acct-1", 0, 4), periodic("acct-2", 0, 4),
		}},
		{"stagger even", "  - {every: 500ms, from: 0s, until: 2s, keys: [a, b, c], stagger: even}\n", []Traffic{
			periodic("a", 0, 4), periodic("b", 166666666, 4), periodic("c", 333333333, 4), // ⌊i × 500ms / 3⌋
		}},
		{"stagger even, one fewer", "  - {every: 500ms, from: 100ms, until: 1700ms, keys: [a, b, c], stagger: even}\n", []Traffic{
			// a at 0.1, 0.6, 1.1, 1.6s; b from 0.266…s and c from 0.433…s
			// reach 1.7s after three requests.
			{Form: Periodic, Every: 500 * ms, From: 100 * ms, Until: 1700 * ms, Count: 4, Key: "a", Cost: 1},
			{Form: Periodic, Every: 500 * ms, From: 266666666, Until: 1700 * ms, Count: 3, Key: "b", Cost: 1},
			{Form: Periodic, Every: 500 * ms, From: 433333333, Until: 1700 * ms, Count: 3, Key: "c", Cost: 1},
		}},
		{"stagger drops a copy with no request", "  - {every: 1s, until: 500ms, accounts: 4, stagger: even}\n", []Traffic{
			// offsets 0, 250ms, 500ms, 750ms: acct-3 and acct-4 start at or after until.
			{Form: Periodic, Every: time.Second, Until: 500 * ms, Count: 1, Key: "acct-1", Cost: 1},
			{Form: Periodic, Every: time.Second, From: 250 * ms, Until: 500 * ms, Count: 1, Key: "acct-2", Cost: 1},
		}},
		{"beside plain items", "  - {at: 0s}\n  - {at: 1s, keys: [x, y]}\n  - {at: 2s, key: z}\n", []Traffic{
			{Form: Single, Count: 1, Key: DefaultKey, Cost: 1},
			{Form: Single, At: time.Second, Count: 1, Key: "x", Cost: 1},
			{Form: Single, At: time.Second, Count: 1, Key: "y", Cost: 1},
			{Form: Single, At: 2 * time.Second, Count: 1, Key: "z", Cost: 1},
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := parse(t, oneLane+"traffic:\n"+tt.traffic)
			got := slices.Clone(s.Traffic)
			for i := range got {
				// The copies' shared item as written is for Marshal
				// (TestMarshalWritesAnItemOfCopiesOnce).
				got[i].Line, got[i].group, got[i].keyNo = 0, nil, 0
			}
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("traffic\n got: %+v\nwant: %+v", got, tt.want)
			}
		})
	}

	// Every copy keeps its item's line, and the time axis reaches past the
	// latest copy's last request.
	s := parse(t, oneLane+"traffic:\n  - {every: 1s, until: 10s, accounts: 4, stagger: even}\n")
	for _, c := range s.Traffic {
		if c.Line != 5 {
			t.Errorf("copy %s: line %d, want 5", c.Key, c.Line)
		}
	}
	if want := 9750*ms + 5*time.Second; s.Duration != want { // the last copy's last request, + the bucket's 5s horizon
		t.Errorf("duration %v, want %v", s.Duration, want)
	}
	if got, want := s.Keys(), []string{"acct-1", "acct-2", "acct-3", "acct-4"}; !reflect.DeepEqual(got, want) {
		t.Errorf("keys %v, want %v", got, want)
	}
}

func TestRequestCountLimit(t *testing.T) {
	tests := []struct {
		traffic string
		ok      bool
	}{
		{"  - {at: 0s, count: 20000000}\n", true},
		{"  - {every: 1ns, until: 20ms}\n", true},
		{"  - {every: 1ns, until: 20000001ns}\n", false},
		{"  - {at: 0s, count: 10000000}\n  - {every: 2ns, until: 20ms}\n", true},
		{"  - {at: 0s, count: 10000000}\n  - {every: 2ns, until: 20000001ns}\n", false},
		{"  - {every: 1ns, until: 8784h}\n", false}, // 3e16: counted, not expanded
		// Through accounts and keys: the copies' requests count.
		{"  - {at: 0s, count: 2000, accounts: 10000}\n", true},
		{"  - {at: 0s, count: 2000, accounts: 10000}\n  - {at: 1s}\n", false},
		{"  - {every: 1ns, until: 10ms, keys: [a, b]}\n", true},
		{"  - {every: 1ns, until: 10000001ns, keys: [a, b]}\n", false},
		{"  - {every: 1ms, until: 2s, accounts: 10000}\n", true},
		{"  - {every: 1ms, until: 2001ms, accounts: 10000}\n", false},
		// Staggered, a copy whose offset passes the last request has one
		// fewer: copy i starts i × 100ns later, so the 5000 copies from
		// 0.5ms on have 1999 requests, the first 5000 have 2000.
		{"  - {every: 1ms, until: 1999500us, accounts: 10000, stagger: even}\n  - {at: 0s, count: 5000}\n", true},
		{"  - {every: 1ms, until: 1999500us, accounts: 10000, stagger: even}\n  - {at: 0s, count: 5001}\n", false},
		{"  - {every: 1ns, until: 8784h, accounts: 10000}\n", false}, // 3e20: past 64 bits, counted
	}
	// Every case that loads expands to exactly MaxRequests.
	for _, tt := range tests {
		start := time.Now()
		s, err := Parse("x.yaml", []byte(oneLane+"traffic:\n"+tt.traffic))
		if time.Since(start) > time.Second {
			t.Errorf("%q: Parse took %v; it must count, not expand", tt.traffic, time.Since(start))
		}
		if tt.ok {
			if err != nil {
				t.Errorf("%q: %v", tt.traffic, err)
			} else if n := s.RequestCount(); n != MaxRequests {
				t.Errorf("%q: RequestCount = %d", tt.traffic, n)
			}
		} else if err == nil || !strings.Contains(err.Error(), "expands to more than 20000000 requests") {
			t.Errorf("%q: got %v, want the request limit", tt.traffic, err)
		}
	}
}

// TestDecisionLimit: the decisions a run can make on one lane, each
// request times its client's attempts, are counted at load from the items'
// counts, copies included, and bounded by MaxDecisions.
func TestDecisionLimit(t *testing.T) {
	const head = "title: t\nlimiters: [{name: b, algorithm: token-bucket, capacity: 1, rate: 1/8784h}]\n" +
		"clients: [{name: eager, retry: at-once, attempts: 100}, {name: twice, retry: at-once, attempts: 2}]\ntraffic:\n"
	tests := []struct {
		name, traffic, want string
	}{
		{"at the limit", "  - {at: 0s, count: 800000, client: eager}\n", ""},
		{"one request past it", "  - {at: 0s, count: 800000, client: eager}\n  - {at: 0s}\n",
			"x.yaml:6:5: traffic[1]: the traffic would make up to 80000001 decisions per lane (this item: 1 requests of no client); at most 80000000, about 30 s of run a lane"},
		{"twenty million without a client", "  - {at: 0s, count: 20000000}\n", ""},
		{"twenty million, each tried twice", "  - {every: 1ms, until: 20000s, client: twice}\n", ""},
		{"copies at the limit", "  - {every: 1s, until: 8000s, accounts: 100, client: eager}\n", ""},
		{"copies past it", "  - {every: 1s, until: 8001s, accounts: 100, client: eager}\n",
			`x.yaml:5:5: traffic[0]: the traffic would make up to 80010000 decisions per lane (this item: 800100 requests × 100 attempts of client "eager"); at most 80000000, about 30 s of run a lane`},
		{"the six-line storm", "  - {at: 0s, count: 20000000, client: eager}\n",
			`x.yaml:5:5: traffic[0]: the traffic would make up to 2000000000 decisions per lane (this item: 20000000 requests × 100 attempts of client "eager"); at most 80000000, about 30 s of run a lane`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Parse("x.yaml", []byte(head+tt.traffic))
			switch {
			case tt.want == "" && err != nil:
				t.Fatalf("Parse: %v", err)
			case tt.want == "":
			case err == nil:
				t.Fatalf("Parse succeeded, want %s", tt.want)
			case err.Error() != tt.want:
				t.Errorf("error\n got: %s\nwant: %s", err, tt.want)
			}
		})
	}
}

// TestStaggerNoneWrittenOut: stagger none, the default, may be written on
// any item.
func TestStaggerNoneWrittenOut(t *testing.T) {
	for _, item := range []string{
		"  - {poisson: 2/s, until: 5s, accounts: 3, stagger: none}\n",
		"  - {every: 1s, until: 5s, stagger: none}\n",
		"  - {at: 1s, count: 2, keys: [a, b], stagger: none}\n",
	} {
		if _, err := Parse("p.yaml", poissonFile(1, item)); err != nil {
			t.Errorf("%s: %v", strings.TrimSpace(item), err)
		}
	}
}
