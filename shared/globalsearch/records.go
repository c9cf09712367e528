package globalsearch

// Summary is a community summary (docs/contract.md#index).
type Summary struct {
	ID                string `json:"id"`
	Level             int    `json:"level"`
	ParentCommunityID string `json:"parentCommunityId"`
	Title             string `json:"title,omitempty"`
	Summary           string `json:"summary"`
	// ShortSummary is a short form of Summary that dynamic selection rates
	// instead of it (docs/contract.md#dynamic-selection): GraphRAG's
	// summary column when Summary is its full_content. Optional.
	ShortSummary string `json:"shortSummary,omitempty"`
	// Rank is GraphRAG's importance rating of the community's report
	// (0-10 in GraphRAG's own prompts) and Size GraphRAG's size of the
	// community (its entities); 0 when the index has none. They only
	// inform centrality (docs/contract.md#centrality), and omitted they
	// leave an index file as it was.
	Rank float64 `json:"rank,omitempty"`
	Size int     `json:"size,omitempty"`
}

// Claim is a claim assigned to a leaf community (docs/contract.md#index).
type Claim struct {
	ID             string   `json:"id"`
	CommunityID    string   `json:"communityId"`
	Subject        string   `json:"subject"`
	Object         string   `json:"object,omitempty"`
	Description    string   `json:"description"`
	SourceChunkIDs []string `json:"sourceChunkIds"`
}

// Chunk is a source chunk that claims cite (docs/contract.md#index).
type Chunk struct {
	ID         string `json:"id"`
	Text       string `json:"text"`
	DocumentID string `json:"documentId,omitempty"`
}

// Records is the content of one namespace of an index.
type Records struct {
	Summaries []Summary `json:"summaries"`
	Claims    []Claim   `json:"claims"`
	Chunks    []Chunk   `json:"chunks"`
}
