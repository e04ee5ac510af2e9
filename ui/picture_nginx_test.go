package ui

import (
	"time"

	"ratelab/algorithms"
)

func init() {
	pictureCases = append(pictureCases,
		pictureCase{algorithms.NginxLimitReq, "{name: nginx, algorithm: nginx-limit-req, rate: 2r/s, burst: 10}", 1600 * time.Millisecond, "excess"},
	)
}
