package redisstore

import (
	"strings"
	"testing"
	"time"

	"ratelab/algorithms"
)

// TestEveryAlgorithmHasAScript: every described algorithm decides in
// Redis, or its file here says why it cannot (none); not both.
func TestEveryAlgorithmHasAScript(t *testing.T) {
	for _, a := range algorithms.Algorithms {
		switch why := noScript[a]; {
		case !Supports(a) && why == "":
			t.Errorf("%s has no Redis script: add lua/%s.lua and register it from %s.go, or state there why it has none (none)", a, a, strings.ReplaceAll(string(a), "-", ""))
		case Supports(a) && why != "":
			t.Errorf("%s has a script and a reason for none, %q", a, why)
		}
	}
}

// TestNoScriptSaysWhy: an algorithm that states why it has no script is
// refused by Check with that reason; one that states nothing, plainly.
func TestNoScriptSaysWhy(t *testing.T) {
	const a = algorithms.Algorithm("no-such-lane")
	p := algorithms.Policy{Algorithm: a}
	if err := Check(p, time.Second); err == nil || err.Error() != "no-such-lane has no Redis script: it cannot run with --store" {
		t.Errorf("Check = %v", err)
	}
	none(a, "its state is a library's object")
	defer delete(noScript, a)
	if err := Check(p, time.Second); err == nil || err.Error() != "no-such-lane has no Redis script (its state is a library's object): it cannot run with --store" {
		t.Errorf("Check = %v", err)
	}
}
