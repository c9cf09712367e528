package main

import (
	"fmt"

	"github.com/graphrag-global/graphrag-global/shared/globalsearch"
)

// count is globalsearch.Plural: "1 batch", "2 batches".
var count = globalsearch.Plural

// seedText is how the text output names the shuffle: the seed, or that
// there was none (shuffle false records seed 0, docs/contract.md#request).
func seedText(seed int64, shuffled bool) string {
	if !shuffled {
		return "no shuffle"
	}
	return fmt.Sprintf("seed %d", seed)
}
