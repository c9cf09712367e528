package strictjson_test

import (
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/graphrag-global/graphrag-global/shared/strictjson"
)

// nested is depth objects, each the value of key "a" in its parent.
func nested(depth int) []byte {
	return []byte(strings.Repeat(`{"a":`, depth) + "1" + strings.Repeat("}", depth))
}

// BenchmarkCheckDeep measures what a deeply nested input costs; memory must
// not grow with the square of the depth (docs/contract.md#request).
func BenchmarkCheckDeep(b *testing.B) {
	for _, depth := range []int{1000, 5000, 50000} {
		data := nested(depth)
		b.Run(strconv.Itoa(depth), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				_ = strictjson.Check(data)
			}
		})
	}
}

// TestCheckCostDoesNotGrowWithDepth: Check stops at MaxDepth, so 50,000
// nested objects (300 KB) cost what 65 do. A path per level once made
// them cost 2.7 GB and 500,000 allocations.
func TestCheckCostDoesNotGrowWithDepth(t *testing.T) {
	shallow, deep := nested(strictjson.MaxDepth+1), nested(50_000)
	base := testing.AllocsPerRun(5, func() { _ = strictjson.Check(shallow) })
	got := testing.AllocsPerRun(5, func() { _ = strictjson.Check(deep) })
	assert.LessOrEqual(t, got, base+20, "allocations for 50,000 levels against %d", strictjson.MaxDepth+1)
}
