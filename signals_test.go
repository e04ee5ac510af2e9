package main

import (
	"bufio"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"ratelab/scenarios"
)

// TestMain lets a test run this binary as ratelab itself: with
// RATELAB_AS_MAIN set, the test binary is the command (main), so that what
// only a whole process shows (a signal's effect, an exit status) is tested
// without building anything.
func TestMain(m *testing.M) {
	if os.Getenv("RATELAB_AS_MAIN") != "" {
		os.Args = append([]string{"ratelab"}, strings.Fields(os.Getenv("RATELAB_AS_MAIN"))...)
		main()
	}
	code := m.Run()
	stopTmux()
	os.Exit(code)
}

// asMain is the command ratelab ARGS, run as its own process.
func asMain(args string) *exec.Cmd {
	cmd := exec.Command(os.Args[0])
	cmd.Env = append(os.Environ(), "RATELAB_AS_MAIN="+args)
	return cmd
}

// TestClosedPipeEndsQuietly reads one line of `ratelab run` and closes the
// pipe, as `| head -1` does: the run ends with status 2 and says nothing,
// whether or not the shell ignored SIGPIPE.
func TestClosedPipeEndsQuietly(t *testing.T) {
	for _, ignored := range []bool{false, true} {
		cmd := asMain("run tools/million.yaml")
		if ignored {
			cmd = exec.Command("sh", "-c", `trap '' PIPE; exec "$0"`, os.Args[0])
			cmd.Env = append(os.Environ(), "RATELAB_AS_MAIN=run tools/million.yaml")
		}
		var stderr strings.Builder
		cmd.Stderr = &stderr
		out, err := cmd.StdoutPipe()
		if err != nil {
			t.Fatal(err)
		}
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		if _, err := bufio.NewReader(out).ReadString('\n'); err != nil {
			t.Fatal(err)
		}
		out.Close()
		err = cmd.Wait()
		var exit *exec.ExitError
		if !errors.As(err, &exit) || exit.ExitCode() != 2 || stderr.Len() > 0 {
			status := "?"
			if exit != nil {
				status = exit.String()
			}
			t.Errorf("SIGPIPE ignored %v: %v (%s), stderr %q; want exit status 2 and nothing said", ignored, err, status, stderr.String())
		}
	}
}

// epipeWriter fails as a pipe whose reader has gone.
type epipeWriter struct{}

func (epipeWriter) Write([]byte) (int, error) { return 0, syscall.EPIPE }

func TestClosedPipeInProcess(t *testing.T) {
	var errs strings.Builder
	if code := run([]string{"run", "boundary"}, epipeWriter{}, &errs); code != 2 || errs.Len() > 0 {
		t.Errorf("exit %d, stderr %q; want 2 and nothing", code, errs.String())
	}
}

// tmuxSocket is this test process's own tmux server (tmux -S), so that the
// tests neither see nor disturb a tmux the user, or another test run, has
// going.
var tmuxSocket = filepath.Join(os.TempDir(), fmt.Sprintf("ratelab-test-tmux-%d", os.Getpid()))

// keepTmux starts, once, a session that keeps the tests' tmux server up
// between panes (a server exits with its last session, and a new session
// asked of a server on its way out fails: "server exited unexpectedly").
// The session ends when this process does, and the server with it;
// TestMain ends it sooner and removes the socket.
var keepTmux = sync.OnceValue(func() error {
	keeper := fmt.Sprintf("while kill -0 %d 2>/dev/null; do sleep 1; done", os.Getpid())
	out, err := exec.Command("tmux", "-S", tmuxSocket, "new-session", "-d", "-s", "keep", keeper).CombinedOutput()
	if err != nil {
		return fmt.Errorf("tmux new-session keep: %v %s", err, out)
	}
	return nil
})

// stopTmux ends the tests' tmux server, if they started one.
func stopTmux() {
	if _, err := os.Stat(tmuxSocket); err == nil {
		exec.Command("tmux", "-S", tmuxSocket, "kill-server").Run()
		os.Remove(tmuxSocket)
	}
}

// pane is the explorer run as ratelab ARGS in a detached tmux window of 80
// × 24, in dir, under an interactive shell (for job control).
type pane struct {
	t    *testing.T
	name string
	dir  string
}

func newPane(t *testing.T, args string) *pane {
	p := startPane(t, args, "")
	p.ready()
	return p
}

// startPane runs ratelab ARGS (its standard input redirected by redirect,
// if not "") as a job of two shells: the inner one writes its pid and
// becomes ratelab; the outer one writes the terminal's settings before and
// after it, and its status once it has ended (not when the job is stopped,
// as the interactive shell would), and outlives signals sent to the job.
func startPane(t *testing.T, args, redirect string) *pane {
	t.Helper()
	if _, err := exec.LookPath("tmux"); err != nil {
		t.Skip("no tmux")
	}
	if err := keepTmux(); err != nil {
		t.Fatal(err)
	}
	p := &pane{t: t, name: fmt.Sprintf("ratelab-test-%d", time.Now().UnixNano()), dir: t.TempDir()}
	p.tmux("new-session", "-d", "-s", p.name, "-x", "80", "-y", "24", "-c", p.dir, "env -i PATH=/usr/bin:/bin TERM=xterm-256color HOME=/ HISTFILE=/dev/null bash --norc --noprofile -i")
	t.Cleanup(func() { exec.Command("tmux", "-S", tmuxSocket, "kill-session", "-t", p.name).Run() })
	inner := fmt.Sprintf(`echo \$\$ > pid; RATELAB_AS_MAIN=%s exec %s %s`, args, os.Args[0], redirect)
	// The outer shell outlives a signal to the whole job (ctrl+c, kill %1).
	p.keys(fmt.Sprintf(`sh -c 'trap : INT TERM; stty -g > before; sh -c "%s"; s=$?; stty -g > after; echo $s > status'`, inner), "Enter")
	return p
}

// ready waits for the explorer's about page and closes it.
func (p *pane) ready() {
	p.t.Helper()
	p.waitFor("the explorer's about page", func() bool { return strings.Contains(p.screen(), "? help") })
	// Alone: an escape that a key follows closely reads as alt+that key.
	p.keys("Escape")
	p.waitFor("the lanes", func() bool { return strings.Contains(p.screen(), "why fixed") })
}

// ended waits for ratelab's status and checks it, and that the terminal is
// as it was: its settings, the main screen, the cursor shown.
func (p *pane) ended(status int) {
	p.t.Helper()
	p.endedAt(status)
	if before, after := p.file("before"), p.file("after"); before != after {
		p.t.Errorf("the terminal's settings were %s before and %s after", before, after)
	}
}

// endedAt is ended for ratelab ended in the background (kill %1), whose
// terminal's settings the shell holds by then.
func (p *pane) endedAt(status int) {
	p.t.Helper()
	p.waitFor("exit status", func() bool { return p.file("status") != "" })
	if got := p.file("status"); got != strconv.Itoa(status) {
		p.t.Errorf("status %s, want %d", got, status)
	}
	if got := p.terminal(); got != "alternate 0, cursor 1" {
		p.t.Errorf("the terminal is left with %s", got)
	}
}

// requests is how many requests the scenario in file holds.
func (p *pane) requests(file string) int {
	p.t.Helper()
	s, err := scenarios.Load(filepath.Join(p.dir, file))
	if err != nil {
		p.t.Fatal(err)
	}
	n := 0
	for range s.Requests() {
		n++
	}
	return n
}

func (p *pane) tmux(args ...string) string {
	p.t.Helper()
	out, err := exec.Command("tmux", append([]string{"-S", tmuxSocket}, args...)...).CombinedOutput()
	if err != nil {
		p.t.Fatalf("tmux %q: %v %s", args, err, out)
	}
	return string(out)
}

func (p *pane) keys(keys ...string) { p.tmux(append([]string{"send-keys", "-t", p.name}, keys...)...) }
func (p *pane) screen() string      { return p.tmux("capture-pane", "-p", "-J", "-t", p.name) }

// terminal is whether the pane shows the alternate screen, and the cursor.
func (p *pane) terminal() string {
	return strings.TrimSpace(p.tmux("display", "-p", "-t", p.name, "alternate #{alternate_on}, cursor #{cursor_flag}"))
}

func (p *pane) waitFor(what string, ok func() bool) {
	p.t.Helper()
	for deadline := time.Now().Add(20 * time.Second); !ok(); time.Sleep(50 * time.Millisecond) {
		if time.Now().After(deadline) {
			p.t.Fatalf("no %s after 20 s; the pane shows:\n%s", what, p.screen())
		}
	}
}

func (p *pane) file(name string) string {
	b, _ := os.ReadFile(filepath.Join(p.dir, name))
	return strings.TrimSpace(string(b))
}

func (p *pane) signal(sig syscall.Signal) {
	p.t.Helper()
	pid, err := strconv.Atoi(p.file("pid"))
	if err != nil {
		p.t.Fatal("no pid:", err)
	}
	if err := syscall.Kill(pid, sig); err != nil {
		p.t.Fatal(err)
	}
}

// TestSignalsRestoreTheTerminal ends the explorer with each signal that
// ends a process, after two fired requests: the terminal leaves the
// alternate screen with the cursor shown, the status is 128 + the
// signal's number, and the requests are in a recovery file that loads.
func TestSignalsRestoreTheTerminal(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the explorer in tmux")
	}
	for _, sig := range []syscall.Signal{syscall.SIGHUP, syscall.SIGINT, syscall.SIGQUIT, syscall.SIGTERM} {
		t.Run(sig.String(), func(t *testing.T) {
			p := newPane(t, "boundary")
			p.keys("Space")
			p.waitFor("a fired request", func() bool { return strings.Contains(p.screen(), "241 requests") })
			p.keys("Space")
			p.waitFor("two fired requests", func() bool { return strings.Contains(p.screen(), "242 requests") })
			p.signal(sig)
			p.ended(128 + int(sig))
			if !strings.Contains(p.screen(), "your 2 requests are saved in boundary-recovered.yaml") {
				t.Errorf("the recovery file is not named:\n%s", p.screen())
			}
			if n := p.requests("boundary-recovered.yaml"); n != 242 {
				t.Errorf("the recovery file holds %d requests, want 242 (the 2 fired)", n)
			}
		})
	}
}

// TestKillASuspendedExplorer: kill %1 on the explorer suspended by ctrl+z
// ends it (the shell continues the job to deliver SIGTERM) with its
// unsaved request recovered, rather than leaving it stopped.
func TestKillASuspendedExplorer(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the explorer in tmux")
	}
	p := newPane(t, "boundary")
	p.keys("Space")
	p.waitFor("a fired request", func() bool { return strings.Contains(p.screen(), "241 requests") })
	p.keys("C-z")
	p.waitFor("a stopped job", func() bool { return strings.Contains(p.screen(), "Stopped") })
	p.keys("kill %1", "Enter")
	p.endedAt(128 + int(syscall.SIGTERM))
	if n := p.requests("boundary-recovered.yaml"); n != 241 {
		t.Errorf("the recovery file holds %d requests, want 241", n)
	}
}

// TestKeysWhenInputIsNoTerminal: with its standard input not a terminal
// (< /dev/null), the explorer reads the keys from the terminal itself.
func TestKeysWhenInputIsNoTerminal(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the explorer in tmux")
	}
	p := startPane(t, "boundary", "< /dev/null")
	p.ready()
	p.keys("l")
	p.waitFor("t = 0.1s after l", func() bool { return strings.Contains(p.screen(), "t = 0.1s") })
	p.keys("q")
	p.ended(0)
}

// TestCtrlCWhileLoading: ctrl+c typed while a large file loads (nothing
// reads keys yet) ends it at once; ctrl+z suspends it once it has loaded.
func TestCtrlCWhileLoading(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the explorer in tmux")
	}
	for _, tc := range []struct {
		key    string
		status int
	}{{"C-c", 130}, {"C-z", 0}} {
		t.Run(tc.key, func(t *testing.T) {
			p := startPane(t, "slow.yaml", "")
			// 20,000,000 requests: a few seconds to open.
			slow := "title: slow\nlimiters: [{name: b, algorithm: token-bucket, capacity: 10, rate: 2/s}]\ntraffic: [{every: 100ns, until: 2s}]\n"
			if err := os.WriteFile(filepath.Join(p.dir, "slow.yaml"), []byte(slow), 0o644); err != nil {
				t.Fatal(err)
			}
			p.waitFor("the load", func() bool { return p.file("pid") != "" })
			time.Sleep(200 * time.Millisecond)
			typed := time.Now()
			p.keys(tc.key)
			if tc.key == "C-z" {
				p.waitFor("a stopped job", func() bool { return strings.Contains(p.screen(), "Stopped") })
				p.keys("fg", "Enter")
				p.waitFor("the explorer", func() bool { return strings.Contains(p.screen(), "? help") })
				p.keys("q")
			} else {
				p.waitFor("exit status", func() bool { return p.file("status") != "" })
				if took := time.Since(typed); took > time.Second {
					t.Errorf("ctrl+c took %v", took)
				}
			}
			p.ended(tc.status)
		})
	}
}

// TestSuspendAndResume suspends the explorer with ctrl+z and with a
// SIGTSTP from outside: each time the shell gets the terminal back
// (the job stopped, the alternate screen left), and after fg the explorer
// is back and obeys keys.
func TestSuspendAndResume(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the explorer in tmux")
	}
	p := newPane(t, "boundary")
	for i, suspend := range []func(){
		func() { p.keys("C-z") },
		func() { p.signal(syscall.SIGTSTP) },
	} {
		suspend()
		p.waitFor("a stopped job", func() bool { return strings.Count(p.screen(), "Stopped") > i })
		if got := p.terminal(); got != "alternate 0, cursor 1" {
			t.Errorf("suspended, the terminal is left with %s", got)
		}
		p.keys("fg", "Enter")
		p.waitFor("the explorer back", func() bool { return strings.Contains(p.screen(), "? help") })
		p.keys("l")
		want := fmt.Sprintf("t = 0.%ds", i+1)
		p.waitFor(want+" after l", func() bool { return strings.Contains(p.screen(), want) })
	}
	p.keys("q")
	p.ended(0)
}
