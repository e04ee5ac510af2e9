package redisstore

import (
	"strings"
	"testing"
	"time"

	"ratelab/algorithms"
)

// TestNginxZoneRefused: a script decides one key's hash alone, so a zone,
// which frees one key for another, is refused; the same policy without a
// zone is taken.
func TestNginxZoneRefused(t *testing.T) {
	p := algorithms.Policy{Algorithm: algorithms.NginxLimitReq, Rate: algorithms.Rate{N: 10, Per: time.Second}, Burst: 5}
	if err := Check(p, time.Minute); err != nil {
		t.Fatalf("without a zone: %v", err)
	}
	p.Zone = 1 << 20
	if err := Check(p, time.Minute); err == nil || !strings.Contains(err.Error(), "keeps at most 8095 keys") {
		t.Errorf("with zone 1m: %v, want a refusal naming its 8095 keys", err)
	}
}
