package globalsearch_test

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	gs "github.com/graphrag-global/graphrag-global/shared/globalsearch"
	"github.com/graphrag-global/graphrag-global/shared/store/memstore"
)

// plainIndex hides every method but those of gs.Index.
type plainIndex struct{ gs.Index }

// brokenLister lists namespaces with an error.
type brokenLister struct{ gs.Index }

func (brokenLister) Namespaces(context.Context) ([]string, error) {
	return nil, errors.New("access denied")
}

// TestEmptyNamespaceIsSaid: a search of a namespace with no summary ends
// no_results with no model call, and the diagnostics say the namespace is
// empty and, when the index can list them cheaply, which namespaces exist.
func TestEmptyNamespaceIsSaid(t *testing.T) {
	s := memstore.New()
	ctx := context.Background()
	require.NoError(t, s.ReplaceNamespace(ctx, "default", leafNamespace(1)))
	require.NoError(t, s.ReplaceNamespace(ctx, "carol", leafNamespace(2)))
	require.NoError(t, s.ReplaceNamespace(ctx, "emptied", leafNamespace(1)))
	require.NoError(t, s.DeleteNamespace(ctx, "emptied"))

	tests := []struct {
		name      string
		index     gs.Index
		namespace string
		wantEmpty bool
		wantList  []string
	}{
		{"a namespace that does not exist", s, "carrol", true, []string{"carol", "default"}},
		{"a deleted namespace", s, "emptied", true, []string{"carol", "default"}},
		{"an index that cannot list", plainIndex{s}, "carrol", true, nil},
		{"listing fails: the search still ends no_results", brokenLister{s}, "carrol", true, nil},
		{"a namespace with data is not empty", s, "carol", false, nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			model := &fakeModel{complete: func(gs.ModelRequest, int) (gs.ModelResponse, error) {
				return text(`{"answer":"","usefulness":0}`)
			}}
			e := &gs.Engine{Index: tc.index, Runs: memstore.New(), Model: model}
			p := oneBatchPerSummary(t, "q?", func(r *gs.Request) { r.Namespace = tc.namespace })
			res, err := e.Search(ctx, p)
			require.NoError(t, err)
			assert.Equal(t, gs.StatusNoResults, res.Status)
			assert.Equal(t, tc.wantEmpty, res.Diagnostics.EmptyNamespace)
			assert.Equal(t, tc.wantList, res.Diagnostics.AvailableNamespaces)
			if tc.wantEmpty {
				assert.Zero(t, model.count(gs.StageMap)+model.count(gs.StageReduce), "no model call")
			}
		})
	}
}

// TestEmptyNamespaceListIsBounded: a table of many namespaces lists the
// first 50 in name order, enough to spot a typo.
func TestEmptyNamespaceListIsBounded(t *testing.T) {
	ctx := context.Background()
	s := memstore.New()
	var want []string
	for i := range 60 {
		name := fmt.Sprintf("ns-%02d", i)
		require.NoError(t, s.ReplaceNamespace(ctx, name, leafNamespace(1)))
		want = append(want, name)
	}
	e := &gs.Engine{Index: s, Runs: memstore.New(), Model: &fakeModel{complete: answerEverything}}
	res, err := e.Search(ctx, oneBatchPerSummary(t, "q?", func(r *gs.Request) { r.Namespace = "missing" }))
	require.NoError(t, err)
	assert.Equal(t, want[:50], res.Diagnostics.AvailableNamespaces)
}
