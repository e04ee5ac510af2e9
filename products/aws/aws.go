// Package aws reads and writes Amazon API Gateway's throttling: a usage
// plan's or a stage's rate limit (requests a second, a number that may
// have a fraction) and burst limit (requests), from CloudFormation or SAM
// (YAML or JSON: Throttle {RateLimit, BurstLimit}, or MethodSettings'
// ThrottlingRateLimit and ThrottlingBurstLimit), the AWS CLI's JSON
// (throttle {rateLimit, burstLimit}) or Terraform (throttle_settings {
// rate_limit, burst_limit }). AWS documents a token bucket of the burst
// limit refilled at the rate; its arithmetic is not public, so the lane is
// the exact token bucket, and says so.
package aws

import (
	"fmt"
	"maps"
	"math/big"
	"regexp"
	"slices"
	"strings"

	"github.com/goccy/go-yaml"

	"ratelab/algorithms"
	"ratelab/products/bucket"
	"ratelab/products/snippet"
)

// Throttle is one throttling setting as written.
type Throttle struct {
	Name, Where string
	Rate        *big.Rat // requests a second
	Burst       int64
}

// Markers are the words a configuration Read reads holds (any case).
var Markers = []string{"burstlimit", "burst_limit"}

// Lane is the token bucket AWS documents for t.
func (t Throttle) Lane() (algorithms.Policy, []string, error) {
	if t.Rate == nil || t.Rate.Sign() <= 0 {
		return algorithms.Policy{}, nil, fmt.Errorf("a rate limit of 0 or less throttles every request")
	}
	if t.Burst <= 0 {
		return algorithms.Policy{}, nil, fmt.Errorf("a burst limit of 0 throttles every request")
	}
	r, ok := snippet.PerSecond(t.Rate)
	if !ok {
		return algorithms.Policy{}, nil, fmt.Errorf("rate limit %s has no exact N per duration a lane takes", t.Rate.FloatString(6))
	}
	p := algorithms.Policy{Algorithm: algorithms.TokenBucket, Capacity: t.Burst, Rate: r}
	notes := []string{"AWS documents a token bucket of the burst limit at the rate limit but not its arithmetic: the lane is the exact token bucket, one a client when a usage plan's key stands for the client"}
	return p, notes, p.Validate()
}

// Read finds every throttling setting in src.
func Read(src string) ([]snippet.Found, error) {
	var ts []Throttle
	var err error
	if terraformBlock.MatchString(src) {
		ts, err = fromTerraform(src)
	} else {
		ts, err = fromYAML(src)
	}
	if err != nil {
		return nil, err
	}
	if len(ts) == 0 {
		return nil, fmt.Errorf("no throttling: rate and burst limits")
	}
	var out []snippet.Found
	for _, t := range ts {
		p, notes, err := t.Lane()
		if err != nil {
			return nil, fmt.Errorf("%s: %w", t.Where, err)
		}
		out = append(out, snippet.Found{Var: t.Name, Where: t.Where, Policy: p, Notes: notes})
	}
	return out, nil
}

// fromYAML finds every mapping that holds a rate limit and a burst limit
// (any of the spellings above), named after the key above it.
func fromYAML(src string) ([]Throttle, error) {
	var doc any
	if err := yaml.Unmarshal([]byte(src), &doc); err != nil {
		return nil, fmt.Errorf("not YAML: %v", err)
	}
	var out []Throttle
	var err error
	var walk func(v any, path []string, name string)
	walk = func(v any, path []string, name string) {
		switch v := v.(type) {
		case map[string]any:
			rate, burst, found := pair(v)
			if found && err == nil {
				t := Throttle{Name: name, Where: strings.Join(path, ".")}
				if t.Where == "" {
					t.Where = "the document"
				}
				t.Rate, t.Burst, err = values(rate, burst)
				out = append(out, t)
				return
			}
			for _, k := range slices.Sorted(maps.Keys(v)) {
				child := k
				if structural[strings.ToLower(k)] {
					child = name // a name is a resource's, not a property's
				}
				walk(v[k], append(path, k), child)
			}
		case []any:
			for i, x := range v {
				walk(x, append(path, fmt.Sprintf("[%d]", i)), name)
			}
		}
	}
	walk(doc, nil, "aws")
	return out, err
}

// structural are the keys that name no resource of their own.
var structural = map[string]bool{"resources": true, "properties": true, "throttle": true, "methodsettings": true, "apistages": true, "defaultroutesettings": true}

// pair is a mapping's rate and burst limits, under any spelling.
func pair(m map[string]any) (rate, burst any, found bool) {
	var haveRate, haveBurst bool
	for k, v := range m {
		switch strings.ToLower(k) {
		case "ratelimit", "throttlingratelimit", "rate_limit":
			rate, haveRate = v, true
		case "burstlimit", "throttlingburstlimit", "burst_limit":
			burst, haveBurst = v, true
		}
	}
	return rate, burst, haveRate && haveBurst
}

// values reads a rate (a number, perhaps with a fraction) and a burst.
func values(rate, burst any) (*big.Rat, int64, error) {
	r, ok := new(big.Rat).SetString(fmt.Sprint(rate))
	if !ok {
		return nil, 0, fmt.Errorf("rate limit %v is not a number", rate)
	}
	b, ok := new(big.Rat).SetString(fmt.Sprint(burst))
	if !ok || !b.IsInt() || !b.Num().IsInt64() {
		return nil, 0, fmt.Errorf("burst limit %v is not a whole number", burst)
	}
	return r, b.Num().Int64(), nil
}

// terraformBlock matches a Terraform throttle_settings block.
var terraformBlock = regexp.MustCompile(`throttle_settings\s*\{`)

// terraformValue matches rate_limit = 10 or burst_limit = 5.
var terraformValue = regexp.MustCompile(`(rate_limit|burst_limit)\s*=\s*([0-9.]+)`)

// fromTerraform reads each throttle_settings block, named after the
// resource it is in.
func fromTerraform(src string) ([]Throttle, error) {
	resource := regexp.MustCompile(`resource\s+"[^"]+"\s+"([^"]+)"`)
	var out []Throttle
	for _, loc := range terraformBlock.FindAllStringIndex(src, -1) {
		end := strings.Index(src[loc[1]:], "}")
		if end < 0 {
			return nil, fmt.Errorf("line %d: throttle_settings is not closed", 1+strings.Count(src[:loc[0]], "\n"))
		}
		body := src[loc[1] : loc[1]+end]
		vals := map[string]string{}
		for _, m := range terraformValue.FindAllStringSubmatch(body, -1) {
			vals[m[1]] = m[2]
		}
		name := "aws"
		if ms := resource.FindAllStringSubmatch(src[:loc[0]], -1); len(ms) > 0 {
			name = ms[len(ms)-1][1]
		}
		t := Throttle{Name: name, Where: fmt.Sprintf("line %d", 1+strings.Count(src[:loc[0]], "\n"))}
		if _, ok := vals["rate_limit"]; !ok {
			return nil, fmt.Errorf("%s: throttle_settings has no rate_limit", t.Where)
		}
		if _, ok := vals["burst_limit"]; !ok {
			return nil, fmt.Errorf("%s: throttle_settings has no burst_limit", t.Where)
		}
		var err error
		if t.Rate, t.Burst, err = values(vals["rate_limit"], vals["burst_limit"]); err != nil {
			return nil, fmt.Errorf("%s: %w", t.Where, err)
		}
		out = append(out, t)
	}
	return out, nil
}

// Nearest is the throttle nearest to p: p itself for a token bucket that
// starts full; else the bucket's size as burst at its rate.
func Nearest(p algorithms.Policy) (algorithms.Policy, []string, error) {
	b, differs, err := bucket.Of(p, "API Gateway")
	if err != nil {
		return algorithms.Policy{}, nil, err
	}
	q := algorithms.Policy{Algorithm: algorithms.TokenBucket, Capacity: b.Size, Rate: b.Rate}
	if _, ok := decimal(b.Rate); !ok { // a thousandth of a request a second, rounded down
		milli := new(big.Int).Quo(new(big.Int).Mul(big.NewInt(b.Rate.N), big.NewInt(1e12)), big.NewInt(int64(b.Rate.Per))).Int64()
		if milli < 1 {
			return algorithms.Policy{}, nil, fmt.Errorf("rate %s is below a thousandth of a request a second", b.Rate)
		}
		r, _ := snippet.PerSecond(big.NewRat(milli, 1000))
		q.Rate = r
		differs = append(differs, fmt.Sprintf("API Gateway takes a decimal rate: %s a second for %s", big.NewRat(milli, 1000).FloatString(3), b.Rate))
	}
	if b.Delays {
		differs = append(differs, "API Gateway throttles with 429 at once, where this lane makes a request wait")
	}
	return q, differs, q.Validate()
}

// Write is p, a token bucket, as a usage plan's throttle in
// CloudFormation.
func Write(name string, p algorithms.Policy) (string, error) {
	if p.Algorithm != algorithms.TokenBucket || p.StartsEmpty {
		return "", fmt.Errorf("%s is not a throttle: take Nearest first", p)
	}
	text, ok := decimal(p.Rate)
	if !ok {
		return "", fmt.Errorf("rate %s is not a decimal API Gateway takes", p.Rate)
	}
	return fmt.Sprintf("# %s: ratelab's lane as an API Gateway usage plan's throttle (CloudFormation).\nResources:\n  UsagePlan:\n    Type: AWS::ApiGateway::UsagePlan\n    Properties:\n      Throttle:\n        RateLimit: %s\n        BurstLimit: %d\n", name, text, p.Capacity), nil
}

// decimal is r a second as a decimal of at most nine places, if it is one.
func decimal(r algorithms.Rate) (string, bool) {
	rate := new(big.Rat).SetFrac(new(big.Int).Mul(big.NewInt(r.N), big.NewInt(1e9)), big.NewInt(int64(r.Per)))
	if rate.IsInt() {
		return rate.RatString(), true
	}
	text := strings.TrimRight(strings.TrimRight(rate.FloatString(9), "0"), ".")
	back, ok := new(big.Rat).SetString(text)
	return text, ok && back.Cmp(rate) == 0
}
