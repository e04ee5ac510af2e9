package model_test

import (
	"testing"
	"time"

	"ratelab/model"
	"ratelab/scenarios"
)

// Written against Lab's exported methods only, as the explorer uses them.

// stopsPlain has an instant of three requests between two single ones:
// 1s, 2s ×3, 4s.
const stopsPlain = `title: stops
limiters:
  - {name: b, algorithm: token-bucket, capacity: 5, rate: 1/s}
traffic:
  - {at: 1s}
  - {at: 2s, count: 3}
  - {at: 4s}
`

// stopsRetry has two requests at 0s and one at 5s; a bucket of one token
// refuses the second at 0s, whose client retries after its Retry-After, at
// 1s, where no request arrives.
const stopsRetry = `title: stops with a retry
limiters:
  - {name: b, algorithm: token-bucket, capacity: 1, rate: 1/s}
clients:
  - {name: polite, retry: retry-after, attempts: 3}
traffic:
  - {at: 0s, count: 2, client: polite}
  - {at: 5s, client: polite}
`

const stopsEmpty = `title: no traffic
limiters:
  - {name: b, algorithm: token-bucket, capacity: 1, rate: 1/s}
`

func stopsLab(t *testing.T, yaml string) *model.Lab {
	t.Helper()
	s, err := scenarios.Parse("stops.yaml", []byte(yaml))
	if err != nil {
		t.Fatal(err)
	}
	lab, err := model.New(s, 0)
	if err != nil {
		t.Fatal(err)
	}
	return lab
}

func TestStops(t *testing.T) {
	none := model.Stop{}
	req := func(pos int, at time.Duration) model.Stop {
		return model.Stop{Kind: model.RequestStop, Pos: pos, At: at}
	}
	retry := func(at time.Duration) model.Stop { return model.Stop{Kind: model.RetryStop, At: at} }
	s := time.Second
	for _, c := range []struct {
		name       string
		yaml       string
		seek       time.Duration // the clock, by Seek
		pos        int           // or, when seek < 0, the position, by SeekPos
		next, prev model.Stop
	}{
		{"plain: before the first request", stopsPlain, 0, 0, req(1, 1*s), none},
		{"plain: on the first request", stopsPlain, 1 * s, 0, req(2, 2*s), req(0, 1*s)},
		{"plain: between requests", stopsPlain, 1500 * time.Millisecond, 0, req(2, 2*s), req(1, 1*s)},
		{"plain: before an instant of three", stopsPlain, -1, 1, req(2, 2*s), req(0, 1*s)},
		{"plain: request 1 of 3", stopsPlain, -1, 2, req(3, 2*s), req(1, 1*s)},
		{"plain: request 2 of 3", stopsPlain, -1, 3, req(4, 2*s), req(2, 2*s)},
		{"plain: request 3 of 3", stopsPlain, 2 * s, 0, req(5, 4*s), req(3, 2*s)},
		{"plain: past the instant", stopsPlain, 3 * s, 0, req(5, 4*s), req(4, 2*s)},
		{"plain: on the last request", stopsPlain, 4 * s, 0, none, req(4, 2*s)},
		{"plain: past the last request", stopsPlain, 4500 * time.Millisecond, 0, none, req(5, 4*s)},

		{"retry: before the first request", stopsRetry, -1, 0, req(1, 0), none},
		{"retry: request 1 of 2", stopsRetry, -1, 1, req(2, 0), req(0, 0)},
		// The retry at 1s comes before the request at 5s: a stop first.
		{"retry: request 2 of 2", stopsRetry, 0, 0, retry(1 * s), req(1, 0)},
		{"retry: on the retry", stopsRetry, 1 * s, 0, req(3, 5*s), req(2, 0)},
		// Back from past the retry, the retry comes before the request at
		// 0s.
		{"retry: between the retry and the request", stopsRetry, 3 * s, 0, req(3, 5*s), retry(1 * s)},
		{"retry: on the last request", stopsRetry, 5 * s, 0, none, retry(1 * s)},

		{"no request at all", stopsEmpty, 0, 0, none, none},
		{"no request, clock moved", stopsEmpty, 500 * time.Millisecond, 0, none, none},
	} {
		t.Run(c.name, func(t *testing.T) {
			lab := stopsLab(t, c.yaml)
			if c.seek >= 0 {
				lab.Seek(c.seek)
			} else {
				lab.SeekPos(c.pos)
			}
			now, pos := lab.Now(), lab.Pos()
			if got := lab.NextStop(); got != c.next {
				t.Errorf("NextStop at %v with %d decided = %+v, want %+v", now, pos, got, c.next)
			}
			if got := lab.PrevStop(); got != c.prev {
				t.Errorf("PrevStop at %v with %d decided = %+v, want %+v", now, pos, got, c.prev)
			}
			if lab.Now() != now || lab.Pos() != pos {
				t.Errorf("the queries moved the clock: %v with %d decided, was %v with %d", lab.Now(), lab.Pos(), now, pos)
			}
		})
	}
}

// TestStopsWalk goes from the start to the end by NextStop, and back by
// PrevStop: every request is decided one at a time, the retry instant is
// stood on, and the walk back passes the same stops.
func TestStopsWalk(t *testing.T) {
	lab := stopsLab(t, stopsRetry)
	lab.SeekPos(0)
	var fwd []model.Stop
	for s := lab.NextStop(); s.Kind != model.NoStop; s = lab.NextStop() {
		fwd = append(fwd, s)
		if len(fwd) > 10 {
			t.Fatalf("no end: %+v", fwd)
		}
		goTo(lab, s)
	}
	want := []model.Stop{
		{Kind: model.RequestStop, Pos: 1}, {Kind: model.RequestStop, Pos: 2},
		{Kind: model.RetryStop, At: time.Second}, {Kind: model.RequestStop, Pos: 3, At: 5 * time.Second},
	}
	if len(fwd) != len(want) {
		t.Fatalf("forward: %+v, want %+v", fwd, want)
	}
	for i := range want {
		if fwd[i] != want[i] {
			t.Errorf("forward stop %d: %+v, want %+v", i, fwd[i], want[i])
		}
	}
	var back []model.Stop
	for s := lab.PrevStop(); s.Kind != model.NoStop; s = lab.PrevStop() {
		back = append(back, s)
		if len(back) > 10 {
			t.Fatalf("no start: %+v", back)
		}
		goTo(lab, s)
	}
	wantBack := []model.Stop{
		{Kind: model.RetryStop, At: time.Second}, {Kind: model.RequestStop, Pos: 2},
		{Kind: model.RequestStop, Pos: 1}, {Kind: model.RequestStop, Pos: 0},
	}
	if len(back) != len(wantBack) {
		t.Fatalf("back: %+v, want %+v", back, wantBack)
	}
	for i := range wantBack {
		if back[i] != wantBack[i] {
			t.Errorf("back stop %d: %+v, want %+v", i, back[i], wantBack[i])
		}
	}
}

// goTo moves the clock to s, as the explorer does.
func goTo(lab *model.Lab, s model.Stop) {
	if s.Kind == model.RetryStop {
		lab.Seek(s.At)
		return
	}
	lab.SeekPos(s.Pos)
}
