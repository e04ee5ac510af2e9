package nginx

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"ratelab/algorithms"
)

// Config is the limit_req part of a configuration.
type Config struct {
	// Zones are the limit_req_zone directives, in file order.
	Zones []Zone
	// Places are the servers and locations, in file order (a location's
	// nested locations after it), each with the rules in force there.
	Places []Place
}

// Zone is one limit_req_zone: a shared memory zone of Size bytes holding
// a state for each value of Key, refilled at Rate.
type Zone struct {
	Name string
	// Key is the key as written, such as "$binary_remote_addr"; requests
	// whose key is empty are not limited by the zone.
	Key  string
	Size int64
	// Rate is N requests per second or per minute, as written (nginx keeps
	// it as thousandths of a request a second: algorithms.NginxRateMilli).
	Rate algorithms.Rate
	Pos  Pos
}

// Limit is one limit_req rule: its zone, and burst, delay and nodelay as
// written (nodelay after delay= wins, and delay= after nodelay: nginx keeps
// the last).
type Limit struct {
	Zone    string
	Burst   int64
	Delay   int64
	NoDelay bool
	Pos     Pos
}

// Place is a server, or a location in one, with the limit_req rules in
// force there as nginx merges them: a level's own limit_req lines, or when
// it has none, the enclosing level's; limit_req_status and
// limit_req_dry_run likewise, one value each.
type Place struct {
	// Server names the server: its first server_name, else its first
	// listen, else "server N" (its place among the http block's servers).
	Server string
	// Location is the location's arguments ("/api/", "= /login", "~
	// ^/v1/"), nested ones joined with " > "; empty for the server itself.
	Location string
	Pos      Pos
	Limits   []Limit
	// Status is the code a refused request gets (limit_req_status, 503 if
	// not set).
	Status int
	// DryRun is limit_req_dry_run on: nginx decides and logs, but passes
	// every request at once.
	DryRun bool
	// Returns says the place answers with return, which nginx's rewrite
	// phase runs before limit_req's: no request here is limited (a
	// return in the server block, outside its locations, answers every
	// request of the server).
	Returns bool
	// Replaced are the enclosing level's rules that the place's own
	// limit_req lines keep from applying here (nginx takes a level's
	// limit_req lines whole, or the enclosing level's when it has none):
	// those of zones the place does not limit by itself.
	Replaced []Limit
}

// Name is the place in words: "example.com location /api/".
func (p Place) Name() string {
	if p.Location == "" {
		return p.Server
	}
	return p.Server + " location " + p.Location
}

// Zone is the zone named name, if the configuration defines it.
func (c *Config) Zone(name string) (Zone, bool) {
	for _, z := range c.Zones {
		if z.Name == name {
			return z, true
		}
	}
	return Zone{}, false
}

// levelConf is what one level (http, server, location) says: nil or
// unset where it says nothing.
type levelConf struct {
	limits []Limit
	status *int
	dryRun *bool
}

// merged is c with what it leaves unset taken from its parent, and the
// parent's rules that c's own replace.
func (c levelConf) merged(parent levelConf) (levelConf, []Limit) {
	var replaced []Limit
	if c.limits == nil {
		c.limits = parent.limits
	} else {
		for _, l := range parent.limits {
			if !slices.ContainsFunc(c.limits, func(o Limit) bool { return o.Zone == l.Zone }) {
				replaced = append(replaced, l)
			}
		}
	}
	if c.status == nil {
		c.status = parent.status
	}
	if c.dryRun == nil {
		c.dryRun = parent.dryRun
	}
	return c, replaced
}

// builder walks the directives.
type builder struct {
	cfg     Config
	servers int
}

// build reads the zones and places from the directives of a whole file.
func build(ds []directive) (*Config, error) {
	b := &builder{}
	if err := b.refuseHere(ds, "main"); err != nil {
		return nil, err
	}
	for _, d := range ds {
		if d.Name != "http" || !d.HasBlock {
			continue
		}
		if err := b.http(d.Block); err != nil {
			return nil, err
		}
	}
	for _, p := range b.cfg.Places {
		for _, l := range p.Limits {
			if _, ok := b.cfg.Zone(l.Zone); !ok {
				return nil, &Error{l.Pos, fmt.Sprintf("zero size shared memory zone %q (no limit_req_zone defines it)", l.Zone)}
			}
		}
	}
	return &b.cfg, nil
}

// limitDirectives are the directives of the limit_req module.
var limitDirectives = []string{"limit_req_zone", "limit_req", "limit_req_status", "limit_req_dry_run", "limit_req_log_level"}

func isLimitDirective(name string) bool {
	for _, n := range limitDirectives {
		if n == name {
			return true
		}
	}
	return false
}

// refuseHere refuses any limit_req directive among ds, a level where
// nginx takes none (the main level, if, limit_except).
func (b *builder) refuseHere(ds []directive, _ string) error {
	for _, d := range ds {
		if isLimitDirective(d.Name) {
			return &Error{d.End, fmt.Sprintf("%q directive is not allowed here", d.Name)}
		}
	}
	return nil
}

// http reads an http block: its zones, its own rules, its servers.
func (b *builder) http(ds []directive) error {
	var conf levelConf
	for _, d := range ds {
		if d.Name == "limit_req_zone" {
			if err := b.zone(d); err != nil {
				return err
			}
		}
	}
	if err := b.level(ds, &conf); err != nil {
		return err
	}
	servers := 0
	for _, d := range ds {
		if d.Name == "server" && d.HasBlock {
			servers++
			if err := b.server(d, conf); err != nil {
				return err
			}
		}
	}
	if servers == 0 && conf.limits != nil {
		// No server block: nginx serves on its default server, with
		// these rules.
		b.place(Place{Server: "the default server", Pos: ds[0].Pos}, conf)
	}
	return nil
}

// server reads a server block and its locations.
func (b *builder) server(d directive, parent levelConf) error {
	b.servers++
	name, listen := "", ""
	for _, x := range d.Block {
		switch {
		case x.Name == "server_name" && len(x.Args) > 0 && name == "" && x.Args[0] != "" && x.Args[0] != "_":
			name = x.Args[0]
		case x.Name == "listen" && len(x.Args) > 0 && listen == "":
			listen = "listen " + x.Args[0]
		case x.Name == "limit_req_zone":
			return &Error{x.End, `"limit_req_zone" directive is not allowed here`}
		}
	}
	switch {
	case name == "" && listen != "":
		name = listen
	case name == "":
		name = fmt.Sprintf("server %d", b.servers)
	}
	var conf levelConf
	if err := b.level(d.Block, &conf); err != nil {
		return err
	}
	conf, replaced := conf.merged(parent)
	returns := hasReturn(d.Block)
	locations := 0
	for _, x := range d.Block {
		if x.Name == "location" && x.HasBlock {
			locations++
			if err := b.location(name, "", x, conf, returns); err != nil {
				return err
			}
		}
	}
	if locations == 0 {
		b.place(Place{Server: name, Pos: d.Pos, Replaced: replaced, Returns: returns}, conf)
	}
	return nil
}

// location reads a location block and its nested locations.
func (b *builder) location(server, outer string, d directive, parent levelConf, serverReturns bool) error {
	if len(d.Args) == 0 || len(d.Args) > 2 {
		return &Error{d.End, `invalid number of arguments in "location" directive`}
	}
	where := strings.Join(d.Args, " ")
	if outer != "" {
		where = outer + " > " + where
	}
	for _, x := range d.Block {
		if x.Name == "limit_req_zone" {
			return &Error{x.End, `"limit_req_zone" directive is not allowed here`}
		}
	}
	var conf levelConf
	if err := b.level(d.Block, &conf); err != nil {
		return err
	}
	conf, replaced := conf.merged(parent)
	b.place(Place{Server: server, Location: where, Pos: d.Pos, Replaced: replaced, Returns: serverReturns || hasReturn(d.Block)}, conf)
	for _, x := range d.Block {
		if x.Name == "location" && x.HasBlock {
			if err := b.location(server, where, x, conf, serverReturns); err != nil {
				return err
			}
		}
	}
	return nil
}

// hasReturn reports whether a block answers with return at its own level
// (not inside an if, which may not run).
func hasReturn(ds []directive) bool {
	for _, d := range ds {
		if d.Name == "return" {
			return true
		}
	}
	return false
}

// place adds a place with the rules in force there.
func (b *builder) place(p Place, conf levelConf) {
	p.Limits, p.Status = conf.limits, 503
	if conf.status != nil {
		p.Status = *conf.status
	}
	p.DryRun = conf.dryRun != nil && *conf.dryRun
	b.cfg.Places = append(b.cfg.Places, p)
}

// level reads one level's limit_req, limit_req_status, limit_req_dry_run
// and limit_req_log_level, and refuses them inside its if and
// limit_except blocks.
func (b *builder) level(ds []directive, conf *levelConf) error {
	for _, d := range ds {
		switch d.Name {
		case "if", "limit_except":
			if err := b.refuseHere(d.Block, d.Name); err != nil {
				return err
			}
		case "limit_req":
			l, err := limitOf(d)
			if err != nil {
				return err
			}
			for _, x := range conf.limits {
				if x.Zone == l.Zone {
					return &Error{d.End, `"limit_req" directive is duplicate`}
				}
			}
			conf.limits = append(conf.limits, l)
		case "limit_req_status":
			if len(d.Args) != 1 {
				return argCount(d)
			}
			if conf.status != nil {
				return &Error{d.End, `"limit_req_status" directive is duplicate`}
			}
			n, ok := atoi(d.Args[0])
			if !ok {
				return &Error{d.End, `"limit_req_status" directive invalid number`}
			}
			if n < 400 || n > 599 {
				return &Error{d.End, "value must be between 400 and 599"}
			}
			s := int(n)
			conf.status = &s
		case "limit_req_dry_run":
			if len(d.Args) != 1 {
				return argCount(d)
			}
			if conf.dryRun != nil {
				return &Error{d.End, `"limit_req_dry_run" directive is duplicate`}
			}
			var on bool
			switch strings.ToLower(d.Args[0]) {
			case "on":
				on = true
			case "off":
			default:
				return &Error{d.End, fmt.Sprintf(`invalid value %q in "limit_req_dry_run" directive, it must be "on" or "off"`, d.Args[0])}
			}
			conf.dryRun = &on
		case "limit_req_log_level":
			if len(d.Args) != 1 {
				return argCount(d)
			}
			switch d.Args[0] {
			case "info", "notice", "warn", "error":
			default:
				return &Error{d.End, fmt.Sprintf(`invalid value "%s"`, d.Args[0])}
			}
		}
	}
	return nil
}

func argCount(d directive) error {
	return &Error{d.End, fmt.Sprintf("invalid number of arguments in %q directive", d.Name)}
}

// zone reads a limit_req_zone, as ngx_http_limit_req_zone does.
func (b *builder) zone(d directive) error {
	if len(d.Args) != 3 {
		return argCount(d)
	}
	z := Zone{Key: d.Args[0], Rate: algorithms.Rate{N: 1, Per: time.Second}, Pos: d.Pos}
	named := false
	for _, a := range d.Args[1:] {
		switch {
		case strings.HasPrefix(a, "zone="):
			name, size, ok := strings.Cut(a[len("zone="):], ":")
			if !ok {
				return &Error{d.End, fmt.Sprintf("invalid zone size %q", a)}
			}
			n, ok := parseSize(size)
			if !ok {
				return &Error{d.End, fmt.Sprintf("invalid zone size %q", a)}
			}
			if n < 8*pageSize {
				return &Error{d.End, fmt.Sprintf("zone %q is too small", a)}
			}
			z.Name, z.Size, named = name, n, true
		case strings.HasPrefix(a, "rate="):
			v, per := a[len("rate="):], time.Second
			if s, ok := strings.CutSuffix(v, "r/s"); ok {
				v = s
			} else if s, ok := strings.CutSuffix(v, "r/m"); ok {
				v, per = s, time.Minute
			}
			n, ok := atoi(v)
			if !ok || n <= 0 {
				return &Error{d.End, fmt.Sprintf("invalid rate %q", a)}
			}
			z.Rate = algorithms.Rate{N: n, Per: per}
		default:
			return &Error{d.End, fmt.Sprintf("invalid parameter %q", a)}
		}
	}
	if !named || z.Name == "" {
		return &Error{d.End, `"limit_req_zone" must have "zone" parameter`}
	}
	for _, o := range b.cfg.Zones {
		switch {
		case o.Name != z.Name:
		case o.Size != z.Size: // ngx_shared_memory_add's check comes first
			return &Error{d.End, fmt.Sprintf("the size %d of shared memory zone %q conflicts with already declared size %d", z.Size, z.Name, o.Size)}
		default:
			return &Error{d.End, fmt.Sprintf("limit_req_zone %q is already bound to key %q", z.Name, o.Key)}
		}
	}
	b.cfg.Zones = append(b.cfg.Zones, z)
	return nil
}

// limitOf reads a limit_req, as ngx_http_limit_req does.
func limitOf(d directive) (Limit, error) {
	if len(d.Args) < 1 || len(d.Args) > 3 {
		return Limit{}, argCount(d)
	}
	l := Limit{Pos: d.Pos}
	zoned := false
	for _, a := range d.Args {
		switch {
		case strings.HasPrefix(a, "zone="):
			l.Zone, zoned = a[len("zone="):], true
		case strings.HasPrefix(a, "burst="):
			n, ok := atoi(a[len("burst="):])
			if !ok || n <= 0 {
				return Limit{}, &Error{d.End, fmt.Sprintf("invalid burst value %q", a)}
			}
			l.Burst = n
		case strings.HasPrefix(a, "delay="):
			n, ok := atoi(a[len("delay="):])
			if !ok || n <= 0 {
				return Limit{}, &Error{d.End, fmt.Sprintf("invalid delay value %q", a)}
			}
			l.Delay, l.NoDelay = n, false
		case a == "nodelay":
			l.Delay, l.NoDelay = 0, true
		default:
			return Limit{}, &Error{d.End, fmt.Sprintf("invalid parameter %q", a)}
		}
	}
	if !zoned {
		return Limit{}, &Error{d.End, `"limit_req" must have "zone" parameter`}
	}
	return l, nil
}

// pageSize is the memory page nginx's smallest zone is 8 of (x86-64
// Linux's 4 KiB).
const pageSize = 4096

// parseSize reads a size as ngx_parse_size does: a whole number of bytes,
// or of KiB or MiB with k, K, m or M after it.
func parseSize(s string) (int64, bool) {
	scale := int64(1)
	if s != "" {
		switch s[len(s)-1] {
		case 'k', 'K':
			s, scale = s[:len(s)-1], 1<<10
		case 'm', 'M':
			s, scale = s[:len(s)-1], 1<<20
		}
	}
	n, ok := atoi(s)
	if !ok || n > (1<<62)/scale {
		return 0, false
	}
	return n * scale, true
}

// atoi reads a whole number as ngx_atoi does: digits only, at least one.
func atoi(s string) (int64, bool) {
	if s == "" {
		return 0, false
	}
	for _, c := range []byte(s) {
		if c < '0' || c > '9' {
			return 0, false
		}
	}
	n, err := strconv.ParseInt(s, 10, 64)
	return n, err == nil
}
