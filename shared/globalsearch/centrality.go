package globalsearch

// Centrality is how central a selected community is to its namespace
// (docs/contract.md#centrality), given the number of leaves below it:
// GraphRAG's rank when the summary has one (an importance the indexer's
// model rated from the whole community), else GraphRAG's size, else the
// hierarchy's breadth. Larger is more central. It informs a model that
// builds its own answer (the offline model) and never the prompt text.
func Centrality(s Summary, descendantLeaves int) float64 {
	switch {
	case s.Rank > 0:
		return s.Rank
	case s.Size > 0:
		return float64(s.Size)
	}
	return float64(max(descendantLeaves, 1))
}

// centralities is Centrality of every selected summary, by id.
func (m mapInputs) centralities() map[string]float64 {
	out := make(map[string]float64, len(m.selected))
	for i, s := range m.selected {
		out[s.ID] = Centrality(*s, len(m.leavesOf[i]))
	}
	return out
}

// withCentrality gives each part the centrality of its community; a part
// of no community (content not built by the planner) keeps 0.
func withCentrality(parts []MapPart, centrality map[string]float64) []MapPart {
	for i := range parts {
		parts[i].Centrality = centrality[parts[i].CommunityID]
	}
	return parts
}
