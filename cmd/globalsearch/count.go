package main

import (
	"fmt"

	"github.com/graphrag-global/graphrag-global/shared/cmdutil"
	"github.com/graphrag-global/graphrag-global/shared/globalsearch"
)

// count is globalsearch.Plural: "1 batch", "2 batches".
var count = globalsearch.Plural

// seedText is how the text output names the order of p's batches: the
// seed, that there was none (shuffle false records seed 0,
// docs/contract.md#request), or the seed of stable batching
// (docs/contract.md#stable-batching).
func seedText(seed int64, p globalsearch.Params) string {
	switch {
	case p.Batching == globalsearch.BatchingStable:
		return fmt.Sprintf("stable batching, seed %d", seed)
	case !p.Shuffle:
		return "no shuffle"
	}
	return fmt.Sprintf("seed %d", seed)
}

// terminalText and checkSomethingToSearch are cmdutil's and the domain's.
var (
	terminalText           = cmdutil.TerminalText
	checkSomethingToSearch = globalsearch.CheckSomethingToSearch
)
