// Package bucket4j reads and writes Bucket4j's bandwidths as Java code
// makes them: Bandwidth.simple(capacity, period), Bandwidth.classic(
// capacity, Refill.greedy | intervally | intervallyAligned(tokens,
// period …)), and the builder, Bandwidth.builder().capacity(c)
// .refillGreedy | refillIntervally | refillIntervallyAligned(tokens,
// period …).build(). Greedy refill is the token bucket (tokens added
// continuously, Bucket4j carrying the remainder of its integer division);
// interval refill is the interval bucket (all of them at once, every
// period from the bucket's first use). A bucket of several bandwidths
// (addLimit twice or more) consumes from all of them: a stack.
package bucket4j

import (
	"fmt"
	"go/ast"
	"go/parser"
	"strings"
	"time"

	"ratelab/algorithms"
	"ratelab/products/bucket"
	"ratelab/products/snippet"
)

// Marker is what every configuration Read reads names.
const Marker = "Bandwidth."

// bandwidth is one Bandwidth as written.
type bandwidth struct {
	capacity, tokens, initial int64
	period                    time.Duration
	refill                    string // greedy, intervally, intervallyAligned
	hasInitial                bool
	line                      int
}

// Read finds every bandwidth in src: one lane each, or one stacked lane of
// them all when the code adds two or more limits to one bucket.
func Read(src string) ([]snippet.Found, error) {
	var bws []bandwidth
	for _, fn := range []string{"Bandwidth.simple", "Bandwidth.classic"} {
		calls, err := snippet.Find(src, fn)
		if err != nil {
			return nil, err
		}
		for _, c := range calls {
			bw, err := classic(fn, c)
			if err != nil {
				return nil, fmt.Errorf("line %d: %s: %w", c.Line, c.Text, err)
			}
			bws = append(bws, bw)
		}
	}
	chains, err := builders(src)
	if err != nil {
		return nil, err
	}
	bws = append(bws, chains...)
	if len(bws) == 0 {
		return nil, fmt.Errorf("no Bandwidth.simple, Bandwidth.classic or Bandwidth.builder()")
	}
	var layers []algorithms.Layer
	var out []snippet.Found
	for i, bw := range bws {
		p, notes, err := bw.lane()
		if err != nil {
			return nil, fmt.Errorf("line %d: %w", bw.line, err)
		}
		layers = append(layers, algorithms.Layer{Name: fmt.Sprintf("bandwidth-%d", i+1), Policy: p})
		out = append(out, snippet.Found{Var: fmt.Sprintf("bandwidth-%d", i+1), Line: bw.line, Policy: p, Notes: notes})
	}
	if strings.Count(src, "addLimit(") >= 2 && len(out) >= 2 && len(out) <= algorithms.MaxLayers {
		var notes []string
		for _, f := range out {
			notes = append(notes, f.Notes...)
		}
		return []snippet.Found{{Var: "bucket", Line: out[0].Line, Policy: layers[0].Policy, Layers: layers, Notes: notes}}, nil
	}
	return out, nil
}

// lane is the policy that decides as the bandwidth does.
func (bw bandwidth) lane() (algorithms.Policy, []string, error) {
	if bw.capacity <= 0 {
		return algorithms.Policy{}, nil, fmt.Errorf("IllegalArgumentException: %d is wrong value for capacity, because capacity should be positive", bw.capacity)
	}
	if bw.tokens <= 0 {
		return algorithms.Policy{}, nil, fmt.Errorf("IllegalArgumentException: %d is wrong value for period tokens, because tokens should be positive", bw.tokens)
	}
	if bw.period <= 0 {
		return algorithms.Policy{}, nil, fmt.Errorf("IllegalArgumentException: %s is wrong value for period of bandwidth, because period should be positive", bw.period)
	}
	var notes []string
	empty := false
	if bw.hasInitial {
		switch bw.initial {
		case 0:
			empty = true
		case bw.capacity:
		default:
			notes = append(notes, fmt.Sprintf("initialTokens %d: the lane starts full (a lane starts full or empty)", bw.initial))
		}
	}
	var p algorithms.Policy
	switch bw.refill {
	case "greedy":
		p = algorithms.Policy{Algorithm: algorithms.TokenBucket, Capacity: bw.capacity, Rate: algorithms.Rate{N: bw.tokens, Per: bw.period}, StartsEmpty: empty}
	default:
		p = algorithms.Policy{Algorithm: algorithms.IntervalBucket, Capacity: bw.capacity, TokensPerFill: bw.tokens, FillInterval: bw.period, StartsEmpty: empty}
		if bw.refill == "intervallyAligned" {
			notes = append(notes, "intervallyAligned: Bucket4j refills at the time of first refill given and every period after; the lane refills every period after the key's first request")
		}
	}
	return p, notes, p.Validate()
}

// classic reads Bandwidth.simple(capacity, period) or
// Bandwidth.classic(capacity, Refill.x(tokens, period …)).
func classic(fn string, c snippet.Call) (bandwidth, error) {
	bw := bandwidth{line: c.Line, refill: "greedy"}
	if len(c.Args) != 2 {
		return bw, fmt.Errorf("%s takes a capacity and a refill", fn)
	}
	var err error
	if bw.capacity, err = whole(c.Args[0]); err != nil {
		return bw, err
	}
	if fn == "Bandwidth.simple" {
		bw.tokens = bw.capacity
		bw.period, err = duration(c.Args[1])
		return bw, err
	}
	refill, ok := c.Args[1].(*ast.CallExpr)
	if !ok {
		return bw, fmt.Errorf("the refill is not a Refill.greedy, Refill.intervally or Refill.intervallyAligned call")
	}
	name := exprName(refill.Fun)
	kind, ok := strings.CutPrefix(name, "Refill.")
	if !ok || len(refill.Args) < 2 {
		return bw, fmt.Errorf("%s is not a Refill Bucket4j has", name)
	}
	return bw, bw.setRefill(kind, refill.Args)
}

// setRefill reads a refill's kind and its (tokens, period, …) arguments.
func (bw *bandwidth) setRefill(kind string, args []ast.Expr) error {
	switch kind {
	case "greedy", "intervally", "intervallyAligned":
	case "refillGreedy", "refillIntervally", "refillIntervallyAligned":
		kind = strings.ToLower(kind[len("refill"):len("refill")+1]) + kind[len("refill")+1:]
	default:
		return fmt.Errorf("refill %s is not one Bucket4j has", kind)
	}
	bw.refill = kind
	var err error
	if bw.tokens, err = whole(args[0]); err != nil {
		return err
	}
	bw.period, err = duration(args[1])
	return err
}

// builders reads each Bandwidth.builder() chain in src.
func builders(src string) ([]bandwidth, error) {
	var out []bandwidth
	for i := 0; ; {
		j := strings.Index(src[i:], "Bandwidth.builder()")
		if j < 0 {
			return out, nil
		}
		start := i + j
		k := strings.Index(src[start:], ".build()")
		if k < 0 {
			return nil, fmt.Errorf("line %d: Bandwidth.builder() is not built", 1+strings.Count(src[:start], "\n"))
		}
		end := start + k + len(".build()")
		text := src[start:end]
		line := 1 + strings.Count(src[:start], "\n")
		e, err := parser.ParseExpr(strings.Join(strings.Fields(text), " "))
		if err != nil {
			return nil, fmt.Errorf("line %d: %s: %v", line, text, err)
		}
		bw := bandwidth{line: line}
		for c, ok := e.(*ast.CallExpr); ok; c, ok = chainNext(c) {
			sel, _ := c.Fun.(*ast.SelectorExpr)
			if sel == nil {
				break
			}
			m := sel.Sel.Name
			if (m == "capacity" || m == "initialTokens") && len(c.Args) != 1 {
				return nil, fmt.Errorf("line %d: %s takes one number", line, m)
			}
			switch m {
			case "capacity":
				bw.capacity, err = whole(c.Args[0])
			case "initialTokens":
				bw.initial, err = whole(c.Args[0])
				bw.hasInitial = true
			case "refillGreedy", "refillIntervally", "refillIntervallyAligned":
				if len(c.Args) < 2 {
					err = fmt.Errorf("%s takes tokens and a period", m)
				} else {
					err = bw.setRefill(m, c.Args)
				}
			}
			if err != nil {
				return nil, fmt.Errorf("line %d: %w", line, err)
			}
		}
		if bw.refill == "" {
			return nil, fmt.Errorf("line %d: the builder sets no refill", line)
		}
		out = append(out, bw)
		i = end
	}
}

// chainNext is the call a method of a chain is called on.
func chainNext(c *ast.CallExpr) (*ast.CallExpr, bool) {
	sel, ok := c.Fun.(*ast.SelectorExpr)
	if !ok {
		return nil, false
	}
	next, ok := sel.X.(*ast.CallExpr)
	return next, ok
}

func exprName(e ast.Expr) string {
	switch e := e.(type) {
	case *ast.Ident:
		return e.Name
	case *ast.SelectorExpr:
		return exprName(e.X) + "." + e.Sel.Name
	}
	return "?"
}

func whole(e ast.Expr) (int64, error) {
	v, err := snippet.EvalJava(e)
	if err != nil {
		return 0, err
	}
	n, ok := v.Int()
	if !ok {
		return 0, fmt.Errorf("%s is not a whole number", v.Num.RatString())
	}
	return n, nil
}

func duration(e ast.Expr) (time.Duration, error) {
	v, err := snippet.EvalJava(e)
	if err != nil {
		return 0, err
	}
	ns, ok := v.Int()
	if !v.Nanos || !ok {
		return 0, fmt.Errorf("the period is not a Duration")
	}
	return time.Duration(ns), nil
}

// Nearest is the bandwidth nearest to p: itself for a token bucket
// (greedy) or an interval bucket (intervally); else greedy at the
// bucket's size and rate.
func Nearest(p algorithms.Policy) (algorithms.Policy, []string, error) {
	if p.Algorithm == algorithms.TokenBucket || p.Algorithm == algorithms.IntervalBucket {
		return p, nil, p.Validate()
	}
	b, differs, err := bucket.Of(p, "Bucket4j")
	if err != nil {
		return algorithms.Policy{}, nil, err
	}
	if b.Delays {
		differs = append(differs, "tryConsume refuses at once, where this lane makes a request wait (asBlocking().consume() waits without bound)")
	}
	q := algorithms.Policy{Algorithm: algorithms.TokenBucket, Capacity: b.Size, Rate: b.Rate}
	return q, differs, q.Validate()
}

// Write is a lane's bandwidths (token or interval buckets) as the Java
// that builds its bucket and asks it.
func Write(name string, layers []algorithms.Layer) (string, error) {
	var b strings.Builder
	fmt.Fprintf(&b, "// %s: ratelab's lane as Bucket4j, a bucket a key.\nBucket bucket = Bucket.builder()\n", name)
	for _, l := range layers {
		p := l.Policy
		var refill string
		switch p.Algorithm {
		case algorithms.TokenBucket:
			refill = fmt.Sprintf("refillGreedy(%d, Duration.ofNanos(%d))", p.Rate.N, int64(p.Rate.Per))
		case algorithms.IntervalBucket:
			refill = fmt.Sprintf("refillIntervally(%d, Duration.ofNanos(%d))", p.TokensPerFill, int64(p.FillInterval))
		default:
			return "", fmt.Errorf("%s is not a bandwidth: take Nearest first", p)
		}
		initial := ""
		if p.StartsEmpty {
			initial = ".initialTokens(0)"
		}
		fmt.Fprintf(&b, "    .addLimit(Bandwidth.builder().capacity(%d).%s%s.build())\n", p.Capacity, refill, initial)
	}
	b.WriteString("    .build();\nif (!bucket.tryConsume(1)) { /* refuse */ }\n")
	return b.String(), nil
}
