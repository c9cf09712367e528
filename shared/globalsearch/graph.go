package globalsearch

import (
	"context"
	"fmt"
	"slices"
	"unicode/utf8"
)

// Entity is one entity of a GraphRAG graph (entities.parquet), kept to be
// shown beside the communities that hold it (docs/contract.md#entities).
// It never enters a map text: GraphRAG's global search maps the reports
// alone, and the reports already speak of their entities.
type Entity struct {
	ID          string `json:"id"`
	Title       string `json:"title"`
	Type        string `json:"type,omitempty"`
	Description string `json:"description,omitempty"`
	// Degree is GraphRAG's count of the entity's relationships.
	Degree int `json:"degree,omitempty"`
	// CommunityIDs are the summaries whose community holds the entity.
	CommunityIDs []string `json:"communityIds"`
}

// Relationship is one relationship of a GraphRAG graph
// (relationships.parquet), between two entities named by title.
type Relationship struct {
	ID          string  `json:"id"`
	Source      string  `json:"source"`
	Target      string  `json:"target"`
	Description string  `json:"description,omitempty"`
	Weight      float64 `json:"weight,omitempty"`
	// CommunityIDs are the summaries whose community holds the relationship.
	CommunityIDs []string `json:"communityIds"`
}

// MaxGraphRecordBytes bounds one entity or relationship: the bytes of its
// text fields and ids together (docs/contract.md#entities). It keeps each
// well inside a DynamoDB item (400 KB) and a show reply readable; an
// import cuts a longer description to fit (graphrag.Import) rather than
// fail.
const MaxGraphRecordBytes = 32 << 10

// MaxGraphCommunities bounds the communities one entity or relationship
// names: GraphRAG puts it in one community per level, so more is a
// malformed index, and a bound keeps the record inside MaxGraphRecordBytes.
const MaxGraphCommunities = 1000

func (e Entity) bytes() int {
	return len(e.ID) + len(e.Title) + len(e.Type) + len(e.Description) + idsBytes(e.CommunityIDs)
}

func (r Relationship) bytes() int {
	return len(r.ID) + len(r.Source) + len(r.Target) + len(r.Description) + idsBytes(r.CommunityIDs)
}

func idsBytes(ids []string) int {
	n := 0
	for _, id := range ids {
		n += len(id)
	}
	return n
}

// graphProblem is what is wrong with an entity or relationship's shared
// fields, or "".
func graphProblem(size int, communities []string) string {
	switch {
	case size > MaxGraphRecordBytes:
		return fmt.Sprintf("is %d bytes; an entity or relationship holds at most %d", size, MaxGraphRecordBytes)
	case len(communities) > MaxGraphCommunities:
		return fmt.Sprintf(`field "communityIds" names %d communities; at most %d`, len(communities), MaxGraphCommunities)
	case slices.ContainsFunc(communities, func(id string) bool { return !utf8.ValidString(id) }):
		return `field "communityIds" holds an id that is not valid UTF-8`
	}
	return ""
}

// validateGraph applies docs/contract.md#entities: ids as every record's,
// a title (entities) or both ends (relationships), and the size bounds.
func (r Records) validateGraph() error {
	err := checkRecords("entities", r.Entities, func(e Entity) (string, string) {
		if e.Title == "" {
			return e.ID, `field "title" is required`
		}
		return e.ID, graphProblem(e.bytes(), e.CommunityIDs)
	})
	if err != nil {
		return err
	}
	return checkRecords("relationships", r.Relationships, func(rel Relationship) (string, string) {
		if rel.Source == "" || rel.Target == "" {
			return rel.ID, `fields "source" and "target" are required`
		}
		return rel.ID, graphProblem(rel.bytes(), rel.CommunityIDs)
	})
}

// GraphSnapshot is a Snapshot that also reads the entities and
// relationships of its version (docs/contract.md#entities). Every store
// of the module implements it; a search never asks for them, only a
// lookup (shared/lookup) does.
type GraphSnapshot interface {
	Entities(ctx context.Context) ([]Entity, error)
	Relationships(ctx context.Context) ([]Relationship, error)
}
