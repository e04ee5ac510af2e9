// Package rediscell reads and writes redis-cell's CL.THROTTLE commands:
// CL.THROTTLE key max_burst count_per_period period [quantity], as typed
// at redis-cli or passed to a client's call (quotes, commas and
// parentheses between the words are skipped). The lane, redis-cell, is
// its GCRA in redis-cell's own integer arithmetic.
package rediscell

import (
	"fmt"
	"math/big"
	"regexp"
	"strconv"
	"strings"
	"time"

	"ratelab/algorithms"
	"ratelab/products/bucket"
	"ratelab/products/snippet"
)

// command finds CL.THROTTLE, in any case, and the words after it.
var command = regexp.MustCompile(`(?i)CL\.THROTTLE\b`)

// separators split a command's words: spaces, quotes, commas, brackets.
var separators = regexp.MustCompile(`[\s"'` + "`" + `,()\[\]]+`)

// Read finds every CL.THROTTLE in src.
func Read(src string) ([]snippet.Found, error) {
	locs := command.FindAllStringIndex(src, -1)
	if len(locs) == 0 {
		return nil, fmt.Errorf("no CL.THROTTLE command")
	}
	var out []snippet.Found
	for _, loc := range locs {
		line := 1 + strings.Count(src[:loc[0]], "\n")
		rest := src[loc[1]:]
		if i := strings.IndexByte(rest, '\n'); i >= 0 {
			rest = rest[:i]
		}
		f, err := throttle(separators.Split(strings.TrimSpace(rest), -1))
		if err != nil {
			return nil, fmt.Errorf("line %d: CL.THROTTLE%s: %w", line, rest, err)
		}
		f.Line = line
		out = append(out, f)
	}
	return out, nil
}

// throttle is the lane of one command's words after CL.THROTTLE: key,
// max_burst, count, period and an optional quantity, as redis-cell
// parses them (whole numbers; a period of whole seconds). The numbers are
// the last words; the key is what comes before them (in code, perhaps an
// expression: "ip:"+ip).
func throttle(words []string) (snippet.Found, error) {
	var w []string
	for _, x := range words {
		if x != "" {
			w = append(w, x)
		}
	}
	ints := 0 // trailing whole numbers
	for i := len(w) - 1; i >= 0; i-- {
		if _, err := strconv.ParseInt(w[i], 10, 64); err != nil {
			break
		}
		ints++
	}
	n := 3
	if ints >= 4 && len(w) >= 5 {
		n = 4 // with a quantity
	}
	if len(w) < 4 || ints < 3 {
		if len(w) >= 4 {
			return snippet.Found{}, fmt.Errorf("ERR value is not an integer: want key max_burst count period [quantity]")
		}
		return snippet.Found{}, fmt.Errorf("ERR wrong number of arguments: want key max_burst count period [quantity]")
	}
	nums := make([]int64, n)
	for i, x := range w[len(w)-n:] {
		nums[i], _ = strconv.ParseInt(x, 10, 64)
	}
	key := strings.Join(w[:len(w)-n], "")
	f := snippet.Found{Var: key, Policy: algorithms.Policy{Algorithm: algorithms.RedisCell,
		MaxBurst: nums[0], CountPerPeriod: nums[1], Period: time.Duration(nums[2]) * time.Second}}
	if n == 4 && nums[3] != 1 {
		f.Notes = append(f.Notes, fmt.Sprintf("each call takes quantity %d: give the traffic's requests cost %d", nums[3], nums[3]))
	}
	if strings.ContainsAny(key, "{$%<+") || key == "key" {
		f.Notes = append(f.Notes, fmt.Sprintf("the key %s: each request's key in the traffic stands for its value", key))
	}
	if err := f.Policy.Validate(); err != nil {
		return snippet.Found{}, err
	}
	return f, nil
}

// Nearest is the redis-cell lane nearest to p on the safe side: itself
// for a redis-cell lane; else max_burst one less than the bucket's size,
// at its rate over whole seconds (rounded down where it is not a whole
// count a whole number of seconds).
func Nearest(p algorithms.Policy) (algorithms.Policy, []string, error) {
	if p.Algorithm == algorithms.RedisCell {
		return p, nil, p.Validate()
	}
	b, differs, err := bucket.Of(p, "redis-cell")
	if err != nil {
		return algorithms.Policy{}, nil, err
	}
	count, period, exact := wholeSeconds(b.Rate)
	if count < 1 {
		return algorithms.Policy{}, nil, fmt.Errorf("rate %s is too slow for a count over a period of at most an hour", b.Rate)
	}
	if !exact {
		differs = append(differs, fmt.Sprintf("CL.THROTTLE takes a count per whole seconds: %d per %ds for %s", count, period, b.Rate))
	}
	if b.Delays {
		differs = append(differs, "redis-cell refuses at once, where this lane makes a request wait")
	}
	q := algorithms.Policy{Algorithm: algorithms.RedisCell, MaxBurst: max(b.Size-1, 0), CountPerPeriod: count, Period: time.Duration(period) * time.Second}
	return q, differs, q.Validate()
}

// wholeSeconds is r as count per period seconds: exactly when some period
// of at most an hour holds a whole count, else the count an hour rounded
// down over an hour.
func wholeSeconds(r algorithms.Rate) (count, period int64, exact bool) {
	per := big.NewInt(int64(r.Per))
	for s := int64(1); s <= 3600; s++ {
		q, m := new(big.Int).QuoRem(new(big.Int).Mul(big.NewInt(r.N*s), big.NewInt(int64(time.Second))), per, new(big.Int))
		if m.Sign() == 0 && q.IsInt64() {
			return q.Int64(), s, true
		}
	}
	q := new(big.Int).Quo(new(big.Int).Mul(big.NewInt(r.N*3600), big.NewInt(int64(time.Second))), per)
	if !q.IsInt64() {
		return 0, 3600, false
	}
	return q.Int64(), 3600, false
}

// Write is p, a redis-cell lane, as the command a client sends each request.
func Write(name string, p algorithms.Policy) (string, error) {
	if p.Algorithm != algorithms.RedisCell {
		return "", fmt.Errorf("%s is not a redis-cell lane: take Nearest first", p.Algorithm)
	}
	return fmt.Sprintf("# %s: ratelab's lane as redis-cell, a key for each client.\nCL.THROTTLE %s:{client} %d %d %d 1\n", name, name, p.MaxBurst, p.CountPerPeriod, int64(p.Period/time.Second)), nil
}
