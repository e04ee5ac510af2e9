// Package docs is ratelab's user documentation: the Markdown files in this
// directory, which the README links to. The package holds no code a
// program uses; its tests keep the documentation true:
//
//   - the reference part of algorithms.md, between the markers
//     "<!-- generated: algorithms -->" and "<!-- end generated -->", is
//     generated from the algorithms' descriptions (algorithms.Algorithms,
//     algorithms.Describe), and TestAlgorithmsReference fails when the file
//     differs from what they generate; `go test ./docs -update` rewrites it;
//   - TestLinks checks that every relative link of the README and of these
//     files names a file that exists, and a heading that exists in it;
//   - TestSpeaksToAUser keeps the pages about using ratelab, not about how
//     it was made.
//
// The transcripts ("$ ratelab …" lines) and the example scenario files of
// these pages are run by the root package's tests (docs_test.go), which
// can call the command line itself.
package docs
