package main

import (
	"fmt"
	"io"

	"github.com/graphrag-global/graphrag-global/shared/globalsearch"
)

// printAutoLevel shows the ladder of communityLevel "auto", finest first,
// and the rung it chose.
func printAutoLevel(w io.Writer, choice *globalsearch.LevelChoice) {
	if choice == nil {
		return
	}
	fmt.Fprintf(w, "level auto under %d map input tokens: level %s\n", choice.MaxMapInputTokens, choice.LevelUsed)
	for _, r := range choice.Ladder {
		mark := " "
		if r.Level == choice.LevelUsed {
			mark = "*"
		}
		what := "every leaf"
		if r.Level != globalsearch.LeafLevel {
			what = fmt.Sprintf("level %s and the leaves above it", r.Level)
		}
		fmt.Fprintf(w, " %s %-5s %s, %d tokens (%s)\n", mark, r.Level, count(r.Summaries, "summary", "summaries"), r.MapInputTokens, what)
	}
}
