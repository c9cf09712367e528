// Command gen writes testdata/sample-index.json: a fictional corpus about the
// archipelago nation of Veloria over the decade 2014-2024, written for this
// project. Every text is original; names of places, firms and people are
// invented. The one very long community report (the Port Calder chronicle)
// is assembled from per-year data and varied sentence material so that it
// exceeds the default map budget and gets split (docs/contract.md#batching); everything else
// is hand-written: the records in summaries.tsv, claims.tsv and chunks.tsv,
// the chronicle's material in chroniclebanks.go.
//
// Run from the repository root:
//
//	go run ./testdata/gen
//
// With --summaries N it writes instead a synthetic index of N leaf
// summaries under N/50 roots, two claims per leaf and one chunk per four
// claims, sized like a large real index (for N=10000 about 26 MB of JSON
// and 35 MB of map text); `make bench` plans one to measure the whole
// process. The same N always writes the same bytes.
//
//	go run ./testdata/gen --summaries 10000 --out /tmp/index-10k.json
package main

import (
	"flag"
	"log"

	"github.com/graphrag-global/graphrag-global/shared/indexfile"
)

func main() {
	n := flag.Int("summaries", 0, "write a synthetic index of this many leaf summaries instead of the sample")
	out := flag.String("out", "testdata/sample-index.json", "file to write")
	flag.Parse()
	f := indexfile.File{Namespace: "sample"}
	if *n > 0 {
		f = synthetic(*n)
	} else {
		f.Summaries = summaries()
		f.Claims = claims()
		f.Chunks = chunks()
	}
	if err := f.Records.Validate(); err != nil {
		log.Fatal(err)
	}
	if err := indexfile.Save(*out, f); err != nil {
		log.Fatal(err)
	}
}
