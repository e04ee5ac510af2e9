// Package envoy reads and writes Envoy's HTTP local rate limit filter
// (envoy.extensions.filters.http.local_ratelimit.v3.LocalRateLimit) as
// its YAML configuration gives it: each token_bucket (max_tokens,
// tokens_per_fill, fill_interval), the filter's own and its descriptors',
// with filter_enabled and filter_enforced. The lane, envoy-local, is
// Envoy's bucket (1.31 on), one for every request the filter sees.
package envoy

import (
	"fmt"
	"maps"
	"math/big"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/goccy/go-yaml"

	"ratelab/algorithms"
	"ratelab/products/bucket"
	"ratelab/products/snippet"
)

// Marker is what every configuration Read reads holds.
const Marker = "token_bucket"

// minFill is the shortest fill_interval Envoy takes.
const minFill = 50 * time.Millisecond

// Read finds every token_bucket in a YAML (or JSON) document of Envoy's
// configuration: a whole bootstrap, a listener or the filter alone.
func Read(src string) ([]snippet.Found, error) {
	var doc any
	if err := yaml.Unmarshal([]byte(src), &doc); err != nil {
		return nil, fmt.Errorf("not YAML: %v", err)
	}
	var out []snippet.Found
	var err error
	walk(doc, "", func(path string, filter map[string]any) {
		if err != nil {
			return
		}
		var fs []snippet.Found
		fs, err = filterBuckets(path, filter)
		out = append(out, fs...)
	})
	if err != nil {
		return nil, err
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("no local rate limit token_bucket")
	}
	return out, nil
}

// walk calls fn with every mapping that holds a token_bucket (a local
// rate limit filter's typed_config), and its path in the document.
func walk(v any, path string, fn func(string, map[string]any)) {
	switch v := v.(type) {
	case map[string]any:
		if _, ok := v["token_bucket"]; ok {
			fn(path, v)
			return
		}
		for _, k := range slices.Sorted(maps.Keys(v)) { // the same order every time
			walk(v[k], join(path, k), fn)
		}
	case []any:
		for i, x := range v {
			walk(x, fmt.Sprintf("%s[%d]", path, i), fn)
		}
	}
}

// where is a filter's path in words: the document itself when it is the
// filter.
func where(path string) string {
	if path == "" {
		return "the document"
	}
	return path
}

func join(path, key string) string {
	if path == "" {
		return key
	}
	return path + "." + key
}

// filterBuckets are a filter's lanes: its token_bucket, then each
// descriptor's.
func filterBuckets(path string, filter map[string]any) ([]snippet.Found, error) {
	var notes []string
	for _, field := range []string{"filter_enabled", "filter_enforced"} {
		pct, set, err := percent(filter[field])
		if err != nil {
			return nil, fmt.Errorf("%s: %w", join(path, field), err)
		}
		switch {
		case !set:
			notes = append(notes, fmt.Sprintf("%s is not set: Envoy's default is 0%% of requests, so it limits none; the lane shows what it would do at 100%%", field))
		case pct < 100:
			notes = append(notes, fmt.Sprintf("%s is %v%% of requests; the lane limits them all", field, pct))
		}
	}
	if b, _ := filter["local_rate_limit_per_downstream_connection"].(bool); b {
		notes = append(notes, "local_rate_limit_per_downstream_connection: Envoy keeps a bucket a connection; the lane one for all")
	}
	name := "envoy"
	if s, ok := filter["stat_prefix"].(string); ok && s != "" {
		name = s
	}
	top, err := tokenBucket(join(path, "token_bucket"), filter["token_bucket"])
	if err != nil {
		return nil, err
	}
	top.Var, top.Where, top.Notes = name, where(path), append(notes, "Envoy's local limit is one bucket for every request this Envoy's filter sees, not one a client")
	out := []snippet.Found{top}
	descs, _ := filter["descriptors"].([]any)
	for i, d := range descs {
		dm, ok := d.(map[string]any)
		if !ok {
			continue
		}
		at := fmt.Sprintf("%s.descriptors[%d]", path, i)
		f, err := tokenBucket(at+".token_bucket", dm["token_bucket"])
		if err != nil {
			return nil, err
		}
		f.Var, f.Where = name+"-"+entries(dm["entries"]), at
		f.Notes = append(f.Notes, fmt.Sprintf("descriptor %s: Envoy applies it only to requests whose rate_limits actions give these entries; the lane applies it to every request of the traffic", entries(dm["entries"])))
		out = append(out, f)
	}
	return out, nil
}

// entries words a descriptor's entries: "remote-address-10-0-0-1".
func entries(v any) string {
	list, _ := v.([]any)
	var parts []string
	for _, e := range list {
		m, _ := e.(map[string]any)
		parts = append(parts, fmt.Sprint(m["key"]), fmt.Sprint(m["value"]))
	}
	return strings.Join(parts, "-")
}

// tokenBucket reads a token_bucket as Envoy validates it: max_tokens
// above 0, tokens_per_fill above 0 (1 when not set), fill_interval above
// 0 and, for the local rate limit, at least 50ms.
func tokenBucket(path string, v any) (snippet.Found, error) {
	m, ok := v.(map[string]any)
	if !ok {
		return snippet.Found{}, fmt.Errorf("%s: TokenBucketValidationError: value is required", path)
	}
	maxTokens, err := count(m["max_tokens"], 0)
	if err != nil || maxTokens <= 0 {
		return snippet.Found{}, fmt.Errorf("%s: TokenBucketValidationError.MaxTokens: value must be greater than 0", path)
	}
	perFill, err := count(m["tokens_per_fill"], 1)
	if err != nil || perFill <= 0 {
		return snippet.Found{}, fmt.Errorf("%s: TokenBucketValidationError.TokensPerFill: value must be greater than 0", path)
	}
	fill, err := duration(m["fill_interval"])
	if err != nil {
		return snippet.Found{}, fmt.Errorf("%s.fill_interval: %w", path, err)
	}
	if fill <= 0 {
		return snippet.Found{}, fmt.Errorf("%s: TokenBucketValidationError.FillInterval: value must be greater than 0s", path)
	}
	if fill < minFill {
		return snippet.Found{}, fmt.Errorf("%s: local rate limit token bucket fill timer must be >= 50ms", path)
	}
	f := snippet.Found{Policy: algorithms.Policy{Algorithm: algorithms.EnvoyLocal, MaxTokens: maxTokens, TokensPerFill: perFill, FillInterval: fill}}
	return f, f.Policy.Validate()
}

// count reads a whole number (or a {value: n} wrapper), def when absent.
func count(v any, def int64) (int64, error) {
	switch v := v.(type) {
	case nil:
		return def, nil
	case uint64:
		return int64(v), nil
	case int64:
		return v, nil
	case int:
		return int64(v), nil
	case map[string]any:
		return count(v["value"], def)
	case string:
		return strconv.ParseInt(v, 10, 64)
	}
	return 0, fmt.Errorf("%v is not a whole number", v)
}

// duration reads a protobuf Duration as YAML writes it: "1s", "0.05s"
// (seconds with up to nine decimals), or {seconds, nanos}.
func duration(v any) (time.Duration, error) {
	switch v := v.(type) {
	case string:
		s, ok := strings.CutSuffix(v, "s")
		r, okr := new(big.Rat).SetString(s)
		if !ok || !okr {
			return 0, fmt.Errorf("invalid duration %q: want seconds such as 1s or 0.05s", v)
		}
		ns := r.Mul(r, big.NewRat(int64(time.Second), 1))
		if !ns.IsInt() || !ns.Num().IsInt64() {
			return 0, fmt.Errorf("invalid duration %q: at most nine decimals", v)
		}
		return time.Duration(ns.Num().Int64()), nil
	case map[string]any:
		sec, err := count(v["seconds"], 0)
		if err != nil {
			return 0, err
		}
		nanos, err := count(v["nanos"], 0)
		if err != nil {
			return 0, err
		}
		return time.Duration(sec)*time.Second + time.Duration(nanos), nil
	case nil:
		return 0, fmt.Errorf("TokenBucketValidationError.FillInterval: value is required")
	}
	return 0, fmt.Errorf("invalid duration %v", v)
}

// percent reads a RuntimeFractionalPercent's default_value as a percent,
// and whether it is set.
func percent(v any) (float64, bool, error) {
	m, ok := v.(map[string]any)
	if !ok {
		return 0, false, nil
	}
	dv, ok := m["default_value"].(map[string]any)
	if !ok {
		return 0, true, nil // a runtime key alone: 0% unless the runtime says
	}
	num, err := count(dv["numerator"], 0)
	if err != nil {
		return 0, true, err
	}
	den := map[string]float64{"": 100, "HUNDRED": 100, "TEN_THOUSAND": 10000, "MILLION": 1e6}
	d, ok := den[fmt.Sprint(orEmpty(dv["denominator"]))]
	if !ok {
		return 0, true, fmt.Errorf("denominator %v: want HUNDRED, TEN_THOUSAND or MILLION", dv["denominator"])
	}
	return float64(num) * 100 / d, true, nil
}

func orEmpty(v any) any {
	if v == nil {
		return ""
	}
	return v
}

// Nearest is the Envoy bucket nearest to p: itself for an envoy-local
// lane; else max_tokens the bucket's size, refilled at its rate with a
// fill_interval of at least 50ms (the rate kept exactly: tokens_per_fill
// grows with the interval).
func Nearest(p algorithms.Policy) (algorithms.Policy, []string, error) {
	if p.Algorithm == algorithms.EnvoyLocal {
		return p, nil, p.Validate()
	}
	b, differs, err := bucket.Of(p, "Envoy")
	if err != nil {
		return algorithms.Policy{}, nil, err
	}
	k := int64(1)
	if b.Rate.Per < minFill {
		k = (int64(minFill) + int64(b.Rate.Per) - 1) / int64(b.Rate.Per)
	}
	if b.Delays {
		differs = append(differs, "Envoy refuses at once (429), where this lane makes a request wait")
	}
	q := algorithms.Policy{Algorithm: algorithms.EnvoyLocal, MaxTokens: b.Size, TokensPerFill: b.Rate.N * k, FillInterval: b.Rate.Per * time.Duration(k)}
	return q, differs, q.Validate()
}

// Write is p, an envoy-local lane, as the http filter's YAML, enabled and
// enforced for every request.
func Write(name string, p algorithms.Policy) (string, error) {
	if p.Algorithm != algorithms.EnvoyLocal {
		return "", fmt.Errorf("%s is not an envoy-local lane: take Nearest first", p.Algorithm)
	}
	var b strings.Builder
	fmt.Fprintf(&b, "# %s: ratelab's lane as Envoy's HTTP local rate limit filter (one bucket for\n# every request the filter sees); the filter goes in http_filters.\n", name)
	if p.Timer {
		b.WriteString("# timer: Envoy before 1.31, or with the runtime guard\n# envoy.reloadable_features.no_timer_based_rate_limit_token_bucket false.\n")
	}
	fmt.Fprintf(&b, `- name: envoy.filters.http.local_ratelimit
  typed_config:
    "@type": type.googleapis.com/envoy.extensions.filters.http.local_ratelimit.v3.LocalRateLimit
    stat_prefix: %s
    token_bucket:
      max_tokens: %d
      tokens_per_fill: %d
      fill_interval: %s
    filter_enabled:
      runtime_key: %s_enabled
      default_value: {numerator: 100, denominator: HUNDRED}
    filter_enforced:
      runtime_key: %s_enforced
      default_value: {numerator: 100, denominator: HUNDRED}
`, name, p.MaxTokens, p.TokensPerFill, protoDuration(p.FillInterval), name, name)
	return b.String(), nil
}

// protoDuration is d as a protobuf Duration's YAML: seconds, "1.5s".
func protoDuration(d time.Duration) string {
	s := new(big.Rat).SetFrac64(int64(d), int64(time.Second)).FloatString(9)
	return strings.TrimSuffix(strings.TrimRight(s, "0"), ".") + "s"
}
