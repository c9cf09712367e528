package globalsearch_test

import (
	"testing"

	"github.com/stretchr/testify/assert"

	gs "github.com/graphrag-global/graphrag-global/shared/globalsearch"
)

// docs/contract.md#prompt-cache: reads cost a tenth of the input price,
// 5-minute writes 1.25 times it, 1-hour writes twice, unless the prices
// name their own multiples.
func TestUsageCostPricesTheCache(t *testing.T) {
	in := 0.003
	tests := []struct {
		name  string
		price gs.Price
		usage gs.StageUsage
		want  float64
	}{
		{"no cache", gs.Price{In: in}, gs.StageUsage{InputTokens: 1000}, in},
		{"reads", gs.Price{In: in}, gs.StageUsage{InputTokens: 1000, CacheReadInputTokens: 1000}, 0.1 * in},
		{"5m writes", gs.Price{In: in}, gs.StageUsage{InputTokens: 1000, CacheWriteInputTokens: 1000, PromptCache: "5m"}, 1.25 * in},
		{"1h writes", gs.Price{In: in}, gs.StageUsage{InputTokens: 1000, CacheWriteInputTokens: 1000, PromptCache: "1h"}, 2 * in},
		{"mixed", gs.Price{In: in}, gs.StageUsage{InputTokens: 3000, CacheReadInputTokens: 1000, CacheWriteInputTokens: 1000}, in + 0.1*in + 1.25*in},
		{"own multiples", gs.Price{In: in, CacheRead: 0.25, CacheWrite5m: 1}, gs.StageUsage{InputTokens: 2000, CacheReadInputTokens: 1000, CacheWriteInputTokens: 1000}, 0.25*in + in},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := gs.Prices{Map: tc.price}.UsageCost(tc.usage, gs.StageUsage{})
			assert.InDelta(t, tc.want, got.Map, 1e-12)
		})
	}
}
