package main

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"

	"github.com/graphrag-global/graphrag-global/shared/globalsearch"
	"github.com/graphrag-global/graphrag-global/shared/indexfile"
)

// rebuild is what a re-build of a synthetic index (--summaries) does to
// it, as the flags of gen ask (docs/cache-and-standing.md measures with it).
type rebuild struct {
	changed, added, removed int
	renumber                bool
}

func (r rebuild) any() bool { return r.changed > 0 || r.added > 0 || r.removed > 0 || r.renumber }

// apply rewrites r.changed leaf summaries spread over the index (each
// replaced by another text of its size, its claims kept, as a re-written
// report over the same evidence), removes r.removed leaves with their
// claims, adds r.added leaves of two claims each over existing chunks, and
// with r.renumber deals the community ids out anew, each level's the same
// set of ids, as a new Leiden run numbers its communities again. Claim and
// chunk ids stay: GraphRAG names chunks by a hash of their text, and the
// order of a leaf's claims is by id (docs/contract.md#map-text).
func (r rebuild) apply(f indexfile.File) indexfile.File {
	var leaves, roots []globalsearch.Summary
	for _, s := range f.Summaries {
		if s.Level == 0 {
			roots = append(roots, s)
		} else {
			leaves = append(leaves, s)
		}
	}
	n := len(leaves)
	gone := map[string]bool{}
	for k := range r.removed {
		gone[leaves[(k*7919+n/2)%n].ID] = true
	}
	for k := range r.changed {
		i := (k*n/max(1, r.changed) + 37) % n
		leaves[i].Summary = "Revised report. " + synthText(i+n+k, len(leaves[i].Summary)-16)
	}
	leaves = slices.DeleteFunc(leaves, func(s globalsearch.Summary) bool { return gone[s.ID] })
	f.Claims = slices.DeleteFunc(f.Claims, func(c globalsearch.Claim) bool { return gone[c.CommunityID] })
	for k := range r.added {
		id := fmt.Sprintf("leaf-new-%d", k)
		leaves = append(leaves, sum(id, 1, roots[k%len(roots)].ID, "New community", "A community found in new documents. "+synthText(n+3*k, 430)))
		for c := range 2 {
			f.Claims = append(f.Claims, globalsearch.Claim{ID: fmt.Sprintf("claim-new-%d-%d", k, c), CommunityID: id,
				Subject: fmt.Sprintf("Entity %d", k), Object: fmt.Sprintf("Entity %d", 500+k), Description: synthText(n+7*k+c, 150),
				SourceChunkIDs: []string{f.Chunks[(k*131+c)%len(f.Chunks)].ID}})
		}
	}
	if r.renumber {
		renumber(roots, leaves, f.Claims)
	}
	f.Summaries = append(roots, leaves...)
	return f
}

// renumber gives the roots and the leaves the ids of their levels dealt in
// a fixed random order: root-0000... and leaf-00000... as the index had
// them, each now another community's.
func renumber(roots, leaves []globalsearch.Summary, claims []globalsearch.Claim) {
	rng := rand.New(rand.NewPCG(7, 11))
	rootIDs := map[string]string{}
	for i, k := range rng.Perm(len(roots)) {
		rootIDs[roots[i].ID] = fmt.Sprintf("root-%04d", k)
		roots[i].ID = rootIDs[roots[i].ID]
	}
	leafIDs := map[string]string{}
	for i, k := range rng.Perm(len(leaves)) {
		leafIDs[leaves[i].ID] = fmt.Sprintf("leaf-%05d", k)
		leaves[i].ID, leaves[i].ParentCommunityID = leafIDs[leaves[i].ID], rootIDs[leaves[i].ParentCommunityID]
	}
	for i := range claims {
		claims[i].CommunityID = leafIDs[claims[i].CommunityID]
	}
}

// synthText is a text of about size bytes from the synthetic index's
// sentence material, the seed choosing where it starts.
func synthText(seed, size int) string {
	pool := slices.Concat(events, workforce, environment, community, more, energy, themes, policy, tradeNotes)
	var b strings.Builder
	for i := 0; b.Len() < size; i++ {
		b.WriteString(pool[(seed*11+i*17)%len(pool)])
		b.WriteByte(' ')
	}
	return strings.TrimSpace(b.String())
}
