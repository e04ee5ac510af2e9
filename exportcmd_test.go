package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// ratelab export writes a lane as nginx's limit_req, says on stderr what
// differs and how many of the scenario's requests are decided otherwise;
// --save writes the configuration to a file that import reads back.
func TestExportCommand(t *testing.T) {
	code, out, errs := ratelab(t, "export", "--lane", "fixed", "boundary")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	if !strings.Contains(out, "limit_req zone=fixed burst=119 nodelay;") || !strings.Contains(out, "limit_req_zone $binary_remote_addr zone=fixed:10m rate=2r/s;") {
		t.Errorf("the configuration:\n%s", out)
	}
	for _, want := range []string{
		"differs: fixed-window counts up to 120 requests a 60s window; nginx admits 120 at once, then one every 1/rate\n",
		"measured: 120 of 240 requests of boundary decided differently, the first at 60s: 120 admitted by fixed and refused by fixed-nginx, 0 the reverse, 0 delayed otherwise\n",
	} {
		if !strings.Contains(errs, want) {
			t.Errorf("stderr lacks %q:\n%s", want, errs)
		}
	}

	saved := filepath.Join(t.TempDir(), "limits.conf")
	if code, out, errs := ratelab(t, "export", "--lane", "bucket", "--save", saved, "boundary"); code != 0 || out != "saved "+saved+"\n" || !strings.Contains(errs, "measured: bucket and bucket-nginx decide all 240 requests of boundary alike") {
		t.Fatalf("--save: exit %d %q %q", code, out, errs)
	}
	if code, out, errs := ratelab(t, "import", saved); code != 0 || !strings.Contains(out, "{name: \"root\", algorithm: nginx-limit-req, rate: 2/s, burst: 119, nodelay: true, zone: 10m}") {
		t.Errorf("importing the export: exit %d\n%s%s", code, out, errs)
	}

	slow := filepath.Join(t.TempDir(), "slow.yaml")
	if err := os.WriteFile(slow, []byte("title: t\nlimiters:\n  - {name: slow, algorithm: token-bucket, capacity: 3, rate: 1/h}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if code, _, errs := ratelab(t, "export", slow); code != 2 || !strings.Contains(errs, "lane slow: rate 1/h is slower than nginx's slowest, 1r/m") {
		t.Errorf("1/h: exit %d %q", code, errs)
	}
	if code, _, errs := ratelab(t, "export", "--lane", "fixed"); code != 2 || !strings.Contains(errs, "usage: ratelab export") {
		t.Errorf("no scenario: exit %d %q", code, errs)
	}
}
