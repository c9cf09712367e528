package main

import "fmt"

// count is n with its noun, singular for one: "1 batch", "2 batches".
func count(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return fmt.Sprintf("%d %s", n, many)
}

// seedText is how the text output names the shuffle: the seed, or that
// there was none (shuffle false records seed 0, docs/contract.md#request).
func seedText(seed int64, shuffled bool) string {
	if !shuffled {
		return "no shuffle"
	}
	return fmt.Sprintf("seed %d", seed)
}
