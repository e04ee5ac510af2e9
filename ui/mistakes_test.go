package ui

import (
	"strings"
	"testing"
	"time"
)

// TestMistakesSwitchOn: M on the boundary lesson's bucket adds its float
// and whole-token twins beside it, keeps the learner's requests and the
// clock, and their totals say how far they are off the bucket; M on one of
// them takes it away again.
func TestMistakesSwitchOn(t *testing.T) {
	a := newTestApp(t, "boundary", 160, 48)
	a.lab.Seek(60 * time.Second)
	a.focus = 3 // bucket
	press(a, "space")
	fired := a.lab.FiredCount()
	press(a, "M")
	var names []string
	for _, l := range a.lab.Lanes() {
		names = append(names, l.Name)
	}
	if strings.Join(names, " ") != "fixed log counter bucket bucket-float bucket-whole" {
		t.Fatalf("lanes after M: %v (status %q)", names, a.status.text)
	}
	if a.lab.FiredCount() != fired || a.lab.Now() != 60*time.Second {
		t.Errorf("M lost the learner's work: %d fired (had %d), clock %v", a.lab.FiredCount(), fired, a.lab.Now())
	}
	if !strings.Contains(a.status.text, "added bucket-float, bucket-whole") {
		t.Errorf("status %q", a.status.text)
	}
	out := screen(a)
	if !strings.Contains(out, "than bucket") && !strings.Contains(out, "same as bucket") {
		t.Errorf("no mistake lane says how far it is off the bucket:\n%s", out)
	}
	a.focus = 5
	press(a, "M")
	if n := len(a.lab.Lanes()); n != 5 || !strings.Contains(a.status.text, "took away bucket-whole") {
		t.Errorf("M on bucket-whole: %d lanes, status %q", n, a.status.text)
	}
}

// TestAboutNamesWhatALaneFollows: the about page says whose rule a library
// or mistake lane runs, and where it comes from.
func TestAboutNamesWhatALaneFollows(t *testing.T) {
	for _, c := range []struct{ lesson, want string }{
		{"nginx-config", "the library's own rule: nginx src/http/modules/ngx_http_limit_req_module.c"},
		{"attempts-counted", "(a classic mistake, as "},
	} {
		a := newTestApp(t, c.lesson, 120, 60)
		press(a, "a")
		if out := strings.Join(strings.Fields(screen(a)), " "); !strings.Contains(out, c.want) {
			t.Errorf("%s's about page lacks %q:\n%s", c.lesson, c.want, screen(a))
		}
	}
}
