package cmdutil

import (
	"flag"
	"fmt"
	"strings"
)

// Hint is a flag error with what to do next: the flag meant, when a
// defined flag is close to the one given, and where the full list is.
func Hint(fs *flag.FlagSet, err error) string {
	msg := err.Error()
	see := "see " + Program + " " + fs.Name() + " -h"
	if name, ok := strings.CutPrefix(msg, "flag provided but not defined: -"); ok {
		var names []string
		fs.VisitAll(func(f *flag.Flag) { names = append(names, f.Name) })
		return fmt.Sprintf("%s (%s%s)", msg, DidYouMean(strings.TrimLeft(name, "-"), names, "--"), see)
	}
	return msg + " (" + see + ")"
}

// DidYouMean is "did you mean <prefix><name>? " for the name of names
// closest to given, or "" when none is close.
func DidYouMean(given string, names []string, prefix string) string {
	if near := nearest(given, names); near != "" {
		return "did you mean " + prefix + near + "? "
	}
	return ""
}

// nearest is the name closest to given: the only one given begins, else
// the nearest within two edits, provided the edits change less than half
// of given (so "-c" suggests nothing). Ties pick none.
func nearest(given string, names []string) string {
	var prefixed []string
	best, bestDist, tie := "", 3, false
	for _, name := range names {
		if strings.HasPrefix(name, given) {
			prefixed = append(prefixed, name)
		}
		switch d := editDistance(given, name); {
		case d < bestDist:
			best, bestDist, tie = name, d, false
		case d == bestDist:
			tie = true
		}
	}
	if len(prefixed) == 1 && given != "" {
		return prefixed[0]
	}
	if tie || best == "" || 2*bestDist >= len(given) {
		return ""
	}
	return best
}

// editDistance counts the insertions, deletions, substitutions and swaps
// of neighbours that turn a into b (optimal string alignment), so a
// transposed pair ("namsepace") is one edit.
func editDistance(a, b string) int {
	prev2, prev, cur := make([]int, len(b)+1), make([]int, len(b)+1), make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
			if i > 1 && j > 1 && a[i-1] == b[j-2] && a[i-2] == b[j-1] {
				cur[j] = min(cur[j], prev2[j-2]+1)
			}
		}
		prev2, prev, cur = prev, cur, prev2
	}
	return prev[len(b)]
}
