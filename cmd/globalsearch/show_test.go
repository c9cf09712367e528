package main

import (
	"context"
	"encoding/json"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/graphrag-global/graphrag-global/shared/graphrag/corpus"
	"github.com/graphrag-global/graphrag-global/shared/graphrag/graphragtest"
	"github.com/graphrag-global/graphrag-global/shared/indexfile/indexfiletest"
	"github.com/graphrag-global/graphrag-global/shared/lookup"
)

func TestShowPrintsARecordOfEverySource(t *testing.T) {
	ctx := context.Background()
	f := indexfiletest.Graph()
	path := writeIndex(t, f)
	folder := graphragtest.WriteGraph(t, filepath.Join(t.TempDir(), "output"))
	minidynEnv(t, "idx")
	env, _, errOut := testEnv("")
	require.Equal(t, 0, runMain(ctx, env, []string{"import", "graphrag", "--dir", folder, "--table", "idx", "--namespace", "default", "--create-table"}), errOut.String())
	tests := []struct {
		name string
		args []string
		want []string
	}{
		{"a community of an index file", []string{"root", "--index", path}, []string{"community root (level 0): " + f.Summaries[0].Title, "children: fish, solar",
			"claims (1):", "k1  Grid -> Solar", "text unit: unit-7", `document: "Island energy report" doc-1`, "entities (2):", "GRID (ORGANIZATION, degree 2) [e-grid]", "GRID -- FLEET (weight 2) [r-1]"}},
		{"the id after the flags", []string{"--index", path, "c1"}, []string{"chunk c1", "text unit: unit-7", f.Chunks[0].Text}},
		{"a claim", []string{"k1", "--index", path}, []string{"claim k1", "community: solar (level 1): Island solar", "excerpts (1):"}},
		{"an entity", []string{"e-fleet", "--index", path}, []string{"entity e-fleet", "communities: root, fish"}},
		{"a relationship", []string{"r-1", "--index", path}, []string{"relationship r-1", "communities: root"}},
		{"the communities by level", []string{"--index", path}, []string{"namespace tiny: 3 communities", "level 1 (2):", "  fish  Fisheries"}},
		{"a GraphRAG folder in memory", []string{"0", "--graphrag", folder}, []string{"community 0 (level 0): Harbour", "FLEET -- GRID (weight 3) [r1]", `"Harbour report" d1`}},
		{"a table", []string{"1", "--table", "idx"}, []string{"community 1 (level 1): Fisheries", "FLEET (ORGANIZATION, degree 1) [e1]", "text unit: t1"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			env, out, errOut := testEnv("")
			require.Equal(t, 0, runMain(ctx, env, append([]string{"show"}, tt.args...)), errOut.String())
			for _, w := range tt.want {
				assert.Contains(t, out.String(), w)
			}
		})
	}
}

func TestShowJSONIsTheRecord(t *testing.T) {
	f := indexfiletest.Graph()
	path := writeIndex(t, f)
	env, out, errOut := testEnv("")
	require.Equal(t, 0, runMain(context.Background(), env, []string{"show", "root", "--index", path, "--json"}), errOut.String())
	var rec lookup.Record
	require.NoError(t, json.Unmarshal(out.Bytes(), &rec))
	assert.Equal(t, lookup.KindCommunity, rec.Kind)
	require.NotNil(t, rec.Community)
	assert.Equal(t, f.Entities, rec.Community.Entities)
	assert.Equal(t, []string{f.Chunks[0].TextUnitID}, rec.Community.TextUnitIDs)

	env, out, errOut = testEnv("")
	require.Equal(t, 0, runMain(context.Background(), env, []string{"show", "--index", path, "--json"}), errOut.String())
	var reports struct {
		Namespace string         `json:"namespace"`
		Levels    []lookup.Level `json:"levels"`
	}
	require.NoError(t, json.Unmarshal(out.Bytes(), &reports))
	assert.Equal(t, f.Namespace, reports.Namespace)
	assert.Len(t, reports.Levels, 2)
}

func TestShowRefusesWhatNamesNothing(t *testing.T) {
	path := writeIndex(t, indexfiletest.Graph())
	tests := []struct {
		name string
		args []string
		code int
		want string
	}{
		{"an unknown id", []string{"nope", "--index", path}, 1, `no community, claim, chunk, entity or relationship has id nope in namespace "tiny"`},
		{"an id of another kind", []string{"root", "--index", path, "--kind", "chunk"}, 1, "no chunk has id root"},
		{"a bad kind", []string{"root", "--index", path, "--kind", "report"}, 2, "kind must be one of"},
		{"a malformed id", []string{"a|b", "--index", path}, 2, "ids may not hold"},
		{"two ids", []string{"root", "--index", path, "fish"}, 2, "show takes one id"},
		{"no index", []string{"root"}, 2, "--index, --graphrag or --table is required"},
		{"another namespace of an index file", []string{"root", "--index", path, "--namespace", "other"}, 2, `holds namespace "tiny"`},
		{"a bad flag", []string{"root", "--nope"}, 2, "nope"},
		{"a bad namespace", []string{"root", "--graphrag", "x", "--namespace", "Bad!"}, 2, "--namespace must be"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			env, out, errOut := testEnv("")
			assert.Equal(t, tt.code, runMain(context.Background(), env, append(append([]string{"show"}, tt.args...), "--json")))
			assert.Contains(t, errOut.String(), tt.want)
			assert.Empty(t, out.String(), "nothing on stdout")
		})
	}
}

func TestShowChristmasCarolCommunity(t *testing.T) {
	dir := corpus.Dir(t, corpus.ChristmasCarol)
	env, out, errOut := testEnv("")
	require.Equal(t, 0, runMain(context.Background(), env, []string{"show", "0", "--graphrag", dir, "--json"}), errOut.String())
	var rec lookup.Record
	require.NoError(t, json.Unmarshal(out.Bytes(), &rec))
	require.NotNil(t, rec.Community)
	assert.NotEmpty(t, rec.Community.Entities)
	assert.NotEmpty(t, rec.Community.Relationships)
	require.NotEmpty(t, rec.Community.Documents)
	assert.NotEmpty(t, rec.Community.Documents[0].Title)
	for _, x := range rec.Community.Excerpts {
		assert.Contains(t, rec.Community.TextUnitIDs, x.TextUnitID)
		// The unit id is text_units.parquet's: show finds the unit when
		// the import keeps it whole, and an excerpt leads with it.
		assert.Contains(t, x.ID, x.TextUnitID[:8])
	}
}
