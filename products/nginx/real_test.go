package nginx

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// nginxBinary is the real nginx, or "" when there is none. In CI (the
// environment variable CI set) a missing nginx fails the test instead of
// skipping it.
func nginxBinary(t *testing.T) string {
	t.Helper()
	for _, p := range []string{"nginx", "/usr/sbin/nginx"} {
		if path, err := exec.LookPath(p); err == nil {
			return path
		}
	}
	if os.Getenv("CI") != "" {
		t.Fatal("nginx is not installed, and CI must check against it (.ci/run installs Debian's nginx)")
	}
	t.Skip("nginx is not installed")
	return ""
}

// emerg is nginx -t's message: what, and the file and line when it says.
var emerg = regexp.MustCompile(`\[emerg\] \d+#\d+: (.*?)(?: in (\S+):(\d+))?\n`)

// nginxTest runs real nginx -t on text as DIR/t.conf, an events block
// before it on its first line (which moves no line and ends no file); it returns nginx's message ("" when the test passed) as this
// package words an Error: "FILE:LINE: what", or "what" alone.
func nginxTest(t *testing.T, bin, text string) string {
	t.Helper()
	dir := t.TempDir()
	conf := filepath.Join(dir, "t.conf")
	if err := os.WriteFile(conf, []byte("events {} "+text), 0o644); err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command(bin, "-t", "-p", dir, "-c", conf, "-e", "stderr", "-g", "pid "+filepath.Join(dir, "pid")+";").CombinedOutput()
	if err == nil {
		return ""
	}
	m := emerg.FindSubmatch(out)
	if m == nil {
		t.Fatalf("nginx -t failed without a message: %s", out)
	}
	if m[2] == nil {
		return string(m[1])
	}
	return filepath.Base(string(m[2])) + ":" + string(m[3]) + ": " + string(m[1])
}

// Real nginx refuses every bad configuration of the table with the same
// message and line as this package, and accepts the good ones. Where
// nginx names no line (a zone no limit_req_zone defines), the message
// alone is compared.
func TestRealNginxAgrees(t *testing.T) {
	if testing.Short() {
		t.Skip("runs nginx -t some 30 times")
	}
	bin := nginxBinary(t)
	for _, c := range append(malformed, badConfigs...) {
		got := nginxTest(t, bin, c.src)
		want := c.want
		if !strings.Contains(got, ":") || !strings.HasPrefix(got, "t.conf:") {
			want = strings.SplitN(want, ": ", 2)[1] // nginx names no line
		}
		if !strings.HasPrefix(want, got) || got == "" {
			t.Errorf("%q:\n  nginx: %s\n   ours: %s", c.src, got, c.want)
		}
	}
	for _, good := range []string{inheritanceConfig, "http { limit_req_zone $binary_remote_addr zone=a:32k rate=5; server { limit_req zone=a burst=1; } }"} {
		if got := nginxTest(t, bin, good); got != "" {
			t.Errorf("nginx refuses a configuration read as good: %s", got)
		}
		if _, err := Parse("t.conf", []byte(good)); err != nil {
			t.Errorf("ours refuses what nginx takes: %v", err)
		}
	}
}

// The documentation's example nginx.conf, with its include, is one real
// nginx takes, and reads here without error.
func TestRealNginxTakesTheExample(t *testing.T) {
	bin := nginxBinary(t)
	conf, err := filepath.Abs("../../docs/examples/nginx/nginx.conf")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	if out, err := exec.Command(bin, "-t", "-p", dir, "-c", conf, "-e", "stderr", "-g", "pid "+filepath.Join(dir, "pid")+";").CombinedOutput(); err != nil {
		t.Fatalf("nginx -t: %v\n%s", err, out)
	}
	cfg, err := ReadFile(conf)
	if err != nil {
		t.Fatal(err)
	}
	if len(cfg.Zones) != 2 || len(cfg.Places) != 3 {
		t.Errorf("%d zones and %d places, want 2 and 3", len(cfg.Zones), len(cfg.Places))
	}
}
