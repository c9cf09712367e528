package globalsearch

// CheckHierarchy applies the search's hierarchy rules (docs/contract.md#hierarchy)
// to summaries: a parent that names no summary, a cycle, or a child whose level
// is not greater than its parent's is a corrupt index naming the ids. It is the
// check every search makes, exported so that a writer (the GraphRAG import)
// refuses what the search would refuse, with the same messages; Records.Validate
// leaves the hierarchy out because it checks one record at a time.
func CheckHierarchy(summaries []Summary) error {
	_, err := newHierarchy(summaries)
	return err
}
