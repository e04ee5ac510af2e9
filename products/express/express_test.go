package express

import (
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"ratelab/algorithms"
)

func window(limit int64, w time.Duration) algorithms.Policy {
	return algorithms.Policy{Algorithm: algorithms.FirstHitWindow, Limit: limit, Window: w}
}

// express-rate-limit's documented example, an older spelling, and the
// defaults.
func TestRead(t *testing.T) {
	for _, c := range []struct {
		name, src, called string
		want              algorithms.Policy
		note              string
	}{
		{"documented", "const limiter = rateLimit({\n\twindowMs: 15 * 60 * 1000, // 15 minutes\n\tlimit: 100, // Limit each IP to 100 requests per `window` (here, per 15 minutes).\n\tstandardHeaders: 'draft-8',\n\tlegacyHeaders: false,\n})", "limiter", window(100, 15*time.Minute), ""},
		{"max", "app.use(rateLimit({ windowMs: 60_000, max: 20 }))", "express", window(20, time.Minute), ""},
		{"defaults", "const l = rateLimit({ standardHeaders: true })", "l", window(5, time.Minute), "windowMs is not set"},
	} {
		fs, err := Read(c.src)
		if err != nil || len(fs) != 1 {
			t.Errorf("%s: %+v %v", c.name, fs, err)
			continue
		}
		if fs[0].Policy != c.want || fs[0].Var != c.called {
			t.Errorf("%s: %v %q, want %v %q", c.name, fs[0].Policy, fs[0].Var, c.want, c.called)
		}
		if notes := strings.Join(fs[0].Notes, "; "); !strings.Contains(notes, c.note) || c.note == "" && notes != "" {
			t.Errorf("%s: notes %q, want %q", c.name, notes, c.note)
		}
	}
	for _, c := range []struct{ src, want string }{
		{"x", "no rateLimit"},
		{"rateLimit({ limit: 0 })", "refuses every request"},
		{"rateLimit({ windowMs: getWindow() })", "windowMs: getWindow"},
	} {
		if _, err := Read(c.src); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q: %v, want %q", c.src, err, c.want)
		}
	}
}

func TestWriteReadsBack(t *testing.T) {
	r := rand.New(rand.NewPCG(25, 26))
	for range 100 {
		p := window(1+r.Int64N(1000), time.Duration(1+r.Int64N(3_600_000))*time.Millisecond)
		if p.Validate() != nil {
			continue
		}
		text, err := Write("api", p)
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
	got, _, err := Nearest(algorithms.Policy{Algorithm: algorithms.FixedWindow, Limit: 120, Window: time.Minute})
	if err != nil || got != window(120, time.Minute) {
		t.Errorf("%v %v", got, err)
	}
}
