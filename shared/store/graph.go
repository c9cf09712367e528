package store

import (
	"context"

	"github.com/graphrag-global/graphrag-global/shared/globalsearch"
)

// The GraphRAG graph of a version (docs/contract.md#entities): one item
// per entity and per relationship, beside the version's other records,
// read only by a lookup (globalsearch.GraphSnapshot), never by a search.

type entityItem struct {
	indexKey
	ID           string   `dynamodbav:"id"`
	Title        string   `dynamodbav:"title"`
	Type         string   `dynamodbav:"type,omitempty"`
	Description  string   `dynamodbav:"description,omitempty"`
	Degree       int      `dynamodbav:"degree,omitempty"`
	CommunityIDs []string `dynamodbav:"communityIds"`
}

type relationshipItem struct {
	indexKey
	ID           string   `dynamodbav:"id"`
	Source       string   `dynamodbav:"source"`
	Target       string   `dynamodbav:"target"`
	Description  string   `dynamodbav:"description,omitempty"`
	Weight       float64  `dynamodbav:"weight,omitempty"`
	CommunityIDs []string `dynamodbav:"communityIds"`
}

// nonNilIDs is ids, or an empty list where DynamoDB gave back none (an
// empty list is stored as one, but an item written by hand may lack it).
func nonNilIDs(ids []string) []string {
	if ids == nil {
		return []string{}
	}
	return ids
}

// graphItems are the items of r's entities and relationships, keyed by
// key, for add (ReplaceNamespace).
func graphItems(r globalsearch.Records, key func(prefix, id string) indexKey, add func(kind, id string, v any) error) error {
	for _, v := range r.Entities {
		if err := add("entity", v.ID, entityItem{key(prefixEntity, v.ID), v.ID, v.Title, v.Type, v.Description, v.Degree, nonNilIDs(v.CommunityIDs)}); err != nil {
			return err
		}
	}
	for _, v := range r.Relationships {
		if err := add("relationship", v.ID, relationshipItem{key(prefixRelationship, v.ID), v.ID, v.Source, v.Target, v.Description, v.Weight, nonNilIDs(v.CommunityIDs)}); err != nil {
			return err
		}
	}
	return nil
}

// Entities implements globalsearch.GraphSnapshot: one paginated Query of
// the version's entities.
func (v *snapshot) Entities(ctx context.Context) ([]globalsearch.Entity, error) {
	return readKind(ctx, v, prefixEntity, "entities", func(c recordCounts) int { return c.Entities },
		decodeEntity, func(e *globalsearch.Entity) string { return e.ID })
}

// Relationships implements globalsearch.GraphSnapshot.
func (v *snapshot) Relationships(ctx context.Context) ([]globalsearch.Relationship, error) {
	return readKind(ctx, v, prefixRelationship, "relationships", func(c recordCounts) int { return c.Relationships },
		decodeRelationship, func(r *globalsearch.Relationship) string { return r.ID })
}

func decodeEntity(it item) (globalsearch.Entity, error) {
	f := itemFields{it: it}
	e := globalsearch.Entity{ID: f.str("id"), Title: f.str("title"), Type: f.str("type"), Description: f.str("description"),
		Degree: f.int("degree"), CommunityIDs: nonNilIDs(f.strings("communityIds"))}
	return e, f.err
}

func decodeRelationship(it item) (globalsearch.Relationship, error) {
	f := itemFields{it: it}
	r := globalsearch.Relationship{ID: f.str("id"), Source: f.str("source"), Target: f.str("target"),
		Description: f.str("description"), Weight: f.float("weight"), CommunityIDs: nonNilIDs(f.strings("communityIds"))}
	return r, f.err
}
