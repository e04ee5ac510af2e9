// Package express reads and writes express-rate-limit's options as
// JavaScript gives them: rateLimit({ windowMs, limit }) (max, its older
// name, too), with its defaults (a minute, 5). Its default MemoryStore
// starts each client's window at the client's first request and counts
// every request, refused ones too, until the window ends: the
// first-hit-window lane.
package express

import (
	"fmt"
	"go/parser"
	"regexp"
	"strings"
	"time"

	"ratelab/algorithms"
	"ratelab/products/bucket"
	"ratelab/products/snippet"
)

// Marker is the call every configuration Read reads makes.
const Marker = "rateLimit("

// defaults are express-rate-limit's (version 7): a minute, 5 requests.
const (
	defaultWindow = time.Minute
	defaultLimit  = 5
)

var (
	windowOpt = regexp.MustCompile(`\bwindowMs\s*:\s*([^,}\n]+)`)
	limitOpt  = regexp.MustCompile(`\b(limit|max)\s*:\s*([^,}\n]+)`)
	comment   = regexp.MustCompile(`//.*|/\*.*?\*/`)
	assigned  = regexp.MustCompile(`(?:const|let|var)\s+([A-Za-z_$][\w$]*)\s*=\s*$`)
)

// Read finds every rateLimit({…}) call in src.
func Read(src string) ([]snippet.Found, error) {
	var out []snippet.Found
	for i := 0; ; {
		j := strings.Index(src[i:], Marker)
		if j < 0 {
			break
		}
		start := i + j
		end := closing(src, start+len(Marker)-1)
		if end < 0 {
			return nil, fmt.Errorf("line %d: rateLimit( is not closed", line(src, start))
		}
		opts := comment.ReplaceAllString(src[start:end], "")
		f := snippet.Found{Var: "express", Line: line(src, start)}
		if m := assigned.FindStringSubmatch(src[strings.LastIndex(src[:start], "\n")+1 : start]); m != nil {
			f.Var = m[1]
		}
		window, limit := defaultWindow, int64(defaultLimit)
		if m := windowOpt.FindStringSubmatch(opts); m != nil {
			ms, err := whole(m[1])
			if err != nil {
				return nil, fmt.Errorf("line %d: windowMs: %w", f.Line, err)
			}
			window = time.Duration(ms) * time.Millisecond
		} else {
			f.Notes = append(f.Notes, "windowMs is not set: express-rate-limit's default is a minute")
		}
		if m := limitOpt.FindStringSubmatch(opts); m != nil {
			n, err := whole(m[2])
			if err != nil {
				return nil, fmt.Errorf("line %d: %s: %w", f.Line, m[1], err)
			}
			limit = n
		} else {
			f.Notes = append(f.Notes, "limit is not set: express-rate-limit's default is 5")
		}
		if limit <= 0 {
			return nil, fmt.Errorf("line %d: a limit of %d refuses every request (express-rate-limit takes 0 as refusing all)", f.Line, limit)
		}
		if strings.Contains(opts, "store:") {
			f.Notes = append(f.Notes, "a store other than the MemoryStore is given: the lane is the MemoryStore's window from each client's first request")
		}
		if strings.Contains(opts, "skipFailedRequests") || strings.Contains(opts, "skipSuccessfulRequests") {
			f.Notes = append(f.Notes, "skipFailedRequests or skipSuccessfulRequests un-count some requests after their response; the lane counts every one")
		}
		f.Policy = algorithms.Policy{Algorithm: algorithms.FirstHitWindow, Limit: limit, Window: window}
		if err := f.Policy.Validate(); err != nil {
			return nil, fmt.Errorf("line %d: %w", f.Line, err)
		}
		out = append(out, f)
		i = end
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("no rateLimit({…}) call")
	}
	return out, nil
}

// whole evaluates a whole-number expression: 15 * 60 * 1000.
func whole(text string) (int64, error) {
	e, err := parser.ParseExpr(strings.ReplaceAll(strings.TrimSpace(text), "_", ""))
	if err != nil {
		return 0, fmt.Errorf("%s is not a number ratelab can evaluate", strings.TrimSpace(text))
	}
	v, err := snippet.Eval(e)
	if err != nil {
		return 0, err
	}
	n, ok := v.Int()
	if !ok {
		return 0, fmt.Errorf("%s is not a whole number", strings.TrimSpace(text))
	}
	return n, nil
}

func closing(src string, open int) int {
	depth := 0
	for k := open; k < len(src); k++ {
		switch src[k] {
		case '(':
			depth++
		case ')':
			depth--
			if depth == 0 {
				return k + 1
			}
		}
	}
	return -1
}

func line(src string, at int) int { return 1 + strings.Count(src[:at], "\n") }

// Nearest is the limiter nearest to p on the safe side: itself for a
// first-hit window; else the bucket's size in a window long enough for
// its rate to refill it.
func Nearest(p algorithms.Policy) (algorithms.Policy, []string, error) {
	if p.Algorithm == algorithms.FirstHitWindow {
		return p, nil, p.Validate()
	}
	b, differs, err := bucket.Of(p, "express-rate-limit")
	if err != nil {
		return algorithms.Policy{}, nil, err
	}
	// size requests a window of size ÷ rate, in whole milliseconds, rounded up.
	window := (time.Duration(b.Size)*b.Rate.Per + time.Duration(b.Rate.N) - 1) / time.Duration(b.Rate.N)
	window = (window + time.Millisecond - 1) / time.Millisecond * time.Millisecond
	q := algorithms.Policy{Algorithm: algorithms.FirstHitWindow, Limit: b.Size, Window: window}
	differs = append(differs, fmt.Sprintf("express-rate-limit counts %d a %s window from each client's first request, refused requests too", b.Size, algorithms.FormatDuration(window)))
	return q, differs, q.Validate()
}

// Write is p, a first-hit window, as the JavaScript that makes the limiter.
func Write(name string, p algorithms.Policy) (string, error) {
	if p.Algorithm != algorithms.FirstHitWindow || p.Window%time.Millisecond != 0 {
		return "", fmt.Errorf("%s is not what express-rate-limit says (a window of whole milliseconds): take Nearest first", p)
	}
	return fmt.Sprintf("// %s: ratelab's lane as express-rate-limit (its MemoryStore, a window a client).\nconst limiter = rateLimit({\n  windowMs: %d,\n  limit: %d,\n  standardHeaders: 'draft-7',\n  legacyHeaders: false,\n})\napp.use(limiter)\n", name, int64(p.Window/time.Millisecond), p.Limit), nil
}
