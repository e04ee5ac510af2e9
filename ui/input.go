package ui

import (
	"context"
	"errors"
	"io"
	"os"
	"slices"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
	uv "github.com/charmbracelet/ultraviolet"
	"github.com/charmbracelet/x/term"
)

// quitGrace is how long a quit key may wait behind the keys before it (a
// key whose work is long, a store that answers slowly) before it is obeyed
// ahead of them.
const quitGrace = 150 * time.Millisecond

// ErrQuitWhileBusy is what Run returns when the learner quit while the
// explorer was still working on earlier keys: the terminal is restored and
// the work left as it was (a store's last calls, too, are not waited for).
var ErrQuitWhileBusy = errors.New("quit while busy")

// keyboard reads the terminal ahead of the explorer, so that no key waits
// in the terminal while the explorer works: every byte is read at once and
// queued, Bubble Tea reads the queue (keyboard is its input), and a quit
// key (q where it would quit, or ctrl+c) that the explorer has not reached
// within quitGrace ends the program ahead of the keys queued before it.
// Keys typed while a large file loads are kept too, since the terminal is
// in raw mode from before the load.
//
// It puts a terminal in raw mode itself (Bubble Tea, reading something
// that is not a terminal, leaves it), and gives it back on suspend and at
// the end. It is written for the terminals of Unix systems, which ratelab
// is built for.
type keyboard struct {
	in    io.Reader
	tty   *os.File // in, when it is a terminal
	ttyMu sync.Mutex
	saved *ttyState // its mode before, while isRaw
	isRaw bool
	// signalKeys leaves ctrl+c to the terminal, as a signal, while the
	// scenario loads (nothing reads keys yet).
	signalKeys bool

	// The bytes typed and not yet read by Bubble Tea, one entry a read
	// from the terminal; cond wakes Read when one comes, a key has been
	// handled (see Read), the keyboard closes or wake is called.
	mu       sync.Mutex
	cond     *sync.Cond
	queue    []typed
	escapeAt time.Time // when the read Bubble Tea last took came, if it ended with an escape
	// escapeTaken is when Bubble Tea took it.
	escapeTaken time.Time
	gen         int // wake's count
	eof         bool

	// watch decodes the same bytes as Bubble Tea does, to count the key
	// presses and find the quit keys among them.
	watch       *io.PipeWriter
	seen        atomic.Int64 // key presses decoded so far
	keys        earlyKeys
	pendingMu   sync.Mutex
	isPassive   []bool       // of each key press decoded, whether it is passive
	keysHandled atomic.Int64 // key presses the explorer has handled
	quitsOnQ    atomic.Bool  // whether q quits now, as the explorer left it
	quit        chan struct{}
	quitOnce    sync.Once
	closed      chan struct{}
}

// typed is one read from the keyboard: what a key (or a paste) sent.
type typed struct {
	bytes []byte
	at    time.Time
	// seen is how many key presses the bytes before these held, as far
	// as decode had found them when these came.
	seen int64
}

// earlyKeys are the keys the keyboard finds among the bytes before the
// explorer reads them, from the explorer's bindings (keyMap.early): quit
// quits always, quitIfIdle when the explorer says q would quit; passive
// keys may stand before either.
type earlyKeys struct {
	quit, quitIfIdle key.Binding
	passive          []key.Binding
}

// openKeyboard starts reading in: when nil, the terminal (standard input,
// or /dev/tty when that is not one, as Bubble Tea does). raw then puts a
// terminal in raw mode, ctrl+c and ctrl+z left as signals until
// takeSignalKeys.
func openKeyboard(in io.Reader, keys earlyKeys) (*keyboard, error) {
	if in == nil {
		in = os.Stdin
		if !term.IsTerminal(os.Stdin.Fd()) {
			if tty, err := os.Open("/dev/tty"); err == nil {
				in = tty
			}
		}
	}
	k := &keyboard{in: in, keys: keys, signalKeys: true, quit: make(chan struct{}), closed: make(chan struct{})}
	k.cond = sync.NewCond(&k.mu)
	if f, ok := in.(*os.File); ok && term.IsTerminal(f.Fd()) {
		k.tty = f
	}
	wr, ww := io.Pipe()
	k.watch = ww
	go k.read()
	go k.decode(wr)
	return k, nil
}

// read takes every byte typed as it comes.
func (k *keyboard) read() {
	buf := make([]byte, 4096)
	for {
		n, err := k.in.Read(buf)
		if errors.Is(err, syscall.EIO) && !k.foreground() {
			// Read in the background (SIGTTIN is ignored): the keys
			// are the shell's until the explorer is in the foreground.
			select {
			case <-time.After(50 * time.Millisecond):
				continue
			case <-k.closed:
				return
			}
		}
		if n > 0 {
			t := typed{bytes: append([]byte(nil), buf[:n]...), at: time.Now(), seen: k.seen.Load()}
			k.mu.Lock()
			k.queue = append(k.queue, t)
			k.cond.Broadcast()
			k.mu.Unlock()
			if _, err := k.watch.Write(t.bytes); err != nil {
				return
			}
		}
		if err != nil {
			k.watch.Close()
			k.mu.Lock()
			k.eof = true
			k.cond.Broadcast()
			k.mu.Unlock()
			return
		}
	}
}

// Read is Bubble Tea's input: the next read from the keyboard (never two
// run together), waiting for one. A read that ended with an escape, and
// then nothing for longer than the decoder waits, was the escape key; but
// keys queued while the explorer works would reach the decoder in a burst,
// where the escape and the next key read as alt+that key. So what follows
// such an escape waits until the explorer has handled it, as a key of its
// own. A Read waiting when wake is called returns nothing, so that a
// reader Bubble Tea has cancelled (on suspend) ends without taking a key.
func (k *keyboard) Read(p []byte) (int, error) {
	k.mu.Lock()
	defer k.mu.Unlock()
	gen := k.gen
	for {
		switch {
		case k.gen != gen:
			return 0, nil
		case len(k.queue) > 0 && k.mayTake(k.queue[0]):
			t := &k.queue[0]
			n := copy(p, t.bytes)
			t.bytes = t.bytes[n:]
			if len(t.bytes) == 0 {
				k.escapeAt = time.Time{}
				if p[n-1] == 0x1b {
					k.escapeAt, k.escapeTaken = t.at, time.Now()
					time.AfterFunc(escapeHold, k.wakeHeld)
				}
				k.queue = k.queue[1:]
			}
			return n, nil
		case k.eof:
			return 0, io.EOF
		}
		k.cond.Wait()
	}
}

// mayTake reports whether t may go to the decoder now (see Read): not
// before the escape before it has been handled, or escapeHold has passed
// (should the two decoders ever count differently, keys are late, never
// stuck).
func (k *keyboard) mayTake(t typed) bool {
	return k.escapeAt.IsZero() || t.at.Sub(k.escapeAt) <= uv.DefaultEscTimeout || k.keysHandled.Load() >= t.seen ||
		time.Since(k.escapeTaken) > escapeHold
}

// escapeHold is the longest a key waits for the escape before it.
const escapeHold = time.Second

// wakeHeld lets Read look again at a key held behind an escape.
func (k *keyboard) wakeHeld() {
	k.mu.Lock()
	k.cond.Broadcast()
	k.mu.Unlock()
}

// wake makes a Read that waits return nothing.
func (k *keyboard) wake() {
	k.mu.Lock()
	k.gen++
	k.cond.Broadcast()
	k.mu.Unlock()
}

// decode finds the key presses in the bytes, as Bubble Tea will, and
// watches each quit key.
func (k *keyboard) decode(r io.Reader) {
	events := make(chan uv.Event)
	go func() {
		uv.NewTerminalReader(r, os.Getenv("TERM")).StreamEvents(context.Background(), events)
		close(events)
	}()
	for e := range events {
		press, ok := e.(uv.KeyPressEvent)
		if !ok {
			continue
		}
		msg := tea.KeyPressMsg(press)
		k.pendingMu.Lock()
		k.isPassive = append(k.isPassive, slices.ContainsFunc(k.keys.passive, func(b key.Binding) bool { return key.Matches(msg, b) }))
		k.pendingMu.Unlock()
		n := k.seen.Add(1)
		switch {
		case key.Matches(msg, k.keys.quit):
			go k.watchQuit(n, func() bool { return true })
		case key.Matches(msg, k.keys.quitIfIdle):
			go k.watchQuit(n, func() bool { return k.quitsOnQ.Load() && k.passiveUpTo(n) })
		}
	}
}

// passiveUpTo reports whether every key press before the n-th that the
// explorer has not handled yet (the one it works on included) is passive:
// none fires a request, opens a prompt or asks a question, so that a q
// after them still quits, as quitsOnQ said after the last key handled.
func (k *keyboard) passiveUpTo(n int64) bool {
	k.pendingMu.Lock()
	defer k.pendingMu.Unlock()
	for i := k.keysHandled.Load(); i < n-1; i++ {
		if !k.isPassive[i] {
			return false
		}
	}
	return true
}

// watchQuit obeys the n-th key press, a quit key, if the explorer has not
// handled it within quitGrace and it still quits then.
func (k *keyboard) watchQuit(n int64, quits func() bool) {
	select {
	case <-time.After(quitGrace):
	case <-k.closed:
		return
	}
	if k.keysHandled.Load() < n && quits() {
		k.quitOnce.Do(func() { close(k.quit) })
	}
}

// handled is told by the explorer after each message it handled: whether
// it was a key press, and whether q would now quit it.
func (k *keyboard) handled(key, quitsOnQ bool) {
	k.quitsOnQ.Store(quitsOnQ)
	if key {
		k.mu.Lock()
		k.keysHandled.Add(1)
		k.cond.Broadcast() // a key held behind an escape may go
		k.mu.Unlock()
	}
}

// restore gives the terminal its mode from before, once: a second call
// (the stop after a suspension began) changes nothing, since a process
// that changes a terminal's mode once the shell has it is stopped.
func (k *keyboard) restore() {
	k.ttyMu.Lock()
	defer k.ttyMu.Unlock()
	if k.tty != nil && k.isRaw {
		restoreTTY(int(k.tty.Fd()), k.saved)
		k.isRaw = false
	}
}

// raw puts a terminal in raw mode: at the start, and after a suspension.
func (k *keyboard) raw() error {
	k.ttyMu.Lock()
	defer k.ttyMu.Unlock()
	if k.tty == nil || k.isRaw {
		return nil
	}
	st, err := makeRawInput(int(k.tty.Fd()), k.signalKeys)
	if err == nil {
		k.saved, k.isRaw = st, true
	}
	return err
}

// takeSignalKeys makes ctrl+c a key, once the explorer reads keys.
func (k *keyboard) takeSignalKeys() {
	k.ttyMu.Lock()
	defer k.ttyMu.Unlock()
	k.signalKeys = false
	if k.tty != nil && k.isRaw {
		makeRawInput(int(k.tty.Fd()), false)
	}
}

// foreground reports whether the terminal is the process's (true for a
// keyboard that is no terminal).
func (k *keyboard) foreground() bool { return k.tty == nil || foreground(int(k.tty.Fd())) }

// close ends Bubble Tea's input and restores the terminal. The reader of
// the terminal itself may stay blocked until the process ends.
func (k *keyboard) close() {
	select {
	case <-k.closed:
		return
	default:
	}
	close(k.closed)
	k.mu.Lock()
	k.eof = true
	k.cond.Broadcast()
	k.mu.Unlock()
	k.restore()
}
