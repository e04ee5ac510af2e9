// Package registry knows the products ratelab reads and writes: their
// names, what their words mean, and each one's reader, nearest policy and
// writer (the subpackages of products). It is the one list of them: the
// scenario format's config lanes (package scenarios) and import, explain
// and export (package products) all read it. It imports only algorithms
// and the products' subpackages.
package registry

import (
	"bytes"
	"errors"
	"fmt"
	"regexp"
	"strconv"
	"strings"

	"ratelab/algorithms"
	"ratelab/products/aws"
	"ratelab/products/bucket4j"
	"ratelab/products/envoy"
	"ratelab/products/express"
	"ratelab/products/guava"
	"ratelab/products/kong"
	"ratelab/products/nginx"
	"ratelab/products/rediscell"
	"ratelab/products/redisrate"
	"ratelab/products/resilience4j"
	"ratelab/products/snippet"
	"ratelab/products/spring"
	"ratelab/products/traefik"
	"ratelab/products/xtimerate"
)

// The bounds of a scenario's lanes (as package scenarios has them, which
// cannot be imported here: it imports this package), and the size of the
// zones an nginx export writes: 10 MiB, about 160,000 keys.
const (
	MaxLanes       = nginx.MaxLanes
	MaxNameLen     = nginx.MaxNameLen
	ExportZoneSize = 10 << 20
)

// Product is a product ratelab reads and writes, and what its words mean.
type Product struct {
	// Name is how commands name it: "nginx", "x-time-rate".
	Name string
	// Title names its configuration in a scenario's title.
	Title string
	// Rate and Burst say what its configuration's rate and burst mean.
	Rate, Burst string
	// Lanes says which lanes model it, and how exactly.
	Lanes string
	// OneForAll says its limit is one allowance for every request it sees
	// (Envoy's local limit), not one a client.
	OneForAll bool

	// What, Keys and Part word an imported scenario's about: what was
	// read ("The limit_req rules of"), what a request's key stands for,
	// and what one of a lane's policies is ("zone").
	What, Keys, Part string
	// None says that a configuration held nothing to read.
	None string
	// Detect reports whether a text is its configuration.
	Detect func(text []byte) bool
	// Read reads a configuration: from path when it names a file (which
	// may include others), else from text alone. It makes at most
	// MaxLanes lanes, naming the rest in left.
	Read func(path string, text []byte) (lanes []Lane, left []string, err error)
	// Nearest is the product's policy nearest to p on the safe side, and
	// what differs.
	Nearest func(p algorithms.Policy) (algorithms.Policy, []string, error)
	// Write is a lane's layers (each nearest's) as the configuration.
	Write func(name string, layers []algorithms.Layer) (string, error)
}

// Lane is a configuration's rules as one lane: its name, where it came
// from, its policies, and what it models otherwise.
type Lane struct {
	Name   string
	From   string
	Layers []algorithms.Layer
	Notes  []string
}

// Products are the products import and export know, in the order the
// documentation lists them.
var Products = []*Product{
	{
		Name:  "nginx",
		Title: "nginx limit_req",
		Rate:  "`rate=` in `limit_req_zone`: requests a second (`r/s`) or a minute (`r/m`), kept in thousandths a second, truncated",
		Burst: "`burst=` in `limit_req`: requests beyond the first; `burst=N` admits N + 1 at once, delayed at the rate unless `nodelay` (or past `delay=`)",
		Lanes: "`nginx-limit-req`, nginx's integer arithmetic and millisecond clock; several `limit_req` as a stack; checked against real nginx",
		What:  "The limit_req rules of", Part: "zone",
		Keys: "A request's key stands for the client address ($binary_remote_addr).",
		None: "no server or location has a limit_req in force",
		Detect: func(text []byte) bool {
			return bytes.Contains(text, []byte("limit_req"))
		},
		Read:    readNginx,
		Nearest: nginx.Nearest,
		Write: func(name string, layers []algorithms.Layer) (string, error) {
			return nginx.Write(name, layers, ExportZoneSize)
		},
	},
	{
		Name:  "x-time-rate",
		Title: "golang.org/x/time/rate",
		Rate:  "`r` in `rate.NewLimiter(r, b)`: tokens a second, a float64 (`rate.Every(d)` is one per d)",
		Burst: "`b`: the bucket's size, which starts full; `b` at once, and no request larger than `b`",
		Lanes: "`x-time-rate` (Allow) and `x-time-rate-reserve` (Wait, Reserve): the real library, a limiter a key",
		What:  "The rate.NewLimiter calls of", Part: "limiter",
		Keys: "Each lane is one limiter a request key, as a map of limiters by client would be.",
		None: "no rate.NewLimiter call",
		Detect: func(text []byte) bool {
			return bytes.Contains(text, []byte(xtimerate.Constructor+"("))
		},
		Read:    readSnippet("x-time-rate", xtimerate.Read, false),
		Nearest: xtimerate.Nearest,
		Write:   writeOne(xtimerate.Write),
	},
	{
		Name:  "redis-cell",
		Title: "redis-cell",
		Rate:  "`count period` in `CL.THROTTLE key max_burst count period`: count requests every period whole seconds",
		Burst: "`max_burst`: requests beyond the first; `max_burst` N admits N + 1 at once",
		Lanes: "`redis-cell`, its GCRA in its own integer arithmetic, in memory or in a real Redis",
		What:  "The CL.THROTTLE commands of", Part: "command",
		Keys: "Each lane keeps a state a request key, as CL.THROTTLE's key would by client.",
		None: "no CL.THROTTLE command",
		Detect: func(text []byte) bool {
			return bytes.Contains(bytes.ToUpper(text), []byte("CL.THROTTLE"))
		},
		Read:    readSnippet("redis-cell", rediscell.Read, false),
		Nearest: rediscell.Nearest,
		Write:   writeOne(rediscell.Write),
	},
	{
		Name:  "guava",
		Title: "Guava RateLimiter",
		Rate:  "`permitsPerSecond` in `RateLimiter.create(permitsPerSecond)`, a double",
		Burst: "none to set: it stores up to one second of unused permits, starting with none; `acquire` always grants and makes the next caller wait",
		Lanes: "`guava` (acquire), `guava-try` (tryAcquire, its timeout) and `guava-warmup` (a warm-up period): Guava's double arithmetic on a microsecond stopwatch; checked against real Guava",
		What:  "The RateLimiter.create calls of", Part: "limiter",
		Keys: "Each lane is one RateLimiter a request key, as a map of limiters by client would be.",
		None: "no RateLimiter.create call",
		Detect: func(text []byte) bool {
			return bytes.Contains(text, []byte(guava.Constructor+"("))
		},
		Read:    readSnippet("guava", guava.Read, false),
		Nearest: guava.Nearest,
		Write:   writeOne(guava.Write),
	},
	{
		Name:  "redis-rate",
		Title: "go-redis/redis_rate",
		Rate:  "`Rate` every `Period` in `redis_rate.Limit` (`PerSecond(n)`: n a second)",
		Burst: "`Burst`: how many at once; `PerSecond(n)` and the like set it to n",
		Lanes: "`redis-rate`, its GCRA decided exactly (the script's double seconds differ only at microsecond boundaries)",
		What:  "The redis_rate limits of", Part: "limit",
		Keys: "Each lane keeps a state a request key, as Allow's key would by client.",
		None: "no redis_rate limit",
		Detect: func(text []byte) bool {
			return bytes.Contains(text, []byte(redisrate.Marker))
		},
		Read:    readSnippet("redis-rate", redisrate.Read, false),
		Nearest: redisrate.Nearest,
		Write:   writeOne(redisrate.Write),
	},
	{
		Name:  "envoy",
		Title: "Envoy local rate limit",
		Rate:  "`tokens_per_fill` every `fill_interval` in `token_bucket` (continuously since 1.31, in lumps on a timer before)",
		Burst: "`max_tokens`: the bucket's size, which starts full; `max_tokens` at once",
		Lanes: "`envoy-local` (`timer: true` for Envoy before 1.31): one bucket for every request the filter sees",
		What:  "The local rate limit token buckets of", Part: "bucket", OneForAll: true,
		Keys: "Each lane is one bucket for every request, as Envoy's local limit is for all the requests one Envoy's filter sees.",
		None: "no local rate limit token_bucket",
		Detect: func(text []byte) bool {
			return bytes.Contains(text, []byte(envoy.Marker)) && bytes.Contains(text, []byte("max_tokens"))
		},
		Read:    readSnippet("envoy", envoy.Read, true),
		Nearest: envoy.Nearest,
		Write:   writeOne(envoy.Write),
	},
	{
		Name:  "traefik",
		Title: "Traefik rateLimit",
		Rate:  "`average` requests every `period` (1s if not set): `average: 6, period: 1m` is one every 10s, not 6 at once",
		Burst: "`burst`: the bucket's size (at least 1); a request over it waits up to half an interval, 1s ÷ (2 × ⌊rate⌋) or 0.5s below one a second, and is refused with 429 beyond",
		Lanes: "`x-time-rate-reserve` with `max_wait` Traefik's maxDelay: Traefik runs x/time/rate's Reserve, a limiter a client IP",
		What:  "The rateLimit middlewares of", Part: "middleware",
		Keys: "Each lane keeps a bucket a request key, as Traefik does by client IP.",
		None: "no rateLimit middleware",
		Detect: func(text []byte) bool {
			low := bytes.ToLower(text)
			return bytes.Contains(low, []byte(traefik.Marker)) && bytes.Contains(low, []byte("average"))
		},
		Read:    readSnippet("traefik", traefik.Read, false),
		Nearest: traefik.Nearest,
		Write:   writeOne(traefik.Write),
	},
	{
		Name:  "kong",
		Title: "Kong rate-limiting",
		Rate:  "`config.second`, `minute`, `hour`, `day` (`month`, `year`): a count in each clock-aligned window, all applied together",
		Burst: "none: a window admits its whole count at once, the second's count bounding a burst when it is set",
		Lanes: "a stack of `fixed-window` policies, one a period (up to four); `policy: local` counts on each node",
		What:  "The rate-limiting plugins of", Part: "window",
		Keys: "Each lane counts a request key, as Kong does by consumer or by IP.",
		None: "no rate-limiting plugin",
		Detect: func(text []byte) bool {
			return bytes.Contains(text, []byte(kong.Marker)) || bytes.Contains(text, []byte("config.minute=")) || bytes.Contains(text, []byte("config.second="))
		},
		Read:    readSnippet("kong", kong.Read, false),
		Nearest: kong.Nearest,
		Write:   kong.Write,
	},
	{
		Name:  "aws",
		Title: "API Gateway throttling",
		Rate:  "`RateLimit` (`rateLimit`, `rate_limit`, `ThrottlingRateLimit`): requests a second, a decimal",
		Burst: "`BurstLimit`: the bucket's size; `BurstLimit` at once",
		Lanes: "`token-bucket`, exact: AWS documents a token bucket but not its arithmetic",
		What:  "The throttling settings of", Part: "throttle",
		Keys: "Each lane keeps a bucket a request key, as a usage plan does for each API key.",
		None: "no throttling settings",
		Detect: func(text []byte) bool {
			low := bytes.ToLower(text)
			return bytes.Contains(low, []byte(aws.Markers[0])) || bytes.Contains(low, []byte(aws.Markers[1]))
		},
		Read:    readSnippet("aws", aws.Read, false),
		Nearest: aws.Nearest,
		Write:   writeOne(aws.Write),
	},
	{
		Name:  "bucket4j",
		Title: "Bucket4j",
		Rate:  "a refill's tokens every period: `refillGreedy` adds them continuously, `refillIntervally` all at once every period",
		Burst: "`capacity`: the bucket's size, full at the start unless `initialTokens`; several `addLimit` apply together",
		Lanes: "`token-bucket` (greedy) and `interval-bucket` (intervally, every period from a key's first request); several bandwidths as a stack",
		What:  "The Bucket4j bandwidths of", Part: "bandwidth",
		Keys: "Each lane keeps a bucket a request key, as a map of buckets by client would.",
		None: "no bandwidth",
		Detect: func(text []byte) bool {
			return bytes.Contains(text, []byte(bucket4j.Marker))
		},
		Read:    readSnippet("bucket4j", bucket4j.Read, false),
		Nearest: bucket4j.Nearest,
		Write:   bucket4j.Write,
	},
	{
		Name:  "spring",
		Title: "Spring Cloud Gateway RequestRateLimiter",
		Rate:  "`replenishRate`: whole tokens a second, added at once each time Redis' clock turns a second",
		Burst: "`burstCapacity`: the bucket's size, full at the start; `requestedTokens` is what a request costs",
		Lanes: "`envoy-local` with `timer: true` (a fill of `replenishRate` every second from 0s): the same arithmetic as its Lua script on Redis' whole-second TIME",
		What:  "The RedisRateLimiters of", Part: "limiter",
		Keys: "Each lane keeps a bucket a request key, as the KeyResolver's key (by default the user) does.",
		None: "no RedisRateLimiter",
		Detect: func(text []byte) bool {
			return bytes.Contains(bytes.ToLower(text), []byte(spring.Marker))
		},
		Read:    readSnippet("spring", spring.Read, false),
		Nearest: spring.Nearest,
		Write:   writeOne(spring.Write),
	},
	{
		Name:  "express",
		Title: "express-rate-limit",
		Rate:  "`limit` (`max`) requests in `windowMs` milliseconds, counted from each client's first request (defaults 5 a minute)",
		Burst: "none: the window's whole `limit` at once; refused requests count too",
		Lanes: "`first-hit-window`, its MemoryStore's rule (as Redis' INCR with EXPIRE NX)",
		What:  "The rateLimit calls of", Part: "limiter",
		Keys: "Each lane counts a request key, as the MemoryStore does by client IP.",
		None: "no rateLimit call",
		Detect: func(text []byte) bool {
			return bytes.Contains(text, []byte(express.Marker)) && (bytes.Contains(text, []byte("windowMs")) || bytes.Contains(text, []byte("limit:")) || bytes.Contains(text, []byte("max:")))
		},
		Read:    readSnippet("express", express.Read, false),
		Nearest: express.Nearest,
		Write:   writeOne(express.Write),
	},
	{
		Name:  "resilience4j",
		Title: "resilience4j RateLimiter",
		Rate:  "`limitForPeriod` permissions every `limitRefreshPeriod` cycle, counted from the limiter's making (defaults 50 every 500ns)",
		Burst: "none: a cycle's permissions at once; a caller waits up to `timeoutDuration` (default 5s) for a later cycle's, reserving it",
		Lanes: "`resilience4j`, AtomicRateLimiter's rule in long nanoseconds",
		What:  "The RateLimiterConfigs of", Part: "limiter",
		Keys: "Each lane keeps a limiter a request key; a limiter every caller shares is a lane whose traffic has one key.",
		None: "no RateLimiterConfig",
		Detect: func(text []byte) bool {
			for _, m := range resilience4j.Markers {
				if bytes.Contains(text, []byte(m)) {
					return true
				}
			}
			return false
		},
		Read:    readSnippet("resilience4j", resilience4j.Read, false),
		Nearest: resilience4j.Nearest,
		Write:   writeOne(resilience4j.Write),
	},
}

// Lookup is the product called name, or nil.
func Lookup(name string) *Product {
	for _, p := range Products {
		if p.Name == name {
			return p
		}
	}
	return nil
}

// Names are the products' names.
func Names() []string {
	var out []string
	for _, p := range Products {
		out = append(out, p.Name)
	}
	return out
}

// Guess is the product whose configuration text is, nil if none or
// several could be.
func Guess(text []byte) *Product {
	var found *Product
	for _, p := range Products {
		if p.Detect(text) {
			if found != nil {
				return nil
			}
			found = p
		}
	}
	return found
}

// ReadText reads a configuration given as text alone, as explain and a
// scenario's config lane do; nginx's may be a fragment without its http
// block (its directives are then read as the http block's), keeping its
// lines where they were.
func (p *Product) ReadText(text string) ([]Lane, []string, error) {
	if p.Name == "nginx" && !httpBlock.MatchString(text) {
		text = "http { " + text + "\n}"
	}
	return p.Read("", []byte(text))
}

// httpBlock finds an nginx.conf's http block.
var httpBlock = regexp.MustCompile(`(^|[\s;{}])http\s*\{`)

// snippetLine is how the readers of code and settings begin a refusal
// that names a line of the text.
var snippetLine = regexp.MustCompile(`^line ([0-9]+): `)

// Refusal is a reader's refusal of a text: the line of the text it names
// (1-based; 0 when it names none) and its reason without that line.
func Refusal(err error) (line int, reason string) {
	var ne *nginx.Error
	if errors.As(err, &ne) {
		return ne.Pos.Line, ne.Msg
	}
	msg := err.Error()
	if m := snippetLine.FindStringSubmatch(msg); m != nil {
		if n, err := strconv.Atoi(m[1]); err == nil {
			return n, msg[len(m[0]):]
		}
	}
	return 0, strings.TrimPrefix(msg, ": ")
}

// readNginx reads an nginx.conf (with its includes when path is set).
func readNginx(path string, text []byte) ([]Lane, []string, error) {
	var cfg *nginx.Config
	var err error
	if path == "" {
		cfg, err = nginx.Parse("stdin", text)
	} else {
		cfg, err = nginx.ReadFile(path)
	}
	if err != nil {
		return nil, nil, err
	}
	ls, left, err := cfg.Lanes()
	if err != nil {
		return nil, nil, err
	}
	var out []Lane
	for _, l := range ls {
		var places []string
		for _, p := range l.Places {
			places = append(places, fmt.Sprintf("%s (%s)", p.Name(), p.Pos))
		}
		out = append(out, Lane{Name: l.Name, From: strings.Join(places, "; "), Layers: l.Layers, Notes: l.Notes})
	}
	return out, left, nil
}

// readSnippet reads the limiters a library's constructor calls make in a
// piece of code, a lane each, one per request key.
func readSnippet(product string, read func(string) ([]snippet.Found, error), oneForAll bool) func(string, []byte) ([]Lane, []string, error) {
	return func(path string, text []byte) ([]Lane, []string, error) {
		fs, err := read(string(text))
		if err != nil {
			if path != "" {
				err = fmt.Errorf("%s: %w", path, err)
			}
			return nil, nil, err
		}
		var out []Lane
		var left []string
		for i, f := range fs {
			name := slug(f.Var)
			if name == "" {
				name = fmt.Sprintf("%s-%d", product, i+1)
			}
			if len(name) > MaxNameLen {
				name = strings.TrimRight(name[:MaxNameLen], "-")
			}
			from := fmt.Sprintf("line %d", f.Line)
			if f.Where != "" {
				from = f.Where
			}
			if f.Var != "" {
				from = f.Var + ", " + from
			}
			if len(out) == MaxLanes {
				left = append(left, from)
				continue
			}
			layers := f.Layers
			if layers == nil {
				layers = []algorithms.Layer{{Name: product, Policy: f.Policy}}
			}
			for i := range layers {
				layers[i].AllKeys = oneForAll
			}
			out = append(out, Lane{Name: name, From: from, Layers: layers, Notes: f.Notes})
		}
		return out, left, nil
	}
}

// writeOne is a writer of a product that has one policy a lane: a stack
// of several is refused, and one over all keys becomes one limiter.
func writeOne(write func(name string, p algorithms.Policy) (string, error)) func(string, []algorithms.Layer) (string, error) {
	return func(name string, layers []algorithms.Layer) (string, error) {
		if len(layers) != 1 {
			return "", fmt.Errorf("lane %s applies %d policies together, and one limiter applies one", name, len(layers))
		}
		return write(name, layers[0].Policy)
	}
}

// slug is s in lower-case letters, digits and single dashes, a lane name
// ("apiLimiter" gives api-limiter).
func slug(s string) string {
	var b strings.Builder
	dash := false
	for i, r := range s {
		switch {
		case r >= 'A' && r <= 'Z':
			if i > 0 && b.Len() > 0 {
				dash = true
			}
			r += 'a' - 'A'
		case r >= 'a' && r <= 'z' || r >= '0' && r <= '9':
		default:
			dash = true
			continue
		}
		if dash && b.Len() > 0 {
			b.WriteByte('-')
		}
		b.WriteRune(r)
		dash = false
	}
	return b.String()
}
