package ui

import (
	"context"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	uv "github.com/charmbracelet/ultraviolet"

	"ratelab/algorithms"
	"ratelab/model"
	"ratelab/scenarios"
)

// slowLimiter decides as its limiter does, after a pause: a lane whose
// store answers slowly.
type slowLimiter struct {
	algorithms.Limiter
	pause time.Duration
}

func (l slowLimiter) DecideInto(d *algorithms.Decision, now time.Duration, key algorithms.Key, cost int64) {
	time.Sleep(l.pause)
	l.Limiter.DecideInto(d, now, key, cost)
}

func (l slowLimiter) Decide(now time.Duration, key string, cost int64) algorithms.Decision {
	time.Sleep(l.pause)
	return l.Limiter.Decide(now, key, cost)
}

func (l slowLimiter) DecideKey(now time.Duration, key algorithms.Key, cost int64) algorithms.Decision {
	time.Sleep(l.pause)
	return l.Limiter.DecideKey(now, key, cost)
}

func (l slowLimiter) Clone() algorithms.Limiter { return slowLimiter{l.Limiter.Clone(), l.pause} }

// slowStore keeps every lane in memory, each decision taking pause.
func slowStore(pause time.Duration) model.Store {
	return func(string, time.Duration) algorithms.Maker {
		return func(p algorithms.Policy, ks *algorithms.Keys) (algorithms.Limiter, error) {
			l, err := algorithms.NewWithKeys(p, ks)
			return slowLimiter{l, pause}, err
		}
	}
}

// runOnAPipe runs the explorer on the scenario load returns, its keyboard
// a pipe: type writes to it, and done has Run's result.
func runOnAPipe(t *testing.T, load func() (*scenarios.Scenario, error), opts Options) (typeKeys func(string), done <-chan error) {
	t.Helper()
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { w.Close() })
	result := make(chan error, 1)
	opts.Input, opts.Output = r, io.Discard
	go func() { result <- Run(load, opts) }()
	return func(keys string) {
		w.Write([]byte(keys))
		waitTaken(t, r)
	}, result
}

// waitTaken waits until the explorer's keyboard has read every byte written
// to the pipe r, as a terminal's reader takes each key as it is typed: on a
// loaded machine the keys written 100 ms apart could otherwise sit in the
// pipe together and be read as one burst (an escape and the key after it
// then read as alt+that key, as they would from a terminal's buffer).
func waitTaken(t *testing.T, r *os.File) {
	t.Helper()
	raw, err := r.SyscallConn() // not r.Fd(), which would make r blocking
	if err != nil {
		t.Fatal(err)
	}
	for deadline := time.Now().Add(5 * time.Second); time.Now().Before(deadline); time.Sleep(time.Millisecond) {
		queued := 0
		raw.Control(func(fd uintptr) { queued, err = queuedBytes(int(fd)) })
		if err != nil || queued == 0 {
			return
		}
	}
}

// boundary loads the canned lesson boundary.
func boundary() (*scenarios.Scenario, error) { return scenarios.Canned("boundary") }

// TestQuitWhileBusy quits while the explorer works on earlier keys, each
// decision taking 5 ms (a slow store): G deciding the whole lesson (960
// decisions, about 5 s), or a storm of 200 n presses (4 decisions each).
// q and ctrl+c are obeyed within a second of being typed, not after the
// work queued before them.
func TestQuitWhileBusy(t *testing.T) {
	if testing.Short() {
		t.Skip("waits on slow decisions")
	}
	for _, tc := range []struct{ name, before, quit string }{
		{"G then q", "G", "q"},
		{"G then ctrl+c", "G", "\x03"},
		{"a storm of n then q", strings.Repeat("n", 200), "q"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			typeKeys, done := runOnAPipe(t, boundary, Options{Store: slowStore(5 * time.Millisecond)})
			time.Sleep(300 * time.Millisecond) // the program starts
			typeKeys(tc.before)
			time.Sleep(100 * time.Millisecond) // the work begins
			typed := time.Now()
			typeKeys(tc.quit)
			select {
			case err := <-done:
				if took := time.Since(typed); took > time.Second {
					t.Errorf("quit took %v after the key", took)
				}
				if err != nil && err != ErrQuitWhileBusy {
					t.Errorf("Run: %v", err)
				}
			case <-time.After(20 * time.Second):
				t.Fatal("no quit after 20 s")
			}
		})
	}
}

// TestQuitTypedAfterAKeyThatAsks: a q typed behind keys the explorer is
// still working on is not obeyed early when one of them fires a request
// (then q asks first) or opens a prompt (then q is text): each decision
// takes 100 ms, so that the work outlasts the quit key's grace.
func TestQuitTypedAfterAKeyThatAsks(t *testing.T) {
	if testing.Short() {
		t.Skip("waits on slow decisions")
	}
	for _, keys := range []string{"Gn q", "nK q"} {
		t.Run(keys, func(t *testing.T) {
			typeKeys, done := runOnAPipe(t, boundary, Options{Store: slowStore(100 * time.Millisecond)})
			time.Sleep(300 * time.Millisecond)
			typeKeys(keys)
			select {
			case err := <-done:
				t.Fatalf("%q quit (%v)", keys, err)
			case <-time.After(2 * time.Second):
			}
			typeKeys("\x03") // ctrl+c always quits
			select {
			case <-done:
			case <-time.After(5 * time.Second):
				t.Fatal("ctrl+c did not quit")
			}
		})
	}
}

// TestQuitAsksWithUnsavedRequests: with unsaved requests, q asks before it
// quits, however busy the explorer is: the key is not obeyed ahead of the
// work before it.
func TestQuitAsksWithUnsavedRequests(t *testing.T) {
	if testing.Short() {
		t.Skip("waits on slow decisions")
	}
	typeKeys, done := runOnAPipe(t, boundary, Options{Store: slowStore(time.Millisecond)})
	time.Sleep(300 * time.Millisecond)
	typeKeys(" G") // a fired request, then the work
	typeKeys("q")  // asks: lose your 1 request?
	select {
	case err := <-done:
		t.Fatalf("quit without asking (%v)", err)
	case <-time.After(3 * time.Second):
	}
	typeKeys("y")
	select {
	case err := <-done:
		if err != nil {
			t.Errorf("Run: %v", err)
		}
	case <-time.After(20 * time.Second):
		t.Fatal("y did not quit")
	}
}

// TestKeysTypedWhileLoading types while the scenario loads (a second):
// escape closes the about page, space fires, s opens the save prompt and
// enter saves. None is lost, and the escape stays a key of its own (typed
// alone, it is not read as alt with the key after it).
func TestKeysTypedWhileLoading(t *testing.T) {
	if testing.Short() {
		t.Skip("waits for a slow load")
	}
	dir := t.TempDir()
	slowly := func() (*scenarios.Scenario, error) {
		time.Sleep(time.Second)
		return boundary()
	}
	typeKeys, done := runOnAPipe(t, slowly, Options{About: true, SaveDir: dir})
	for _, keys := range []string{"\x1b", " ", "s", "\r"} {
		time.Sleep(100 * time.Millisecond) // each key alone, as typed
		typeKeys(keys)
	}
	path := filepath.Join(dir, "boundary-mine.yaml")
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(50 * time.Millisecond) {
		if _, err := os.Stat(path); err == nil || time.Now().After(deadline) {
			break
		}
	}
	typeKeys("q")
	select {
	case err := <-done:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(20 * time.Second):
		t.Fatal("q did not quit after 20 s")
	}
	s, err := scenarios.Load(path)
	if err != nil {
		t.Fatalf("the keys typed while loading did not save: %v", err)
	}
	n := 0
	for range s.Requests() {
		n++
	}
	if n != 241 {
		t.Errorf("the saved scenario has %d requests, want 241 (the space typed while loading)", n)
	}
}

// TestAnEscapeIsSettledBeforeDecoding feeds the keyboard reads at chosen
// instants and decodes all that Bubble Tea would get in one burst (keys
// queued while the explorer works): an escape read alone stays the escape
// key whatever follows it later, and goes even when nothing follows; an
// escape with a key inside the decoder's wait is alt+that key.
func TestAnEscapeIsSettledBeforeDecoding(t *testing.T) {
	t0 := time.Unix(0, 0)
	ms := func(n int) time.Time { return t0.Add(time.Duration(n) * time.Millisecond) }
	type read struct {
		bytes string
		at    time.Time
	}
	for _, tc := range []struct {
		name  string
		reads []read
		want  []string
	}{
		{"escape then a key later", []read{{"\x1b", ms(0)}, {" ", ms(100)}}, []string{"esc", "space"}},
		{"escape then a key at once", []read{{"\x1b", ms(0)}, {" ", ms(10)}}, []string{"alt+space"}},
		{"escape alone at the end", []read{{"s", ms(0)}, {"\x1b", ms(100)}}, []string{"s", "esc"}},
		{"two escapes then a key", []read{{"\x1b\x1b", ms(0)}, {"q", ms(200)}}, []string{"esc", "esc", "q"}},
		{"a key and an escape in one read", []read{{"a\x1b", ms(0)}, {"b", ms(70)}}, []string{"a", "esc", "b"}},
		{"an arrow key", []read{{"\x1b[A", ms(0)}}, []string{"up"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			in, typing := io.Pipe()
			defer typing.Close()
			k, _ := openKeyboard(in, earlyKeys{})
			for _, r := range tc.reads {
				k.lone([]byte(r.bytes), r.at)
			}
			k.release()
			k.mu.Lock()
			burst := string(bytesJoined(k.queue))
			k.mu.Unlock()
			if got := decodedKeys(t, burst); !slices.Equal(got, tc.want) {
				t.Errorf("%q decoded as %q, want %q", burst, got, tc.want)
			}
		})
	}
}

// bytesJoined is the reads queued, one after another.
func bytesJoined(q [][]byte) []byte {
	var b []byte
	for _, r := range q {
		b = append(b, r...)
	}
	return b
}

// decodedKeys decodes s as Bubble Tea does, reading it all at once.
func decodedKeys(t *testing.T, s string) []string {
	t.Helper()
	events := make(chan uv.Event, 64)
	go func() {
		uv.NewTerminalReader(strings.NewReader(s), "xterm").StreamEvents(context.Background(), events)
		close(events)
	}()
	var keys []string
	for e := range events {
		if p, ok := e.(uv.KeyPressEvent); ok {
			keys = append(keys, tea.KeyPressMsg(p).String())
		}
	}
	return keys
}
