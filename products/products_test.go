package products

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"ratelab/algorithms"
	"ratelab/model"
	"ratelab/products/registry"
	"ratelab/scenarios"
)

const conf = `http {
    limit_req_zone $binary_remote_addr zone=perip:10m rate=10r/s;
    limit_req_zone $server_name zone=perserver:1m rate=100r/s;
    server {
        server_name api.example.com;
        limit_req zone=perserver burst=10;
        location / { }
        location /login { limit_req zone=perip burst=5 nodelay; }
        location /v1/ {
            limit_req zone=perip burst=20 delay=8;
            limit_req zone=perserver burst=10;
        }
    }
}
`

// An nginx.conf becomes a scenario that reads back with its lanes exactly
// the configuration's rules, its about naming each lane's places and
// notes, and a burst of two more than any lane admits at once.
func TestImportNginx(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "nginx.conf")
	if err := os.WriteFile(path, []byte(conf), 0o644); err != nil {
		t.Fatal(err)
	}
	im, err := ImportFile("", path, []byte(conf))
	if err != nil {
		t.Fatal(err)
	}
	s := im.Scenario
	var names []string
	for _, l := range s.Lanes {
		names = append(names, l.Name)
	}
	if want := []string{"root", "login", "v1"}; !slices.Equal(names, want) {
		t.Fatalf("lanes %q, want %q", names, want)
	}
	root, login, v1 := s.Lanes[0], s.Lanes[1], s.Lanes[2]
	nginx := func(n int64, burst, delay int64, nodelay bool) algorithms.Policy {
		return algorithms.Policy{Algorithm: algorithms.NginxLimitReq, Rate: algorithms.Rate{N: n, Per: 1e9}, Burst: burst, Delay: delay, NoDelay: nodelay}
	}
	if len(root.Stack) != 1 || !root.Stack[0].AllKeys || root.Policy != nginx(100, 10, 0, false) {
		t.Errorf("root %+v", root)
	}
	wantLogin := nginx(10, 5, 0, true)
	wantLogin.Zone = 10 << 20 // its zone's size: a lane of one zone keyed by client
	if login.Stack != nil || login.Policy != wantLogin {
		t.Errorf("login %+v", login)
	}
	wantV1 := nginx(10, 20, 8, false)
	wantV1.Zone = 10 << 20 // each zone keyed by client has its size, in a stack too
	if len(v1.Stack) != 2 || v1.Stack[0].Policy != wantV1 || !v1.Stack[1].AllKeys || v1.Stack[0].Name != "perip" {
		t.Errorf("v1 %+v", v1.Stack)
	}
	for _, want := range []string{
		"root: api.example.com location / (" + path + ":7).",
		"- zone perip, one allowance a client: nginx-limit-req rate=10r/s burst=20 delay=8 zone=10m.",
		"- Note: its own limit_req lines replace the enclosing level's: zone perserver is not applied here",
	} {
		if !strings.Contains(s.About, want) {
			t.Errorf("the about lacks %q:\n%s", want, s.About)
		}
	}
	n := 0
	for r := range s.Requests() {
		if r.At != 0 || r.Key != "client" {
			t.Fatalf("request %+v", r)
		}
		n++
	}
	if n != 13 { // root and v1 admit 11 at once (v1's perserver, burst 10), and 2 more
		t.Errorf("%d requests, want 13", n)
	}
	if !slices.ContainsFunc(im.Notes, func(n string) bool { return strings.HasPrefix(n, "login: zone perip is spent in v1 too") }) {
		t.Errorf("notes %q", im.Notes)
	}
}

// An imported scenario's burst is two more than a lane passes at once,
// and lasts until a lane that makes requests wait has passed the last:
// Guava's acquire grants any number (it would be 10,000 requests waiting
// up to 2,000 s); it passes its second's permits, 5, without a wait.
func TestImportedBurst(t *testing.T) {
	for _, c := range []struct {
		product, text string
		count         int64
		passed        time.Duration // every request passed by then
	}{
		{"guava", "RateLimiter.create(5.0)", 7, 1400 * time.Millisecond},
		{"x-time-rate", "rate.NewLimiter(10, 5)", 7, 0},
		{"nginx", "http { limit_req_zone $binary_remote_addr zone=z:1m rate=2r/s; server { location / { limit_req zone=z burst=3; } } }", 6, 2 * time.Second},
	} {
		path := filepath.Join(t.TempDir(), "x")
		if err := os.WriteFile(path, []byte(c.text), 0o644); err != nil {
			t.Fatal(err)
		}
		im, err := ImportFile(c.product, path, []byte(c.text))
		if err != nil {
			t.Fatal(err)
		}
		s := im.Scenario
		if got := s.Traffic[0].Count; got != c.count {
			t.Errorf("%s: a burst of %d, want %d", c.product, got, c.count)
		}
		_, err = model.Run(s, model.Options{}, func(r model.Record) error {
			if end := r.Request.At + r.Decision.Delay; end > s.Duration || r.Decision.Delay > 0 && end > c.passed {
				t.Errorf("%s: request at %s passes at %s, the scenario ends at %s", c.product, r.Request.At, end, s.Duration)
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
}

func TestImportErrors(t *testing.T) {
	for _, c := range []struct{ product, text, want string }{
		{"", "server { }", "which product's configuration is it? give --product nginx"},
		{"haproxy", "x", `unknown product "haproxy": want one of nginx, x-time-rate`},
		{"nginx", "http { server { } }", "no server or location has a limit_req in force"},
		{"nginx", "http { limit_req zone=x; }", `stdin:1: zero size shared memory zone "x"`},
		{"nginx", "http { limit_req_zone $a zone=z:1m rate=1r/s; include more.conf; }", "cannot include files"},
	} {
		_, err := ImportFile(c.product, "-", []byte(c.text))
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s %q: %v, want %q", c.product, c.text, err, c.want)
		}
	}
}

// The registry's bounds on lanes are the scenario format's, which it
// cannot import.
func TestRegistryBoundsAreTheFormats(t *testing.T) {
	if registry.MaxLanes != scenarios.MaxLanes || registry.MaxNameLen != scenarios.MaxNameLen {
		t.Errorf("registry bounds %d lanes, names of %d; scenarios %d, %d", registry.MaxLanes, registry.MaxNameLen, scenarios.MaxLanes, scenarios.MaxNameLen)
	}
}
