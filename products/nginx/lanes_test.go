package nginx

import (
	"fmt"
	"reflect"
	"slices"
	"strings"
	"testing"

	"ratelab/algorithms"
)

// Places with the same rules make one lane; each lane's layers are its
// zones' policies in nginx's order, one allowance for all requests where
// the key has one value for the server; lanes are named from their first
// place.
func TestLanes(t *testing.T) {
	cfg, err := Parse("t.conf", []byte(inheritanceConfig))
	if err != nil {
		t.Fatal(err)
	}
	lanes, left, err := cfg.Lanes()
	if err != nil || left != nil {
		t.Fatal(err, left)
	}
	var got []string
	for _, l := range lanes {
		var ps []string
		for _, p := range l.Places {
			ps = append(ps, p.Name())
		}
		var ls []string
		for _, x := range l.Layers {
			ls = append(ls, fmt.Sprintf("%s %v all=%t", x.Name, x.Policy, x.AllKeys))
		}
		got = append(got, fmt.Sprintf("%s [%s] %s · %d %t", l.Name, strings.Join(ps, "; "), strings.Join(ls, " + "), l.Status, l.DryRun))
	}
	want := []string{
		"a-example-root [a.example location /] srv nginx-limit-req rate=600r/m burst=50 status=429 all=true · 429 false",
		"a-example-api [a.example location /api/] ip nginx-limit-req rate=10r/s burst=5 nodelay status=429 zone=1m dry_run all=false + srv nginx-limit-req rate=600r/m burst=50 delay=10 status=429 dry_run all=true · 429 true",
		"a-example-api-slow [a.example location /api/ > /api/slow/] ip nginx-limit-req rate=10r/s burst=5 nodelay zone=1m dry_run all=false + srv nginx-limit-req rate=600r/m burst=50 delay=10 dry_run all=true · 503 true",
		"listen-8080 [listen 8080] ip nginx-limit-req rate=10r/s burst=4 delay=3 status=429 zone=1m all=false · 429 false",
		"server-3-x [server 3 location = /x] ip nginx-limit-req rate=10r/s delay=2 status=429 zone=1m all=false · 429 false",
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("lanes:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	for _, c := range []struct {
		lane int
		note string
	}{
		{0, "zone srv's key $server_name is one value for the whole server"},
		{1, "zone ip is spent in a-example-api-slow, listen-8080, server-3-x too"},
		{3, "its own limit_req lines replace the enclosing level's: zone srv is not applied here"},
	} {
		if !hasNote(lanes[c.lane].Notes, c.note) {
			t.Errorf("lane %s's notes %q lack %q", lanes[c.lane].Name, lanes[c.lane].Notes, c.note)
		}
	}
	// A lane of several zones models their sizes and the dry run: no note
	// says otherwise.
	for _, n := range lanes[1].Notes {
		if strings.Contains(n, "several zones") {
			t.Errorf("lane %s: note %q", lanes[1].Name, n)
		}
	}
}

// A lane of one zone keyed by client has the zone's size and the place's
// limit_req_dry_run, with no note; one keyed otherwise says its keys are
// counted as up to 48 bytes.
func TestLaneOfOneZone(t *testing.T) {
	for _, c := range []struct {
		key, dryRun, policy, note string
	}{
		{"$binary_remote_addr", "on", "nginx-limit-req rate=1r/s burst=5 zone=10m dry_run", ""},
		{"$remote_addr", "off", "nginx-limit-req rate=1r/s burst=5 zone=10m", ""},
		{"$http_x_api_key", "on", "nginx-limit-req rate=1r/s burst=5 zone=10m dry_run", "zone one's 10m holds 81,375 keys of up to 48 bytes, as the lane counts them; nginx's node for a longer value of $http_x_api_key takes twice the room"},
	} {
		conf := "http {\n    limit_req_zone " + c.key + " zone=one:10m rate=1r/s;\n    server {\n        location / {\n            limit_req zone=one burst=5;\n            limit_req_dry_run " + c.dryRun + ";\n        }\n    }\n}\n"
		cfg, err := Parse("t.conf", []byte(conf))
		if err != nil {
			t.Fatal(err)
		}
		lanes, _, err := cfg.Lanes()
		if err != nil || len(lanes) != 1 {
			t.Fatal(len(lanes), err)
		}
		if got := lanes[0].Layers[0].Policy.String(); got != c.policy {
			t.Errorf("%s: %s, want %s", c.key, got, c.policy)
		}
		for _, n := range lanes[0].Notes {
			if strings.Contains(n, "holds") && n != c.note || strings.Contains(n, "dry_run") {
				t.Errorf("%s: note %q", c.key, n)
			}
		}
		if c.note != "" && !hasNote(lanes[0].Notes, c.note) {
			t.Errorf("%s: notes %q lack %q", c.key, lanes[0].Notes, c.note)
		}
	}
}

// hasNote reports whether a note of notes starts with prefix.
func hasNote(notes []string, prefix string) bool {
	for _, n := range notes {
		if strings.HasPrefix(n, prefix) {
			return true
		}
	}
	return false
}

// Places with identical rules share a lane; a constant key is one
// allowance; an empty key limits nothing; more than MaxLayers zones and
// more than MaxLanes rule sets are left out and said.
func TestLaneEdges(t *testing.T) {
	var b strings.Builder
	b.WriteString("http {\n")
	for i := range 6 {
		fmt.Fprintf(&b, "limit_req_zone $binary_remote_addr zone=z%d:1m rate=%dr/s;\n", i, i+1)
	}
	b.WriteString("limit_req_zone global zone=g:32k rate=5r/s;\nlimit_req_zone \"\" zone=e:32k rate=5r/s;\n")
	b.WriteString("server { server_name s;\n")
	b.WriteString("location /a { limit_req zone=z0; }\nlocation /b { limit_req zone=z0; }\n")
	b.WriteString("location /g { limit_req zone=g; limit_req zone=e; }\n")
	b.WriteString("location /many { limit_req zone=z0; limit_req zone=z1; limit_req zone=z2; limit_req zone=z3; limit_req zone=z4; }\n")
	b.WriteString("location /none { limit_req zone=e; }\n")
	for i := range 6 {
		fmt.Fprintf(&b, "location /l%d { limit_req zone=z%d burst=%d; }\n", i, i, i+1)
	}
	b.WriteString("}\n}\n")
	cfg, err := Parse("t.conf", []byte(b.String()))
	if err != nil {
		t.Fatal(err)
	}
	lanes, left, err := cfg.Lanes()
	if err == nil || !strings.Contains(err.Error(), "s location /none: every zone in force has an empty key") {
		t.Fatalf("a location limited by an empty key alone: %v", err)
	}
	cfg.Places = slices.DeleteFunc(cfg.Places, func(p Place) bool { return p.Location == "/none" })
	lanes, left, err = cfg.Lanes()
	if err != nil {
		t.Fatal(err)
	}
	if len(lanes) != MaxLanes || len(lanes[0].Places) != 2 || lanes[0].Name != "a" {
		t.Fatalf("%d lanes, the first %s with %d places", len(lanes), lanes[0].Name, len(lanes[0].Places))
	}
	if want := []string{"s location /l5"}; !reflect.DeepEqual(left, want) {
		t.Errorf("left %q, want %q", left, want)
	}
	g := lanes[1]
	if len(g.Layers) != 1 || !g.Layers[0].AllKeys || !hasNote(g.Notes, "zone e's key is empty: nginx limits no request by it") {
		t.Errorf("/g: %+v %q", g.Layers, g.Notes)
	}
	many := lanes[2]
	if len(many.Layers) != algorithms.MaxLayers || !hasNote(many.Notes, "zone z4 left out: a lane applies at most 4 zones together") {
		t.Errorf("/many: %d layers, %q", len(many.Layers), many.Notes)
	}
}

func TestLaneNames(t *testing.T) {
	for _, c := range []struct {
		p          Place
		withServer bool
		want       string
	}{
		{Place{Server: "api.example.com", Location: "/v1/users/"}, false, "v1-users"},
		{Place{Server: "api.example.com", Location: "/"}, false, "root"},
		{Place{Server: "api.example.com", Location: "= /login"}, true, "api-example-com-login"},
		{Place{Server: "x", Location: "~* \\.(php|cgi)$"}, false, "php-cgi"},
		{Place{Server: "x", Location: "@fallback"}, false, "fallback"},
		{Place{Server: "x", Location: "/a > /a/b"}, false, "a-b"},
		{Place{Server: "listen 127.0.0.1:8080"}, false, "listen-127-0-0-1-8080"},
		{Place{Server: "_"}, false, "server"},
		{Place{Server: "x", Location: "/" + strings.Repeat("long", 20)}, false, strings.Repeat("long", 8)},
	} {
		if got := laneName(c.p, c.withServer); got != c.want {
			t.Errorf("%+v: %q, want %q", c.p, got, c.want)
		}
	}
	taken := map[string]bool{}
	for _, want := range []string{"api", "api-2", "api-3"} {
		if got := UniqueName("api", taken); got != want {
			t.Errorf("%q, want %q", got, want)
		}
	}
}

// A place that answers with return is never limited by nginx (its rewrite
// phase runs first), and says so; a return inside an if may not run.
func TestReturnComesFirst(t *testing.T) {
	cfg, err := Parse("t.conf", []byte(`http {
    limit_req_zone $binary_remote_addr zone=ip:1m rate=1r/s;
    limit_req zone=ip;
    server { location /a { return 200; } location /b { if ($x) { return 403; } } }
    server { return 301 https://x; location /c { } }
}`))
	if err != nil {
		t.Fatal(err)
	}
	var got []bool
	for _, p := range cfg.Places {
		got = append(got, p.Returns)
	}
	if want := []bool{true, false, true}; !slices.Equal(got, want) {
		t.Errorf("returns %v, want %v", got, want)
	}
	lanes, _, err := cfg.Lanes()
	if err != nil || len(lanes) != 2 || !hasNote(lanes[0].Notes, "it answers with return, which nginx runs before limit_req") {
		t.Errorf("%+v %v", lanes, err)
	}
}
