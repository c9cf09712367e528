package main

import (
	"fmt"
	"slices"
	"strings"

	"github.com/graphrag-global/graphrag-global/shared/globalsearch"
	"github.com/graphrag-global/graphrag-global/shared/indexfile"
)

// synthetic builds a large index from the sample's sentence material. Its
// texts vary from record to record (so no batch is a repeat of another)
// but need not read well: it measures, it is not searched.
func synthetic(leaves int) indexfile.File {
	f := indexfile.File{Namespace: "bench"}
	roots := max(1, leaves/50)
	pool := slices.Concat(events, workforce, environment, community, more, energy, themes, policy, tradeNotes)
	text := func(seed, size int) string {
		var b strings.Builder
		for i := 0; b.Len() < size; i++ {
			b.WriteString(pool[(seed*7+i*13)%len(pool)])
			b.WriteByte(' ')
		}
		return strings.TrimSpace(b.String())
	}
	for r := range roots {
		f.Summaries = append(f.Summaries, sum(fmt.Sprintf("root-%04d", r), 0, "", fmt.Sprintf("Theme %d", r), text(r, 600)))
	}
	chunks := max(1, leaves/2)
	for i := range chunks {
		f.Chunks = append(f.Chunks, ch(fmt.Sprintf("chunk-%05d", i), fmt.Sprintf("doc-%03d", i/50), text(i+3, 600)))
	}
	for l := range leaves {
		id := fmt.Sprintf("leaf-%05d", l)
		f.Summaries = append(f.Summaries, sum(id, 1, fmt.Sprintf("root-%04d", l%roots), fmt.Sprintf("Community %d", l), text(l+1, 450)))
		for k := range 2 {
			c := 2*l + k
			f.Claims = append(f.Claims, globalsearch.Claim{
				ID: fmt.Sprintf("claim-%05d", c), CommunityID: id, Subject: fmt.Sprintf("Entity %d", c%997),
				Object: fmt.Sprintf("Entity %d", (c*31)%997), Description: text(c+2, 150),
				SourceChunkIDs: []string{fmt.Sprintf("chunk-%05d", c%chunks)},
			})
		}
	}
	return f
}
