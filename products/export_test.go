package products

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"ratelab/model"
	"ratelab/products/nginx"
	"ratelab/scenarios"
)

// An nginx lane exports exactly: its twin decides every request alike,
// and the configuration imports back to the same policies.
func TestExportNginxIsExact(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "nginx.conf")
	if err := os.WriteFile(path, []byte(conf), 0o644); err != nil {
		t.Fatal(err)
	}
	im, err := ImportFile("nginx", path, []byte(conf))
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range im.Scenario.Lanes {
		ex, err := Export(im.Scenario, l.Name, "nginx")
		if err != nil {
			t.Fatal(err)
		}
		if len(ex.Differs) != 0 {
			t.Errorf("%s: differs %q", l.Name, ex.Differs)
		}
		c, err := model.Compare(ex.Side, 0, 1)
		if err != nil || c.Requests != 13 || c.Differ() != 0 {
			t.Errorf("%s: %+v %v", l.Name, c, err)
		}
		cfg, err := nginx.Parse("export.conf", []byte(ex.Text))
		if err != nil {
			t.Fatalf("%s: %v\n%s", l.Name, err, ex.Text)
		}
		lanes, _, err := cfg.Lanes()
		if err != nil {
			t.Fatal(err)
		}
		back := lanes[0].Layers
		want := l.Policies()
		if len(back) != len(want) {
			t.Fatalf("%s: %d policies back, want %d", l.Name, len(back), len(want))
		}
		for i := range back {
			if back[i].Policy != want[i] {
				t.Errorf("%s policy %d: %v back, was %v", l.Name, i, back[i].Policy, want[i])
			}
		}
	}
}

// Other lanes export to the nearest nginx policy, saying what differs and
// measured on the lesson's traffic: boundary's token bucket is nginx's
// nodelay burst exactly; its fixed window admits the second minute's 120
// that nginx, draining 2 a second, refuses.
func TestExportMeasures(t *testing.T) {
	s, err := scenarios.Canned("boundary")
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		lane                 string
		differ, onlyA, onlyB int
		says                 string
	}{
		{"bucket", 0, 0, 0, ""},
		{"fixed", 120, 120, 0, "fixed-window counts up to 120 requests a 60s window"},
	} {
		ex, err := Export(s, c.lane, "nginx")
		if err != nil {
			t.Fatal(err)
		}
		got, err := model.Compare(ex.Side, 0, 1)
		if err != nil {
			t.Fatal(err)
		}
		if got.Differ() != c.differ || got.OnlyA != c.onlyA || got.OnlyB != c.onlyB {
			t.Errorf("%s: %+v", c.lane, got)
		}
		if all := strings.Join(ex.Differs, "; "); !strings.Contains(all, c.says) || (c.says == "") != (all == "") {
			t.Errorf("%s: differs %q, want %q", c.lane, all, c.says)
		}
	}
	for _, c := range []struct{ lane, product, want string }{
		{"", "nginx", "which lane? give --lane, one of fixed, log, counter, bucket"},
		{"nope", "nginx", `no lane "nope": the lanes are fixed, log, counter, bucket`},
		{"bucket", "haproxy", `unknown product "haproxy"`},
	} {
		if _, err := Export(s, c.lane, c.product); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q to %s: %v, want %q", c.lane, c.product, err, c.want)
		}
	}
}
