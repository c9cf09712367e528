package offline_test

import (
	"path/filepath"
	"runtime"
	"testing"
	"unicode"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/graphrag-global/graphrag-global/shared/globalsearch"
	"github.com/graphrag-global/graphrag-global/shared/indexfile"
	"github.com/graphrag-global/graphrag-global/shared/tokens"
)

// The sample index's deliberate defects, which the README lists: claims on
// non-leaf communities (orphanClaims) and cited chunks that do not exist
// (missingChunks), per SPEC §4.2.
var (
	wantOrphanClaims  = []string{"claim-109", "claim-110"}
	wantMissingChunks = []string{"ch-41", "ch-90"}
)

const (
	longSummaryID = "c2-port-chronicle"
	// defaultMapPromptBudget is mapTokenBudget - mapOutputReserve with the
	// SPEC §2 defaults.
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
