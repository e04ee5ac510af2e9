package scenarios

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/goccy/go-yaml/ast"

	"ratelab/algorithms"
	"ratelab/fleet"
	"ratelab/products/registry"
)

// Field names of a limiter, as the format documents them.
var (
	laneFields    = append(append(append([]string{"name", "algorithm"}, paramNames(algorithms.Params())...), gatewayFields...), "across", "policies", "config")
	layerFields   = append([]string{"name", "algorithm"}, append(paramNames(algorithms.Params()), "across")...)
	gatewayFields = []string{"gateways", "route", "store", "store_latency", "sync_every", "outages", "fallback", "expire_idle", "clock_skew"}
	outageFields  = []string{"from", "until", "lose_state"}
	configFields  = []string{"product", "text", "from"}
)

// paramNames are the names of ps, as files write them.
func paramNames(ps []algorithms.Param) []string {
	names := make([]string, len(ps))
	for i, q := range ps {
		names[i] = q.Name
	}
	return names
}

// wantAlgorithm describes the algorithm field for errors.
var wantAlgorithm = func() string {
	names := make([]string, len(algorithms.Algorithms))
	for i, a := range algorithms.Algorithms {
		names[i] = string(a)
	}
	return "one of " + strings.Join(names, ", ")
}()

func (d *decoder) lane(n ast.Node, path string, before []Lane) (Lane, error) {
	f, err := d.fields(n, path, "a limiter such as {name: bucket, algorithm: token-bucket, capacity: 10, rate: 2/s}", laneFields)
	if err != nil {
		return Lane{}, err
	}
	const wantName = "a lane name of lower-case letters, digits and dashes"
	name, err := f.requiredText("name", wantName, false)
	if err != nil {
		return Lane{}, err
	}
	if len(name) > MaxNameLen || strings.IndexFunc(name, func(r rune) bool { return !(r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r == '-') }) >= 0 {
		return Lane{}, f.errorf("name", "want %s (at most %d characters), got %s", wantName, MaxNameLen, strconv.Quote(shorten(name)))
	}
	for _, l := range before {
		if l.Name == name {
			return Lane{}, f.errorf("name", "lane name %s is already taken by an earlier lane", name)
		}
	}
	if f.present("policies") {
		if f.present("config") {
			return Lane{}, f.keyErrorf("config", "a lane is written either with policies or with a product's config, not both")
		}
		return d.stackedLane(f, n, path, name)
	}
	var (
		p      algorithms.Policy
		config *ProductConfig
		all    bool // one allowance for every key
		// layerName names the policy of a lane across all keys.
		layerName string
	)
	if f.present("config") {
		var layers []algorithms.Layer
		if config, layers, err = d.productConfig(f, name); err != nil {
			return Lane{}, err
		}
		if len(layers) > 1 {
			return configStack(f, name, config, layers)
		}
		p, all, layerName = layers[0].Policy, layers[0].AllKeys, layers[0].Name
	} else if p, err = d.policy(f, n, path); err != nil {
		return Lane{}, err
	}
	fl, err := d.gateways(f, p)
	if err != nil {
		return Lane{}, err
	}
	lane := Lane{Name: name, Policy: p, Fleet: fl, Config: config}
	written, err := across(f)
	if err != nil {
		return Lane{}, err
	}
	if all && f.present("across") && !written {
		return Lane{}, f.keyErrorf("across", "across: key cannot go with this %s configuration: its limit is one for every request it sees", config.Product)
	}
	if all && !fl.Plain() {
		return Lane{}, f.keyErrorf("gateways", "gateways cannot go with this %s configuration: its limit is one for every request it sees, and a lane of gateways shares its policy its own way", config.Product)
	}
	if all = all || written; all {
		if !fl.Plain() {
			return Lane{}, f.keyErrorf("across", "across: all cannot go with gateways: a lane of gateways shares its policy its own way")
		}
		if p.MaxDelay() > 0 && !algorithms.StackMayDelay(p) {
			return Lane{}, f.keyErrorf("across", "across: all needs a policy that admits or refuses at once; %s delays requests", p.Algorithm)
		}
		if layerName == "" {
			layerName = string(p.Algorithm)
		}
		lane.Stack = []algorithms.Layer{{Name: layerName, Policy: p, AllKeys: true}}
	}
	return lane, nil
}

// ProductConfig is a lane written in a product's own words: the lane's
// policies are what `ratelab import` reads from Text for Product.
type ProductConfig struct {
	// Product is the product's name as the registry has it ("nginx").
	Product string
	// Text is the configuration as written.
	Text string
	// From names which of the lanes the text makes is this one, as import
	// names its lanes; "" when it makes one.
	From string
	// Notes are what the lane models otherwise than the product would run
	// it, as its reader says; the scenario's about ends with them.
	Notes []string
}

// productConfig reads a lane's config: its product, its text, and which
// of the text's lanes it is; the lane's layers are what the product's
// reader makes of the text.
func (d *decoder) productConfig(f *fields, name string) (*ProductConfig, []algorithms.Layer, error) {
	for _, other := range laneFields {
		if other != "name" && other != "config" && other != "across" && !slices.Contains(gatewayFields, other) && f.present(other) {
			return nil, nil, f.keyErrorf(other, "a lane written with config takes its policies from the configuration: %s cannot go with it", other)
		}
	}
	fd, _ := f.get("config")
	at := child(f.path, "config")
	cf, err := d.fields(fd.value, at, `a product's configuration such as {product: nginx, text: "limit_req_zone ...; limit_req zone=one burst=5 nodelay;"}`, configFields)
	if err != nil {
		return nil, nil, err
	}
	wantProduct := "one of " + strings.Join(registry.Names(), ", ")
	product, err := cf.requiredText("product", wantProduct, false)
	if err != nil {
		return nil, nil, err
	}
	pr := registry.Lookup(product)
	if pr == nil {
		return nil, nil, cf.errorf("product", "want %s, got %s", wantProduct, strconv.Quote(shorten(product)))
	}
	text, err := cf.requiredText("text", "the configuration's text, as the product reads it", true)
	if err != nil {
		return nil, nil, err
	}
	lanes, left, err := pr.ReadText(text)
	if err != nil {
		return nil, nil, d.refusal(cf, pr, err)
	}
	if len(lanes) == 0 {
		return nil, nil, cf.errorf("text", "%s reads no limit here: %s", pr.Title, pr.None)
	}
	c := &ProductConfig{Product: product, Text: text}
	from, hasFrom, err := cf.text("from", "the name import gives one of the text's lanes", false)
	if err != nil {
		return nil, nil, err
	}
	var choices []string
	for _, l := range lanes {
		choices = append(choices, l.Name+" ("+l.From+")")
	}
	choices = append(choices, left...)
	i := 0
	switch {
	case hasFrom:
		c.From = from
		i = slices.IndexFunc(lanes, func(l registry.Lane) bool { return l.Name == from })
		if i < 0 {
			return nil, nil, cf.errorf("from", "the text makes no lane %s: want one of %s", strconv.Quote(shorten(from)), strings.Join(choices, "; "))
		}
	case len(lanes)+len(left) > 1:
		return nil, nil, cf.missing("from", fmt.Sprintf("which of the %d lanes the text makes lane %s is, one of %s", len(lanes)+len(left), name, strings.Join(choices, "; ")))
	}
	l := lanes[i]
	c.Notes = l.Notes
	for _, x := range l.Layers {
		if err := x.Policy.Validate(); err != nil {
			return nil, nil, cf.errorf("text", "%s: %s", x.Name, oneLine(err.Error()))
		}
	}
	return c, l.Layers, nil
}

// refusal is a product's refusal of a config's text, at the file's line
// the refusal names where the text is a literal block ("|"), whose lines
// are the file's; else at the text, naming the text's line.
func (d *decoder) refusal(cf *fields, pr *registry.Product, err error) error {
	line, reason := registry.Refusal(err)
	e := cf.errorf("text", "%s refuses this configuration: %s", pr.Title, oneLine(reason)).(*Error)
	if line == 0 {
		return e
	}
	fd, _ := cf.get("text")
	if lit, ok := fd.value.(*ast.LiteralNode); ok && lit.Start != nil && lit.Start.Value == "|" && lit.Start.Position != nil {
		// The block's lines follow its "|" line, at its indentation.
		e.Line, e.Column = lit.Start.Position.Line+line, 1
		if tk := lit.Value.GetToken(); tk != nil {
			body := strings.TrimLeft(tk.Origin, "\n")
			e.Column += len(body) - len(strings.TrimLeft(body, " "))
		}
		return e
	}
	if text, _, _ := cf.text("text", "", true); strings.Contains(strings.TrimRight(text, "\n"), "\n") {
		e.Msg = fmt.Sprintf("%s refuses this configuration at its line %d: %s", pr.Title, line, oneLine(reason))
	}
	return e
}

// configStack is a lane whose config reads as several policies applied
// together: nothing beside the config may change them.
func configStack(f *fields, name string, c *ProductConfig, layers []algorithms.Layer) (Lane, error) {
	for _, other := range append([]string{"across"}, gatewayFields...) {
		if f.present(other) {
			return Lane{}, f.keyErrorf(other, "this %s configuration applies %d policies together, each counting whose requests it says: %s cannot go with it", c.Product, len(layers), other)
		}
	}
	lane := Lane{Name: name, Policy: layers[0].Policy, Stack: layers, Config: c}
	delays := slices.ContainsFunc(layers, func(x algorithms.Layer) bool { return x.Policy.MaxDelay() > 0 })
	if delays && !algorithms.StackMayDelay(lane.Policies()...) {
		return Lane{}, f.errorf("config", "this %s configuration applies %d policies together, and one delays requests, which ratelab's stack allows only of nginx-limit-req policies", c.Product, len(layers))
	}
	return lane, nil
}

// configNotes is what a scenario's about ends with for its config lanes:
// each lane's notes, what it models otherwise than its product; "" if
// none has any.
func configNotes(lanes []Lane) string {
	var b strings.Builder
	for _, n := range notesOf(lanes) {
		fmt.Fprintf(&b, "Note on lane %s.\n", n)
	}
	return b.String()
}

// notesOf are the config lanes' notes, "lane (product): note" each.
func notesOf(lanes []Lane) []string {
	var out []string
	for _, l := range lanes {
		if l.Config != nil {
			for _, n := range l.Config.Notes {
				out = append(out, fmt.Sprintf("%s (%s): %s", l.Name, l.Config.Product, n))
			}
		}
	}
	return out
}

// withConfigNotes is an about followed by the config lanes' notes.
func withConfigNotes(about string, lanes []Lane) string {
	notes := configNotes(lanes)
	if notes == "" || about == "" {
		return about + notes
	}
	return strings.TrimRight(about, "\n") + "\n\n" + notes
}

// ConfigNotes are the notes of the scenario's lanes written in a product's
// words, "lane (product): note" each: what they model otherwise than the
// product would run them. check and run say them on stderr; the
// explorer's about page ends with them.
func (s *Scenario) ConfigNotes() []string { return notesOf(s.Lanes) }

// across reads a policy's across: key (the default) or all.
func across(f *fields) (all bool, err error) {
	v, ok, err := f.text("across", "key or all", false)
	if err != nil || !ok {
		return false, err
	}
	switch v {
	case "key":
		return false, nil
	case "all":
		return true, nil
	}
	return false, f.errorf("across", "want key (one allowance per key) or all (one for every key together), got %s", strconv.Quote(shorten(v)))
}

// stackedLane reads a lane of several policies, which f's policies lists.
func (d *decoder) stackedLane(f *fields, n ast.Node, path, name string) (Lane, error) {
	for _, other := range laneFields {
		if other != "name" && other != "policies" && f.present(other) {
			return Lane{}, f.keyErrorf(other, "a lane with policies takes only name and policies: %s belongs to one of its policies", other)
		}
	}
	items, err := f.list("policies", "a list of policies such as {algorithm: fixed-window, limit: 200, window: 1s, across: all}")
	if err != nil {
		return Lane{}, err
	}
	if len(items) < 2 || len(items) > MaxPolicies {
		return Lane{}, f.errorf("policies", "want 2 to %d policies, got %d (a lane of one policy says it without policies)", MaxPolicies, len(items))
	}
	var layers []algorithms.Layer
	var delaying *fields // the first policy that delays, if any
	var ats []string     // each policy's path
	for i, item := range items {
		at := index(child(path, "policies"), i)
		ats = append(ats, at)
		lf, err := d.fields(item, at, "a policy such as {name: total, algorithm: fixed-window, limit: 200, window: 1s, across: all}", layerFields)
		if err != nil {
			return Lane{}, err
		}
		p, err := d.policy(lf, item, at)
		if err != nil {
			return Lane{}, err
		}
		if p.MaxDelay() > 0 && !algorithms.Describe(p.Algorithm).DelaysInAStack {
			return Lane{}, lf.errorf("algorithm", "%s delays requests; each of a lane's policies must admit or refuse at once", p.Algorithm)
		}
		if p.MaxDelay() > 0 && delaying == nil {
			delaying = lf
		}
		l := algorithms.Layer{Name: string(p.Algorithm), Policy: p}
		if v, ok, err := lf.text("name", "a name for the policy", false); err != nil {
			return Lane{}, err
		} else if ok {
			if v == "" || len(v) > MaxNameLen {
				return Lane{}, lf.errorf("name", "want a name of 1 to %d characters, got %s", MaxNameLen, strconv.Quote(shorten(v)))
			}
			l.Name = v
		}
		for _, b := range layers {
			if b.Name == l.Name {
				return Lane{}, d.errorf(item, at, "two policies of lane %s are called %s: give each a name", name, l.Name)
			}
		}
		if l.AllKeys, err = across(lf); err != nil {
			return Lane{}, err
		}
		layers = append(layers, l)
	}
	lane := Lane{Name: name, Policy: layers[0].Policy, Stack: layers}
	if delaying != nil && !algorithms.StackMayDelay(lane.Policies()...) {
		return Lane{}, delaying.errorf("algorithm", "this policy delays requests, which only a stack of nginx-limit-req policies may (as nginx's zones: each accounts a request at its arrival, and it waits the longest of their delays); give it nodelay: true, or make every policy nginx-limit-req")
	}
	if i, err := algorithms.CheckStack(layers); err != nil {
		return Lane{}, d.errorf(items[i], ats[i], "%v", err)
	}
	return lane, nil
}

// policy reads an algorithm and its parameters from f.
func (d *decoder) policy(f *fields, n ast.Node, path string) (algorithms.Policy, error) {
	alg, err := f.requiredText("algorithm", wantAlgorithm, false)
	if err != nil {
		return algorithms.Policy{}, err
	}
	desc := algorithms.Describe(algorithms.Algorithm(alg))
	if desc == nil {
		return algorithms.Policy{}, f.errorf("algorithm", "want %s, got %s", wantAlgorithm, strconv.Quote(shorten(alg)))
	}
	p := algorithms.Policy{Algorithm: algorithms.Algorithm(alg)}
	for _, name := range paramNames(algorithms.Params()) {
		if f.present(name) && !desc.Takes(name) {
			return algorithms.Policy{}, f.keyErrorf(name, "%s takes no %s (it takes %s)", alg, name, andList(paramNames(desc.Params)))
		}
	}
	for _, q := range desc.Params {
		if !f.has(q.Name) && !q.Optional {
			return algorithms.Policy{}, d.errorf(f.at(q.Name), path, "%s needs %s, %s", alg, q.Name, q.Want)
		}
	}
	for _, q := range desc.Params {
		if !f.has(q.Name) {
			continue // optional: its zero
		}
		var err error
		switch q.Kind {
		case algorithms.Count:
			lo := int64(1)
			if q.Optional {
				lo = 0
			}
			*q.CountOf(&p), _, err = f.integer(q.Name, lo, algorithms.MaxCount)
		case algorithms.Duration:
			*q.DurationOf(&p), _, err = f.duration(q.Name, !q.Optional)
		case algorithms.RateKind:
			*q.RateOf(&p), err = f.rate(q.Name)
		case algorithms.Flag:
			*q.FlagOf(&p), err = f.flag(q.Name)
		case algorithms.Bytes:
			*q.CountOf(&p), err = f.size(q.Name, q.Want)
		}
		if err != nil {
			return algorithms.Policy{}, err
		}
	}
	if err := p.Validate(); err != nil {
		return algorithms.Policy{}, d.errorf(n, path, "%s", oneLine(err.Error()))
	}
	return p, nil
}

// gateways reads a lane's gateways, route and store (package fleet).
func (d *decoder) gateways(f *fields, p algorithms.Policy) (fleet.Config, error) {
	var c fleet.Config
	n, _, err := f.integer("gateways", 1, fleet.MaxGateways)
	if err != nil {
		return c, err
	}
	c.Gateways = int(n)
	for _, w := range []struct {
		name  string
		to    *string
		among []string
	}{
		{"route", (*string)(&c.Route), words(fleet.Routes)},
		{"store", (*string)(&c.Store), words(fleet.Stores)},
	} {
		v, ok, err := f.text(w.name, "one of "+strings.Join(w.among, ", "), false)
		if err != nil {
			return c, err
		}
		if !ok {
			continue
		}
		if !slices.Contains(w.among, v) {
			return c, f.errorf(w.name, "want one of %s, got %s", strings.Join(w.among, ", "), strconv.Quote(shorten(v)))
		}
		if c.Gateways <= 1 && w.name == "route" {
			return c, f.keyErrorf(w.name, "route needs gateways: 2 or more (one gateway has nothing to route)")
		}
		*w.to = v
	}
	if c.Latency, _, err = f.duration("store_latency", false); err != nil {
		return c, err
	}
	if f.present("store_latency") && c.Store != fleet.Racy {
		return c, f.keyErrorf("store_latency", "store_latency belongs to store: racy (the delay before a gateway's write lands)")
	}
	if c.SyncEvery, _, err = f.duration("sync_every", true); err != nil {
		return c, err
	}
	switch {
	case f.present("sync_every") && c.Store != fleet.Synced:
		return c, f.keyErrorf("sync_every", "sync_every belongs to store: synced (the time between syncs)")
	case c.Store == fleet.Synced && !f.has("sync_every"):
		return c, f.missing("sync_every", "the time between a synced store's syncs, such as 1s")
	}
	if c.Outages, _, err = listOf(f, "outages", "a list of outages such as {from: 5s, until: 8s}", d.outage); err != nil {
		return c, err
	}
	if len(c.Outages) == 0 {
		c.Outages = nil // none, as a lane without the field has
	}
	if c.ExpireIdle, _, err = f.duration("expire_idle", true); err != nil {
		return c, err
	}
	skews, err := f.list("clock_skew", "a list of one clock offset per gateway, such as [0s, 40ms, -25ms]")
	if err != nil {
		return c, err
	}
	for i, n := range skews {
		d, err := d.signedDuration(n, index(child(f.path, "clock_skew"), i))
		if err != nil {
			return c, err
		}
		c.Skew = append(c.Skew, d)
	}
	if v, ok, err := f.text("fallback", "one of open, closed, local-cap", false); err != nil {
		return c, err
	} else if ok {
		i := slices.IndexFunc(fleet.Fallbacks, func(fb algorithms.Fallback) bool { return fb.String() == v })
		if i < 0 {
			return c, f.errorf("fallback", "want one of open, closed, local-cap, got %s", strconv.Quote(shorten(v)))
		}
		c.Fallback = fleet.Fallbacks[i]
	}
	if err := c.Validate(p); err != nil {
		return c, f.errorf("gateways", "%s", oneLine(err.Error()))
	}
	return c, nil
}

func words[T ~string](vs []T) []string {
	out := make([]string, len(vs))
	for i, v := range vs {
		out[i] = string(v)
	}
	return out
}

// signedDuration reads a clock offset: a Go duration, negative allowed
// ("-25ms"), at most a year either way.
func (d *decoder) signedDuration(n ast.Node, path string) (time.Duration, error) {
	n, err := d.plain(n, path)
	if err != nil {
		return 0, err
	}
	const want = "a Go duration such as 40ms or -25ms"
	var v time.Duration
	switch x := n.(type) {
	case *ast.StringNode:
		if v, err = time.ParseDuration(strings.TrimSpace(x.Value)); err != nil {
			return 0, d.errorf(n, path, "want %s, got %s", want, describe(n))
		}
	case *ast.IntegerNode:
		if w, isInt := wholeNumber(x); !isInt || w != 0 {
			return 0, d.errorf(n, path, "want %s (a number needs a unit), got %s", want, describe(n))
		}
	default:
		return 0, d.errorf(n, path, "want %s, got %s", want, describe(n))
	}
	if v > MaxTime || v < -MaxTime {
		return 0, d.errorf(n, path, "want %s of at most %s either way, got %s", want, algorithms.FormatDuration(MaxTime), describe(n))
	}
	return v, nil
}

// outage reads one of a lane's outages: {from, until, lose_state}.
func (d *decoder) outage(n ast.Node, path string) (fleet.Outage, *fields, error) {
	f, err := d.fields(n, path, "an outage such as {from: 5s, until: 8s, lose_state: true}", outageFields)
	if err != nil {
		return fleet.Outage{}, nil, err
	}
	var o fleet.Outage
	var ok bool
	if o.From, ok, err = f.duration("from", false); err != nil {
		return o, nil, err
	} else if !ok {
		return o, nil, f.missing("from", "when the store stops answering, such as 5s")
	}
	if o.Until, ok, err = f.duration("until", true); err != nil {
		return o, nil, err
	} else if !ok {
		return o, nil, f.missing("until", "when it answers again (exclusive), such as 8s")
	}
	if f.has("lose_state") {
		if o.LoseState, err = f.flag("lose_state"); err != nil {
			return o, nil, err
		}
	}
	return o, f, nil
}
