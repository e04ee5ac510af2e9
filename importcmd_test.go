package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"ratelab/scenarios"
)

// ratelab import writes a scenario that loads, with a lane for each set of
// nginx rules and its notes on stderr; --save writes it to a file that
// run opens; a configuration nginx refuses is refused with nginx's words
// at its file and line, exit 2.
func TestImportCommand(t *testing.T) {
	example := filepath.Join("docs", "examples", "nginx", "nginx.conf")
	code, out, errs := ratelab(t, "import", example)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	s, err := scenarios.Parse("imported.yaml", []byte(out))
	if err != nil {
		t.Fatalf("the imported scenario does not load: %v\n%s", err, out)
	}
	if len(s.Lanes) != 3 || !strings.Contains(errs, "note: login: its own limit_req lines replace the enclosing level's: zone perserver is not applied here") {
		t.Errorf("%d lanes; stderr:\n%s", len(s.Lanes), errs)
	}

	saved := filepath.Join(t.TempDir(), "mine.yaml")
	if code, out, errs := ratelab(t, "import", "--save", saved, example); code != 0 || !strings.Contains(out, "saved "+saved+" with 3 lanes") {
		t.Fatalf("--save: exit %d: %s%s", code, out, errs)
	}
	if code, out, errs := ratelab(t, "run", "--format", "summary", saved); code != 0 || !strings.Contains(out, "login  nginx-limit-req rate=10r/s burst=5 nodelay status=429") {
		t.Errorf("run on the saved scenario: exit %d:\n%s%s", code, out, errs)
	}

	bad := filepath.Join(t.TempDir(), "nginx.conf")
	if err := os.WriteFile(bad, []byte("http {\n  limit_req_zone $binary_remote_addr zone=ip:1m rate=0r/s;\n}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if code, _, errs := ratelab(t, "import", bad); code != 2 || errs != "ratelab: "+bad+`:2: invalid rate "rate=0r/s"`+"\n" {
		t.Errorf("a bad rate: exit %d, %q", code, errs)
	}
	for _, args := range [][]string{{"import"}, {"import", "a", "b"}} {
		if code, _, errs := ratelab(t, args...); code != 2 || !strings.Contains(errs, "usage: ratelab import") {
			t.Errorf("%q: exit %d, %q", args, code, errs)
		}
	}
	if code, _, errs := ratelab(t, "import", "--product", "haproxy", example); code != 2 || !strings.Contains(errs, `unknown product "haproxy"`) {
		t.Errorf("--product haproxy: exit %d, %q", code, errs)
	}
}
