package ui

import (
	"errors"
	"fmt"
	"os"
	"os/signal"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
	"time"

	tea "charm.land/bubbletea/v2"

	"ratelab/safewrite"
)

// Ended is what Run returns when a signal ended the explorer (SIGHUP,
// SIGINT, SIGQUIT or SIGTERM): the terminal is restored first, and the
// learner's unsaved requests, if any, are written to a recovery file.
type Ended struct {
	Signal syscall.Signal
	// Requests is how many fired requests had not been saved: written to
	// Saved, or lost (Err says why).
	Requests int
	Saved    string
	Err      error
}

func (e *Ended) Error() string {
	msg := "ended by " + signalName(e.Signal)
	switch {
	case e.Requests == 0:
		return msg
	case e.Saved != "":
		return msg + "; your " + requestCount(e.Requests) + " " + agree(e.Requests, "is", "are") + " saved in " + e.Saved + " (ratelab " + e.Saved + " opens it)"
	case e.Err != nil:
		return msg + "; your " + requestCount(e.Requests) + " could not be saved and " + agree(e.Requests, "was", "were") + " lost: " + e.Err.Error()
	}
	return msg + "; your " + requestCount(e.Requests) + " " + agree(e.Requests, "was", "were") + " lost (the explorer was busy)"
}

// ExitCode is the shell's status for a process a signal ended: 128 + its
// number.
func (e *Ended) ExitCode() int { return 128 + int(e.Signal) }

func signalName(s syscall.Signal) string {
	switch s {
	case syscall.SIGHUP:
		return "SIGHUP (the terminal closed)"
	case syscall.SIGINT:
		return "SIGINT"
	case syscall.SIGQUIT:
		return "SIGQUIT"
	case syscall.SIGTERM:
		return "SIGTERM"
	}
	return s.String()
}

// endSignals end the explorer; SIGTSTP suspends it.
var endSignals = []os.Signal{syscall.SIGHUP, syscall.SIGINT, syscall.SIGQUIT, syscall.SIGTERM}

// endMsg asks the explorer to end because of a signal; it closes taken
// when it begins to.
type endMsg struct {
	sig   syscall.Signal
	taken chan struct{}
}

// suspendMsg asks the explorer to suspend, for a SIGTSTP from outside: it
// suspends between keys, as for ctrl+z.
type suspendMsg struct{}

// endGrace is how long a signal waits for the explorer to take it up (it
// may be working on a key, or waiting on a store that does not answer)
// before the terminal is restored without it. Once taken up, saving the
// learner's requests may take what it takes.
const endGrace = 2 * time.Second

// signalWatch turns signals into the explorer's messages, in place of
// Bubble Tea's own handler (which knows only SIGINT and SIGTERM, and
// quits with status 0): every signal that ends the process restores the
// terminal, and SIGTSTP (kill -TSTP, or ctrl+z) suspends it as a shell
// job, the terminal restored, and takes it back on fg.
type signalWatch struct {
	kb   *keyboard
	p    atomic.Pointer[tea.Program] // nil while the scenario loads
	sigs chan os.Signal
	done chan struct{}
	// unsaved is the learner's fired requests not yet saved, as the
	// latest Update left them: what a signal that could not wait loses.
	unsaved atomic.Int64
	// suspending is set from a suspension's start until the SIGTSTP that
	// Bubble Tea sends once the terminal is restored.
	suspending atomic.Bool
}

// watchSignals watches the signals from before the scenario loads (the
// terminal is in raw mode from then on); attach hands them to the
// program.
func watchSignals(kb *keyboard) *signalWatch {
	w := &signalWatch{kb: kb, sigs: make(chan os.Signal, 4), done: make(chan struct{})}
	signal.Notify(w.sigs, endSignals...)
	signal.Notify(w.sigs, syscall.SIGTSTP)
	// The keyboard is always being read: in the background (continued by
	// kill %1 to be told to end) a read would stop the process again
	// before it could; ignored, it fails instead (see keyboard.read).
	signal.Ignore(syscall.SIGTTIN)
	go w.loop()
	return w
}

func (w *signalWatch) attach(p *tea.Program) { w.p.Store(p) }

// stop ends the watch once the program has returned.
func (w *signalWatch) stop() {
	signal.Stop(w.sigs)
	signal.Reset(syscall.SIGTTIN)
	close(w.done)
}

func (w *signalWatch) loop() {
	for {
		select {
		case <-w.done:
			return
		case s := <-w.sigs:
			sig := s.(syscall.Signal)
			p := w.p.Load()
			switch {
			case sig == syscall.SIGTSTP && (p == nil || w.suspending.CompareAndSwap(true, false)):
				w.stopJob()
			case sig == syscall.SIGTSTP:
				go p.Send(suspendMsg{})
			case p == nil: // loading: nothing to save yet
				w.exit(&Ended{Signal: sig})
			default:
				taken := make(chan struct{})
				go p.Send(endMsg{sig, taken})
				select {
				case <-w.done:
				case <-taken:
				case <-time.After(endGrace):
					// The explorer is busy: restore the terminal and end
					// without it; its requests cannot be read while it
					// works.
					kill(p)
					w.exit(&Ended{Signal: sig, Requests: int(w.unsaved.Load())})
				}
				return
			}
		}
	}
}

// stopJob stops the process as a shell job, the keyboard given back to the
// terminal's own mode, and takes it again once the shell continues it in
// the foreground (fg). Continued in the background (bg, or kill %1, which
// continues a stopped job to deliver its signal) it leaves the terminal
// alone: it ends if a signal to end waits, else it stops again.
func (w *signalWatch) stopJob() {
	cont := make(chan os.Signal, 1)
	signal.Notify(cont, syscall.SIGCONT)
	defer signal.Stop(cont)
	w.kb.restore() // again, for a stop while the scenario loads
	w.kb.wake()    // Bubble Tea's cancelled reader ends without a key
	for {
		syscall.Kill(0, syscall.SIGSTOP)
		<-cont
		if w.kb.foreground() {
			w.kb.raw()
			return
		}
		time.Sleep(10 * time.Millisecond) // the signals sent with SIGCONT
		if len(w.sigs) > 0 {
			return
		}
	}
}

// kill ends p at once, the terminal restored, giving it a second at most.
func kill(p *tea.Program) {
	killed := make(chan struct{})
	go func() { p.Kill(); close(killed) }()
	select {
	case <-killed:
	case <-time.After(time.Second):
	}
}

// exit ends the process for a signal that could not wait for the explorer.
func (w *signalWatch) exit(e *Ended) {
	w.kb.close()
	fmt.Fprintln(os.Stderr, "ratelab:", e.Error())
	os.Exit(e.ExitCode())
}

// suspend starts a suspension (ctrl+z, or a SIGTSTP from outside): Bubble
// Tea restores the terminal and then sends the process group SIGTSTP,
// which loop turns into the stop. (Once a program has asked for SIGTSTP,
// Go's runtime keeps catching it, so the stop itself is SIGSTOP; the shell
// shows the job as stopped all the same, and fg continues it, when Bubble
// Tea takes the terminal back.)
func (w *signalWatch) suspend() tea.Msg {
	// The keyboard's mode first, while the process is still in the
	// foreground: once Bubble Tea's SIGTSTP has stopped the rest of the
	// job, the shell takes the terminal, and changing its mode then would
	// stop the process (SIGTTOU) before it is ready.
	w.kb.restore()
	w.suspending.Store(true)
	// Bubble Tea cancels its reader of the keyboard and waits (half a
	// second at most) for it to end; one waiting for a key ends when
	// woken, so it is woken until the stop.
	go func() {
		for range 50 {
			if !w.suspending.Load() {
				return
			}
			w.kb.wake()
			time.Sleep(10 * time.Millisecond)
		}
	}()
	return tea.SuspendMsg{}
}

// end saves the learner's unsaved requests to a recovery file, if there
// are any, and quits: Run then returns the Ended.
func (a *App) end(m endMsg) tea.Cmd {
	close(m.taken)
	e := &Ended{Signal: m.sig}
	if a.dirty && a.lab.FiredCount() > 0 {
		e.Requests = a.lab.FiredCount()
		e.Saved, e.Err = a.recover()
	}
	a.ended = e
	return tea.Quit
}

// recover writes the scenario with the learner's requests to
// NAME-recovered.yaml (or -2, -3, … when taken) where a save would go, or
// in the system's temporary directory when that one cannot be written.
func (a *App) recover() (string, error) {
	base := strings.TrimSuffix(a.defaultSavePath(), "-mine.yaml")
	var firstErr error
	for _, dir := range []string{filepath.Dir(base), os.TempDir()} {
		path, err := a.recoverIn(filepath.Join(dir, filepath.Base(base)))
		if err == nil {
			return path, nil
		}
		if firstErr == nil {
			firstErr = err
		}
	}
	return "", firstErr
}

func (a *App) recoverIn(base string) (string, error) {
	for i := 1; i <= 100; i++ {
		path := base + "-recovered.yaml"
		if i > 1 {
			path = base + "-recovered-" + strconv.Itoa(i) + ".yaml"
		}
		if _, err := os.Lstat(path); !errors.Is(err, os.ErrNotExist) {
			continue
		}
		data, _, err := a.lab.Save(path)
		if err != nil {
			return "", err
		}
		if err := safewrite.WriteFile(path, data, 0o644); err != nil {
			return "", err
		}
		return path, nil
	}
	return "", errors.New(base + "-recovered.yaml and 99 others exist")
}
