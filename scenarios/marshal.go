package scenarios

import (
	"bytes"
	"fmt"
	"slices"
	"strings"
	"unicode"

	"ratelab/algorithms"
	"ratelab/products/registry"
)

// Marshal writes s as a scenario file, with the extra requests (the
// learner's fired requests) appended to the traffic as single-request items.
// An extra request with an empty key gets DefaultKey.
//
// Step, duration and every expectation's window are written out resolved,
// so Parse reads the file back to a scenario equal to s plus the extra items
// (apart from Name and the Line fields). If an extra request arrives at or
// after s.Duration, the written duration is stretched to that request plus
// one step so that the file stays valid. Marshal checks its output with
// Parse and returns an error rather than a file that would not load.
func Marshal(s *Scenario, extra []Request) ([]byte, error) {
	duration := s.Duration
	for i, r := range extra {
		if r.At < 0 || r.Cost < 1 {
			return nil, fmt.Errorf("scenarios: extra request %d (at %s, cost %d): want at ≥ 0 and cost ≥ 1", i, r.At, r.Cost)
		}
		if r.At >= duration {
			duration = r.At + s.Step
		}
	}
	var b bytes.Buffer
	fmt.Fprintf(&b, "title: %s\n", quote(s.Title))
	lanes := asWritten(s.Lanes)
	about := s.About
	if notes := configNotes(s.Lanes); notes != "" && strings.HasSuffix(about, notes) {
		// The config lanes' notes, which reading the file adds again for
		// the lanes written as their config (a lane written as its
		// policies is no longer the product's, nor are its notes).
		if about = strings.TrimRight(strings.TrimSuffix(about, notes), "\n"); about != "" {
			about += "\n"
		}
	}
	if about != "" {
		if literalOK(about) {
			b.WriteString("about: |\n")
			for line := range strings.Lines(about) {
				if line != "\n" {
					b.WriteString("  ")
				}
				b.WriteString(line)
			}
		} else {
			fmt.Fprintf(&b, "about: %s\n", quote(about))
		}
	}
	fmt.Fprintf(&b, "step: %s\n", algorithms.FormatDuration(s.Step))
	fmt.Fprintf(&b, "duration: %s\n", algorithms.FormatDuration(duration))
	if s.Seed != 0 {
		fmt.Fprintf(&b, "seed: %d\n", s.Seed)
	}
	if s.WatchState {
		b.WriteString("watch: state\n")
	}

	if err := writeLanes(&b, lanes); err != nil {
		return nil, err
	}

	writeClients(&b, s.Clients)

	if len(s.Traffic)+len(s.Logs)+len(extra) > 0 {
		b.WriteString("traffic:\n")
	}
	for _, l := range s.Logs {
		writeLog(&b, l)
	}
	var group *copyGroup // the item of accounts or keys last written
	for _, t := range s.Traffic {
		switch {
		case t.group == nil:
			writeTraffic(&b, s, t)
		case t.group != group:
			// Its copies follow one another: the item is written once, as
			// written, and reads back to the same copies (a random
			// stagger and the poisson draws are seeded by the item's
			// place, which every item keeps).
			group = t.group
			writeTraffic(&b, s, t.group.item, t.group.fields()...)
		}
	}
	// A run of identical extra requests (a burst fired at one instant) is
	// written as one burst item, which expands to the same requests in the
	// same place, and keeps a saved file of big bursts small.
	for i := 0; i < len(extra); {
		r, n := extra[i], 1
		for i+n < len(extra) && extra[i+n] == r {
			n++
		}
		t := Traffic{Form: Single, At: r.At, Count: 1, Key: r.Key, Cost: r.Cost}
		if n > 1 {
			t.Form, t.Count = Burst, int64(n)
		}
		writeTraffic(&b, s, t)
		i += n
	}

	if len(s.Notes) > 0 {
		b.WriteString("notes:\n")
	}
	for _, n := range s.Notes {
		fmt.Fprintf(&b, "  - {at: %s, text: %s", algorithms.FormatDuration(n.At), quote(n.Text))
		if n.Key != "" {
			fmt.Fprintf(&b, ", key: %s", quote(n.Key))
		}
		if n.Lane != "" {
			fmt.Fprintf(&b, ", lane: %s", quote(n.Lane))
		}
		b.WriteString("}\n")
	}

	if len(s.Quiz) > 0 {
		b.WriteString("quiz:\n")
	}
	for _, q := range s.Quiz {
		fmt.Fprintf(&b, "  - {at: %s", algorithms.FormatDuration(q.At))
		if q.Request != 1 {
			fmt.Fprintf(&b, ", request: %d", q.Request)
		}
		if q.Key != "" {
			fmt.Fprintf(&b, ", key: %s", quote(q.Key))
		}
		if q.Lane != "" {
			fmt.Fprintf(&b, ", lane: %s", quote(q.Lane))
		}
		if q.Ask != "" {
			fmt.Fprintf(&b, ", ask: %s", quote(q.Ask))
		}
		if q.Why != "" {
			fmt.Fprintf(&b, ", why: %s", quote(q.Why))
		}
		b.WriteString("}\n")
	}

	if len(s.Expect) > 0 {
		b.WriteString("expect:\n")
	}
	for _, e := range s.Expect {
		fmt.Fprintf(&b, "  - {lane: %s", quote(e.Lane))
		if e.Key != "" {
			fmt.Fprintf(&b, ", key: %s", quote(e.Key))
		}
		if e.Instant {
			fmt.Fprintf(&b, ", at: %s", algorithms.FormatDuration(e.From))
		} else {
			if e.From != 0 {
				fmt.Fprintf(&b, ", from: %s", algorithms.FormatDuration(e.From))
			}
			if e.Until != duration {
				fmt.Fprintf(&b, ", until: %s", algorithms.FormatDuration(e.Until))
			}
		}
		for _, c := range e.counts() {
			if *c.v != nil {
				fmt.Fprintf(&b, ", %s: %d", c.name, **c.v)
			}
		}
		if e.Peak != nil {
			fmt.Fprintf(&b, ", peak: %d, peak_window: %s", *e.Peak, algorithms.FormatDuration(e.PeakWindow))
		}
		if e.Outcome != nil {
			fmt.Fprintf(&b, ", outcome: %s", e.Outcome)
		}
		if e.RetryAfter != nil {
			fmt.Fprintf(&b, ", retry_after: %d", *e.RetryAfter)
		}
		if e.Wait != nil {
			fmt.Fprintf(&b, ", wait: %s", algorithms.FormatDuration(*e.Wait))
		}
		for _, l := range e.latencies() {
			if *l.v != nil {
				fmt.Fprintf(&b, ", %s: %s", l.name, algorithms.FormatDuration(**l.v))
			}
		}
		for _, st := range e.states() {
			if *st.v != nil {
				fmt.Fprintf(&b, ", %s: %d", st.name, **st.v)
			}
		}
		if e.Why != "" {
			fmt.Fprintf(&b, ", why: %s", quote(e.Why))
		}
		b.WriteString("}\n")
	}

	out := b.Bytes()
	if _, err := Parse(s.Name, out); err != nil {
		return nil, fmt.Errorf("scenarios: the saved scenario would not load: %w", err)
	}
	return out, nil
}

// fields are g's own fields, as a traffic line writes them after the
// item's.
func (g *copyGroup) fields() []string {
	var out []string
	if g.accounts > 0 {
		out = append(out, fmt.Sprintf("accounts: %d", g.accounts))
	} else {
		keys := make([]string, len(g.keys))
		for i, k := range g.keys {
			keys[i] = quote(k)
		}
		out = append(out, "keys: ["+strings.Join(keys, ", ")+"]")
	}
	if g.stagger != "" {
		out = append(out, "stagger: "+g.stagger)
	}
	return out
}

// writeTraffic writes t as one line of the traffic list, with more fields
// after its own. An empty key, as an extra request may have, is written as
// DefaultKey: not at all.
func writeTraffic(b *bytes.Buffer, s *Scenario, t Traffic, more ...string) {
	b.WriteString("  - {")
	switch t.Form {
	case Burst:
		fmt.Fprintf(b, "at: %s, count: %d", algorithms.FormatDuration(t.At), t.Count)
		if t.Spread != 0 {
			fmt.Fprintf(b, ", spread: %s", algorithms.FormatDuration(t.Spread))
		}
	case Periodic:
		fmt.Fprintf(b, "every: %s", algorithms.FormatDuration(t.Every))
		if t.From != 0 {
			fmt.Fprintf(b, ", from: %s", algorithms.FormatDuration(t.From))
		}
		fmt.Fprintf(b, ", until: %s", algorithms.FormatDuration(t.Until))
	case Poisson: // as written: it draws the same times again when read
		fmt.Fprintf(b, "poisson: %s", t.Rate)
		if t.From != 0 {
			fmt.Fprintf(b, ", from: %s", algorithms.FormatDuration(t.From))
		}
		fmt.Fprintf(b, ", until: %s", algorithms.FormatDuration(t.Until))
		if t.On != 0 {
			fmt.Fprintf(b, ", on: %s, off: %s", algorithms.FormatDuration(t.On), algorithms.FormatDuration(t.Off))
		}
	default:
		fmt.Fprintf(b, "at: %s", algorithms.FormatDuration(t.At))
	}
	if t.Key != "" && t.Key != DefaultKey {
		fmt.Fprintf(b, ", key: %s", quote(t.Key))
	}
	if t.Cost != 1 {
		fmt.Fprintf(b, ", cost: %d", t.Cost)
	}
	if t.Client != 0 {
		fmt.Fprintf(b, ", client: %s", quote(s.Clients[t.Client-1].Name))
	}
	for _, f := range more {
		b.WriteString(", " + f)
	}
	b.WriteString("}\n")
}

// quote writes s as a YAML double-quoted scalar, escaping what is not
// printable.
func quote(s string) string {
	var b strings.Builder
	b.WriteByte('"')
	for _, r := range s {
		switch {
		case r == '"':
			b.WriteString(`\"`)
		case r == '\\':
			b.WriteString(`\\`)
		case r == '\n':
			b.WriteString(`\n`)
		case r == '\t':
			b.WriteString(`\t`)
		case r == ' ' || unicode.IsPrint(r):
			b.WriteRune(r)
		case r <= 0xffff:
			fmt.Fprintf(&b, `\u%04x`, r)
		default:
			fmt.Fprintf(&b, `\U%08x`, r)
		}
	}
	b.WriteByte('"')
	return b.String()
}

// literalOK reports whether s reads back unchanged from a "|" block: lines
// of printable text ending in exactly one newline, no blank first line, no
// indentation on the first line and no white space at line ends.
func literalOK(s string) bool {
	if !strings.HasSuffix(s, "\n") || strings.HasSuffix(s, "\n\n") || strings.HasPrefix(s, "\n") {
		return false
	}
	first := true
	for line := range strings.Lines(s) {
		line = strings.TrimSuffix(line, "\n")
		if line == "" {
			continue
		}
		if strings.TrimRightFunc(line, unicode.IsSpace) != line {
			return false
		}
		if first && strings.TrimLeftFunc(line, unicode.IsSpace) != line {
			return false
		}
		first = false
		for _, r := range line {
			if r != ' ' && !unicode.IsPrint(r) {
				return false
			}
		}
	}
	return true
}

// writePolicy writes p's algorithm and parameters, in the order its
// description lists them (the size first, then the window or rate).
func writePolicy(b *bytes.Buffer, p algorithms.Policy) error {
	if err := p.Validate(); err != nil { // a stray parameter would be lost
		return err
	}
	fmt.Fprintf(b, "algorithm: %s", p.Algorithm)
	for _, q := range algorithms.Describe(p.Algorithm).Params {
		if q.Optional && !q.IsSet(p) {
			continue // left out reads back as its zero
		}
		switch q.Kind {
		case algorithms.Count:
			fmt.Fprintf(b, ", %s: %d", q.Name, *q.CountOf(&p))
		case algorithms.Duration:
			fmt.Fprintf(b, ", %s: %s", q.Name, algorithms.FormatDuration(*q.DurationOf(&p)))
		case algorithms.RateKind:
			fmt.Fprintf(b, ", %s: %s", q.Name, *q.RateOf(&p))
		case algorithms.Flag:
			fmt.Fprintf(b, ", %s: %t", q.Name, *q.FlagOf(&p))
		case algorithms.Bytes:
			fmt.Fprintf(b, ", %s: %s", q.Name, algorithms.FormatSize(*q.CountOf(&p)))
		}
	}
	return nil
}

// writeClients writes the clients list, each field that differs from its
// default.
func writeClients(b *bytes.Buffer, cs []Client) {
	if len(cs) > 0 {
		b.WriteString("clients:\n")
	}
	for _, c := range cs {
		fmt.Fprintf(b, "  - {name: %s", quote(c.Name))
		if c.Retry != GiveUp {
			fmt.Fprintf(b, ", retry: %s, attempts: %d", c.Retry, c.Attempts)
		}
		if c.Retry == Backoff {
			fmt.Fprintf(b, ", base: %s", algorithms.FormatDuration(c.Base))
			if c.Cap != MaxTime {
				fmt.Fprintf(b, ", cap: %s", algorithms.FormatDuration(c.Cap))
			}
			fmt.Fprintf(b, ", factor: %d, jitter: %s", c.Factor, c.Jitter)
		}
		if c.Deadline > 0 {
			fmt.Fprintf(b, ", deadline: %s", algorithms.FormatDuration(c.Deadline))
		}
		if c.Cancel {
			b.WriteString(", cancel: true")
		}
		b.WriteString("}\n")
	}
}

// writeLanes writes the limiters list.
func writeLanes(b *bytes.Buffer, lanes []Lane) error {
	b.WriteString("limiters:\n")
	for _, l := range lanes {
		if l.Config != nil {
			writeConfigLane(b, l)
			continue
		}
		if len(l.Stack) > 1 {
			fmt.Fprintf(b, "  - {name: %s, policies: [", quote(l.Name))
			for i, x := range l.Stack {
				if i > 0 {
					b.WriteString(", ")
				}
				fmt.Fprintf(b, "{name: %s, ", quote(x.Name))
				if err := writePolicy(b, x.Policy); err != nil {
					return fmt.Errorf("scenarios: lane %s: %w", quote(l.Name), err)
				}
				if x.AllKeys {
					b.WriteString(", across: all")
				}
				b.WriteString("}")
			}
			b.WriteString("]}\n")
			continue
		}
		fmt.Fprintf(b, "  - {name: %s, ", quote(l.Name))
		if err := writePolicy(b, l.Policy); err != nil {
			return fmt.Errorf("scenarios: lane %s: %w", quote(l.Name), err)
		}
		for _, f := range laneExtras(l) {
			b.WriteString(", " + f)
		}
		b.WriteString("}\n")
	}
	return nil
}

// laneExtras are the fields of a lane of one policy beside it, "name:
// value" each: across and its gateways.
func laneExtras(l Lane) []string {
	var out []string
	if len(l.Stack) == 1 && l.Stack[0].AllKeys {
		out = append(out, "across: all")
	}
	c := l.Fleet
	if c.Plain() {
		return out
	}
	if c.Gateways > 1 {
		out = append(out, fmt.Sprintf("gateways: %d", c.Gateways))
	}
	if c.Route != "" {
		out = append(out, fmt.Sprintf("route: %s", c.Route))
	}
	if c.Store != "" {
		out = append(out, fmt.Sprintf("store: %s", c.Store))
	}
	if c.Latency > 0 {
		out = append(out, "store_latency: "+algorithms.FormatDuration(c.Latency))
	}
	if c.SyncEvery > 0 {
		out = append(out, "sync_every: "+algorithms.FormatDuration(c.SyncEvery))
	}
	if len(c.Outages) > 0 {
		var os []string
		for _, o := range c.Outages {
			w := fmt.Sprintf("{from: %s, until: %s", algorithms.FormatDuration(o.From), algorithms.FormatDuration(o.Until))
			if o.LoseState {
				w += ", lose_state: true"
			}
			os = append(os, w+"}")
		}
		out = append(out, "outages: ["+strings.Join(os, ", ")+"]", fmt.Sprintf("fallback: %s", c.Fallback))
	}
	if c.ExpireIdle > 0 {
		out = append(out, "expire_idle: "+algorithms.FormatDuration(c.ExpireIdle))
	}
	if len(c.Skew) > 0 {
		var ds []string
		for _, d := range c.Skew {
			if d < 0 {
				ds = append(ds, "-"+algorithms.FormatDuration(-d))
			} else {
				ds = append(ds, algorithms.FormatDuration(d))
			}
		}
		out = append(out, "clock_skew: ["+strings.Join(ds, ", ")+"]")
	}
	return out
}

// writeConfigLane writes a lane in its product's words: its config (the
// text as a "|" block where it reads back unchanged from one), and the
// fields beside it.
func writeConfigLane(b *bytes.Buffer, l Lane) {
	c := l.Config
	fmt.Fprintf(b, "  - name: %s\n    config:\n      product: %s\n", quote(l.Name), quote(c.Product))
	if c.From != "" {
		fmt.Fprintf(b, "      from: %s\n", quote(c.From))
	}
	if literalOK(c.Text) {
		b.WriteString("      text: |\n")
		for line := range strings.Lines(c.Text) {
			if line != "\n" {
				b.WriteString("        ")
			}
			b.WriteString(line)
		}
	} else {
		fmt.Fprintf(b, "      text: %s\n", quote(c.Text))
	}
	if len(l.Stack) > 1 {
		return // the configuration's own stack: nothing beside it
	}
	for _, f := range laneExtras(l) {
		b.WriteString("    " + f + "\n")
	}
}

// asWritten are the lanes as Marshal writes them: a config lane whose
// config no longer reads as its policies loses its config.
func asWritten(lanes []Lane) []Lane {
	out := slices.Clone(lanes)
	for i, l := range out {
		if l.Config != nil && !configSays(l) {
			out[i].Config = nil
		}
	}
	return out
}

// configSays reports whether a lane's config still reads as its
// policies (a lane changed after it was read is written as policies).
func configSays(l Lane) bool {
	c := l.Config
	pr := registry.Lookup(c.Product)
	if pr == nil {
		return false
	}
	lanes, _, err := pr.ReadText(c.Text)
	if err != nil {
		return false
	}
	i := 0
	if c.From != "" {
		i = slices.IndexFunc(lanes, func(x registry.Lane) bool { return x.Name == c.From })
	}
	if i < 0 || i >= len(lanes) {
		return false
	}
	ps := l.Policies()
	layers := lanes[i].Layers
	if len(ps) != len(layers) {
		return false
	}
	for j, x := range layers {
		if ps[j] != x.Policy || x.AllKeys && (l.Stack == nil || !l.Stack[j].AllKeys) {
			return false
		}
	}
	return true
}
