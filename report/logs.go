package report

import (
	"fmt"
	"io"

	"ratelab/scenarios"
)

// WriteLogs writes what each log a scenario replays held, then its first
// bad lines (file:line and why) and, when most lines were bad, the
// diagnosis, each wrapped at 80 columns:
//
//	log access.log: 2000 requests from 2004 lines (3 bad, 1 empty, 0 left
//	  out …); the log's times are whole seconds; …
//	  access.log:17: status "abc" is not a number
//
// Every result printed from a log names its times' resolution so.
func WriteLogs(w io.Writer, logs []*scenarios.LogTraffic) error {
	for _, l := range logs {
		st := l.Lines
		if _, err := io.WriteString(w, Wrapped("log ", l.Summary(), "  ")); err != nil {
			return err
		}
		for _, b := range l.Bad {
			if _, err := io.WriteString(w, Wrapped("  ", b.Error(), "    ")); err != nil {
				return err
			}
		}
		if st.Bad > int64(len(l.Bad)) && len(l.Bad) > 0 {
			if _, err := fmt.Fprintf(w, "  … and %s more bad lines\n", itoa(st.Bad-int64(len(l.Bad)))); err != nil {
				return err
			}
		}
		if l.Diagnosis != "" {
			if _, err := io.WriteString(w, Wrapped("  ", l.Diagnosis, "    ")); err != nil {
				return err
			}
		}
	}
	return nil
}
