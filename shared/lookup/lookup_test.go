package lookup_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/graphrag-global/graphrag-global/shared/globalsearch"
	"github.com/graphrag-global/graphrag-global/shared/lookup"
	"github.com/graphrag-global/graphrag-global/shared/store/memstore"
)

// graph is a namespace with every kind of record: a root over two
// leaves, a claim on each citing an excerpt, entities and relationships.
func graph() globalsearch.Records {
	return globalsearch.Records{
		Summaries: []globalsearch.Summary{
			{ID: "10", Level: 0, Title: "Harbour", Summary: "The harbour."},
			{ID: "2", Level: 1, ParentCommunityID: "10", Title: "Fleet", Summary: "The fleet."},
			{ID: "3", Level: 1, ParentCommunityID: "10", Summary: "The grid."},
		},
		Claims: []globalsearch.Claim{
			{ID: "k1", CommunityID: "2", Subject: "FLEET", Description: "shrank", SourceChunkIDs: []string{"x1", "gone"}},
			{ID: "k2", CommunityID: "3", Subject: "GRID", Description: "grew", SourceChunkIDs: []string{"x2", "x1"}},
		},
		Chunks: []globalsearch.Chunk{
			{ID: "x1", Text: "Half the boats were laid up.", TextUnitID: "unit-a", DocumentID: "d1", DocumentTitle: "Harbour report"},
			{ID: "x2", Text: "Solar met half of demand.", TextUnitID: "unit-b", DocumentID: "d1", DocumentTitle: "Harbour report"},
		},
		Entities: []globalsearch.Entity{
			{ID: "e1", Title: "FLEET", Degree: 1, CommunityIDs: []string{"10", "2"}},
			{ID: "e2", Title: "GRID", Degree: 3, CommunityIDs: []string{"10", "3"}},
		},
		Relationships: []globalsearch.Relationship{
			{ID: "r1", Source: "FLEET", Target: "GRID", Weight: 1, CommunityIDs: []string{"10"}},
			{ID: "r2", Source: "GRID", Target: "FLEET", Weight: 4, CommunityIDs: []string{"10"}},
		},
	}
}

func store(t *testing.T, r globalsearch.Records) *memstore.Store {
	t.Helper()
	s := memstore.New()
	require.NoError(t, s.ReplaceNamespace(context.Background(), "ns", r))
	return s
}

func TestFindCommunityGathersWhatIsBehindIt(t *testing.T) {
	r := graph()
	rec, err := lookup.Find(context.Background(), store(t, r), "ns", "10", lookup.Options{})
	require.NoError(t, err)
	assert.Equal(t, lookup.KindCommunity, rec.Kind)
	c := rec.Community
	require.NotNil(t, c)
	assert.Equal(t, []lookup.Ref{{ID: "2", Title: "Fleet", Level: 1}, {ID: "3", Level: 1}}, c.Children)
	assert.Nil(t, c.Parent)
	assert.Equal(t, r.Claims, c.Claims, "the claims of its descendant leaves")
	assert.Equal(t, r.Chunks, c.Excerpts, "each cited chunk that exists, once, in citation order")
	assert.Equal(t, []string{"unit-a", "unit-b"}, c.TextUnitIDs)
	assert.Equal(t, []lookup.Document{{ID: "d1", Title: "Harbour report"}}, c.Documents)
	assert.Equal(t, []string{"e2", "e1"}, ids(c.Entities, func(e globalsearch.Entity) string { return e.ID }), "by degree")
	assert.Equal(t, []string{"r2", "r1"}, ids(c.Relationships, func(e globalsearch.Relationship) string { return e.ID }), "by weight")
	assert.Nil(t, c.Omitted)

	leaf, err := lookup.Find(context.Background(), store(t, r), "ns", "2", lookup.Options{Limit: 1})
	require.NoError(t, err)
	assert.Equal(t, &lookup.Ref{ID: "10", Title: "Harbour", Level: 0}, leaf.Community.Parent)
	assert.Equal(t, r.Claims[:1], leaf.Community.Claims)
	assert.Equal(t, map[string]int{}, withoutZero(leaf.Community.Omitted), "a leaf's lists fit a limit of 1")
}

func TestFindWithALimitCountsWhatItLeavesOut(t *testing.T) {
	rec, err := lookup.Find(context.Background(), store(t, graph()), "ns", "10", lookup.Options{Limit: 1})
	require.NoError(t, err)
	c := rec.Community
	assert.Len(t, c.Claims, 1)
	assert.Len(t, c.Excerpts, 1)
	assert.Equal(t, []string{"unit-a", "unit-b"}, c.TextUnitIDs, "the sources of every excerpt, cut or not")
	assert.Equal(t, map[string]int{"claims": 1, "excerpts": 1, "entities": 1, "relationships": 1}, c.Omitted)
}

func TestFindEachKind(t *testing.T) {
	r := graph()
	r.Chunks = append(r.Chunks, globalsearch.Chunk{ID: "2", Text: "a chunk named like a community"})
	s := store(t, r)
	tests := []struct {
		id   string
		kind lookup.Kind
		want lookup.Kind
	}{
		{"k2", "", lookup.KindClaim},
		{"x2", "", lookup.KindChunk},
		{"e1", "", lookup.KindEntity},
		{"r1", "", lookup.KindRelationship},
		{"2", "", lookup.KindCommunity},
		{"2", lookup.KindChunk, lookup.KindChunk},
	}
	for _, tt := range tests {
		t.Run(tt.id+"/"+string(tt.kind), func(t *testing.T) {
			rec, err := lookup.Find(context.Background(), s, "ns", tt.id, lookup.Options{Kind: tt.kind})
			require.NoError(t, err)
			assert.Equal(t, tt.want, rec.Kind)
			assert.Equal(t, "ns", rec.Namespace)
		})
	}
	claim, err := lookup.Find(context.Background(), s, "ns", "k2", lookup.Options{})
	require.NoError(t, err)
	assert.Equal(t, &lookup.Ref{ID: "3", Level: 1}, claim.Claim.Community)
	assert.Equal(t, []globalsearch.Chunk{r.Chunks[1], r.Chunks[0]}, claim.Claim.Excerpts)
}

// failing is an index whose snapshot fails the read named fail.
type failing struct {
	*memstore.Store
	fail string
}

var errRead = errors.New("read failed")

func (f failing) Open(ctx context.Context, ns string) (globalsearch.Snapshot, error) {
	if f.fail == "open" {
		return nil, errRead
	}
	snap, err := f.Store.Open(ctx, ns)
	return failingSnapshot{snap, f.fail}, err
}

type failingSnapshot struct {
	globalsearch.Snapshot
	fail string
}

func (f failingSnapshot) err(what string) error {
	if f.fail == what {
		return errRead
	}
	return nil
}

func (f failingSnapshot) Summaries(ctx context.Context) ([]globalsearch.Summary, error) {
	s, _ := f.Snapshot.Summaries(ctx)
	return s, f.err("summaries")
}

func (f failingSnapshot) Claims(ctx context.Context) ([]globalsearch.Claim, error) {
	c, _ := f.Snapshot.Claims(ctx)
	return c, f.err("claims")
}

func (f failingSnapshot) Chunks(ctx context.Context, ids []string) ([]globalsearch.Chunk, error) {
	c, _ := f.Snapshot.Chunks(ctx, ids)
	return c, f.err("chunks")
}

func (f failingSnapshot) Entities(ctx context.Context) ([]globalsearch.Entity, error) {
	e, _ := f.Snapshot.(globalsearch.GraphSnapshot).Entities(ctx)
	return e, f.err("entities")
}

func (f failingSnapshot) Relationships(ctx context.Context) ([]globalsearch.Relationship, error) {
	r, _ := f.Snapshot.(globalsearch.GraphSnapshot).Relationships(ctx)
	return r, f.err("relationships")
}

func TestFindPassesOnEveryReadError(t *testing.T) {
	tests := []struct{ fail, id string }{
		{"open", "10"}, {"summaries", "10"}, {"claims", "10"}, {"chunks", "10"}, {"entities", "10"}, {"relationships", "10"},
		{"claims", "k1"}, {"chunks", "k1"}, {"summaries", "k1"}, {"chunks", "x1"}, {"entities", "e1"}, {"relationships", "r1"},
	}
	for _, tt := range tests {
		t.Run(tt.fail+"/"+tt.id, func(t *testing.T) {
			_, err := lookup.Find(context.Background(), failing{store(t, graph()), tt.fail}, "ns", tt.id, lookup.Options{})
			assert.ErrorIs(t, err, errRead)
		})
	}
	for _, fail := range []string{"open", "summaries"} {
		_, err := lookup.Reports(context.Background(), failing{store(t, graph()), fail}, "ns")
		assert.ErrorIs(t, err, errRead, fail)
	}
}

func TestFindRefusesBadInputBeforeAnyRead(t *testing.T) {
	s := failing{store(t, graph()), "open"}
	tests := []struct {
		name, id string
		opts     lookup.Options
		kind     globalsearch.Kind
		want     string
	}{
		{"an empty id", "", lookup.Options{}, globalsearch.KindInvalidInput, "is required"},
		{"a forged id", "a]b", lookup.Options{}, globalsearch.KindInvalidInput, "ids may not hold"},
		{"a long id", strings.Repeat("x", globalsearch.MaxIDBytes+1), lookup.Options{}, globalsearch.KindInvalidInput, "at most 256"},
		{"an unknown kind", "10", lookup.Options{Kind: "report"}, globalsearch.KindInvalidInput, "kind must be one of community, claim, chunk, entity or relationship"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := lookup.Find(context.Background(), s, "ns", tt.id, tt.opts)
			require.Error(t, err)
			assert.Equal(t, tt.kind, globalsearch.KindOf(err))
			assert.Contains(t, err.Error(), tt.want)
		})
	}
}

func TestFindUnknownIDNamesTheNamespaceAndTheWayToIDs(t *testing.T) {
	tests := []struct {
		name string
		opts lookup.Options
		want []string
	}{
		{"every kind, the CLI's way", lookup.Options{}, []string{`no community, claim, chunk, entity or relationship has id nope in namespace "ns"`, "`globalsearch show` without an id lists the communities"}},
		{"one kind, the caller's way", lookup.Options{Kind: lookup.KindEntity, List: "the read tool without an id"}, []string{"no entity has id nope", "the read tool without an id lists"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := lookup.Find(context.Background(), store(t, graph()), "ns", "nope", tt.opts)
			require.Error(t, err)
			assert.Equal(t, globalsearch.KindNotFound, globalsearch.KindOf(err))
			for _, w := range tt.want {
				assert.Contains(t, err.Error(), w)
			}
		})
	}
}

func TestReportsByLevelNumbersInOrder(t *testing.T) {
	r := graph()
	r.Summaries = append(r.Summaries, globalsearch.Summary{ID: "b-named", Level: 1, ParentCommunityID: "10", Summary: "x"}, globalsearch.Summary{ID: "a-named", Level: 1, ParentCommunityID: "10", Summary: "y"})
	levels, err := lookup.Reports(context.Background(), store(t, r), "ns")
	require.NoError(t, err)
	require.Len(t, levels, 2)
	assert.Equal(t, 0, levels[0].Level)
	assert.Equal(t, []string{"2", "3", "a-named", "b-named"}, ids(levels[1].Reports, func(r lookup.Ref) string { return r.ID }))
}

func TestTextNamesEveryID(t *testing.T) {
	r := graph()
	s := store(t, r)
	tests := []struct {
		id   string
		want []string
	}{
		{"10", []string{"community 10 (level 0): Harbour", "children: 2, 3", "claims (2):", "k1  FLEET: shrank  [chunks x1, gone]", "text unit: unit-a", `document: "Harbour report" d1`, "entities (2):", "GRID (degree 3) [e2]", "GRID -- FLEET (weight 4) [r2]"}},
		{"2", []string{"parent: 10 (level 0): Harbour"}},
		{"k1", []string{"claim k1", "community: 2 (level 1): Fleet", "excerpts (1):"}},
		{"x1", []string{"chunk x1", "text unit: unit-a", "Half the boats"}},
		{"e1", []string{"entity e1", "communities: 10, 2"}},
		{"r1", []string{"relationship r1", "FLEET -- GRID", "communities: 10"}},
	}
	for _, tt := range tests {
		t.Run(tt.id, func(t *testing.T) {
			rec, err := lookup.Find(context.Background(), s, "ns", tt.id, lookup.Options{})
			require.NoError(t, err)
			text := lookup.Text(rec)
			for _, w := range tt.want {
				assert.Contains(t, text, w)
			}
		})
	}
	rec, err := lookup.Find(context.Background(), s, "ns", "10", lookup.Options{Limit: 1})
	require.NoError(t, err)
	assert.Contains(t, lookup.Text(rec), "entities (1 of 2):")
	levels, err := lookup.Reports(context.Background(), s, "ns")
	require.NoError(t, err)
	assert.Contains(t, lookup.ReportsText("ns", levels), "namespace ns: 3 communities")
}

func ids[T any](list []T, id func(T) string) []string {
	out := []string{}
	for _, x := range list {
		out = append(out, id(x))
	}
	return out
}

func withoutZero(m map[string]int) map[string]int {
	out := map[string]int{}
	for k, v := range m {
		if v != 0 {
			out[k] = v
		}
	}
	return out
}

func TestShowIsTheRecordOrTheReports(t *testing.T) {
	s := store(t, graph())
	v, text, err := lookup.Show(context.Background(), s, "ns", "", lookup.Options{})
	require.NoError(t, err)
	list, ok := v.(lookup.ReportList)
	require.True(t, ok, "%T", v)
	assert.Equal(t, "ns", list.Namespace)
	assert.Contains(t, text, "level 1 (2):")
	v, text, err = lookup.Show(context.Background(), s, "ns", "e2", lookup.Options{})
	require.NoError(t, err)
	assert.Equal(t, lookup.KindEntity, v.(lookup.Record).Kind)
	assert.Contains(t, text, "entity e2")
	for _, id := range []string{"", "10"} {
		_, _, err = lookup.Show(context.Background(), failing{s, "open"}, "ns", id, lookup.Options{})
		assert.ErrorIs(t, err, errRead, id)
	}
}
