package globalsearch

import (
	"fmt"
	"strings"
	"testing"
)

// BenchmarkNamespaceSeed is what seedPolicy "namespace" adds to a prepare
// of 10,000 summaries of 2,000 bytes (docs/contract.md#seed-policy): the
// digest of every summary and the seed.
func BenchmarkNamespaceSeed(b *testing.B) {
	text := strings.Repeat("Fishery output rose while prices fell. ", 52)[:2000]
	summaries := make([]Summary, 10000)
	for i := range summaries {
		summaries[i] = Summary{ID: fmt.Sprintf("c%05d", i), Level: 1, ParentCommunityID: "root", Summary: text}
	}
	p := Params{Namespace: "default", SeedPolicy: SeedPolicyNamespace, Shuffle: true}
	b.ReportAllocs()
	for b.Loop() {
		plan := Plan{Params: p}
		withNamespaceSeed(&plan, nil, summaries)
		if plan.Params.ShuffleSeed == 0 {
			b.Fatal("no seed derived")
		}
	}
}
