package products

import (
	"os"
	"strings"
	"testing"
)

// "10 a second, burst 5" in nginx admits 6 at once and refuses the rest
// with 503; x/time/rate, redis-cell, redis_rate and Envoy, configured as
// the nearest each can say it, decide the probe alike; Guava, Traefik
// (which delays up to half an interval) and Kong (windows) do not.
func TestExplain(t *testing.T) {
	ps, err := Explain("nginx", "limit_req_zone $binary_remote_addr zone=z:1m rate=10r/s; limit_req zone=z burst=5 nodelay;")
	if err != nil || len(ps) != 1 {
		t.Fatalf("%+v %v", ps, err)
	}
	p := ps[0]
	if p.AtOnce != "6 requests" || p.Sustained != "10 a second" || !strings.HasPrefix(p.Waits, "never") || p.Refused != "503 Service Unavailable, no Retry-After" {
		t.Errorf("%+v", p)
	}
	same := strings.Join(p.Same, "; ")
	for _, want := range []string{"x-time-rate: x-time-rate burst 6, rate 10/s", "redis-cell: redis-cell max_burst 5", "redis-rate: redis-rate rate 10/s, burst 6", "envoy: envoy-local max_tokens 6"} {
		if !strings.Contains(same, want) {
			t.Errorf("the same %q lacks %q", same, want)
		}
	}
	if other := strings.Join(p.Other, "; "); !strings.HasPrefix(other, "guava: ") || !strings.Contains(other, "; traefik: ") || !strings.Contains(other, "; kong: ") {
		t.Errorf("otherwise %q", p.Other)
	}

	ps, err = Explain("guava", "RateLimiter.create(10.0)")
	if err != nil {
		t.Fatal(err)
	}
	if g := ps[0]; !strings.HasPrefix(g.AtOnce, "1 from a cold start; 11 after a second idle") || !strings.HasPrefix(g.Waits, "as long as it takes") || len(g.Same) != 0 {
		t.Errorf("%+v", g)
	}
	// Envoy's one bucket for all beside products that delay (Guava,
	// Traefik), which cannot be one limiter over all keys: the probe's one
	// client decides them alike.
	ps, err = Explain("envoy", "token_bucket: {max_tokens: 5, tokens_per_fill: 10, fill_interval: 1s}")
	if err != nil {
		t.Fatal(err)
	}
	if e := ps[0]; e.AtOnce != "5 requests" || !strings.Contains(strings.Join(e.Other, "; "), "guava: ") || !strings.Contains(strings.Join(e.Same, "; "), "x-time-rate: ") {
		t.Errorf("%+v", e)
	}
	// Spring's replenishRate above its burstCapacity: each second's fill
	// stops at the bucket's size, so it keeps up burstCapacity a second,
	// as a fixed window of that many a second does.
	ps, err = Explain("spring", "redis-rate-limiter.replenishRate: 10\nredis-rate-limiter.burstCapacity: 5")
	if err != nil {
		t.Fatal(err)
	}
	if s := ps[0]; s.Sustained != "5 a second" || !strings.Contains(strings.Join(s.Same, "; "), "kong: fixed-window limit 5 per 1s") {
		t.Errorf("%+v", s)
	}
	if _, err := Explain("haproxy", "x"); err == nil {
		t.Error("haproxy explained")
	}
}

// docs/import.md's products table is Table's.
func TestProductsTableInTheDocs(t *testing.T) {
	doc, err := os.ReadFile("../docs/import.md")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(doc), Table()) {
		t.Errorf("docs/import.md lacks the products table as the registry says it:\n%s", Table())
	}
}
