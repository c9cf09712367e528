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

	"github.com/graphrag-global/graphrag-global/shared/batch"
	"github.com/graphrag-global/graphrag-global/shared/globalsearch"
	"github.com/graphrag-global/graphrag-global/shared/indexfile"
	"github.com/graphrag-global/graphrag-global/shared/llm/offline"
	"github.com/graphrag-global/graphrag-global/shared/tokens"
)

// The sample index's deliberate defects, which the README lists: claims on
// non-leaf communities (orphanClaims) and cited chunks that do not exist
// (missingChunks), per docs/contract.md#map-text.
var (
	wantOrphanClaims  = []string{"claim-109", "claim-110"}
	wantMissingChunks = []string{"ch-41", "ch-90"}
)

const (
	longSummaryID = "c2-port-chronicle"
	// defaultMapPromptBudget is mapTokenBudget - mapOutputReserve with the
	// docs/contract.md#request defaults.
	defaultMapPromptBudget = 8000 - 512
)

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
		assert.Greater(t, tokens.Estimate(s.Summary), 8000)
		assert.Greater(t, tokens.Estimate(s.Summary), defaultMapPromptBudget)
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

// mapText renders one summary's map text as docs/contract.md#map-text describes: the
// summary, the claims of its descendant leaves, and the chunks they cite.
func mapText(f indexfile.File, s globalsearch.Summary) string {
	children := map[string][]string{}
	for _, c := range f.Summaries {
		if c.ParentCommunityID != "" {
			children[c.ParentCommunityID] = append(children[c.ParentCommunityID], c.ID)
		}
	}
	var leaves []string
	var walk func(id string)
	walk = func(id string) {
		kids := children[id]
		if len(kids) == 0 {
			leaves = append(leaves, id)
			return
		}
		slices.Sort(kids)
		for _, k := range kids {
			walk(k)
		}
	}
	walk(s.ID)
	chunkText := map[string]string{}
	for _, c := range f.Chunks {
		chunkText[c.ID] = c.Text
	}
	claims := slices.Clone(f.Claims)
	slices.SortFunc(claims, func(a, b globalsearch.Claim) int { return strings.Compare(a.ID, b.ID) })
	var claimLines, chunkLines []string
	seen := map[string]bool{}
	for _, leaf := range leaves {
		for _, c := range claims {
			if c.CommunityID != leaf {
				continue
			}
			line := "- " + c.Subject
			if c.Object != "" {
				line += " -> " + c.Object
			}
			claimLines = append(claimLines, line+": "+c.Description)
			for _, id := range c.SourceChunkIDs {
				if text, ok := chunkText[id]; ok && !seen[id] {
					seen[id] = true
					chunkLines = append(chunkLines, "- ("+id+") "+text)
				}
			}
		}
	}
	var sections []string
	if s.Summary != "" {
		sections = append(sections, "[Community summary]\n"+s.Summary)
	}
	if len(claimLines) > 0 {
		sections = append(sections, "[Supporting claims]\n"+strings.Join(claimLines, "\n"))
	}
	if len(chunkLines) > 0 {
		sections = append(sections, "[Source excerpts]\n"+strings.Join(chunkLines, "\n"))
	}
	return strings.Join(sections, "\n\n")
}

// TestSampleGlobalQuestion runs the offline model over the sample index the
// way a search does (leaf or level summaries packed under the default map
// budget), as a sanity check that `make run` reaches a completed answer.
func TestSampleGlobalQuestion(t *testing.T) {
	f := loadSample(t)
	hasChild := map[string]bool{}
	for _, s := range f.Summaries {
		hasChild[s.ParentCommunityID] = true
	}
	skeleton := "Question: " + globalQuestion
	m := offline.New()
	ctx := context.Background()

	tests := []struct {
		name string
		pick func(globalsearch.Summary) bool
	}{
		{"level 0", func(s globalsearch.Summary) bool { return s.Level == 0 }},
		{"level 1", func(s globalsearch.Summary) bool { return s.Level == 1 }},
		{"leaf", func(s globalsearch.Summary) bool { return !hasChild[s.ID] }},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var items []batch.Item
			for _, s := range f.Summaries {
				if tc.pick(s) {
					items = append(items, batch.Item{ID: s.ID, Text: mapText(f, s)})
				}
			}
			batches, err := batch.Pack(skeleton, defaultMapPromptBudget, items)
			require.NoError(t, err)

			var candidates []globalsearch.Candidate
			for i, b := range batches {
				resp, err := m.Complete(ctx, globalsearch.ModelRequest{
					Stage: globalsearch.StageMap, Query: globalQuestion, Content: b.Content, Parts: globalsearch.MapParts(b.Content), MaxTokens: 512,
				})
				require.NoError(t, err)
				var out struct {
					Answer     string  `json:"answer"`
					Usefulness float64 `json:"usefulness"`
				}
				require.NoError(t, json.Unmarshal([]byte(resp.Text), &out))
				assert.Positivef(t, out.Usefulness, "batch %d (%v)", i, b.IDs)
				assert.NotEmptyf(t, out.Answer, "batch %d", i)
				candidates = append(candidates, globalsearch.NewCandidate(globalsearch.MapAnswer{
					Usefulness: out.Usefulness, CommunityIDs: b.IDs, Answer: out.Answer}))
			}
			resp, err := m.Complete(ctx, globalsearch.ModelRequest{
				Stage: globalsearch.StageReduce, Query: globalQuestion, Candidates: candidates, MaxTokens: 1024,
			})
			require.NoError(t, err)
			var out struct{ Answer string }
			require.NoError(t, json.Unmarshal([]byte(resp.Text), &out))
			assert.NotEmpty(t, strings.TrimSpace(out.Answer))
			t.Logf("%d batches; answer: %s", len(batches), out.Answer)
		})
	}

	t.Run("the long summary is split", func(t *testing.T) {
		for _, s := range f.Summaries {
			if s.ID != longSummaryID {
				continue
			}
			batches, err := batch.Pack(skeleton, defaultMapPromptBudget, []batch.Item{{ID: s.ID, Text: mapText(f, s)}})
			require.NoError(t, err)
			assert.GreaterOrEqual(t, len(batches), 2)
		}
	})
}
