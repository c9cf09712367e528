package offline_test

import (
	"context"
	"encoding/json"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"
	"unicode"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/graphrag-global/graphrag-global/shared/globalsearch"
	"github.com/graphrag-global/graphrag-global/shared/indexfile"
	"github.com/graphrag-global/graphrag-global/shared/llm/offline"
	"github.com/graphrag-global/graphrag-global/shared/store/memstore"
	"github.com/graphrag-global/graphrag-global/shared/tokens"
)

// The sample index's deliberate defects, which docs/indexes.md#the-sample-index lists: claims on
// non-leaf communities (orphanClaims) and cited chunks that do not exist
// (missingChunks), per docs/contract.md#map-text.
var (
	wantOrphanClaims  = []string{"claim-109", "claim-110"}
	wantMissingChunks = []string{"ch-41", "ch-90"}
)

const longSummaryID = "c2-port-chronicle"

// samplePath locates testdata/sample-index.json from this file, so the test
// does not depend on the working directory.
func samplePath(t testing.TB) string {
	t.Helper()
	_, file, _, ok := runtime.Caller(0)
	require.True(t, ok)
	return filepath.Join(filepath.Dir(file), "..", "..", "..", "testdata", "sample-index.json")
}

func loadSample(t testing.TB) indexfile.File {
	t.Helper()
	f, err := indexfile.Load(samplePath(t))
	require.NoError(t, err)
	return f
}

func TestSampleIndex(t *testing.T) {
	f := loadSample(t)
	assert.Equal(t, "sample", f.Namespace)
	assert.GreaterOrEqual(t, len(f.Summaries), 40, "summaries")
	assert.GreaterOrEqual(t, len(f.Claims), 100, "claims")
	assert.GreaterOrEqual(t, len(f.Chunks), 30, "chunks")

	byID := map[string]globalsearch.Summary{}
	hasChild := map[string]bool{}
	levels := map[int]int{}
	for _, s := range f.Summaries {
		byID[s.ID] = s
		levels[s.Level]++
		if s.ParentCommunityID != "" {
			hasChild[s.ParentCommunityID] = true
		}
	}
	assert.GreaterOrEqual(t, len(levels), 3, "levels")
	assert.Positive(t, levels[0], "level 0 exists")

	t.Run("forest", func(t *testing.T) {
		leafLevels := map[int]bool{}
		for _, s := range f.Summaries {
			if !hasChild[s.ID] {
				leafLevels[s.Level] = true
			}
			// Walk to the root: every parent exists, sits one level up, and
			// the walk ends (no cycle) within the number of summaries.
			cur, steps := s, 0
			for cur.ParentCommunityID != "" {
				parent, ok := byID[cur.ParentCommunityID]
				require.Truef(t, ok, "%s: parent %s does not exist", cur.ID, cur.ParentCommunityID)
				assert.Equalf(t, cur.Level-1, parent.Level, "%s: level of parent %s", cur.ID, parent.ID)
				cur = parent
				steps++
				require.LessOrEqualf(t, steps, len(f.Summaries), "cycle through %s", s.ID)
			}
			assert.Equalf(t, 0, cur.Level, "%s: root %s is not at level 0", s.ID, cur.ID)
			assert.NotEmptyf(t, s.Title, "%s: title", s.ID)
			assert.NotEmptyf(t, s.Summary, "%s: summary", s.ID)
		}
		assert.GreaterOrEqual(t, len(leafLevels), 2, "leaves sit at different levels")
	})

	t.Run("claims and chunks", func(t *testing.T) {
		chunkIDs := map[string]bool{}
		for _, c := range f.Chunks {
			chunkIDs[c.ID] = true
			assert.NotEmptyf(t, c.Text, "%s: text", c.ID)
			assert.NotEmptyf(t, c.DocumentID, "%s: documentId", c.ID)
		}
		var orphans []string
		missing := map[string]bool{}
		citedBy := map[string]int{}
		multi := 0
		for _, c := range f.Claims {
			_, exists := byID[c.CommunityID]
			require.Truef(t, exists, "%s: community %s does not exist", c.ID, c.CommunityID)
			if hasChild[c.CommunityID] {
				orphans = append(orphans, c.ID)
			}
			assert.NotEmptyf(t, c.Description, "%s: description", c.ID)
			assert.NotEmptyf(t, c.SourceChunkIDs, "%s: sourceChunkIds", c.ID)
			if len(c.SourceChunkIDs) > 1 {
				multi++
			}
			for _, id := range c.SourceChunkIDs {
				citedBy[id]++
				if !chunkIDs[id] {
					missing[id] = true
				}
			}
		}
		assert.Equal(t, wantOrphanClaims, orphans, "claims on non-leaf communities")
		var missingIDs []string
		for _, id := range wantMissingChunks {
			if missing[id] {
				missingIDs = append(missingIDs, id)
			}
		}
		assert.Equal(t, wantMissingChunks, missingIDs)
		assert.Len(t, missing, len(wantMissingChunks), "no other missing chunks")
		assert.Positive(t, multi, "some claims cite several chunks")
		shared := 0
		for id, n := range citedBy {
			if chunkIDs[id] && n > 1 {
				shared++
			}
		}
		assert.Positive(t, shared, "some chunks are cited by several claims")
		for id := range chunkIDs {
			assert.Positivef(t, citedBy[id], "chunk %s is cited by no claim", id)
		}
	})

	t.Run("CJK text", func(t *testing.T) {
		var inSummaries, inClaims, inChunks, kana bool
		for _, s := range f.Summaries {
			inSummaries = inSummaries || hasHan(s.Summary)
			kana = kana || hasKana(s.Summary)
		}
		for _, c := range f.Claims {
			inClaims = inClaims || hasHan(c.Description)
		}
		for _, c := range f.Chunks {
			inChunks = inChunks || hasHan(c.Text)
		}
		assert.True(t, inSummaries && inClaims && inChunks && kana, "Chinese and Japanese text in summaries, claims and chunks")
	})

	t.Run("long summary is split under the default budget", func(t *testing.T) {
		s, ok := byID[longSummaryID]
		require.True(t, ok)
		assert.False(t, hasChild[s.ID], "the long summary is a leaf")
		p := sampleParams(t, globalsearch.LeafLevel)
		assert.Greater(t, tokens.Estimate(s.Summary), p.MapTokenBudget)
		assert.Greater(t, tokens.Estimate(s.Summary), p.MapPromptBudget())
	})
}

func hasHan(s string) bool {
	for _, r := range s {
		if unicode.Is(unicode.Han, r) {
			return true
		}
	}
	return false
}

func hasKana(s string) bool {
	for _, r := range s {
		if unicode.In(r, unicode.Hiragana, unicode.Katakana) {
			return true
		}
	}
	return false
}

const globalQuestion = "What are the main themes across Veloria's development over the decade?"

// sampleParams is the global question at level with the request defaults
// (docs/contract.md#request) and a recorded seed.
func sampleParams(t testing.TB, level globalsearch.Level) globalsearch.Params {
	t.Helper()
	seed := int64(7)
	p, err := globalsearch.Request{Query: globalQuestion, Namespace: "sample", CommunityLevel: &level, ShuffleSeed: &seed}.Params(globalsearch.SpecDefaults)
	require.NoError(t, err)
	return p
}

// samplePlan plans p over the sample index as a search's prepare step does.
func samplePlan(t testing.TB, f indexfile.File, p globalsearch.Params) globalsearch.Plan {
	t.Helper()
	store := memstore.New()
	require.NoError(t, store.ReplaceNamespace(context.Background(), p.Namespace, f.Records))
	plan, err := (&globalsearch.Engine{Index: store}).Plan(context.Background(), p)
	require.NoError(t, err)
	return plan
}

// TestSampleGlobalQuestion runs the offline model over the batches a search
// of the sample index plans (leaf or level summaries under the default map
// budget), as a sanity check that `make run` reaches a completed answer.
func TestSampleGlobalQuestion(t *testing.T) {
	f := loadSample(t)
	m := offline.New()
	ctx := context.Background()

	tests := []struct {
		name  string
		level globalsearch.Level
	}{
		{"level 0", 0},
		{"level 1", 1},
		{"leaf", globalsearch.LeafLevel},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p := sampleParams(t, tc.level)
			plan := samplePlan(t, f, p)
			require.NotEmpty(t, plan.Batches)

			var candidates []globalsearch.Candidate
			for i, b := range plan.Batches {
				resp, err := m.Complete(ctx, globalsearch.ModelRequest{
					Stage: globalsearch.StageMap, Query: p.Query, Content: b.Content, Parts: globalsearch.MapParts(b.Content), MaxTokens: p.MapOutputReserve,
				})
				require.NoError(t, err)
				var out struct {
					Answer     string  `json:"answer"`
					Usefulness float64 `json:"usefulness"`
				}
				require.NoError(t, json.Unmarshal([]byte(resp.Text), &out))
				assert.Positivef(t, out.Usefulness, "batch %d (%v)", i, b.CommunityIDs)
				assert.NotEmptyf(t, out.Answer, "batch %d", i)
				candidates = append(candidates, globalsearch.NewCandidate(globalsearch.MapAnswer{
					Usefulness: out.Usefulness, CommunityIDs: b.CommunityIDs, Answer: out.Answer}))
			}
			resp, err := m.Complete(ctx, globalsearch.ModelRequest{
				Stage: globalsearch.StageReduce, Query: p.Query, Candidates: candidates, MaxTokens: p.ReduceOutputReserve,
			})
			require.NoError(t, err)
			var out struct{ Answer string }
			require.NoError(t, json.Unmarshal([]byte(resp.Text), &out))
			assert.NotEmpty(t, strings.TrimSpace(out.Answer))
			t.Logf("%d batches; answer: %s", len(plan.Batches), out.Answer)
		})
	}

	t.Run("the long summary is split", func(t *testing.T) {
		plan := samplePlan(t, f, sampleParams(t, globalsearch.LeafLevel))
		parts := 0
		for _, b := range plan.Batches {
			if slices.Contains(b.CommunityIDs, longSummaryID) {
				parts++
			}
		}
		assert.GreaterOrEqual(t, parts, 2)
	})
}
