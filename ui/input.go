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
	// from the terminal; cond wakes Read when one comes, the keyboard
	// closes or wake is called.
	mu    sync.Mutex
	cond  *sync.Cond
	queue [][]byte
	gen   int // wake's count
	eof   bool

	// A read that ended with an escape is held (see lone): heldAt is
	// when it came, heldGen tells its timer whether it is still the one
	// held. sendMu keeps what queue and watch get in the order typed.
	held    bool
	heldAt  time.Time
	heldGen int
	sendMu  sync.Mutex

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

// escapeKey is the escape key written so that no decoder can take it for
// the start of a longer sequence (its code, 27, in the form "CSI code u"
// that Bubble Tea reads whatever the terminal's keyboard protocol).
const escapeKey = "\x1b[27u"

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
		if n > 0 && !k.lone(append([]byte(nil), buf[:n]...), time.Now()) {
			return
		}
		if err != nil {
			k.release()
			k.watch.Close()
			k.mu.Lock()
			k.eof = true
			k.cond.Broadcast()
			k.mu.Unlock()
			return
		}
	}
}

// lone settles what an escape means before any decoder sees it. A
// terminal sends the escape key as one byte, and alt with a key as an
// escape before the key; a decoder tells them apart by waiting
// uv.DefaultEscTimeout for more. But keys queued while the explorer works
// reach Bubble Tea's decoder in a burst, and on a loaded machine a
// decoder's timer can fire late: either way an escape and the key after it
// would read as alt+that key. So a read that ends with an escape is held:
// bytes that come within uv.DefaultEscTimeout of it were typed with it and
// go together; otherwise (later bytes, or the hold's timer) it goes as
// escapeKey, which no decoder can join to what follows. It reports false
// once the keyboard can take no more.
func (k *keyboard) lone(b []byte, at time.Time) bool {
	k.sendMu.Lock()
	defer k.sendMu.Unlock()
	k.mu.Lock()
	wasHeld, together := k.held, at.Sub(k.heldAt) <= uv.DefaultEscTimeout
	k.held = false
	k.mu.Unlock()
	switch {
	case wasHeld && together:
		b = append([]byte{0x1b}, b...)
	case wasHeld:
		if !k.send([]byte(escapeKey)) {
			return false
		}
	}
	if b[len(b)-1] == 0x1b {
		k.mu.Lock()
		k.held, k.heldAt = true, at
		k.heldGen++
		gen := k.heldGen
		k.mu.Unlock()
		time.AfterFunc(uv.DefaultEscTimeout, func() { k.releaseIf(gen) })
		b = b[:len(b)-1]
		if len(b) > 0 && b[len(b)-1] == 0x1b { // two escapes: the first is a key
			b = append(b[:len(b)-1], escapeKey...)
		}
	}
	return len(b) == 0 || k.send(b)
}

// releaseIf sends the escape held as escapeKey, if the hold numbered gen
// is still on: nothing came within uv.DefaultEscTimeout of it.
func (k *keyboard) releaseIf(gen int) {
	k.sendMu.Lock()
	defer k.sendMu.Unlock()
	k.mu.Lock()
	on := k.held && k.heldGen == gen
	k.held = false
	k.mu.Unlock()
	if on {
		k.send([]byte(escapeKey))
	}
}

// release sends an escape still held, at the end of the input.
func (k *keyboard) release() {
	k.sendMu.Lock()
	defer k.sendMu.Unlock()
	k.mu.Lock()
	on := k.held
	k.held = false
	k.mu.Unlock()
	if on {
		k.send([]byte(escapeKey))
	}
}

// send queues b for Bubble Tea and gives it to the watcher, under sendMu.
// It reports false once the watcher is gone.
func (k *keyboard) send(b []byte) bool {
	k.mu.Lock()
	k.queue = append(k.queue, b)
	k.cond.Broadcast()
	k.mu.Unlock()
	_, err := k.watch.Write(b)
	return err == nil
}

// Read is Bubble Tea's input: the next read from the keyboard (never two
// run together), waiting for one. A Read waiting when wake is called
// returns nothing, so that a reader Bubble Tea has cancelled (on suspend)
// ends without taking a key.
func (k *keyboard) Read(p []byte) (int, error) {
	k.mu.Lock()
	defer k.mu.Unlock()
	gen := k.gen
	for {
		switch {
		case k.gen != gen:
			return 0, nil
		case len(k.queue) > 0:
			n := copy(p, k.queue[0])
			k.queue[0] = k.queue[0][n:]
			if len(k.queue[0]) == 0 {
				k.queue = k.queue[1:]
			}
			return n, nil
		case k.eof:
			return 0, io.EOF
		}
		k.cond.Wait()
	}
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
		k.keysHandled.Add(1)
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
