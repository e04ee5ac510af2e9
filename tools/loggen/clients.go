package main

import "strconv"

// The top talkers' fixed addresses. The light clients' addresses are
// built so that none of them is one of these (see appendClientAddr): a
// test, or a reader of the log, can count a top talker's lines by its
// address alone.
const (
	scraperAddr = "203.0.113.7"
	mobileAddr  = "2001:db8:85a3::8a2e:370:7334"
	batchAddr   = "10.20.0.5"
	healthAddr  = "10.0.0.2"
)

// docNets are the IPv4 documentation ranges (RFC 5737). The first
// 3×docHosts light clients live there, on hosts 10 to 249, which keeps
// the top talkers' hosts below 10 free.
var docNets = [3]string{"192.0.2.", "198.51.100.", "203.0.113."}

const docHosts = 240

// appendClientAddr appends light client c's address: the first few on
// the documentation ranges, then one in ten on IPv6's documentation
// prefix 2001:db8::/32 (with a third group from 0x1000 to 0x1fff, so
// never the mobile client's 85a3), the rest on 10.64.0.0/10 (never
// 10.0.x or 10.20.x, the health check's and the batch job's). Distinct
// clients get distinct addresses for the first four million or so.
func appendClientAddr(b []byte, c int, traits uint64) []byte {
	switch {
	case c < 3*docHosts:
		b = append(b, docNets[c%3]...)
		return strconv.AppendInt(b, int64(10+c/3), 10)
	case traits%10 == 0:
		b = append(b, "2001:db8:"...)
		b = strconv.AppendUint(b, uint64(0x1000|(c>>16)&0xfff), 16)
		b = append(b, ':')
		b = strconv.AppendUint(b, uint64(c&0xffff), 16)
		b = append(b, "::"...)
		return strconv.AppendUint(b, 1+(traits>>20)&0xfffe, 16)
	}
	b = append(b, "10."...)
	b = strconv.AppendInt(b, int64(64+c/(254*256)%64), 10)
	b = append(b, '.')
	b = strconv.AppendInt(b, int64(c/254%256), 10)
	b = append(b, '.')
	return strconv.AppendInt(b, int64(1+c%254), 10)
}

// An agent is a user agent and what follows from it: browsers send a
// referer and speak HTTP/2; scripts and apps send no referer.
type agent struct {
	name    string
	browser bool
}

// lightAgents are the light clients' user agents, repeated by how common
// they are.
var lightAgents = []agent{
	{"Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/129.0.0.0 Safari/537.36", true},
	{"Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/129.0.0.0 Safari/537.36", true},
	{"Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/129.0.0.0 Safari/537.36", true},
	{"Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.6 Safari/605.1.15", true},
	{"Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.6 Safari/605.1.15", true},
	{"Mozilla/5.0 (iPhone; CPU iPhone OS 17_6 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.6 Mobile/15E148 Safari/604.1", true},
	{"Mozilla/5.0 (iPhone; CPU iPhone OS 17_6 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.6 Mobile/15E148 Safari/604.1", true},
	{"Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/129.0.0.0 Mobile Safari/537.36", true},
	{"Mozilla/5.0 (X11; Linux x86_64; rv:131.0) Gecko/20100101 Firefox/131.0", true},
	{"Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/129.0.0.0 Safari/537.36 Edg/129.0.0.0", true},
	{"curl/8.5.0", false},
	{"python-requests/2.32.3", false},
	{"Go-http-client/1.1", false},
	{"okhttp/4.12.0", false},
	{"PostmanRuntime/7.42.0", false},
}

// The top talkers' and the odd lines' user agents.
const (
	scraperAgent = "Mozilla/5.0 (compatible; DataHarvester/2.1; +https://example.com/bot)"
	mobileAgent  = "ShopApp/4.12.0 (iPhone; iOS 17.6; Scale/3.00) Alamofire/5.9.1"
	batchAgent   = "python-requests/2.31.0"
	healthAgent  = "kube-probe/1.30"
	// quotedAgent is a user agent with a '"' and a '\' in it, which nginx
	// writes as \x22 and \x5C.
	quotedAgent = `Mozilla/5.0 (compatible; "Fetcher" \Beta/0.9)`
)

// apiKeys are the few keys the API is called with: the light clients
// share the first four, the scraper and the batch job have their own.
var apiKeys = [...]string{"k_live_7Hq2aXw9", "k_live_p9Lm3ZtQ", "k_test_c4Nv8RbE", "k_live_Bw5sJtYk"}

const (
	scraperKey = "k_live_S3rApEr0"
	batchKey   = "k_live_BaTcH042"
)

// searchTerms are what search is asked for, already as a query string
// carries them (spaces as '+', other bytes percent-encoded).
var searchTerms = [...]string{
	"shoes", "red+shoes", "laptop", "usb-c+cable", "caf%C3%A9", "coffee+grinder",
	"desk+lamp", "headphones", "gift+card", "running", "tent", "kindle",
}

// staticAssets are the site's files and their sizes in bytes.
var staticAssets = [...]struct {
	path string
	size int64
}{
	{"/static/js/app.3f9c1e.js", 184_312},
	{"/static/js/vendor.a81b44.js", 412_907},
	{"/static/css/main.77d2a0.css", 38_455},
	{"/static/img/logo.svg", 4_210},
	{"/static/img/hero.webp", 96_530},
	{"/static/fonts/inter-var.woff2", 71_120},
}

// probePaths are what vulnerability scanners ask every server for.
var probePaths = [...]string{"/wp-login.php", "/.env", "/admin.php", "/.git/config", "/phpmyadmin/index.php"}

// pageReferers are the pages a browser's requests come from.
var pageReferers = [...]string{
	"https://shop.example.com/",
	"https://shop.example.com/search",
	"https://shop.example.com/account",
	"https://shop.example.com/cart",
	"https://www.google.com/",
}
