package strictjson_test

import (
	"strconv"
	"strings"
	"testing"

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
