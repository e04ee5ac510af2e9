package main

import (
	"strings"
	"testing"
)

// ratelab explain prints each lane's promise and who says the same.
func TestExplainCommand(t *testing.T) {
	code, out, errs := ratelab(t, "explain", "redis-cell", "CL.THROTTLE user 5 10 1")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	for _, want := range []string{"user: redis-cell max_burst 5, 10 per 1s, one allowance a client\n", "  at once:    6 requests\n", "  the same:   nginx: nginx-limit-req rate=10r/s burst=5 nodelay;", "  otherwise:  guava: "} {
		if !strings.Contains(out, want) {
			t.Errorf("lacks %q:\n%s", want, out)
		}
	}
	if code, _, errs := ratelab(t, "explain", "nginx"); code != 2 || !strings.Contains(errs, "usage: ratelab explain") {
		t.Errorf("one operand: exit %d %q", code, errs)
	}
	if code, _, errs := ratelab(t, "explain", "nginx", "limit_req zone=x;"); code != 2 || !strings.Contains(errs, `zero size shared memory zone "x"`) {
		t.Errorf("a bad configuration: exit %d %q", code, errs)
	}
}
