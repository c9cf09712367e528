package globalsearch

import (
	"fmt"
	"strings"
)

// EmptyNamespaceNote says plainly that a search found no data at all,
// which a no_results status alone does not; the CLI and the MCP server
// say it alike.
func EmptyNamespaceNote(namespace string, available []string) string {
	note := fmt.Sprintf("namespace %q holds no summaries", namespace)
	if len(available) > 0 {
		note += "; namespaces that exist: " + strings.Join(available, ", ")
	}
	return note
}

// LevelList prints the levels a search that selected nothing lists; a
// full list may be the lowest of many (docs/contract.md#selection).
func LevelList(levels []int) string {
	list := fmt.Sprint(levels)
	if len(levels) >= MaxListedLevels {
		list += fmt.Sprintf(" (the lowest %d)", len(levels))
	}
	return list
}
