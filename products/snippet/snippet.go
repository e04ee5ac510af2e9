// Package snippet finds a library's constructor calls in a piece of code
// (a Go or Java file, or a line pasted from one) and evaluates their
// arguments exactly: numbers as rationals, durations as nanoseconds, as a
// compiler folds constant expressions. It knows the few names the limiters'
// constructors are given: Go's time.Second and friends, x/time/rate's
// Every, Limit and Inf, and Java's TimeUnit and Duration.
package snippet

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"math/big"
	"regexp"
	"strings"
	"time"

	"ratelab/algorithms"
)

// Call is one call found: the variable it was assigned to (if any), its
// arguments' text and the line it starts on (1-based).
type Call struct {
	Var  string
	Args []ast.Expr
	Text string
	Line int
}

// Find returns every call of fn (a name such as "rate.NewLimiter" or
// "RateLimiter.create") in src, in order.
func Find(src, fn string) ([]Call, error) {
	var calls []Call
	for i := 0; ; {
		j := strings.Index(src[i:], fn+"(")
		if j < 0 {
			return calls, nil
		}
		start := i + j
		end, ok := closing(src, start+len(fn))
		if !ok {
			return nil, fmt.Errorf("line %d: %s( is not closed", lineOf(src, start), fn)
		}
		text := src[start:end]
		expr, err := parser.ParseExpr(javaToGo(text))
		if err != nil {
			return nil, fmt.Errorf("line %d: %s: %v", lineOf(src, start), text, err)
		}
		call, ok := expr.(*ast.CallExpr)
		if !ok {
			return nil, fmt.Errorf("line %d: %s is not a call", lineOf(src, start), text)
		}
		calls = append(calls, Call{Var: assignedTo(src[:start]), Args: call.Args, Text: text, Line: lineOf(src, start)})
		i = end
	}
}

// closing is the index after the parenthesis that closes the one at open.
func closing(src string, open int) (int, bool) {
	depth := 0
	for k := open; k < len(src); k++ {
		switch src[k] {
		case '(':
			depth++
		case ')':
			depth--
			if depth == 0 {
				return k + 1, true
			}
		}
	}
	return 0, false
}

func lineOf(src string, at int) int { return 1 + strings.Count(src[:at], "\n") }

// assignment finds "NAME :=", "NAME =" or "Type NAME = new" just before a
// call.
var assignment = regexp.MustCompile(`([A-Za-z_][A-Za-z0-9_]*)\s*:?=\s*(?:new\s+)?$`)

// assignedTo is the variable the text before a call assigns it to.
func assignedTo(before string) string {
	line := before[strings.LastIndex(before, "\n")+1:]
	if m := assignment.FindStringSubmatch(line); m != nil {
		return m[1]
	}
	return ""
}

// javaLiteral matches Java's number suffixes (5.0d, 3L, 2.5f), which Go
// does not write.
var javaLiteral = regexp.MustCompile(`\b([0-9][0-9_]*(?:\.[0-9]*)?)[dDfFlL]\b`)

// javaToGo rewrites what Java writes and Go does not parse: number
// suffixes and digit separators.
func javaToGo(s string) string {
	return javaLiteral.ReplaceAllString(s, "$1")
}

// Value is an evaluated argument: a number (exact) or a duration.
type Value struct {
	Num *big.Rat
	// Float says the value has a floating-point type (a float literal, a
	// conversion to float64 or rate.Limit); otherwise it is an integer,
	// and a division of integers truncates, as Go's and Java's do.
	Float bool
	// Nanos is set for a duration: Num is then its nanoseconds.
	Nanos bool
	// Inf is x/time/rate's rate.Inf.
	Inf bool
	// Every is, for rate.Every(d), d in nanoseconds (Num is then 1e9/d,
	// the events a second), for the library's own float64 of it.
	Every int64
	// Runtime says the value is computed when the program runs (a
	// method call such as d.Seconds(), rate.Every), not folded as a
	// constant: F is then the float64 the program gets, each operation
	// rounded, and Num the exact value.
	Runtime bool
	F       float64
}

// Float64 is the float64 the program has: F when computed at run time,
// else the constant's nearest.
func (v Value) Float64() float64 {
	if v.Runtime {
		return v.F
	}
	f, _ := v.Num.Float64()
	return f
}

// units are the durations the constructors are given, in nanoseconds.
var units = map[string]int64{
	"time.Nanosecond": 1, "time.Microsecond": 1e3, "time.Millisecond": 1e6, "time.Second": 1e9, "time.Minute": 60e9, "time.Hour": 3600e9,
	"TimeUnit.NANOSECONDS": 1, "TimeUnit.MICROSECONDS": 1e3, "TimeUnit.MILLISECONDS": 1e6, "TimeUnit.SECONDS": 1e9, "TimeUnit.MINUTES": 60e9, "TimeUnit.HOURS": 3600e9, "TimeUnit.DAYS": 86400e9,
}

// javaDurations are java.time.Duration's factories, by the unit they take.
var javaDurations = map[string]int64{
	"Duration.ofNanos": 1, "Duration.ofMillis": 1e6, "Duration.ofSeconds": 1e9, "Duration.ofMinutes": 60e9, "Duration.ofHours": 3600e9, "Duration.ofDays": 86400e9,
}

// Eval evaluates an argument: number literals, the units above, + - * /,
// parentheses, conversions (time.Duration(x), rate.Limit(x), float64(x),
// int64(x)), rate.Every(d) (1/d a second), rate.Inf and Java's
// Duration.ofSeconds(n) and the like.
func Eval(e ast.Expr) (Value, error) { return eval(e, false) }

// EvalJava evaluates an argument as Java does: as Eval, but a double's
// arithmetic is rounded at each step even between constants (Java folds
// constant expressions in IEEE double, where Go folds them exactly).
func EvalJava(e ast.Expr) (Value, error) { return eval(e, true) }

func eval(e ast.Expr, java bool) (Value, error) {
	switch e := e.(type) {
	case *ast.BasicLit:
		if e.Kind != token.INT && e.Kind != token.FLOAT {
			return Value{}, fmt.Errorf("%s is not a number", e.Value)
		}
		r, ok := new(big.Rat).SetString(strings.ReplaceAll(e.Value, "_", ""))
		if !ok {
			return Value{}, fmt.Errorf("%s is not a number", e.Value)
		}
		v := Value{Num: r, Float: e.Kind == token.FLOAT}
		if java && v.Float {
			v.Runtime = true
			v.F, _ = r.Float64() // Java reads a literal correctly rounded
		}
		return v, nil
	case *ast.ParenExpr:
		return eval(e.X, java)
	case *ast.SelectorExpr:
		name := exprName(e)
		if ns, ok := units[name]; ok {
			return Value{Num: big.NewRat(ns, 1), Nanos: true}, nil
		}
		if name == "rate.Inf" {
			return Value{Inf: true}, nil
		}
		return Value{}, fmt.Errorf("%s is not a value ratelab knows", name)
	case *ast.UnaryExpr:
		v, err := eval(e.X, java)
		if err != nil || e.Op != token.SUB {
			return v, err
		}
		v.Num, v.F = new(big.Rat).Neg(v.Num), -v.F
		return v, nil
	case *ast.BinaryExpr:
		return binary(e, java)
	case *ast.CallExpr:
		return call(e, java)
	}
	return Value{}, fmt.Errorf("%s is not a constant ratelab can evaluate", exprName(e))
}

func binary(e *ast.BinaryExpr, java bool) (Value, error) {
	x, err := eval(e.X, java)
	if err != nil {
		return x, err
	}
	y, err := eval(e.Y, java)
	if err != nil {
		return y, err
	}
	if x.Inf || y.Inf {
		return Value{}, fmt.Errorf("arithmetic on rate.Inf")
	}
	if x.Runtime || y.Runtime { // float64 arithmetic, each step rounded; Num exact beside it
		a, b := x.Float64(), y.Float64() // an integer converted to float64
		out := Value{Num: new(big.Rat), Float: true, Runtime: true}
		switch e.Op {
		case token.ADD:
			out.F = a + b
			out.Num.Add(x.Num, y.Num)
		case token.SUB:
			out.F = a - b
			out.Num.Sub(x.Num, y.Num)
		case token.MUL:
			out.F = a * b
			out.Num.Mul(x.Num, y.Num)
		case token.QUO:
			if y.Num.Sign() == 0 {
				return Value{}, fmt.Errorf("division by zero")
			}
			out.F = a / b
			out.Num.Quo(x.Num, y.Num)
		default:
			return Value{}, fmt.Errorf("operator %s", e.Op)
		}
		return out, nil
	}
	r := new(big.Rat)
	switch e.Op {
	case token.ADD:
		r.Add(x.Num, y.Num)
	case token.SUB:
		r.Sub(x.Num, y.Num)
	case token.MUL:
		r.Mul(x.Num, y.Num)
	case token.QUO:
		if y.Num.Sign() == 0 {
			return Value{}, fmt.Errorf("division by zero")
		}
		r.Quo(x.Num, y.Num)
		if !x.Float && !y.Float && !r.IsInt() { // integers: truncated toward zero
			q := new(big.Int).Quo(r.Num(), r.Denom())
			r.SetInt(q)
		}
		if x.Nanos && y.Nanos {
			return Value{Num: r}, nil // a duration over a duration: a number
		}
	default:
		return Value{}, fmt.Errorf("operator %s", e.Op)
	}
	return Value{Num: r, Nanos: x.Nanos || y.Nanos, Float: x.Float || y.Float}, nil
}

func call(e *ast.CallExpr, java bool) (Value, error) {
	name := exprName(e.Fun)
	if sel, ok := e.Fun.(*ast.SelectorExpr); ok && sel.Sel.Name == "Seconds" && len(e.Args) == 0 {
		d, err := eval(sel.X, java) // d.Seconds(): a duration in seconds
		ns, whole := d.Int()
		if err != nil || !d.Nanos || !whole {
			return Value{}, fmt.Errorf("%s.Seconds() of no duration", exprName(sel.X))
		}
		return Value{Num: new(big.Rat).Quo(d.Num, big.NewRat(1e9, 1)), Float: true, Runtime: true, F: time.Duration(ns).Seconds()}, nil
	}
	if len(e.Args) != 1 {
		return Value{}, fmt.Errorf("%s takes one argument here", name)
	}
	v, err := eval(e.Args[0], java)
	if err != nil {
		return v, err
	}
	switch name {
	case "time.Duration", "int64", "int":
		if v.Float && !v.Num.IsInt() {
			return Value{}, fmt.Errorf("%s of %s: not a whole number", name, v.Num.RatString())
		}
		v.Float = false
		return v, nil
	case "float64", "rate.Limit":
		if !v.Float && !v.Runtime {
			f, _ := v.Num.Float64()
			v.F = f
		}
		v.Float = true
		return v, nil
	case "rate.Every":
		if v.Num.Sign() <= 0 {
			return Value{Inf: true}, nil // rate.Every of no interval is Inf
		}
		ns, _ := v.Int()
		return Value{Num: new(big.Rat).Quo(big.NewRat(1e9, 1), v.Num), Every: ns, Float: true, Runtime: true, F: 1 / time.Duration(ns).Seconds()}, nil
	}
	if ns, ok := javaDurations[name]; ok {
		return Value{Num: new(big.Rat).Mul(v.Num, big.NewRat(ns, 1)), Nanos: true}, nil
	}
	return Value{}, fmt.Errorf("%s is not a call ratelab can evaluate", name)
}

// exprName is an expression's text, for names and messages.
func exprName(e ast.Expr) string {
	switch e := e.(type) {
	case *ast.Ident:
		return e.Name
	case *ast.SelectorExpr:
		return exprName(e.X) + "." + e.Sel.Name
	case *ast.ParenExpr:
		return exprName(e.X)
	case *ast.BasicLit:
		return e.Value
	}
	return fmt.Sprintf("%T", e)
}

// Int is v as a whole number, if it is one.
func (v Value) Int() (int64, bool) {
	if v.Inf || !v.Num.IsInt() || !v.Num.Num().IsInt64() {
		return 0, false
	}
	return v.Num.Num().Int64(), true
}

// GoDuration is d as Go code writes it: "100 * time.Millisecond", in the
// largest unit that divides it.
func GoDuration(d int64) string {
	for _, u := range []struct {
		name string
		ns   int64
	}{{"time.Hour", 3600e9}, {"time.Minute", 60e9}, {"time.Second", 1e9}, {"time.Millisecond", 1e6}, {"time.Microsecond", 1e3}, {"time.Nanosecond", 1}} {
		if d%u.ns == 0 {
			if d == u.ns {
				return u.name
			}
			return fmt.Sprintf("%d * %s", d/u.ns, u.name)
		}
	}
	return fmt.Sprint(d)
}

// Found is a limiter a snippet constructs: the variable it is assigned
// to (if any), its line, the policy of the lane that decides as it does,
// and what that lane models otherwise, one line each.
type Found struct {
	Var  string
	Line int
	// Where says where it is when a line cannot: a path in a YAML
	// document ("http_filters[0].typed_config").
	Where  string
	Policy algorithms.Policy
	// Layers are, for a product that applies several policies together
	// (Kong's windows), all of them, Policy the first; nil for one.
	Layers []algorithms.Layer
	Notes  []string
}

// Canonical is r written one way: in lowest terms over whole seconds (10/s,
// 3/10s) where that is an hour or less, else over nanoseconds; the form
// Read gives and Write writes.
func Canonical(r algorithms.Rate) algorithms.Rate {
	c, ok := PerSecond(big.NewRat(r.N*int64(time.Second)/gcd(r.N*int64(time.Second), int64(r.Per)), int64(r.Per)/gcd(r.N*int64(time.Second), int64(r.Per))))
	if !ok {
		return r
	}
	return c
}

func gcd(a, b int64) int64 {
	for b != 0 {
		a, b = b, a%b
	}
	return a
}

// PerSecond is perSec events a second as a Rate: over whole seconds when
// that takes an hour or less, else over nanoseconds.
func PerSecond(perSec *big.Rat) (algorithms.Rate, bool) {
	n, d := perSec.Num(), perSec.Denom()
	per := new(big.Int).Mul(d, big.NewInt(int64(time.Second)))
	if n.IsInt64() && d.Cmp(big.NewInt(3600)) <= 0 {
		if r := (algorithms.Rate{N: n.Int64(), Per: time.Duration(per.Int64())}); r.Validate() == nil {
			return r, true
		}
	}
	perNs := new(big.Rat).Quo(perSec, big.NewRat(int64(time.Second), 1))
	n, d = perNs.Num(), perNs.Denom()
	if !n.IsInt64() || !d.IsInt64() {
		return algorithms.Rate{}, false
	}
	return algorithms.Rate{N: n.Int64(), Per: time.Duration(d.Int64())}, true
}

// RateFloat is r as the float64 events a second the library lanes make of
// it: N / Per in seconds.
func RateFloat(r algorithms.Rate) float64 { return float64(r.N) / r.Per.Seconds() }

// Literal is a composite literal found: its fields by name (positional
// fields by their place in order), the variable it is assigned to and
// its line.
type Literal struct {
	Var    string
	Fields map[string]ast.Expr
	Text   string
	Line   int
}

// FindLiterals returns every composite literal of typ (such as
// "redis_rate.Limit") in src, with its fields named after fields (in the
// struct's order, for a literal that gives them by position).
func FindLiterals(src, typ string, fields []string) ([]Literal, error) {
	var out []Literal
	for i := 0; ; {
		j := strings.Index(src[i:], typ+"{")
		if j < 0 {
			return out, nil
		}
		start := i + j
		end, ok := closingBrace(src, start+len(typ))
		if !ok {
			return nil, fmt.Errorf("line %d: %s{ is not closed", lineOf(src, start), typ)
		}
		text := src[start:end]
		expr, err := parser.ParseExpr(text)
		if err != nil {
			return nil, fmt.Errorf("line %d: %s: %v", lineOf(src, start), text, err)
		}
		lit, ok := expr.(*ast.CompositeLit)
		if !ok {
			return nil, fmt.Errorf("line %d: %s is not a literal", lineOf(src, start), text)
		}
		l := Literal{Var: assignedTo(src[:start]), Fields: map[string]ast.Expr{}, Text: text, Line: lineOf(src, start)}
		for k, el := range lit.Elts {
			if kv, ok := el.(*ast.KeyValueExpr); ok {
				l.Fields[exprName(kv.Key)] = kv.Value
			} else if k < len(fields) {
				l.Fields[fields[k]] = el
			}
		}
		out = append(out, l)
		i = end
	}
}

// closingBrace is the index after the brace that closes the one at open.
func closingBrace(src string, open int) (int, bool) {
	depth := 0
	for k := open; k < len(src); k++ {
		switch src[k] {
		case '{':
			depth++
		case '}':
			depth--
			if depth == 0 {
				return k + 1, true
			}
		}
	}
	return 0, false
}
