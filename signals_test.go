package main

import (
	"bufio"
	"errors"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"testing"
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
	os.Exit(m.Run())
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
