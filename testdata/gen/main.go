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
//
// --changed, --added, --removed and --renumber write instead the same
// synthetic index as a re-build left it: that many leaf summaries
// rewritten, leaves added and removed, and the community ids dealt out
// anew (docs/cache-and-standing.md measures the cache with it):
//
//	go run ./testdata/gen --summaries 10000 --changed 100 --added 2 --removed 1 --renumber --out /tmp/index-10k-rebuilt.json
package main

import (
	"flag"
	"log"

	"github.com/graphrag-global/graphrag-global/shared/indexfile"
)

func main() {
	n := flag.Int("summaries", 0, "write a synthetic index of this many leaf summaries instead of the sample")
	out := flag.String("out", "testdata/sample-index.json", "file to write")
	var r rebuild
	flag.IntVar(&r.changed, "changed", 0, "with --summaries, rewrite this many leaf summaries, as a re-build")
	flag.IntVar(&r.added, "added", 0, "with --summaries, add this many leaves")
	flag.IntVar(&r.removed, "removed", 0, "with --summaries, remove this many leaves")
	flag.BoolVar(&r.renumber, "renumber", false, "with --summaries, deal the community ids out anew")
	flag.Parse()
	if r.any() && *n <= 0 {
		log.Fatal("--changed, --added, --removed and --renumber re-build a synthetic index: give --summaries")
	}
	f := indexfile.File{Namespace: "sample"}
	if *n > 0 {
		f = synthetic(*n)
		if r.any() {
			f = r.apply(f)
		}
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
