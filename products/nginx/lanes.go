package nginx

import (
	"fmt"
	"strings"

	"ratelab/algorithms"
)

// Lane is a group of places where the same rules are in force, as the
// layers of one lane: a zone's rule each, in the order nginx applies them.
type Lane struct {
	// Name is a lane name (a–z, 0–9 and dashes, at most MaxNameLen bytes)
	// made from the first place's location or server.
	Name   string
	Places []Place
	Layers []algorithms.Layer
	Status int
	DryRun bool
	// Notes say, one line each, where the lane models the configuration
	// otherwise than nginx would run it, and what it does instead.
	Notes []string
}

// MaxLanes and MaxNameLen are the bounds of a scenario's lanes; MaxLayers
// the most zones one lane applies together.
const (
	MaxLanes   = 8
	MaxNameLen = 32
	MaxLayers  = algorithms.MaxLayers
)

// Lanes are the configuration's distinct rule sets as lanes, at most
// MaxLanes (the rest named in left); places with no limit_req in force
// make none.
func (c *Config) Lanes() (lanes []Lane, left []string, err error) {
	byRules := map[string]int{}
	for _, p := range c.Places {
		if len(p.Limits) == 0 {
			continue
		}
		sig := rulesKey(p)
		if i, ok := byRules[sig]; ok {
			lanes[i].Places = append(lanes[i].Places, p)
			continue
		}
		if len(lanes) == MaxLanes {
			left = append(left, p.Name())
			continue
		}
		l, err := c.lane(p)
		if err != nil {
			return nil, nil, err
		}
		byRules[sig] = len(lanes)
		lanes = append(lanes, l)
	}
	names := map[string]bool{}
	for i := range lanes {
		lanes[i].Name = UniqueName(laneName(lanes[i].Places[0], len(c.servers()) > 1), names)
	}
	c.noteSharedZones(lanes)
	return lanes, left, nil
}

// servers are the distinct servers of the places.
func (c *Config) servers() []string {
	var out []string
	for _, p := range c.Places {
		if len(out) == 0 || out[len(out)-1] != p.Server {
			out = append(out, p.Server)
		}
	}
	return out
}

// rulesKey tells places with the same rules apart from others.
func rulesKey(p Place) string {
	var b strings.Builder
	for _, l := range p.Limits {
		fmt.Fprintf(&b, "%s/%d/%d/%t;", l.Zone, l.Burst, l.Delay, l.NoDelay)
	}
	fmt.Fprintf(&b, "%d/%t/%t", p.Status, p.DryRun, p.Returns)
	for _, r := range p.Replaced {
		fmt.Fprintf(&b, "/-%s", r.Zone)
	}
	return b.String()
}

// lane is the lane of the rules in force at p.
func (c *Config) lane(p Place) (Lane, error) {
	l := Lane{Places: []Place{p}, Status: p.Status, DryRun: p.DryRun}
	var zs []Zone // each layer's
	for _, lim := range p.Limits {
		z, _ := c.Zone(lim.Zone) // build checked every zone is defined
		if z.Key == "" {
			l.Notes = append(l.Notes, fmt.Sprintf("zone %s's key is empty: nginx limits no request by it, so the lane leaves it out", z.Name))
			continue
		}
		if len(l.Layers) == MaxLayers {
			l.Notes = append(l.Notes, fmt.Sprintf("zone %s left out: a lane applies at most %d zones together", z.Name, MaxLayers))
			continue
		}
		pol := algorithms.Policy{Algorithm: algorithms.NginxLimitReq, Rate: z.Rate, Burst: lim.Burst, Delay: lim.Delay, NoDelay: lim.NoDelay}
		if p.Status != 503 {
			pol.Status = int64(p.Status)
		}
		if err := pol.Validate(); err != nil {
			return Lane{}, &Error{lim.Pos, fmt.Sprintf("ratelab cannot model zone %s's limit_req: %v", z.Name, err)}
		}
		layer := algorithms.Layer{Name: layerName(z.Name), Policy: pol, AllKeys: oneKey(z.Key)}
		l.Layers = append(l.Layers, layer)
		zs = append(zs, z)
		switch {
		case layer.AllKeys && strings.Contains(z.Key, "$"):
			l.Notes = append(l.Notes, fmt.Sprintf("zone %s's key %s is one value for the whole server: one allowance for every request", z.Name, z.Key))
		case !layer.AllKeys && !clientKey(z.Key):
			l.Notes = append(l.Notes, fmt.Sprintf("zone %s's key %s: each request's key in the traffic stands for its value", z.Name, z.Key))
		}
	}
	sizeZones(&l, p, zs)
	if len(p.Replaced) > 0 {
		var zones []string
		for _, r := range p.Replaced {
			zones = append(zones, r.Zone)
		}
		l.Notes = append(l.Notes, fmt.Sprintf("its own limit_req lines replace the enclosing level's: zone %s is not applied here (nginx inherits limit_req only to a level with none)", strings.Join(zones, ", ")))
	}
	if p.Returns {
		l.Notes = append(l.Notes, "it answers with return, which nginx runs before limit_req: nginx limits none of its requests, and the lane shows what limit_req would do without the return")
	}
	if len(l.Layers) == 0 {
		return Lane{}, &Error{p.Pos, fmt.Sprintf("%s: every zone in force has an empty key, so nginx limits nothing here", p.Name())}
	}
	return l, nil
}

// sizeZones gives l's layers their zones' (zs) sizes and p's
// limit_req_dry_run, which is the whole place's: a lane of several zones
// decides as nginx's lines of one location do (algorithms.NewStack). A
// zone keyed by one value for the whole server holds one key and never
// fills: it has no size in the lane.
func sizeZones(l *Lane, p Place, zs []Zone) {
	for i := range l.Layers {
		layer := &l.Layers[i]
		layer.Policy.DryRun = p.DryRun
		if layer.AllKeys {
			continue
		}
		z := zs[i]
		layer.Policy.Zone = z.Size
		if !clientKey(z.Key) {
			l.Notes = append(l.Notes, fmt.Sprintf("zone %s's %s holds %s keys of up to 48 bytes, as the lane counts them; nginx's node for a longer value of %s takes twice the room", z.Name, sizeText(z.Size), algorithms.Thousands(algorithms.NginxZoneKeys(z.Size)), z.Key))
		}
	}
}

// noteSharedZones notes, on each lane, a zone that other lanes' places
// spend too: nginx keeps one state a key for all of them.
func (c *Config) noteSharedZones(lanes []Lane) {
	for i := range lanes {
		for _, layer := range lanes[i].Layers {
			var others []string
			for j := range lanes {
				if j == i {
					continue
				}
				for _, o := range lanes[j].Layers {
					if o.Name == layer.Name {
						others = append(others, lanes[j].Name)
					}
				}
			}
			if len(others) > 0 {
				lanes[i].Notes = append(lanes[i].Notes, fmt.Sprintf("zone %s is spent in %s too: nginx keeps one state a key for all of them, a lane only for the traffic it is given", layer.Name, strings.Join(others, ", ")))
			}
		}
	}
}

// clientKey reports whether key is the client's address, which a
// request's key in ratelab's traffic stands for.
func clientKey(key string) bool {
	return key == "$binary_remote_addr" || key == "$remote_addr"
}

// oneKey reports whether key has one value for every request of a server:
// no variable, or only $server_name.
func oneKey(key string) bool {
	return !strings.Contains(key, "$") || key == "$server_name" || key == "${server_name}"
}

// sizeText is a zone's size as nginx's m and k write it.
func sizeText(n int64) string {
	switch {
	case n%(1<<20) == 0:
		return fmt.Sprintf("%dm", n>>20)
	case n%(1<<10) == 0:
		return fmt.Sprintf("%dk", n>>10)
	}
	return fmt.Sprintf("%d bytes", n)
}

// layerName is a zone's name as a policy name: at most MaxNameLen bytes.
func layerName(zone string) string {
	if len(zone) > MaxNameLen {
		return zone[:MaxNameLen]
	}
	return zone
}

// laneName is a lane name for place p: its location's words ("/api/v1/"
// gives api-v1, "/" root, "@fallback" fallback), or its server's; with the
// server first when the configuration has several.
func laneName(p Place, withServer bool) string {
	loc := p.Location
	if i := strings.LastIndex(loc, " > "); i >= 0 {
		loc = loc[i+3:]
	}
	if f := strings.Fields(loc); len(f) == 2 {
		loc = f[1] // "= /login": the path
	}
	name := slug(loc)
	if loc != "" && name == "" {
		name = "root"
	}
	if p.Location == "" || withServer {
		server := slug(p.Server)
		if server == "" {
			server = "server"
		}
		if name == "" {
			name = server
		} else {
			name = server + "-" + name
		}
	}
	if len(name) > MaxNameLen {
		name = strings.TrimRight(name[:MaxNameLen], "-")
	}
	return name
}

// slug is s in lower-case letters, digits and single dashes.
func slug(s string) string {
	var b strings.Builder
	dash := false
	for _, r := range strings.ToLower(s) {
		if r >= 'a' && r <= 'z' || r >= '0' && r <= '9' {
			if dash && b.Len() > 0 {
				b.WriteByte('-')
			}
			b.WriteRune(r)
			dash = false
			continue
		}
		dash = true
	}
	return b.String()
}

// UniqueName is name, or name-2, name-3, … when taken, marked taken; at
// most MaxNameLen bytes.
func UniqueName(name string, taken map[string]bool) string {
	out := name
	for n := 2; taken[out]; n++ {
		suffix := fmt.Sprintf("-%d", n)
		base := name
		if len(base)+len(suffix) > MaxNameLen {
			base = base[:MaxNameLen-len(suffix)]
		}
		out = base + suffix
	}
	taken[out] = true
	return out
}
