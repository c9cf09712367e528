package globalsearch_test

import (
	"testing"

	"github.com/stretchr/testify/assert"

	gs "github.com/graphrag-global/graphrag-global/shared/globalsearch"
)

func TestPlural(t *testing.T) {
	tests := []struct {
		n    int
		want string
	}{{0, "0 batches"}, {1, "1 batch"}, {2, "2 batches"}, {-1, "-1 batches"}}
	for _, tc := range tests {
		assert.Equal(t, tc.want, gs.Plural(tc.n, "batch", "batches"))
	}
}
