package snippet

import (
	"go/parser"
	"testing"
)

// Arguments evaluate as a compiler folds constants: exactly, integer
// division truncating, durations in nanoseconds.
func TestEval(t *testing.T) {
	for _, c := range []struct {
		expr  string
		want  string // Num as a fraction
		nanos bool
		every int64
	}{
		{"5", "5", false, 0},
		{"2.5", "5/2", false, 0},
		{"1_000", "1000", false, 0},
		{"100 * time.Millisecond", "100000000", true, 0},
		{"time.Second / 3", "333333333", true, 0},
		{"1 / 3", "0", false, 0},
		{"1.0 / 3", "1/3", false, 0},
		{"rate.Limit(1) / 3", "1/3", false, 0},
		{"rate.Every(time.Second / 10)", "10", false, 100000000},
		{"rate.Every(3 * time.Second)", "1/3", false, 3000000000},
		{"(2 * time.Second).Seconds()", "2", false, 0},
		{"float64(6) / (4 * time.Second).Seconds()", "3/2", false, 0},
		{"time.Duration(1500) * time.Millisecond", "1500000000", true, 0},
		{"Duration.ofSeconds(2)", "2000000000", true, 0},
		{"TimeUnit.MINUTES", "60000000000", true, 0},
		{"-(3)", "-3", false, 0},
	} {
		e, err := parser.ParseExpr(c.expr)
		if err != nil {
			t.Fatal(err)
		}
		v, err := Eval(e)
		if err != nil {
			t.Errorf("%s: %v", c.expr, err)
			continue
		}
		if v.Num.RatString() != c.want || v.Nanos != c.nanos || v.Every != c.every {
			t.Errorf("%s: %s nanos=%t every=%d, want %s nanos=%t every=%d", c.expr, v.Num.RatString(), v.Nanos, v.Every, c.want, c.nanos, c.every)
		}
	}
	for _, bad := range []string{"x", "time.Fortnight", "f(1)", "1 / 0", `"5"`, "time.Duration(2.5)"} {
		e, _ := parser.ParseExpr(bad)
		if _, err := Eval(e); err == nil {
			t.Errorf("%s evaluated", bad)
		}
	}
}

// Find finds each call, its variable and line, Java literals read as Go.
func TestFind(t *testing.T) {
	src := "package p\n\nvar a = rate.NewLimiter(10, 5)\nfunc f() {\n\tb := rate.NewLimiter(rate.Every(time.Second),\n\t\t3)\n\trate.NewLimiter(1, 1).Allow()\n}\n"
	calls, err := Find(src, "rate.NewLimiter")
	if err != nil {
		t.Fatal(err)
	}
	if len(calls) != 3 || calls[0].Var != "a" || calls[0].Line != 3 || calls[1].Var != "b" || calls[1].Line != 5 || len(calls[1].Args) != 2 || calls[2].Var != "" {
		t.Errorf("%+v", calls)
	}
	java, err := Find("RateLimiter limiter = RateLimiter.create(5.0d);", "RateLimiter.create")
	if err != nil || len(java) != 1 || java[0].Var != "limiter" {
		t.Fatalf("%+v %v", java, err)
	}
	if _, err := Find("rate.NewLimiter(1, 2", "rate.NewLimiter"); err == nil {
		t.Error("an unclosed call was found")
	}
}

func TestGoDuration(t *testing.T) {
	for d, want := range map[int64]string{1e9: "time.Second", 15e8: "1500 * time.Millisecond", 120e9: "2 * time.Minute", 7: "7 * time.Nanosecond"} {
		if got := GoDuration(d); got != want {
			t.Errorf("%d: %q, want %q", d, got, want)
		}
	}
}
