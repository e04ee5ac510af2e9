package aws

import (
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"ratelab/algorithms"
)

func tokenBucket(capacity, n int64, per time.Duration) algorithms.Policy {
	return algorithms.Policy{Algorithm: algorithms.TokenBucket, Capacity: capacity, Rate: algorithms.Rate{N: n, Per: per}}
}

func TestRead(t *testing.T) {
	for _, c := range []struct {
		name, src, called string
		want              algorithms.Policy
	}{
		{"CloudFormation", "Resources:\n  GoldPlan:\n    Type: AWS::ApiGateway::UsagePlan\n    Properties:\n      Throttle:\n        RateLimit: 10\n        BurstLimit: 5\n", "GoldPlan", tokenBucket(5, 10, time.Second)},
		{"a stage's method settings", "Resources:\n  Prod:\n    Type: AWS::ApiGateway::Stage\n    Properties:\n      MethodSettings:\n        - HttpMethod: '*'\n          ResourcePath: /*\n          ThrottlingRateLimit: 0.5\n          ThrottlingBurstLimit: 2\n", "Prod", tokenBucket(2, 1, 2*time.Second)},
		{"the CLI's JSON", `{"id": "abc", "name": "basic", "throttle": {"burstLimit": 20, "rateLimit": 100.0}}`, "aws", tokenBucket(20, 100, time.Second)},
		{"Terraform", "resource \"aws_api_gateway_usage_plan\" \"silver\" {\n  name = \"silver\"\n  throttle_settings {\n    burst_limit = 5\n    rate_limit  = 10\n  }\n}\n", "silver", tokenBucket(5, 10, time.Second)},
	} {
		fs, err := Read(c.src)
		if err != nil || len(fs) != 1 {
			t.Errorf("%s: %+v %v", c.name, fs, err)
			continue
		}
		if fs[0].Policy != c.want || fs[0].Var != c.called {
			t.Errorf("%s: %v %q, want %v %q", c.name, fs[0].Policy, fs[0].Var, c.want, c.called)
		}
	}
	for _, c := range []struct{ src, want string }{
		{"a: b", "no throttling"},
		{"throttle: {rateLimit: 0, burstLimit: 5}", "a rate limit of 0 or less"},
		{"throttle: {rateLimit: 5, burstLimit: 2.5}", "burst limit 2.5 is not a whole number"},
		{"resource \"x\" \"y\" {\n throttle_settings {\n rate_limit = 5\n }\n}", "throttle_settings has no burst_limit"},
	} {
		if _, err := Read(c.src); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q: %v, want %q", c.src, err, c.want)
		}
	}
}

func TestWriteReadsBack(t *testing.T) {
	r := rand.New(rand.NewPCG(19, 20))
	for range 200 {
		p := tokenBucket(1+r.Int64N(5000), 1+r.Int64N(1000), []time.Duration{time.Second, 2 * time.Second, 4 * time.Second, 10 * time.Second, 100 * time.Millisecond}[r.IntN(5)])
		text, err := Write("plan", p)
		if err != nil {
			t.Fatal(err)
		}
		fs, err := Read(text)
		if err != nil || len(fs) != 1 {
			t.Fatalf("%v: %+v %v\n%s", p, fs, err, text)
		}
		got := fs[0].Policy
		if got.Capacity != p.Capacity || got.Rate.N*int64(p.Rate.Per) != p.Rate.N*int64(got.Rate.Per) || fs[0].Var != "UsagePlan" {
			t.Fatalf("%v read back as %v %q\n%s", p, got, fs[0].Var, text)
		}
	}
	if _, err := Write("plan", tokenBucket(5, 1, 3*time.Second)); err == nil {
		t.Error("a third of a request a second was written")
	}
}

func TestNearest(t *testing.T) {
	got, differs, err := Nearest(algorithms.Policy{Algorithm: algorithms.GCRA, Burst: 5, Rate: algorithms.Rate{N: 1, Per: 3 * time.Second}})
	if err != nil || got != tokenBucket(5, 333, 1000*time.Second) || !strings.Contains(strings.Join(differs, ""), "0.333 a second for 1/3s") {
		t.Errorf("%v %q %v", got, differs, err)
	}
}
