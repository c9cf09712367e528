package main

import (
	"fmt"

	"github.com/graphrag-global/graphrag-global/shared/globalsearch"
)

// exitNothingToSearch is the exit status of a search that found no summary
// to read at all (docs/contract.md#errors): a namespace that holds none,
// or a level that does not exist. It ends no_results like a search whose
// answers all scored 0, and the status tells the two apart for a script.
const exitNothingToSearch = 3

// nothingToSearch is that search's outcome as an error: the command has
// printed its output in full, and main prints the message and exits 3.
type nothingToSearch struct{ msg string }

func (e *nothingToSearch) Error() string { return "nothing to search: " + e.msg }

// checkSomethingToSearch is nil when the search had summaries to read,
// else a nothingToSearch that says why and what exists.
func checkSomethingToSearch(namespace string, level globalsearch.Level, emptyNamespace bool, namespaces []string, levels []int) error {
	switch {
	case emptyNamespace:
		return &nothingToSearch{emptyNamespaceNote(namespace, namespaces)}
	case len(levels) > 0:
		return &nothingToSearch{fmt.Sprintf("no summary at level %s; levels that exist: %s", level, levelList(levels))}
	}
	return nil
}
