package globalsearch

// Summary is a community summary (SPEC §1).
type Summary struct {
	ID                string `json:"id" dynamodbav:"id"`
	Level             int    `json:"level" dynamodbav:"level"`
	ParentCommunityID string `json:"parentCommunityId" dynamodbav:"parentCommunityId,omitempty"`
	Title             string `json:"title,omitempty" dynamodbav:"title,omitempty"`
	Summary           string `json:"summary" dynamodbav:"summary"`
}

// Claim is a claim assigned to a leaf community (SPEC §1).
type Claim struct {
	ID             string   `json:"id" dynamodbav:"id"`
	CommunityID    string   `json:"communityId" dynamodbav:"communityId"`
	Subject        string   `json:"subject" dynamodbav:"subject"`
	Object         string   `json:"object,omitempty" dynamodbav:"object,omitempty"`
	Description    string   `json:"description" dynamodbav:"description"`
	SourceChunkIDs []string `json:"sourceChunkIds" dynamodbav:"sourceChunkIds"`
}

// Chunk is a source chunk that claims cite (SPEC §1).
type Chunk struct {
	ID         string `json:"id" dynamodbav:"id"`
	Text       string `json:"text" dynamodbav:"text"`
	DocumentID string `json:"documentId,omitempty" dynamodbav:"documentId,omitempty"`
}

// Records is the content of one namespace of an index.
type Records struct {
	Summaries []Summary `json:"summaries"`
	Claims    []Claim   `json:"claims"`
	Chunks    []Chunk   `json:"chunks"`
}
