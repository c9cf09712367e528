package globalsearch_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	gs "github.com/graphrag-global/graphrag-global/shared/globalsearch"
	"github.com/graphrag-global/graphrag-global/shared/store/dircache"
	"github.com/graphrag-global/graphrag-global/shared/tokens"
)

// provenanceRecords are ten leaves s0-s9, one claim each citing one
// chunk; the chunks of s0-s2 name documents (s0 and s1 the same one), s3's
// names none, and the claims of s4-s9 cite chunks that do not exist.
func provenanceRecords() gs.Records {
	var r gs.Records
	docs := []string{"doc-a", "doc-a", "doc-b", ""}
	for i := range 10 {
		id := fmt.Sprintf("s%d", i)
		r.Summaries = append(r.Summaries, gs.Summary{ID: id, Level: 0, Summary: summaryText})
		r.Claims = append(r.Claims, gs.Claim{ID: "k" + id, CommunityID: id, Subject: "S", Description: "d", SourceChunkIDs: []string{"ch" + id}})
		if i < len(docs) {
			r.Chunks = append(r.Chunks, gs.Chunk{ID: "ch" + id, Text: "Excerpt.", DocumentID: docs[i]})
		}
	}
	return r
}

// provenanceParams puts two summaries in each batch (s0 with s1, s2 with
// s3, ...) and leaves the reduce prompt room for the short answers but not
// for a long one.
func provenanceParams(t *testing.T) gs.Params {
	t.Helper()
	const query = "What changed?"
	mapBudget := tokens.Estimate(gs.DefaultPrompts().Map.Skeleton(query)) + 300
	reduceBudget := tokens.Estimate(gs.DefaultPrompts().Reduce.WithResponseType("").Skeleton(query)) + 200
	zero, noShuffle := 0, false
	p, err := gs.Request{Query: query, MapTokenBudget: &mapBudget, MapOutputReserve: &zero,
		ReduceTokenBudget: &reduceBudget, ReduceOutputReserve: &zero, Shuffle: &noShuffle}.Params(gs.SpecDefaults)
	require.NoError(t, err)
	return p
}

// provenanceModel answers each batch by its first community: s0's cites
// s0 and ids of no batch; s2's cites s0, which is not in its batch, so
// nothing, at length; s4's scores 0; s6's breaks the output rules; s8's
// cites nothing. The reduce call is recorded and answers answer.
type provenanceModel struct {
	mu     sync.Mutex
	reduce []gs.ModelRequest
	answer string
}

func (m *provenanceModel) Complete(_ context.Context, req gs.ModelRequest) (gs.ModelResponse, error) {
	if req.Stage == gs.StageReduce {
		m.mu.Lock()
		m.reduce = append(m.reduce, req)
		m.mu.Unlock()
		return text(`{"answer":` + strconvQuote(m.answer) + `}`)
	}
	switch req.Parts[0].CommunityID {
	case "s0":
		return text(`{"answer":"Output rose [Data: Communities (s0, zz)]. Prices fell [Data: Communities (yy)].","usefulness":80}`)
	case "s2":
		return text(`{"answer":"` + strings.Repeat("Long answer. ", 200) + `[Data: Communities (s0)]","usefulness":70}`)
	case "s4":
		return text(`{"answer":"","usefulness":0}`)
	case "s6":
		return text(`not json`)
	}
	return text(`{"answer":"Fleets shrank.","usefulness":60}`)
}

func strconvQuote(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

// wantProvenanceCoverage is the coverage of a run of provenanceModel over
// provenanceRecords.
var wantProvenanceCoverage = gs.Coverage{
	CommunitiesSelected: 10, CommunitiesInNamespace: 10, Claims: 10, Excerpts: 4, Documents: 2,
	MapAnswers:       &gs.MapAnswerCoverage{Useful: 3, ReachedReduce: 2, SkippedForBudget: 1, ScoredZero: 1, Failed: 1},
	CitedCommunities: 2, CitedDocuments: 1,
}

func TestPlanCoverage(t *testing.T) {
	tests := []struct {
		name   string
		mutate func(*gs.Request)
		want   gs.Coverage
	}{
		{"leaves", nil, gs.Coverage{CommunitiesSelected: 10, CommunitiesInNamespace: 10, Claims: 10, Excerpts: 4, Documents: 2}},
		{"a level of none", func(r *gs.Request) { l := gs.Level(3); r.CommunityLevel = &l },
			gs.Coverage{CommunitiesSelected: 0, CommunitiesInNamespace: 10}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			plan, err := planFor(t, provenanceRecords(), tc.mutate)
			require.NoError(t, err)
			assert.Equal(t, tc.want, plan.Coverage)
		})
	}
	t.Run("a coarse level counts its leaves' claims once each", func(t *testing.T) {
		l := gs.Level(0)
		plan, err := planFor(t, hierarchyRecords(), func(r *gs.Request) { r.CommunityLevel = &l })
		require.NoError(t, err)
		// r0 holds l1, l2 and l3: claims k1-k3 (k4, k5 are orphans), chunks ch1, ch2.
		assert.Equal(t, gs.Coverage{CommunitiesSelected: 1, CommunitiesInNamespace: 6, Claims: 3, Excerpts: 2}, plan.Coverage)
	})
	t.Run("sources name the documents of their chunks", func(t *testing.T) {
		plan, err := planFor(t, provenanceRecords(), nil)
		require.NoError(t, err)
		docs := map[string][]string{}
		for _, b := range plan.Batches {
			for _, s := range b.Sources {
				docs[s.CommunityID] = s.DocumentIDs
			}
		}
		assert.Equal(t, []string{"doc-a"}, docs["s0"])
		assert.Equal(t, []string{"doc-a"}, docs["s1"])
		assert.Equal(t, []string{"doc-b"}, docs["s2"])
		assert.Nil(t, docs["s3"], "its chunk names no document")
		assert.Nil(t, docs["s4"], "its chunk does not exist")
	})
}

// runSteps runs a search as the state machine does, one step at a time:
// Prepare, each batch's attempts, then Reduce with the failed batches.
func runSteps(t *testing.T, e *gs.Engine, p gs.Params) gs.Result {
	t.Helper()
	ctx := t.Context()
	out, err := e.Prepare(ctx, p)
	require.NoError(t, err)
	var failures []gs.BatchFailure
	for i := range out.BatchCount {
		var err error
		for attempt := 1; attempt <= gs.MapAttempts; attempt++ {
			if _, err = e.MapBatch(ctx, p.QueryID, out.RunID, i, attempt); err == nil {
				break
			}
		}
		if err != nil {
			failures = append(failures, gs.BatchFailure{BatchIndex: i, Message: err.Error(), Attempts: gs.MapAttempts})
		}
	}
	res, err := e.Reduce(ctx, p.QueryID, out.RunID, failures)
	require.NoError(t, err)
	return res
}

func TestProvenanceAndCoverage(t *testing.T) {
	runs := []struct {
		name string
		run  func(t *testing.T, e *gs.Engine, p gs.Params) gs.Result
	}{
		{"one process", func(t *testing.T, e *gs.Engine, p gs.Params) gs.Result {
			res, err := e.Search(t.Context(), p)
			require.NoError(t, err)
			return res
		}},
		{"steps as the Lambdas call them", runSteps},
	}
	for _, tc := range runs {
		t.Run(tc.name, func(t *testing.T) {
			model := &provenanceModel{answer: "Output rose [Data: Communities (s0)]; fleets shrank [Data: Communities (s9, s1, s3)]."}
			e, s := newEngine(t, provenanceRecords(), model)
			p := provenanceParams(t)
			res := tc.run(t, e, p)
			require.Equal(t, gs.StatusPartial, res.Status)

			plan, err := s.Plan(t.Context(), p.QueryID)
			require.NoError(t, err)
			answers, err := s.MapAnswers(t.Context(), p.QueryID, plan.RunID)
			require.NoError(t, err)
			byID := map[string]gs.MapAnswer{}
			for _, a := range answers {
				byID[a.CommunityIDs[0]] = a
			}
			assert.Equal(t, "Output rose [Data: Communities (s0)]. Prices fell.", byID["s0"].Answer)
			assert.Equal(t, []string{"s0"}, byID["s0"].CitedCommunityIDs)
			assert.Equal(t, 2, byID["s0"].DroppedCitations)
			assert.Empty(t, byID["s2"].CitedCommunityIDs, "s0 is not in s2's batch")
			assert.Equal(t, 1, byID["s2"].DroppedCitations)
			assert.NotContains(t, byID["s2"].Answer, "[Data:")
			assert.Equal(t, 3, res.Diagnostics.Map.DroppedCitations)

			require.Len(t, model.reduce, 1)
			var headers []string
			for _, c := range model.reduce[0].Candidates {
				headers = append(headers, strings.Join(c.CommunityIDs, ","))
			}
			assert.Equal(t, []string{"s0", "s8,s9"}, headers, "cited ids, or the batch's when an answer cites none")
			assert.Contains(t, model.reduce[0].Content, "[Usefulness: 80; Community IDs: s0]\nOutput rose")

			// s1 shares s0's batch but no header names it; s3's answer was skipped.
			assert.Equal(t, 2, res.Diagnostics.InvalidCitations)
			assert.Equal(t, []string{"s0", "s9"}, citedIDs(res.Citations))
			assert.Equal(t, []string{"s0"}, res.SelectedMapAnswers[0].CitedCommunityIDs)
			assert.Equal(t, wantProvenanceCoverage, res.Diagnostics.Coverage)
		})
	}
}

func citedIDs(cs []gs.Citation) []string {
	var ids []string
	for _, c := range cs {
		ids = append(ids, c.CommunityID)
	}
	return ids
}

func TestCoverageOfRunsThatEndEarly(t *testing.T) {
	tests := []struct {
		name       string
		complete   func(req gs.ModelRequest, call int) (gs.ModelResponse, error)
		wantStatus gs.Status
		want       gs.MapAnswerCoverage
	}{
		{"every batch failed", func(gs.ModelRequest, int) (gs.ModelResponse, error) { return text("no") },
			gs.StatusFailed, gs.MapAnswerCoverage{Failed: 2}},
		{"every answer scored 0", func(req gs.ModelRequest, _ int) (gs.ModelResponse, error) {
			return text(`{"answer":"","usefulness":0}`)
		}, gs.StatusNoResults, gs.MapAnswerCoverage{ScoredZero: 2}},
		{"reduce failed twice: the answers still reached it", func(req gs.ModelRequest, _ int) (gs.ModelResponse, error) {
			if req.Stage == gs.StageReduce {
				return gs.ModelResponse{}, errors.New("model down")
			}
			return text(`{"answer":"A [Data: Communities (c0)].","usefulness":50}`)
		}, gs.StatusFailed, gs.MapAnswerCoverage{Useful: 2, ReachedReduce: 2}},
		{"an answer of nothing but foreign citations fails its batch", func(req gs.ModelRequest, _ int) (gs.ModelResponse, error) {
			if req.Stage == gs.StageReduce {
				return text(`{"answer":"A [Data: Communities (c1)]."}`)
			}
			if req.Parts[0].CommunityID == "c0" {
				return text(`{"answer":" [Data: Communities (c1)] ","usefulness":50}`)
			}
			return text(`{"answer":"A.","usefulness":50}`)
		}, gs.StatusPartial, gs.MapAnswerCoverage{Useful: 1, ReachedReduce: 1, Failed: 1}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			e, _ := newEngine(t, leafNamespace(2), &fakeModel{complete: tc.complete})
			res, _ := e.Search(t.Context(), oneBatchPerSummary(t, "What grew?", nil))
			require.Equal(t, tc.wantStatus, res.Status, res.Error)
			require.NotNil(t, res.Diagnostics.Coverage.MapAnswers)
			assert.Equal(t, tc.want, *res.Diagnostics.Coverage.MapAnswers)
			assert.Equal(t, 2, res.Diagnostics.Coverage.CommunitiesSelected)
		})
	}
	t.Run("a run refused before its plan has zero coverage, map answers included", func(t *testing.T) {
		res := gs.FailedResult("q", "boom", time.Now())
		assert.Equal(t, gs.Coverage{MapAnswers: &gs.MapAnswerCoverage{}}, res.Diagnostics.Coverage)
	})
}

func TestCoverageLine(t *testing.T) {
	tests := []struct {
		name string
		c    gs.Coverage
		want string
	}{
		{"a plan", gs.Coverage{CommunitiesSelected: 98, CommunitiesInNamespace: 120, Claims: 412, Excerpts: 380, Documents: 1},
			"coverage: 98 of 120 communities, 412 claims, 380 excerpts from 1 document"},
		{"a plan of an index without document ids", gs.Coverage{CommunitiesSelected: 1, CommunitiesInNamespace: 1, Claims: 1, Excerpts: 1},
			"coverage: 1 of 1 community, 1 claim, 1 excerpt (the index names no documents)"},
		{"a plan without excerpts", gs.Coverage{CommunitiesSelected: 0, CommunitiesInNamespace: 3},
			"coverage: 0 of 3 communities, 0 claims, 0 excerpts"},
		{"a result", wantProvenanceCoverage,
			"coverage: 10 of 10 communities, 10 claims, 4 excerpts from 2 documents; 5 map answers: 3 useful, 2 reached reduce, " +
				"1 skipped for the reduce budget, 1 scored 0, 1 failed; the answer cites 2 communities in 1 document"},
		{"a result citing communities of no document", gs.Coverage{CommunitiesSelected: 2, CommunitiesInNamespace: 2,
			MapAnswers: &gs.MapAnswerCoverage{Useful: 1, ReachedReduce: 1}, CitedCommunities: 1},
			"coverage: 2 of 2 communities, 0 claims, 0 excerpts; 1 map answer: 1 useful, 1 reached reduce, " +
				"0 skipped for the reduce budget, 0 scored 0, 0 failed; the answer cites 1 community"},
		{"a result citing nothing", gs.Coverage{MapAnswers: &gs.MapAnswerCoverage{}},
			"coverage: 0 of 0 communities, 0 claims, 0 excerpts; 0 map answers: 0 useful, 0 reached reduce, " +
				"0 skipped for the reduce budget, 0 scored 0, 0 failed; the answer cites no community"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			assert.Equal(t, tc.want, tc.c.Line())
		})
	}
}

// run's line says what one reduce call skipped and that rounds would keep
// it; a plan, a reduce that skipped nothing and one in rounds say nothing more.
func TestCoverageLineWithReduceHint(t *testing.T) {
	tests := []struct {
		name string
		c    gs.Coverage
		hint string
	}{
		{"single skipped answers", gs.Coverage{MapAnswers: &gs.MapAnswerCoverage{Useful: 3, ReachedReduce: 1, SkippedForBudget: 2}},
			"; --reduce-mode tree would keep the 2 useful answers skipped for the reduce budget"},
		{"one skipped", gs.Coverage{MapAnswers: &gs.MapAnswerCoverage{Useful: 1, SkippedForBudget: 1}},
			"; --reduce-mode tree would keep the 1 useful answer skipped for the reduce budget"},
		{"rounds skipped answers", gs.Coverage{MapAnswers: &gs.MapAnswerCoverage{Useful: 3, ReachedReduce: 1, SkippedForBudget: 2, InRounds: true}}, ""},
		{"nothing skipped", gs.Coverage{MapAnswers: &gs.MapAnswerCoverage{Useful: 3, ReachedReduce: 3}}, ""},
		{"a plan", gs.Coverage{CommunitiesSelected: 2}, ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			assert.Equal(t, tc.c.Line()+tc.hint, tc.c.LineWithReduceHint())
		})
	}
}

func TestCoverageJSON(t *testing.T) {
	tests := []struct {
		name string
		c    gs.Coverage
		want string
	}{
		{"a plan's has no map answers or cited counts", gs.Coverage{CommunitiesSelected: 2, CommunitiesInNamespace: 3, Claims: 4, Excerpts: 5, Documents: 6},
			`{"communitiesSelected":2,"communitiesInNamespace":3,"claims":4,"excerpts":5,"documents":6}`},
		{"a result's has every count, zeros included", gs.Coverage{MapAnswers: &gs.MapAnswerCoverage{Useful: 1, ReachedReduce: 2, SkippedForBudget: 3, ScoredZero: 4, Failed: 5}, CitedCommunities: 0, CitedDocuments: 7},
			`{"communitiesSelected":0,"communitiesInNamespace":0,"claims":0,"excerpts":0,"documents":0,` +
				`"mapAnswers":{"useful":1,"reachedReduce":2,"skippedForBudget":3,"scoredZero":4,"failed":5},"citedCommunities":0,"citedDocuments":7}`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			data, err := json.Marshal(tc.c)
			require.NoError(t, err)
			assert.JSONEq(t, tc.want, string(data))
			var back gs.Coverage
			require.NoError(t, json.Unmarshal(data, &back))
			assert.Equal(t, tc.c, back)
		})
	}
	t.Run("a result carries it as diagnostics.coverage", func(t *testing.T) {
		data, err := json.Marshal(gs.Result{Diagnostics: gs.Diagnostics{Coverage: wantProvenanceCoverage}})
		require.NoError(t, err)
		var v struct {
			Diagnostics struct {
				Coverage map[string]any `json:"coverage"`
			} `json:"diagnostics"`
		}
		require.NoError(t, json.Unmarshal(data, &v))
		assert.Equal(t, float64(2), v.Diagnostics.Coverage["citedCommunities"])
	})
}

// foreignCache serves every entry as an answer of nothing but a citation
// of a community in no batch.
type foreignCache struct{ gs.MapCache }

func (c foreignCache) CachedMapAnswer(ctx context.Context, key string) (gs.CachedAnswer, bool, error) {
	a, ok, err := c.MapCache.CachedMapAnswer(ctx, key)
	a.Answer = "[Data: Communities (zz)]"
	return a, ok, err
}

func TestCachedAnswersAreHeldToTheirBatch(t *testing.T) {
	complete := func(req gs.ModelRequest, _ int) (gs.ModelResponse, error) {
		if req.Stage == gs.StageReduce {
			return text(`{"answer":"A [Data: Communities (c0)]."}`)
		}
		return text(`{"answer":"A [Data: Communities (c0, c1, zz)].","usefulness":50}`)
	}
	tests := []struct {
		name         string
		wrap         func(gs.MapCache) gs.MapCache
		wantMapCalls int
	}{
		{"a hit reports the ids the model's answer dropped", func(c gs.MapCache) gs.MapCache { return c }, 0},
		{"a hit of nothing but foreign citations is a miss", func(c gs.MapCache) gs.MapCache { return foreignCache{c} }, 2},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			model := &fakeModel{complete: complete}
			e, _ := newEngine(t, leafNamespace(2), model)
			cache := dircache.New(filepath.Join(t.TempDir(), "cache"), 0, nil)
			e.Cache, e.ModelID = cache, "m"
			p := oneBatchPerSummary(t, "What grew?", nil)
			first, err := e.Search(t.Context(), p)
			require.NoError(t, err)
			// c0's batch drops c1 and zz, c1's drops c0 and zz.
			require.Equal(t, 4, first.Diagnostics.Map.DroppedCitations)

			e.Cache = tc.wrap(cache)
			second, err := e.Search(t.Context(), p)
			require.NoError(t, err)
			assert.Equal(t, tc.wantMapCalls, second.Diagnostics.Map.ModelCalls)
			assert.Equal(t, 4, second.Diagnostics.Map.DroppedCitations)
			assert.Equal(t, first.SelectedMapAnswers, second.SelectedMapAnswers)
		})
	}
}
