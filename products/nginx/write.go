package nginx

import (
	"fmt"
	"math/bits"
	"strconv"
	"strings"
	"time"

	"ratelab/algorithms"
	"ratelab/products/bucket"
)

// Write is the nginx configuration of a lane's layers (each an
// nginx-limit-req policy: see Nearest): a limit_req_zone for each in an
// http block, and a server whose location / applies them in order, with
// their limit_req_status. A layer over all keys is keyed by $server_name,
// one for each client by $binary_remote_addr. A layer's zone is its
// policy's size, or zoneSize for a policy without one (nginx needs a
// size: read back, a layer keyed by client then has that zone); name
// prefixes the zones' names. A dry_run policy writes
// limit_req_dry_run on, which is the location's: every layer has it or
// none. The text is a whole configuration nginx -t takes once an events
// block is added; ratelab import reads it back to the same layers.
func Write(name string, layers []algorithms.Layer, zoneSize int64) (string, error) {
	if len(layers) == 0 {
		return "", fmt.Errorf("no policy to write")
	}
	status := int64(0)
	for i, l := range layers {
		if l.Policy.Algorithm != algorithms.NginxLimitReq {
			return "", fmt.Errorf("policy %s is %s, not nginx-limit-req: take Nearest first", l.Name, l.Policy.Algorithm)
		}
		if err := l.Policy.Validate(); err != nil {
			return "", fmt.Errorf("policy %s: %w", l.Name, err)
		}
		if i > 0 && l.Policy.Status != status {
			return "", fmt.Errorf("policies %s and %s answer with different statuses, and a location has one limit_req_status", layers[0].Name, l.Name)
		}
		if l.Policy.DryRun != layers[0].Policy.DryRun {
			return "", fmt.Errorf("policies %s and %s differ in dry_run, and a location has one limit_req_dry_run", layers[0].Name, l.Name)
		}
		status = l.Policy.Status
	}
	var b strings.Builder
	fmt.Fprintf(&b, "# %s: ratelab's lane as nginx's limit_req. The zones belong in your\n# http block, the limit_req lines in the location they limit.\nhttp {\n", name)
	zones := make([]string, len(layers))
	for i, l := range layers {
		zones[i] = zoneName(name, l.Name, i, len(layers))
		key := "$binary_remote_addr"
		if l.AllKeys {
			key = "$server_name"
		}
		size := zoneSize
		if l.Policy.Zone != 0 {
			size = l.Policy.Zone
		}
		fmt.Fprintf(&b, "    limit_req_zone %s zone=%s:%s rate=%s;\n", key, zones[i], algorithms.FormatSize(size), rateText(l.Policy.Rate))
	}
	b.WriteString("    server {\n        location / {\n")
	for i, l := range layers {
		fmt.Fprintf(&b, "            limit_req zone=%s", zones[i])
		if l.Policy.Burst > 0 {
			fmt.Fprintf(&b, " burst=%d", l.Policy.Burst)
		}
		switch {
		case l.Policy.NoDelay:
			b.WriteString(" nodelay")
		case l.Policy.Delay > 0:
			fmt.Fprintf(&b, " delay=%d", l.Policy.Delay)
		}
		b.WriteString(";\n")
	}
	if status != 0 {
		fmt.Fprintf(&b, "            limit_req_status %d;\n", status)
	}
	if layers[0].Policy.DryRun {
		b.WriteString("            limit_req_dry_run on;\n")
	}
	b.WriteString("        }\n    }\n}\n")
	return b.String(), nil
}

// zoneName is a layer's zone: the lane's name, and the layer's when the
// lane has several.
func zoneName(lane, layer string, i, n int) string {
	if n == 1 {
		return lane
	}
	if s := slug(layer); s != "" {
		return lane + "-" + s
	}
	return lane + "-" + strconv.Itoa(i+1)
}

// rateText is a rate as limit_req_zone writes it: Nr/s or Nr/m.
func rateText(r algorithms.Rate) string {
	if r.Per == time.Minute {
		return strconv.FormatInt(r.N, 10) + "r/m"
	}
	return strconv.FormatInt(r.N, 10) + "r/s"
}

// Nearest is the nginx-limit-req policy nearest to p on the safe side:
// never a larger burst nor a faster rate than p allows (p as a bucket:
// package bucket), with the differences that remain in words (nothing for
// an nginx policy, which is itself). nginx takes a whole number of
// requests a second or a minute, and delays a burst unless nodelay.
func Nearest(p algorithms.Policy) (algorithms.Policy, []string, error) {
	if p.Algorithm == algorithms.NginxLimitReq {
		return p, nil, p.Validate()
	}
	b, differs, err := bucket.Of(p, "nginx")
	if err != nil {
		return algorithms.Policy{}, nil, err
	}
	n, ok := nginxRate(b.Rate)
	if !ok {
		return algorithms.Policy{}, nil, fmt.Errorf("rate %s is slower than nginx's slowest, 1r/m", b.Rate)
	}
	if !sameRate(n, b.Rate) {
		differs = append(differs, fmt.Sprintf("nginx takes a whole number of requests a second or a minute: %s for %s", rateText(n), b.Rate))
	}
	q := algorithms.Policy{Algorithm: algorithms.NginxLimitReq, Rate: n, Burst: max(b.Size-1, 0), NoDelay: !b.Delays}
	if b.Delays {
		differs = append(differs, "nginx delays the burst at its rate, without nodelay")
	}
	if err := q.Validate(); err != nil {
		return algorithms.Policy{}, nil, fmt.Errorf("no nginx policy comes near %s: %v", p, err)
	}
	return q, differs, nil
}

// nginxRate is the fastest rate nginx can write that is no faster than r:
// r itself when a whole number a second or a minute; false when r is slower
// than 1r/m.
func nginxRate(r algorithms.Rate) (algorithms.Rate, bool) {
	if (r.N*int64(time.Second))%int64(r.Per) == 0 {
		return algorithms.Rate{N: r.N * int64(time.Second) / int64(r.Per), Per: time.Second}, true
	}
	hi, lo := bits.Mul64(uint64(r.N), uint64(time.Minute))
	if hi >= uint64(r.Per) {
		return algorithms.Rate{}, false // beyond any count: not a rate nginx takes either
	}
	q, _ := bits.Div64(hi, lo, uint64(r.Per)) // floor: the safe side
	if q >= 1<<62 {
		return algorithms.Rate{}, false
	}
	perMin := int64(q)
	if perMin < 1 {
		return algorithms.Rate{}, false
	}
	if perMin%60 == 0 {
		return algorithms.Rate{N: perMin / 60, Per: time.Second}, true
	}
	return algorithms.Rate{N: perMin, Per: time.Minute}, true
}

// sameRate reports whether a and b are one rate however written (120/min
// and 2/s).
func sameRate(a, b algorithms.Rate) bool {
	h1, l1 := bits.Mul64(uint64(a.N), uint64(b.Per))
	h2, l2 := bits.Mul64(uint64(b.N), uint64(a.Per))
	return h1 == h2 && l1 == l2
}
