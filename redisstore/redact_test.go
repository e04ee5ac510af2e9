package redisstore

import (
	"net"
	"net/url"
	"strings"
	"testing"

	"github.com/alicebob/miniredis/v2"
)

// TestRedact: everything between :// and the last @ is hidden, the user's
// name too, whatever the password holds: an @ / ? # or : in it, %-encoded
// or not, in a cluster's URL or a server's.
func TestRedact(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"redis://:AAA@/SECRET@127.0.0.1:31002/0", "redis://xxxxx@127.0.0.1:31002/0"},
		{"redis://:AAA@?SECRET@127.0.0.1:31002/0", "redis://xxxxx@127.0.0.1:31002/0"},
		{"redis://:AAA@#SECRET@127.0.0.1:31002/0", "redis://xxxxx@127.0.0.1:31002/0"},
		{"redis://:AAA?SECRET@127.0.0.1:31002/0", "redis://xxxxx@127.0.0.1:31002/0"},
		{"redis://:AAA#SECRET@127.0.0.1:31002/0", "redis://xxxxx@127.0.0.1:31002/0"},
		{"redis://:s3cret:@/pw@127.0.0.1:6379/0", "redis://xxxxx@127.0.0.1:6379/0"},
		{"redis://:a@b@c@127.0.0.1:6379/0", "redis://xxxxx@127.0.0.1:6379/0"},
		{"redis://:pass:with:colons@127.0.0.1:6379/0", "redis://xxxxx@127.0.0.1:6379/0"},
		{"redis://:p%40ss%2Fw%3Fd%23@127.0.0.1:6379/0", "redis://xxxxx@127.0.0.1:6379/0"},
		{"redis://alice:s3cret@127.0.0.1:6379/0", "redis://xxxxx@127.0.0.1:6379/0"},
		{"redis://alice@127.0.0.1:6379/0", "redis://xxxxx@127.0.0.1:6379/0"},
		{"redis://:@127.0.0.1:6379/0", "redis://xxxxx@127.0.0.1:6379/0"},
		{"redis://127.0.0.1:6379/0", "redis://127.0.0.1:6379/0"},
		{"redis-cluster://:AAA@/SECRET@10.0.0.1:7000,10.0.0.2:7000", "redis-cluster://xxxxx@10.0.0.1:7000,10.0.0.2:7000"},
		{"redis-cluster://:AAA@?SECRET@10.0.0.1:7000,10.0.0.2:7000", "redis-cluster://xxxxx@10.0.0.1:7000,10.0.0.2:7000"},
		{"redis-cluster://bob:s3:cret@10.0.0.1:7000,10.0.0.2:7000", "redis-cluster://xxxxx@10.0.0.1:7000,10.0.0.2:7000"},
		{"redis-cluster://10.0.0.1:7000,10.0.0.2:7000", "redis-cluster://10.0.0.1:7000,10.0.0.2:7000"},
		{":SECRET@127.0.0.1:6379", "xxxxx@127.0.0.1:6379"},
		{"alice:se://cret@127.0.0.1:6379", "xxxxx@127.0.0.1:6379"}, // a "://" in the password is no scheme's
		{"no url at all", "no url at all"},
	} {
		if got := redact(c.in); got != c.want {
			t.Errorf("redact(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}

// TestOpenShowsNoPassword: no part of a password shows in Open's error, nor
// in Where (the explorer's header) for a store that opens, whatever the
// password holds, in the URL %-encoded or not.
func TestOpenShowsNoPassword(t *testing.T) {
	t.Setenv("REDIS_PASSWORD", "")
	refused := func() string { // a port nothing listens on
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		defer ln.Close()
		return ln.Addr().String()
	}()
	// A server that wants another password refuses at once, where a port
	// nothing listens on takes go-redis 0.4s of dialing again.
	locked := miniredis.RunT(t)
	locked.RequireAuth("another")
	// Each password's parts that must not show; 65000 is no port the
	// tests use (it would be the port url.Parse finds in
	// redis-cluster://:65000/SECRET@...).
	passwords := []struct {
		pw    string
		parts []string
	}{
		{"AAA@/SECRET", []string{"AAA", "SECRET"}},
		{"AAA@?SECRET", []string{"AAA", "SECRET"}},
		{"AAA@#SECRET", []string{"AAA", "SECRET"}},
		{"AAA?SECRET", []string{"AAA", "SECRET"}},
		{"AAA#SECRET", []string{"AAA", "SECRET"}},
		{"S3CRET:@/PWX", []string{"S3CRET", "PWX"}},
		{"65000/SECRET", []string{"65000", "SECRET"}},
		{"CO:LO:NS", []string{"CO:LO", "LO:NS"}},
		{"P@SS%ZQ9", []string{"P@SS", "ZQ9"}},
	}
	for _, p := range passwords {
		for _, scheme := range []string{"redis://", "redis-cluster://"} {
			for _, auth := range []string{":" + p.pw, "alice:" + p.pw, ":" + url.QueryEscape(p.pw), "alice:" + url.QueryEscape(p.pw)} {
				rests := []string{locked.Addr() + "/0", locked.Addr() + "/zero", locked.Addr() + "/0?db=1", "/0"}
				if p.pw == passwords[0].pw {
					rests = append(rests, refused+"/0")
				}
				for _, rest := range rests {
					if scheme == "redis-cluster://" {
						rest = strings.TrimSuffix(strings.TrimSuffix(rest, "/0"), "/zero")
					}
					u := scheme + auth + "@" + rest
					st, err := Open(u)
					if err == nil {
						st.Close()
						t.Errorf("%s: opened", u)
						continue
					}
					for _, part := range p.parts {
						if strings.Contains(err.Error(), part) {
							t.Errorf("%s: %q shows %q", u, err, part)
						}
					}
				}
			}
		}
	}
	// A server that wants the password: opened with it %-encoded, Where
	// shows none of it; with a wrong one, the error shows neither.
	for _, p := range passwords {
		mini := miniredis.RunT(t)
		mini.RequireUserAuth("alice", p.pw)
		good := "redis://alice:" + url.QueryEscape(p.pw) + "@" + mini.Addr() + "/0"
		st, err := Open(good)
		if err != nil {
			t.Errorf("%s: %v", good, err)
			continue
		}
		for _, part := range p.parts {
			if strings.Contains(st.Where(), part) {
				t.Errorf("%s: Where %q shows %q", good, st.Where(), part)
			}
		}
		st.Close()
		bad := "redis://alice:" + url.QueryEscape(p.pw+"x") + "@" + mini.Addr() + "/0"
		if _, err := Open(bad); err == nil || !strings.Contains(err.Error(), "give the password") {
			t.Errorf("%s: %v, want a refusal", bad, err)
		} else {
			for _, part := range p.parts {
				if strings.Contains(err.Error(), part) {
					t.Errorf("%s: %q shows %q", bad, err, part)
				}
			}
		}
	}
}
