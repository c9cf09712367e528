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

// NothingToSearch is the outcome of a search that found no summary to read
// at all (docs/contract.md#errors), a namespace that holds none or a level
// that does not exist, as an error: the CLI has printed its output in full,
// and exits 3 with the message.
type NothingToSearch struct{ Msg string }

func (e *NothingToSearch) Error() string { return "nothing to search: " + e.Msg }

// CheckSomethingToSearch is nil when the search had summaries to read, else
// a NothingToSearch that says why and what exists.
func CheckSomethingToSearch(namespace string, level Level, emptyNamespace bool, namespaces []string, levels []int) error {
	switch {
	case emptyNamespace:
		return &NothingToSearch{EmptyNamespaceNote(namespace, namespaces)}
	case len(levels) > 0:
		return &NothingToSearch{fmt.Sprintf("no summary at level %s; levels that exist: %s", level, LevelList(levels))}
	}
	return nil
}
