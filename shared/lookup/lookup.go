// Package lookup reads one record of an index by id, with what a reader
// needs to follow it (docs/contract.md#show): a community with its claims,
// their excerpts, the documents and text units those came from, and the
// entities and relationships of the community; a claim with its excerpts;
// a chunk; an entity or a relationship. `globalsearch show`, serve's
// records endpoint and MCP's read tool all answer with it, so the three
// show the same thing.
package lookup

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/graphrag-global/graphrag-global/shared/globalsearch"
)

// Kind names what an id was found as.
type Kind string

// The kinds of record a lookup finds, in the order it tries them: an id
// that names two kinds (a community "1" and a chunk "1") is the first.
const (
	KindCommunity    Kind = "community"
	KindClaim        Kind = "claim"
	KindChunk        Kind = "chunk"
	KindEntity       Kind = "entity"
	KindRelationship Kind = "relationship"
)

// Kinds lists every kind, in lookup order.
var Kinds = []Kind{KindCommunity, KindClaim, KindChunk, KindEntity, KindRelationship}

// Record is one record found by id: Kind says which field is set.
type Record struct {
	Namespace    string                     `json:"namespace"`
	Kind         Kind                       `json:"kind"`
	Community    *Community                 `json:"community,omitempty"`
	Claim        *Claim                     `json:"claim,omitempty"`
	Chunk        *globalsearch.Chunk        `json:"chunk,omitempty"`
	Entity       *globalsearch.Entity       `json:"entity,omitempty"`
	Relationship *globalsearch.Relationship `json:"relationship,omitempty"`
}

// Ref names a community by id, title and level.
type Ref struct {
	ID    string `json:"id"`
	Title string `json:"title,omitempty"`
	Level int    `json:"level"`
}

// Document is a source document, by id and title.
type Document struct {
	ID    string `json:"id"`
	Title string `json:"title,omitempty"`
}

// Community is a community summary with what is behind it. Claims are
// those of its descendant leaves (itself, for a leaf), as its map text
// collects them (docs/contract.md#map-text); Excerpts are the chunks
// they cite that exist. Omitted counts what Options.Limit left out of
// each list.
type Community struct {
	ID                string                      `json:"id"`
	Title             string                      `json:"title,omitempty"`
	Level             int                         `json:"level"`
	ParentCommunityID string                      `json:"parentCommunityId,omitempty"`
	Parent            *Ref                        `json:"parent,omitempty"`
	Children          []Ref                       `json:"children"`
	Summary           string                      `json:"summary"`
	Claims            []globalsearch.Claim        `json:"claims"`
	Excerpts          []globalsearch.Chunk        `json:"excerpts"`
	TextUnitIDs       []string                    `json:"textUnitIds"`
	Documents         []Document                  `json:"documents"`
	Entities          []globalsearch.Entity       `json:"entities"`
	Relationships     []globalsearch.Relationship `json:"relationships"`
	Omitted           map[string]int              `json:"omitted,omitempty"`
}

// Claim is a claim with the community it belongs to and its excerpts.
type Claim struct {
	globalsearch.Claim
	Community *Ref                 `json:"community,omitempty"`
	Excerpts  []globalsearch.Chunk `json:"excerpts"`
}

// Options tune a lookup. The zero value looks in every kind and lists all.
type Options struct {
	// Kind, when set, looks the id up as that kind alone.
	Kind Kind
	// Limit, when > 0, caps each list of a community (claims, excerpts,
	// entities, relationships) at that many; Community.Omitted counts the
	// rest. An agent's reply stays small (MCP's read tool).
	Limit int
	// List says how the caller's reader lists the communities, for the
	// message of an unknown id; empty is the CLI's (`globalsearch show`
	// without an id).
	List string
}

// ParseKind reads a kind a user typed; "" is every kind.
func ParseKind(s string) (Kind, error) {
	if s == "" || slices.Contains(Kinds, Kind(s)) {
		return Kind(s), nil
	}
	return "", globalsearch.Errorf(globalsearch.KindInvalidInput, "kind must be one of %s, not %s", kindList(), globalsearch.Echo(s))
}

// kindList is "community, claim, ... or relationship".
func kindList() string {
	names := make([]string, len(Kinds))
	for i, k := range Kinds {
		names[i] = string(k)
	}
	return strings.Join(names[:len(names)-1], ", ") + " or " + names[len(names)-1]
}

// Find looks id up in namespace of index. An id that names nothing is a
// KindNotFound error naming the namespace and where ids are found; a
// malformed id (docs/contract.md#ids) is invalid input, refused before any
// read.
func Find(ctx context.Context, index globalsearch.Index, namespace, id string, opts Options) (Record, error) {
	if err := globalsearch.CheckID(id); err != nil {
		return Record{}, globalsearch.Errorf(globalsearch.KindInvalidInput, "id %s %v", globalsearch.Echo(id), err)
	}
	if _, err := ParseKind(string(opts.Kind)); err != nil {
		return Record{}, err
	}
	snap, err := index.Open(ctx, namespace)
	if err != nil {
		return Record{}, err
	}
	r := reader{ctx: ctx, snap: snap, opts: opts}
	for _, kind := range Kinds {
		if opts.Kind != "" && kind != opts.Kind {
			continue
		}
		rec, found, err := r.find(kind, id)
		if err != nil {
			return Record{}, err
		}
		if found {
			rec.Namespace, rec.Kind = namespace, kind
			return rec, nil
		}
	}
	what := kindList()
	if opts.Kind != "" {
		what = string(opts.Kind)
	}
	list := opts.List
	if list == "" {
		list = "`globalsearch show` without an id"
	}
	return Record{}, globalsearch.Errorf(globalsearch.KindNotFound,
		"no %s has id %s in namespace %q: ids are in an answer's citations (communityId, claimIds, chunkIds) and its [Data: ...] marks; %s lists the communities",
		what, globalsearch.Echo(id), namespace, list)
}

// reader reads one snapshot, each kind at most once.
type reader struct {
	ctx       context.Context
	snap      globalsearch.Snapshot
	opts      Options
	summaries []globalsearch.Summary
	claims    []globalsearch.Claim
}

func (r *reader) find(kind Kind, id string) (Record, bool, error) {
	switch kind {
	case KindCommunity:
		c, found, err := r.community(id)
		return Record{Community: c}, found, err
	case KindClaim:
		c, found, err := r.claim(id)
		return Record{Claim: c}, found, err
	case KindChunk:
		chunks, err := r.snap.Chunks(r.ctx, []string{id})
		if err != nil || len(chunks) == 0 {
			return Record{}, false, err
		}
		return Record{Chunk: &chunks[0]}, true, nil
	case KindEntity:
		all, err := r.entities()
		if i := slices.IndexFunc(all, func(e globalsearch.Entity) bool { return e.ID == id }); err == nil && i >= 0 {
			return Record{Entity: &all[i]}, true, nil
		}
		return Record{}, false, err
	case KindRelationship:
		all, err := r.relationships()
		if i := slices.IndexFunc(all, func(e globalsearch.Relationship) bool { return e.ID == id }); err == nil && i >= 0 {
			return Record{Relationship: &all[i]}, true, nil
		}
		return Record{}, false, err
	}
	return Record{}, false, fmt.Errorf("lookup: no kind %q", kind)
}

func (r *reader) loadSummaries() error {
	if r.summaries != nil {
		return nil
	}
	s, err := r.snap.Summaries(r.ctx)
	r.summaries = s
	if r.summaries == nil {
		r.summaries = []globalsearch.Summary{}
	}
	return err
}

func (r *reader) loadClaims() error {
	if r.claims != nil {
		return nil
	}
	c, err := r.snap.Claims(r.ctx)
	r.claims = c
	if r.claims == nil {
		r.claims = []globalsearch.Claim{}
	}
	return err
}

// entities are the snapshot's entities; none from a store without them.
func (r *reader) entities() ([]globalsearch.Entity, error) {
	if g, ok := r.snap.(globalsearch.GraphSnapshot); ok {
		return g.Entities(r.ctx)
	}
	return nil, nil
}

func (r *reader) relationships() ([]globalsearch.Relationship, error) {
	if g, ok := r.snap.(globalsearch.GraphSnapshot); ok {
		return g.Relationships(r.ctx)
	}
	return nil, nil
}
