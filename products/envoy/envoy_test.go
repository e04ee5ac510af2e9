package envoy

import (
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"ratelab/algorithms"
)

// Envoy's documented example: 10,000 tokens, 1,000 every second, enabled
// and enforced for every request, with a descriptor of its own.
const documented = `
http_filters:
- name: envoy.filters.http.local_ratelimit
  typed_config:
    "@type": type.googleapis.com/envoy.extensions.filters.http.local_ratelimit.v3.LocalRateLimit
    stat_prefix: http_local_rate_limiter
    token_bucket:
      max_tokens: 10000
      tokens_per_fill: 1000
      fill_interval: 1s
    filter_enabled:
      runtime_key: local_rate_limit_enabled
      default_value:
        numerator: 100
        denominator: HUNDRED
    filter_enforced:
      runtime_key: local_rate_limit_enforced
      default_value:
        numerator: 100
        denominator: HUNDRED
    descriptors:
    - entries:
      - key: client_id
        value: foo
      token_bucket:
        max_tokens: 10
        tokens_per_fill: 10
        fill_interval: 60s
`

func TestRead(t *testing.T) {
	fs, err := Read(documented)
	if err != nil {
		t.Fatal(err)
	}
	envoy := func(max, per int64, fill time.Duration) algorithms.Policy {
		return algorithms.Policy{Algorithm: algorithms.EnvoyLocal, MaxTokens: max, TokensPerFill: per, FillInterval: fill}
	}
	if len(fs) != 2 || fs[0].Policy != envoy(10000, 1000, time.Second) || fs[1].Policy != envoy(10, 10, time.Minute) {
		t.Fatalf("%+v", fs)
	}
	if fs[0].Var != "http_local_rate_limiter" || fs[1].Var != "http_local_rate_limiter-client_id-foo" {
		t.Errorf("names %q %q", fs[0].Var, fs[1].Var)
	}
	if n := strings.Join(fs[0].Notes, "; "); strings.Contains(n, "filter_enabled") || !strings.Contains(n, "one bucket for every request") {
		t.Errorf("notes %q", n)
	}
	bare, err := Read("token_bucket: {max_tokens: 5, fill_interval: 0.5s}")
	if err != nil {
		t.Fatal(err)
	}
	if bare[0].Policy != envoy(5, 1, 500*time.Millisecond) || !strings.Contains(strings.Join(bare[0].Notes, ""), "filter_enabled is not set: Envoy's default is 0% of requests") {
		t.Errorf("%+v", bare[0])
	}
	for _, c := range []struct{ src, want string }{
		{"a: b", "no local rate limit token_bucket"},
		{"token_bucket: {tokens_per_fill: 1, fill_interval: 1s}", "TokenBucketValidationError.MaxTokens: value must be greater than 0"},
		{"token_bucket: {max_tokens: 1, fill_interval: 0.02s}", "local rate limit token bucket fill timer must be >= 50ms"},
		{"token_bucket: {max_tokens: 1}", "TokenBucketValidationError.FillInterval: value is required"},
		{"token_bucket: {max_tokens: 1, fill_interval: 1m}", `invalid duration "1m"`},
		{"[", "not YAML"},
	} {
		if _, err := Read(c.src); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q: %v, want %q", c.src, err, c.want)
		}
	}
}

func TestWriteReadsBack(t *testing.T) {
	r := rand.New(rand.NewPCG(13, 14))
	for range 200 {
		p := algorithms.Policy{Algorithm: algorithms.EnvoyLocal, MaxTokens: 1 + r.Int64N(1000), TokensPerFill: 1 + r.Int64N(100),
			FillInterval: minFill + time.Duration(r.Int64N(int64(10*time.Second)))}
		text, err := Write("limit", p)
		if err != nil {
			t.Fatal(err)
		}
		fs, err := Read(text)
		if err != nil || len(fs) != 1 || fs[0].Policy != p {
			t.Fatalf("%v: %+v %v\n%s", p, fs, err, text)
		}
	}
}

func TestNearest(t *testing.T) {
	got, _, err := Nearest(algorithms.Policy{Algorithm: algorithms.TokenBucket, Capacity: 10, Rate: algorithms.Rate{N: 1, Per: 20 * time.Millisecond}})
	if err != nil || got != (algorithms.Policy{Algorithm: algorithms.EnvoyLocal, MaxTokens: 10, TokensPerFill: 3, FillInterval: 60 * time.Millisecond}) {
		t.Errorf("%v %v", got, err)
	}
}
