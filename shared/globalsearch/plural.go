package globalsearch

import "fmt"

// Plural is n with its noun, singular for one ("1 batch", "2 batches"):
// the form of every count a message or the CLI's text output prints.
func Plural(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return fmt.Sprintf("%d %s", n, many)
}
