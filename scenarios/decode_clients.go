package scenarios

import (
	"fmt"
	"strconv"

	"github.com/goccy/go-yaml/ast"

	"ratelab/algorithms"
)

// clientFields are the fields of a client, as the format documents them.
var clientFields = []string{"name", "retry", "attempts", "base", "cap", "factor", "jitter", "deadline", "cancel"}

// clients decodes the clients list of the file's top level f, and checks
// that a client that cancels meets only plain lanes that keep every key.
func (d *decoder) clients(f *fields, lanes []Lane) ([]Client, error) {
	items, err := f.list("clients", "a list of clients such as {name: eager, retry: at-once, attempts: 5}")
	if err != nil {
		return nil, err
	}
	if len(items) > MaxClients {
		return nil, f.errorf("clients", "want at most %d clients, got %d", MaxClients, len(items))
	}
	var cs []Client
	for i, n := range items {
		c, err := d.client(n, index("clients", i), cs)
		if err != nil {
			return nil, err
		}
		if c.Cancel {
			for _, l := range lanes {
				if !l.Fleet.Plain() {
					return nil, d.errorf(n, index("clients", i), "client %s cancels, which lane %s of gateways cannot do: its gateways' states are not one to give a slot back to", strconv.Quote(c.Name), l.Name)
				}
				// Putting the key back would not bring back a key its
				// request freed to make room.
				for _, p := range l.Policies() {
					if p.MaxKeys() > 0 {
						return nil, d.errorf(n, index("clients", i), "client %s cancels, which lane %s cannot do: its zone may have freed another key to make room for the request, and giving the slot back would not bring that key back", strconv.Quote(c.Name), l.Name)
					}
				}
			}
		}
		cs = append(cs, c)
	}
	return cs, nil
}

// client decodes one item of clients; before are the clients above it.
func (d *decoder) client(n ast.Node, path string, before []Client) (Client, error) {
	f, err := d.fields(n, path, "a client such as {name: eager, retry: at-once, attempts: 5}", clientFields)
	if err != nil {
		return Client{}, err
	}
	c := Client{Attempts: 1}
	c.Line, _ = position(n)
	if c.Name, err = f.requiredText("name", "the client's name", false); err != nil {
		return Client{}, err
	}
	if err := CheckKey(c.Name); err != nil || c.Name == "" {
		return Client{}, f.errorf("name", "want a name of 1 to %d bytes, got %s", maxKeyLen, strconv.Quote(shorten(c.Name)))
	}
	for _, b := range before {
		if b.Name == c.Name {
			return Client{}, f.errorf("name", "client %s is already defined on line %d", strconv.Quote(c.Name), b.Line)
		}
	}
	rule, _, err := f.choice("retry", retryNames[:])
	if err != nil {
		return Client{}, err
	}
	c.Retry = Retry(rule)
	attempts, ok, err := f.integer("attempts", 1, MaxAttempts)
	switch {
	case err != nil:
		return Client{}, err
	case c.Retry == GiveUp && ok && attempts != 1:
		return Client{}, f.errorf("attempts", "a client that gives up makes 1 attempt, not %d: say how it retries with retry: at-once, retry-after or backoff", attempts)
	case c.Retry != GiveUp && !ok:
		return Client{}, f.missing("attempts", fmt.Sprintf("the most attempts of one request, the first included (2 to %d)", MaxAttempts))
	case c.Retry != GiveUp && attempts < 2:
		return Client{}, f.errorf("attempts", "a client that retries makes 2 to %d attempts, the first included, not 1", MaxAttempts)
	case ok:
		c.Attempts = int(attempts)
	}
	backoff := []string{"base", "cap", "factor", "jitter"}
	if c.Retry != Backoff {
		for _, name := range backoff {
			if f.present(name) {
				return Client{}, f.keyErrorf(name, "%s belongs to retry: backoff", name)
			}
		}
	} else {
		if c.Base, ok, err = f.duration("base", true); err != nil {
			return Client{}, err
		} else if !ok {
			return Client{}, f.missing("base", "the first wait, such as 100ms")
		}
		c.Cap = MaxTime
		if cp, ok, err := f.duration("cap", true); err != nil {
			return Client{}, err
		} else if ok {
			if cp < c.Base {
				return Client{}, f.errorf("cap", "the cap %s is shorter than the base %s", algorithms.FormatDuration(cp), algorithms.FormatDuration(c.Base))
			}
			c.Cap = cp
		}
		c.Factor = 2
		if fa, ok, err := f.integer("factor", 1, 16); err != nil {
			return Client{}, err
		} else if ok {
			c.Factor = fa
		}
		j, _, err := f.choice("jitter", jitterNames[:])
		if err != nil {
			return Client{}, err
		}
		c.Jitter = Jitter(j)
	}
	if c.Deadline, _, err = f.duration("deadline", true); err != nil {
		return Client{}, err
	}
	if f.has("cancel") {
		if c.Cancel, err = f.flag("cancel"); err != nil {
			return Client{}, err
		}
		if c.Cancel && c.Deadline == 0 {
			return Client{}, f.keyErrorf("cancel", "cancel needs a deadline: only a caller that stops waiting gives its slot back")
		}
	}
	return c, nil
}

// trafficClient reads an item's client: 1 + its index in cs, 0 when the
// item names none.
func trafficClient(f *fields, cs []Client) (int, error) {
	name, ok, err := f.text("client", "a client's name", false)
	if err != nil || !ok {
		return 0, err
	}
	for i, c := range cs {
		if c.Name == name {
			return i + 1, nil
		}
	}
	if len(cs) == 0 {
		return 0, f.errorf("client", "no client is called %s: the file has no clients list", strconv.Quote(shorten(name)))
	}
	names := make([]string, len(cs))
	for i, c := range cs {
		names[i] = c.Name
	}
	return 0, f.errorf("client", "no client is called %s; the clients are %s", strconv.Quote(shorten(name)), andList(names))
}
