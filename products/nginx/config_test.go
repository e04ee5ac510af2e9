package nginx

import (
	"fmt"
	"reflect"
	"strings"
	"testing"
	"time"

	"ratelab/algorithms"
)

// places is each place as "NAME: zone/burst/delay/nodelay … status dry".
func places(cfg *Config) []string {
	var out []string
	for _, p := range cfg.Places {
		var ls []string
		for _, l := range p.Limits {
			ls = append(ls, fmt.Sprintf("%s/%d/%d/%t", l.Zone, l.Burst, l.Delay, l.NoDelay))
		}
		out = append(out, fmt.Sprintf("%s: %s %d %t", p.Name(), strings.Join(ls, " "), p.Status, p.DryRun))
	}
	return out
}

// inheritanceConfig sets rules at every level.
const inheritanceConfig = `
http {
    limit_req_zone $binary_remote_addr zone=ip:1m rate=10r/s;
    limit_req_zone $server_name zone=srv:64k rate=600r/m;
    limit_req zone=srv burst=50;
    limit_req_status 429;
    server {
        server_name a.example b.example;
        location / { }
        location /api/ {
            limit_req zone=ip burst=5 nodelay;
            limit_req zone=srv burst=50 delay=10;
            limit_req_dry_run on;
            location /api/slow/ { limit_req_status 503; }
        }
    }
    server {
        listen 8080;
        limit_req zone=ip delay=3 burst=4;
    }
    server {
        limit_req zone=ip delay=3 nodelay;
        location = /x { limit_req zone=ip nodelay delay=2; }
    }
}`

// A level's own limit_req lines replace the enclosing level's, and
// limit_req_status and limit_req_dry_run are inherited one by one, as
// ngx_http_limit_req_merge_conf merges them; nested locations inherit from
// theirs; a server with no location is a place itself.
func TestInheritance(t *testing.T) {
	cfg, err := Parse("t.conf", []byte(inheritanceConfig))
	if err != nil {
		t.Fatal(err)
	}
	want := []string{
		"a.example location /: srv/50/0/false 429 false",
		"a.example location /api/: ip/5/0/true srv/50/10/false 429 true",
		"a.example location /api/ > /api/slow/: ip/5/0/true srv/50/10/false 503 true",
		"listen 8080: ip/4/3/false 429 false",
		"server 3 location = /x: ip/0/2/false 429 false",
	}
	if got := places(cfg); !reflect.DeepEqual(got, want) {
		t.Errorf("places:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if z, _ := cfg.Zone("srv"); z.Rate != (algorithms.Rate{N: 600, Per: time.Minute}) || z.Size != 64<<10 || z.Key != "$server_name" {
		t.Errorf("zone srv %+v", z)
	}
	if r := cfg.Places[4].Replaced; len(r) != 0 {
		t.Errorf("= /x replaces %+v, want nothing (the same zone)", r)
	}
	if r := cfg.Places[3].Replaced; len(r) != 1 || r[0].Zone != "srv" {
		t.Errorf("listen 8080 replaces %+v, want srv", r)
	}
}

// badConfigs are configurations nginx refuses, with its message at the
// line its parser is at (the directive's ";"), for a file named t.conf.
var badConfigs = func() []struct{ src, want string } {
	zone := "limit_req_zone $binary_remote_addr zone=ip:1m rate=1r/s;\n"
	return []struct{ src, want string }{
		{"limit_req zone=ip;", `t.conf:1: "limit_req" directive is not allowed here`},
		{"http { server { limit_req_zone $a zone=z:1m rate=1r/s; } }", `t.conf:1: "limit_req_zone" directive is not allowed here`},
		{"http { server { if ($a) { limit_req zone=ip; } } }", `t.conf:1: "limit_req" directive is not allowed here`},
		{"http { limit_req_zone $a zone=z:1m; }", `t.conf:1: invalid number of arguments in "limit_req_zone" directive`},
		{"http { limit_req_zone $a zone=z rate=1r/s; }", `t.conf:1: invalid zone size "zone=z"`},
		{"http { limit_req_zone $a zone=z:1g rate=1r/s; }", `t.conf:1: invalid zone size "zone=z:1g"`},
		{"http { limit_req_zone $a zone=z:16k rate=1r/s; }", `t.conf:1: zone "zone=z:16k" is too small`},
		{"http { limit_req_zone $a zone=z:1m rate=0r/s; }", `t.conf:1: invalid rate "rate=0r/s"`},
		{"http { limit_req_zone $a zone=z:1m rate=1r/h; }", `t.conf:1: invalid rate "rate=1r/h"`},
		{"http { limit_req_zone $a zone=z:1m size=3; }", `t.conf:1: invalid parameter "size=3"`},
		{"http { limit_req_zone $a rate=1r/s burst=3; }", `t.conf:1: invalid parameter "burst=3"`},
		{"http {\n" + zone + "limit_req_zone $b zone=ip:1m rate=1r/s;\n}", `t.conf:3: limit_req_zone "ip" is already bound to key "$binary_remote_addr"`},
		{"http {\n" + zone + "limit_req_zone $b zone=ip:2m rate=1r/s;\n}", `t.conf:3: the size 2097152 of shared memory zone "ip" conflicts with already declared size 1048576`},
		{"http {\n" + zone + "limit_req zone=ip burst=0;\n}", `t.conf:3: invalid burst value "burst=0"`},
		{"http {\n" + zone + "limit_req zone=ip delay=x;\n}", `t.conf:3: invalid delay value "delay=x"`},
		{"http {\n" + zone + "limit_req zone=ip fast;\n}", `t.conf:3: invalid parameter "fast"`},
		{"http {\n" + zone + "limit_req zone=ip burst=4 delay=3 nodelay;\n}", `t.conf:3: invalid number of arguments in "limit_req" directive`},
		{"http {\n" + zone + "limit_req burst=3;\n}", `t.conf:3: "limit_req" must have "zone" parameter`},
		{"http {\n" + zone + "limit_req zone=ip;\nlimit_req zone=ip burst=2;\n}", `t.conf:4: "limit_req" directive is duplicate`},
		{"http {\n" + zone + "server { limit_req zone=nope; }\n}", `t.conf:3: zero size shared memory zone "nope"`},
		{"http {\nlimit_req_status 600;\n}", `t.conf:2: value must be between 400 and 599`},
		{"http {\nlimit_req_status 4x;\n}", `t.conf:2: "limit_req_status" directive invalid number`},
		{"http {\nlimit_req_status 429;\nlimit_req_status 503;\n}", `t.conf:3: "limit_req_status" directive is duplicate`},
		{"http {\nlimit_req_dry_run yes;\n}", `t.conf:2: invalid value "yes" in "limit_req_dry_run" directive, it must be "on" or "off"`},
	}
}()

// What nginx refuses in these directives is refused with its words and
// line (real_test.go holds real nginx to the same table).
func TestConfigErrors(t *testing.T) {
	for _, c := range badConfigs {
		_, err := Parse("t.conf", []byte(c.src))
		if err == nil || !strings.HasPrefix(err.Error(), c.want) {
			t.Errorf("%q:\n got %v\nwant %s", c.src, err, c.want)
		}
	}
}
