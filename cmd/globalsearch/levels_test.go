package main

import (
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/graphrag-global/graphrag-global/shared/globalsearch"
)

// docs/contract.md#selection: the levels listed are the lowest
// MaxListedLevels, and a full list says so.
func TestLevelList(t *testing.T) {
	full := make([]int, globalsearch.MaxListedLevels)
	for i := range full {
		full[i] = i
	}
	assert.Equal(t, "[0 1]", levelList([]int{0, 1}))
	assert.True(t, strings.HasSuffix(levelList(full), fmt.Sprintf("%d] (the lowest %d)", globalsearch.MaxListedLevels-1, globalsearch.MaxListedLevels)))
}
