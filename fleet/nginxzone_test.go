package fleet

import (
	"strings"
	"testing"
	"time"

	"ratelab/algorithms"
)

// TestZoneStores: a policy with a zone (a table of keys that frees one
// for another) runs with stores that keep a whole limiter a gateway, or
// one for all; a store that copies one key's state at a time is refused.
func TestZoneStores(t *testing.T) {
	p := algorithms.Policy{Algorithm: algorithms.NginxLimitReq, Rate: algorithms.Rate{N: 10, Per: time.Second}, Burst: 4, Zone: 32 << 10}
	for _, c := range []struct {
		c   Config
		err string
	}{
		{Config{}, ""},
		{Config{Gateways: 3}, ""},
		{Config{Gateways: 3, Store: Split}, ""},
		{Config{Gateways: 3, Store: Shared}, ""},
		{Config{Gateways: 3, Store: Racy}, ""}, // latency 0: shared
		{Config{Gateways: 3, Store: Racy, Latency: time.Millisecond}, "a racy store copies"},
		{Config{Gateways: 3, Store: Synced, SyncEvery: time.Second}, "a synced store copies"},
	} {
		err := c.c.Validate(p)
		if (err == nil) != (c.err == "") || err != nil && !strings.Contains(err.Error(), c.err) {
			t.Errorf("%+v: %v, want %q", c.c, err, c.err)
		}
		if c.err == "" {
			q := p
			q.Zone = 0
			if err := c.c.Validate(q); err != nil {
				t.Errorf("%+v without a zone: %v", c.c, err)
			}
		}
	}
}
