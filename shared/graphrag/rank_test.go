package graphrag

import (
	"context"
	"math"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// reportRanked is a v3 report with GraphRAG's rank and size columns.
type reportRanked struct {
	Community int64    `parquet:"community"`
	Level     int64    `parquet:"level"`
	Parent    *int64   `parquet:"parent,optional"`
	Children  []int64  `parquet:"children,list"`
	Summary   *string  `parquet:"summary,optional"`
	Rank      *float64 `parquet:"rank,optional"`
	Size      *int64   `parquet:"size,optional"`
}

// docs/contract.md#centrality: an import keeps each report's rank and size;
// a rank GraphRAG cannot give (negative, NaN, infinite) or a null is no
// rank, and a negative size no size.
func TestImportKeepsRankAndSize(t *testing.T) {
	dir := t.TempDir()
	writeV3(t, dir)
	writeParquet(t, dir, "community_reports.parquet", []reportRanked{
		{Community: 0, Level: 0, Parent: ptr[int64](-1), Children: []int64{1, 2}, Summary: ptr("s0"), Rank: ptr(8.5), Size: ptr[int64](117)},
		{Community: 1, Level: 1, Parent: ptr[int64](0), Summary: ptr("s1"), Rank: ptr(-2.0), Size: ptr[int64](-4)},
		{Community: 2, Level: 1, Parent: ptr[int64](0), Summary: ptr("s2"), Rank: ptr(math.NaN())},
		{Community: 3, Level: 0, Parent: ptr[int64](-1), Summary: ptr("s3"), Rank: ptr(math.Inf(1)), Size: ptr[int64](3)},
	})
	records, _, err := Import(context.Background(), dir, Options{})
	require.NoError(t, err)
	type rankSize struct {
		rank float64
		size int
	}
	got := map[string]rankSize{}
	for _, s := range records.Summaries {
		got[s.ID] = rankSize{s.Rank, s.Size}
	}
	assert.Equal(t, map[string]rankSize{"0": {8.5, 117}, "1": {0, 0}, "2": {0, 0}, "3": {0, 3}}, got)
	assert.NoError(t, records.Validate())
}

// A rank column that holds text is read as a number, and text that is
// none is invalid input naming the row.
func TestImportRankAsText(t *testing.T) {
	type reportTextRank struct {
		Community int64   `parquet:"community"`
		Level     int64   `parquet:"level"`
		Parent    *int64  `parquet:"parent,optional"`
		Children  []int64 `parquet:"children,list"`
		Summary   *string `parquet:"summary,optional"`
		Rank      *string `parquet:"rank,optional"`
	}
	tests := []struct {
		name, rank string
		want       float64
		wantErr    string
	}{
		{"a number", " 7.5", 7.5, ""},
		{"not a number", "high", 0, `community_reports.parquet row 3: column "rank": "high" is not a number`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			writeV3(t, dir)
			writeParquet(t, dir, "community_reports.parquet", []reportTextRank{
				{Community: 0, Level: 0, Parent: ptr[int64](-1), Children: []int64{1, 2}, Summary: ptr("s0")},
				{Community: 1, Level: 1, Parent: ptr[int64](0), Summary: ptr("s1")},
				{Community: 2, Level: 1, Parent: ptr[int64](0), Summary: ptr("s2")},
				{Community: 3, Level: 0, Parent: ptr[int64](-1), Summary: ptr("s3"), Rank: ptr(tc.rank)},
			})
			records, _, err := Import(context.Background(), dir, Options{})
			if tc.wantErr != "" {
				require.Error(t, err)
				assert.Contains(t, err.Error(), tc.wantErr)
				return
			}
			require.NoError(t, err)
			for _, s := range records.Summaries {
				if s.ID == "3" {
					assert.Equal(t, tc.want, s.Rank)
				}
			}
		})
	}
}
