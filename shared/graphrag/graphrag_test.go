package graphrag

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/parquet-go/parquet-go"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/graphrag-global/graphrag-global/shared/globalsearch"
)

// Row types for the generated fixtures. Pointers are nullable columns, the
// way pandas writes every column GraphRAG saves.

// v3 layout: GraphRAG 2.x/3.x file and column names.
type reportV3 struct {
	Community   int64   `parquet:"community"`
	Level       int64   `parquet:"level"`
	Parent      *int64  `parquet:"parent,optional"`
	Children    []int64 `parquet:"children,list"`
	Title       *string `parquet:"title,optional"`
	Summary     *string `parquet:"summary,optional"`
	FullContent *string `parquet:"full_content,optional"`
}

type communityV3 struct {
	Community int64    `parquet:"community"`
	Level     int64    `parquet:"level"`
	Parent    *int64   `parquet:"parent,optional"`
	Children  []int64  `parquet:"children,list"`
	EntityIDs []string `parquet:"entity_ids,optional,list"`
}

type entityV3 struct {
	ID    string  `parquet:"id"`
	Title *string `parquet:"title,optional"`
}

type covariateV3 struct {
	ID              *string `parquet:"id,optional"`
	HumanReadableID int64   `parquet:"human_readable_id"`
	Type            *string `parquet:"type,optional"`
	SubjectID       *string `parquet:"subject_id,optional"`
	ObjectID        *string `parquet:"object_id,optional"`
	Status          *string `parquet:"status,optional"`
	Description     *string `parquet:"description,optional"`
	TextUnitID      *string `parquet:"text_unit_id,optional"`
	SourceText      *string `parquet:"source_text,optional"`
}

type textUnitV3 struct {
	ID         string  `parquet:"id"`
	Text       *string `parquet:"text,optional"`
	DocumentID *string `parquet:"document_id,optional"`
}

// v1 layout: create_final_ file names, community numbers as text, no
// parent column (the hierarchy only in legacy two-level `children`),
// entities named by `name`, covariates without `id` or `status`, units
// linked to a list of documents.
type reportV1 struct {
	Community   string  `parquet:"community"`
	Level       int64   `parquet:"level"`
	Summary     *string `parquet:"summary,optional"`
	FullContent *string `parquet:"full_content,optional"`
}

type communityV1 struct {
	Community int64    `parquet:"community"`
	Level     int64    `parquet:"level"`
	Children  []int64  `parquet:"children"`
	EntityIDs []string `parquet:"entity_ids,list"`
}

type entityV1 struct {
	ID   string `parquet:"id"`
	Name string `parquet:"name"`
}

type covariateV1 struct {
	HumanReadableID int64   `parquet:"human_readable_id"`
	SubjectID       *string `parquet:"subject_id,optional"`
	ObjectID        *string `parquet:"object_id,optional"`
	Description     *string `parquet:"description,optional"`
	TextUnitID      *string `parquet:"text_unit_id,optional"`
}

type textUnitV1 struct {
	ID          string   `parquet:"id"`
	Text        string   `parquet:"text"`
	DocumentIDs []string `parquet:"document_ids,list"`
}

func ptr[T any](v T) *T { return &v }

func writeParquet[T any](t *testing.T, dir, name string, rows []T) {
	t.Helper()
	require.NoError(t, parquet.WriteFile(filepath.Join(dir, name), rows))
}

// The hierarchy of both layouts: roots 0 and 3; 0 has children 1 and 2.
// Leaves are 1, 2, 3. SCROOGE (e1) sits in leaves 2 and 3, so the smallest,
// 2, gets its claims.
func writeV3(t *testing.T, dir string) {
	writeParquet(t, dir, "community_reports.parquet", []reportV3{
		{Community: 3, Level: 0, Parent: ptr[int64](-1), Title: ptr("Lone"), Summary: ptr("s3"), FullContent: ptr("f3")},
		{Community: 0, Level: 0, Parent: ptr[int64](-1), Children: []int64{1, 2}, Title: ptr("Root"), Summary: ptr("s0"), FullContent: ptr("f0")},
		{Community: 1, Level: 1, Parent: ptr[int64](0), Summary: ptr("s1"), FullContent: ptr("f1")},
		{Community: 2, Level: 1, Parent: ptr[int64](0), Title: ptr("Two"), FullContent: ptr("f2")},
	})
	writeParquet(t, dir, "communities.parquet", []communityV3{
		{Community: 3, Level: 0, Parent: ptr[int64](-1), EntityIDs: []string{"e1"}},
		{Community: 0, Level: 0, Parent: ptr[int64](-1), Children: []int64{1, 2}, EntityIDs: []string{"e1", "e2", "e3", "e5"}},
		{Community: 1, Level: 1, Parent: ptr[int64](0), EntityIDs: []string{"e2"}},
		{Community: 2, Level: 1, Parent: ptr[int64](0), EntityIDs: []string{"e3", "e1", "e5"}},
	})
	writeParquet(t, dir, "entities.parquet", []entityV3{
		{ID: "e1", Title: ptr("SCROOGE")},
		{ID: "e2", Title: ptr("MARLEY")},
		{ID: "e3", Title: ptr("TINY TIM")},
		{ID: "e4", Title: ptr("LONER")},
		{ID: "e5", Title: ptr("ghost")},
		{ID: "e6"},
	})
	writeParquet(t, dir, "covariates.parquet", []covariateV3{
		{ID: ptr("c1"), HumanReadableID: 1, Type: ptr("GREED"), SubjectID: ptr("SCROOGE"), ObjectID: ptr("NONE"), Status: ptr("TRUE"), Description: ptr("d1"), TextUnitID: ptr("t1"), SourceText: ptr("Oh! But he was a tight-fisted hand.")},
		{ID: ptr("c2"), HumanReadableID: 2, SubjectID: ptr("MARLEY"), ObjectID: ptr("SCROOGE "), Status: ptr("FALSE"), Description: ptr("d2")},
		{ID: ptr("c3"), HumanReadableID: 3, SubjectID: ptr(" GHOST"), Description: ptr("d3"), TextUnitID: ptr("t2"), SourceText: ptr("NONE")},
		{ID: ptr("c4"), HumanReadableID: 4, SubjectID: ptr("NOBODY"), Description: ptr("d4")},
		{ID: ptr("c5"), HumanReadableID: 5, SubjectID: ptr("LONER"), Description: ptr("d5")},
		{ID: ptr("c6"), HumanReadableID: 6, Description: ptr("d6")},
		{HumanReadableID: 7, SubjectID: ptr("TINY TIM"), ObjectID: ptr(""), Status: ptr("SUSPECTED"), Description: ptr("d7"), TextUnitID: ptr("t1"), SourceText: ptr(" Oh! But he was a tight-fisted hand.\n")},
		{ID: ptr("c8"), HumanReadableID: 8, SubjectID: ptr("SCROOGE"), Description: ptr("d8"), TextUnitID: ptr("t2"), SourceText: ptr("Oh! But he was a tight-fisted hand.")},
	})
	writeParquet(t, dir, "text_units.parquet", []textUnitV3{
		{ID: "t1", Text: ptr("chunk one"), DocumentID: ptr("doc1")},
		{ID: "t2"},
	})
}

func writeV1(t *testing.T, dir string) {
	writeParquet(t, dir, "create_final_community_reports.parquet", []reportV1{
		{Community: "0", Level: 0, Summary: ptr("s0"), FullContent: ptr("f0")},
		{Community: "1", Level: 1, Summary: ptr("s1"), FullContent: ptr("f1")},
		{Community: "2", Level: 1, FullContent: ptr("f2")},
		{Community: "3", Level: 0, Summary: ptr("s3"), FullContent: ptr("f3")},
	})
	writeParquet(t, dir, "create_final_communities.parquet", []communityV1{
		{Community: 0, Level: 0, Children: []int64{1, 2}, EntityIDs: []string{"e1", "e2"}},
		{Community: 1, Level: 1, EntityIDs: []string{"e2"}},
		{Community: 2, Level: 1, EntityIDs: []string{"e1"}},
		{Community: 3, Level: 0, EntityIDs: []string{"e1"}},
	})
	writeParquet(t, dir, "create_final_entities.parquet", []entityV1{{ID: "e1", Name: "SCROOGE"}, {ID: "e2", Name: "MARLEY"}})
	writeParquet(t, dir, "create_final_covariates.parquet", []covariateV1{
		{HumanReadableID: 0, SubjectID: ptr("SCROOGE"), ObjectID: ptr("MARLEY"), Description: ptr("d0"), TextUnitID: ptr("t1")},
		{HumanReadableID: 1, SubjectID: ptr("MARLEY"), Description: ptr("d1")},
	})
	writeParquet(t, dir, "create_final_text_units.parquet", []textUnitV1{
		{ID: "t1", Text: "chunk one", DocumentIDs: []string{"doc1", "doc2"}},
		{ID: "t2", Text: "chunk two"},
	})
}

func TestImport(t *testing.T) {
	v3Claims := []globalsearch.Claim{
		{ID: "c1", CommunityID: "2", Subject: "SCROOGE", Description: "d1", SourceChunkIDs: []string{"t1"}},
		{ID: "c2", CommunityID: "1", Subject: "MARLEY", Object: "SCROOGE", Description: "[status: FALSE] d2", SourceChunkIDs: []string{}},
		{ID: "c3", CommunityID: "2", Subject: "GHOST", Description: "d3", SourceChunkIDs: []string{"t2"}},
		{ID: "7", CommunityID: "2", Subject: "TINY TIM", Description: "[status: SUSPECTED] d7", SourceChunkIDs: []string{"t1"}},
		{ID: "c8", CommunityID: "2", Subject: "SCROOGE", Description: "d8", SourceChunkIDs: []string{"t2"}},
	}
	v3Unmatched := []UnmatchedClaim{
		{ID: "c4", Subject: "NOBODY", Reason: ReasonUnknownEntity},
		{ID: "c5", Subject: "LONER", Reason: ReasonNoCommunity},
		{ID: "c6", Reason: ReasonNoSubject},
	}
	v3Chunks := []globalsearch.Chunk{{ID: "t1", Text: "chunk one", DocumentID: "doc1"}, {ID: "t2"}}
	tests := []struct {
		name          string
		write         func(*testing.T, string)
		content       Content
		wantSummaries []globalsearch.Summary
		wantClaims    []globalsearch.Claim
		wantChunks    []globalsearch.Chunk
		wantUnmatched []UnmatchedClaim
		wantBlank     int
	}{
		{
			name:  "v3 layout, summary text",
			write: writeV3,
			wantSummaries: []globalsearch.Summary{
				{ID: "0", Level: 0, Title: "Root", Summary: "# Root\n\ns0"},
				{ID: "1", Level: 1, ParentCommunityID: "0", Summary: "s1"},
				{ID: "2", Level: 1, ParentCommunityID: "0", Title: "Two"},
				{ID: "3", Level: 0, Title: "Lone", Summary: "# Lone\n\ns3"},
			},
			wantClaims:    v3Claims,
			wantChunks:    v3Chunks,
			wantUnmatched: v3Unmatched,
			wantBlank:     1,
		},
		{
			name:    "v3 layout, full content",
			write:   writeV3,
			content: ContentFullContent,
			wantSummaries: []globalsearch.Summary{
				// The summary column is kept beside full_content, to rate by
				// (docs/contract.md#dynamic-selection).
				{ID: "0", Level: 0, Title: "Root", Summary: "# Root\n\nf0", ShortSummary: "s0"},
				{ID: "1", Level: 1, ParentCommunityID: "0", Summary: "f1", ShortSummary: "s1"},
				{ID: "2", Level: 1, ParentCommunityID: "0", Title: "Two", Summary: "# Two\n\nf2"},
				{ID: "3", Level: 0, Title: "Lone", Summary: "# Lone\n\nf3", ShortSummary: "s3"},
			},
			wantClaims:    v3Claims,
			wantChunks:    v3Chunks,
			wantUnmatched: v3Unmatched,
		},
		{
			name:  "v1 layout: hierarchy from children, text ids, no status",
			write: writeV1,
			wantSummaries: []globalsearch.Summary{
				{ID: "0", Level: 0, Summary: "s0"},
				{ID: "1", Level: 1, ParentCommunityID: "0", Summary: "s1"},
				{ID: "2", Level: 1, ParentCommunityID: "0"},
				{ID: "3", Level: 0, Summary: "s3"},
			},
			wantClaims: []globalsearch.Claim{
				{ID: "0", CommunityID: "2", Subject: "SCROOGE", Object: "MARLEY", Description: "d0", SourceChunkIDs: []string{"t1"}},
				{ID: "1", CommunityID: "1", Subject: "MARLEY", Description: "d1", SourceChunkIDs: []string{}},
			},
			wantChunks: []globalsearch.Chunk{{ID: "t1", Text: "chunk one", DocumentID: "doc1"}, {ID: "t2", Text: "chunk two"}},
			wantBlank:  1,
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			tc.write(t, dir)
			var progress bytes.Buffer
			records, report, err := Import(context.Background(), dir, Options{Content: tc.content, Excerpts: ExcerptsTextUnit, Progress: &progress})
			require.NoError(t, err)
			assert.Equal(t, tc.wantSummaries, records.Summaries)
			assert.Equal(t, tc.wantClaims, records.Claims)
			assert.Equal(t, tc.wantChunks, records.Chunks)
			assert.Equal(t, tc.wantUnmatched, report.Unmatched)
			assert.Equal(t, 4, report.Summaries)
			assert.Equal(t, 3, report.Leaves)
			assert.Equal(t, map[int]int{0: 2, 1: 2}, report.Levels)
			assert.Equal(t, tc.wantBlank, report.BlankSummaries)
			assert.Equal(t, len(tc.wantClaims), report.ClaimsAttached)
			assert.Equal(t, len(tc.wantClaims)+len(tc.wantUnmatched), report.Covariates)
			assert.Equal(t, len(tc.wantChunks), report.Chunks)
			assert.Empty(t, report.Warnings)
			assert.Contains(t, progress.String(), "summaries")
		})
	}
}

func TestImportOptionalFiles(t *testing.T) {
	dir := t.TempDir()
	writeV3(t, dir)
	for _, f := range []string{"covariates.parquet", "text_units.parquet", "communities.parquet", "entities.parquet"} {
		require.NoError(t, os.Remove(filepath.Join(dir, f)))
	}
	records, report, err := Import(context.Background(), dir, Options{})
	require.NoError(t, err)
	assert.Len(t, records.Summaries, 4)
	assert.Equal(t, []globalsearch.Claim{}, records.Claims, "an empty list, not null, in the index file")
	assert.Equal(t, []globalsearch.Chunk{}, records.Chunks)
	require.Len(t, report.Warnings, 2)
	assert.Contains(t, report.Warnings[0], "no covariates.parquet")
	assert.Contains(t, report.Warnings[1], "no text_units.parquet")
}

func TestImportParentWithoutReport(t *testing.T) {
	dir := t.TempDir()
	writeParquet(t, dir, "community_reports.parquet", []reportV3{
		{Community: 0, Level: 0, Parent: ptr[int64](-1), Summary: ptr("s0")},
		{Community: 1, Level: 1, Parent: ptr[int64](0), Summary: ptr("s1")},
		{Community: 2, Level: 1, Parent: ptr[int64](9), Summary: ptr("s2")},
		{Community: 3, Level: 0, Summary: ptr("no parent at all")},
	})
	records, report, err := Import(context.Background(), dir, Options{})
	require.NoError(t, err)
	assert.Equal(t, "0", records.Summaries[1].ParentCommunityID)
	assert.Empty(t, records.Summaries[2].ParentCommunityID, "a dangling parent link is dropped")
	assert.Empty(t, records.Summaries[3].ParentCommunityID)
	assert.Equal(t, 3, report.Leaves)
	require.NotEmpty(t, report.Warnings)
	assert.Contains(t, report.Warnings[0], "2 (parent 9)")
}

// A long list of invalid records is capped in the warning, which still
// gives the count.
func TestImportParentWithoutReportListIsCapped(t *testing.T) {
	const n = 5000
	dir := t.TempDir()
	reports := []reportV3{{Community: 0, Level: 0, Parent: ptr[int64](-1), Summary: ptr("s0")}}
	for i := int64(1); i <= n; i++ {
		reports = append(reports, reportV3{Community: i, Level: 1, Parent: ptr(n + i), Summary: ptr("s")})
	}
	writeParquet(t, dir, "community_reports.parquet", reports)
	_, report, err := Import(context.Background(), dir, Options{})
	require.NoError(t, err)
	require.NotEmpty(t, report.Warnings)
	w := report.Warnings[0]
	assert.True(t, strings.HasPrefix(w, fmt.Sprintf("%d communities name a parent", n)), w)
	assert.True(t, strings.HasSuffix(w, fmt.Sprintf("… and %d more", n-globalsearch.MaxListed)), w)
	assert.Less(t, len(w), 1000)
}

func TestImportErrors(t *testing.T) {
	type badReport struct {
		Community int64   `parquet:"community"`
		Summary   *string `parquet:"summary,optional"`
	}
	type nullCommunity struct {
		Community *int64 `parquet:"community,optional"`
		Level     int64  `parquet:"level"`
		Summary   string `parquet:"summary"`
	}
	type badCovariate struct {
		ID          string `parquet:"id"`
		Description string `parquet:"description"`
	}
	type badEntity struct {
		ID string `parquet:"id"`
	}
	tests := []struct {
		name     string
		setup    func(t *testing.T, dir string)
		content  Content
		excerpts Excerpts
		want     []string
		missing  *MissingColumnError
	}{
		{
			name:  "no community reports",
			setup: func(t *testing.T, dir string) {},
			want:  []string{"community_reports.parquet or create_final_community_reports.parquet"},
		},
		{
			name: "required column missing",
			setup: func(t *testing.T, dir string) {
				writeParquet(t, dir, "community_reports.parquet", []badReport{{Community: 1}})
			},
			want:    []string{"community_reports.parquet", `"level"`, "community, summary"},
			missing: &MissingColumnError{File: "community_reports.parquet", Column: `"level"`},
		},
		{
			name: "chosen content column missing",
			setup: func(t *testing.T, dir string) {
				type noFull struct {
					Community int64  `parquet:"community"`
					Level     int64  `parquet:"level"`
					Summary   string `parquet:"summary"`
				}
				writeParquet(t, dir, "community_reports.parquet", []noFull{{Community: 1}})
			},
			content: ContentFullContent,
			missing: &MissingColumnError{File: "community_reports.parquet", Column: `"full_content"`},
		},
		{
			name: "null community",
			setup: func(t *testing.T, dir string) {
				writeParquet(t, dir, "community_reports.parquet", []nullCommunity{{Community: ptr[int64](1)}, {}})
			},
			want: []string{"community_reports.parquet row 1", `"community" is null`},
		},
		{
			name: "covariates without subject",
			setup: func(t *testing.T, dir string) {
				writeV3(t, dir)
				writeParquet(t, dir, "covariates.parquet", []badCovariate{{ID: "c1"}})
			},
			missing: &MissingColumnError{File: "covariates.parquet", Column: `"subject_id"`},
		},
		{
			name: "entities without a name",
			setup: func(t *testing.T, dir string) {
				writeV3(t, dir)
				writeParquet(t, dir, "entities.parquet", []badEntity{{ID: "e1"}})
			},
			missing: &MissingColumnError{File: "entities.parquet", Column: `"title" or "name"`},
		},
		{
			name: "covariates without entities",
			setup: func(t *testing.T, dir string) {
				writeV3(t, dir)
				require.NoError(t, os.Remove(filepath.Join(dir, "entities.parquet")))
			},
			want: []string{"entities.parquet"},
		},
		{
			name: "not parquet",
			setup: func(t *testing.T, dir string) {
				require.NoError(t, os.WriteFile(filepath.Join(dir, "community_reports.parquet"), []byte("community,level\n"), 0o644))
			},
			want: []string{"community_reports.parquet: not a readable parquet file"},
		},
		{
			name: "parent cycle",
			setup: func(t *testing.T, dir string) {
				writeParquet(t, dir, "community_reports.parquet", []reportV3{
					{Community: 0, Level: 0, Parent: ptr[int64](-1), Summary: ptr("s0")},
					{Community: 1, Level: 1, Parent: ptr[int64](2), Summary: ptr("s1")},
					{Community: 2, Level: 2, Parent: ptr[int64](1), Summary: ptr("s2")},
				})
			},
			want: []string{"community_reports.parquet", "parentCommunityId links form a cycle: 1 -> 2 -> 1"},
		},
		{
			name: "child not below its parent",
			setup: func(t *testing.T, dir string) {
				writeParquet(t, dir, "community_reports.parquet", []reportV3{
					{Community: 0, Level: 1, Parent: ptr[int64](-1), Summary: ptr("s0")},
					{Community: 1, Level: 1, Parent: ptr[int64](0), Summary: ptr("s1")},
				})
			},
			want: []string{"community_reports.parquet", "a child's level must be greater than its parent's: 1 (level 1) under 0 (level 1)"},
		},
		{
			name: "a claim id the search refuses",
			setup: func(t *testing.T, dir string) {
				writeV3(t, dir)
				writeParquet(t, dir, "covariates.parquet", []covariateV3{{ID: ptr("c|1"), SubjectID: ptr("SCROOGE")}})
			},
			want: []string{"covariates.parquet: claims[0]", `field "id" holds '|'`},
		},
		{
			name: "level of the wrong type",
			setup: func(t *testing.T, dir string) {
				type textLevel struct {
					Community int64  `parquet:"community"`
					Level     string `parquet:"level"`
					Summary   string `parquet:"summary"`
				}
				writeParquet(t, dir, "community_reports.parquet", []textLevel{{Community: 1, Level: "top"}})
			},
			want: []string{"community_reports.parquet row 0", `"top" is not an integer`},
		},
		{
			name: "a column of structs where a scalar belongs",
			setup: func(t *testing.T, dir string) {
				type groupTitle struct {
					Community int64 `parquet:"community"`
					Level     int64 `parquet:"level"`
					Summary   struct {
						A string `parquet:"a"`
						B string `parquet:"b"`
					} `parquet:"summary"`
				}
				writeParquet(t, dir, "community_reports.parquet", []groupTitle{{Community: 1}})
			},
			want: []string{`community_reports.parquet: column "summary": is a group of several columns`},
		},
		{
			name: "a folder where a file belongs",
			setup: func(t *testing.T, dir string) {
				require.NoError(t, os.Mkdir(filepath.Join(dir, "community_reports.parquet"), 0o755))
			},
			want: []string{"community_reports.parquet: is not a regular file"},
		},
		{
			name: "a named pipe where a file belongs",
			setup: func(t *testing.T, dir string) {
				// Opening a FIFO blocks until a writer comes: the import must
				// refuse it without opening it.
				require.NoError(t, syscall.Mkfifo(filepath.Join(dir, "covariates.parquet"), 0o644))
				writeParquet(t, dir, "community_reports.parquet", []reportV3{{Community: 0, Level: 0, Summary: ptr("s0")}})
			},
			want: []string{"covariates.parquet: is not a regular file"},
		},
		{
			name: "a truncated file",
			setup: func(t *testing.T, dir string) {
				writeV3(t, dir)
				path := filepath.Join(dir, "entities.parquet")
				data, err := os.ReadFile(path)
				require.NoError(t, err)
				require.NoError(t, os.WriteFile(path, data[:len(data)/2], 0o644))
			},
			want: []string{"entities.parquet: not a readable parquet file"},
		},
		{
			name:    "unknown content",
			setup:   writeV3,
			content: "abstract",
			want:    []string{`content must be "summary" or "full_content"`},
		},
		{
			name:     "unknown excerpts, checked before reading",
			setup:    func(t *testing.T, dir string) {},
			excerpts: "chunks",
			want:     []string{`excerpts must be "source-text", "text-unit" or "none", not "chunks"`},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			tc.setup(t, dir)
			_, _, err := Import(context.Background(), dir, Options{Content: tc.content, Excerpts: tc.excerpts})
			require.Error(t, err)
			assert.Equal(t, globalsearch.KindInvalidInput, globalsearch.KindOf(err), "%v", err)
			for _, w := range tc.want {
				assert.Contains(t, err.Error(), w)
			}
			if tc.missing != nil {
				var missing *MissingColumnError
				require.ErrorAs(t, err, &missing)
				assert.Equal(t, tc.missing.File, missing.File)
				assert.Equal(t, tc.missing.Column, missing.Column)
			}
		})
	}
}

func TestImportExcerpts(t *testing.T) {
	const quote = "Oh! But he was a tight-fisted hand."
	tests := []struct {
		name     string
		write    func(*testing.T, string)
		excerpts Excerpts
		// cites maps a claim id to what it cites: a text unit id, or
		// "excerpt of <unit>" for the excerpt quoted from that unit.
		cites      map[string][]string
		wantChunks []string // the same notation, in stored order
		want       Report
		warning    string
	}{
		{
			name:  "source text by default; NONE and missing fall back to the text unit",
			write: writeV3,
			cites: map[string][]string{
				"c1": {"excerpt of t1"}, "c2": {}, "c3": {"t2"}, "7": {"excerpt of t1"}, "c8": {"excerpt of t2"},
			},
			wantChunks: []string{"t2", "excerpt of t1", "excerpt of t2"},
			want:       Report{Excerpts: ExcerptsSourceText, ExcerptChunks: 2, NoSourceText: 2, CiteTextUnit: 1, TextUnits: 2, TextUnitsUncited: 1, Chunks: 3},
		},
		{
			name:       "no source_text column (GraphRAG 1.x): every claim cites its text unit",
			write:      writeV1,
			cites:      map[string][]string{"0": {"t1"}, "1": {}},
			wantChunks: []string{"t1"},
			want:       Report{Excerpts: ExcerptsSourceText, NoSourceText: 2, CiteTextUnit: 1, TextUnits: 2, TextUnitsUncited: 1, Chunks: 1},
		},
		{
			name: "no text units: excerpts still built, fallback cites nothing",
			write: func(t *testing.T, dir string) {
				writeV3(t, dir)
				require.NoError(t, os.Remove(filepath.Join(dir, "text_units.parquet")))
			},
			cites: map[string][]string{
				"c1": {"excerpt of t1"}, "c2": {}, "c3": {}, "7": {"excerpt of t1"}, "c8": {"excerpt of t2"},
			},
			wantChunks: []string{"excerpt of t1", "excerpt of t2"},
			want:       Report{Excerpts: ExcerptsSourceText, ExcerptChunks: 2, NoSourceText: 2, Chunks: 2},
			warning:    "no text_units.parquet: excerpts have no document id",
		},
		{
			name:       "none: claims cite nothing, no chunk stored",
			write:      writeV3,
			excerpts:   ExcerptsNone,
			cites:      map[string][]string{"c1": {}, "c2": {}, "c3": {}, "7": {}, "c8": {}},
			wantChunks: []string{},
			want:       Report{Excerpts: ExcerptsNone},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			tc.write(t, dir)
			records, report, err := Import(context.Background(), dir, Options{Excerpts: tc.excerpts})
			require.NoError(t, err)
			again, _, err := Import(context.Background(), dir, Options{Excerpts: tc.excerpts})
			require.NoError(t, err)
			assert.Equal(t, records, again, "ids are stable across imports")

			// Name each stored chunk in the test's notation, checking what
			// an excerpt holds on the way.
			units := map[string]string{"t1": "doc1", "t2": ""}
			name := map[string]string{}
			var chunks []string
			for _, c := range records.Chunks {
				if _, isUnit := units[c.ID]; isUnit {
					name[c.ID] = c.ID
				} else {
					unit, _, ok := strings.Cut(c.ID, "~")
					require.True(t, ok, "excerpt id %q names its unit", c.ID)
					name[c.ID] = "excerpt of " + unit
					assert.Equal(t, quote, c.Text, "the source text, trimmed")
					if tc.warning == "" {
						assert.Equal(t, units[unit], c.DocumentID, "the unit's document")
					}
				}
				chunks = append(chunks, name[c.ID])
			}
			assert.Equal(t, tc.wantChunks, append([]string{}, chunks...))
			got := map[string][]string{}
			for _, c := range records.Claims {
				got[c.ID] = []string{}
				for _, id := range c.SourceChunkIDs {
					require.Contains(t, name, id, "claim %s cites a stored chunk", c.ID)
					got[c.ID] = append(got[c.ID], name[id])
				}
			}
			assert.Equal(t, tc.cites, got)
			assert.Equal(t, tc.want.Excerpts, report.Excerpts)
			assert.Equal(t, tc.want.ExcerptChunks, report.ExcerptChunks)
			assert.Equal(t, tc.want.NoSourceText, report.NoSourceText)
			assert.Equal(t, tc.want.CiteTextUnit, report.CiteTextUnit)
			assert.Equal(t, tc.want.TextUnits, report.TextUnits)
			assert.Equal(t, tc.want.TextUnitsUncited, report.TextUnitsUncited)
			assert.Equal(t, tc.want.Chunks, report.Chunks)
			if tc.warning != "" {
				require.Len(t, report.Warnings, 1)
				assert.Contains(t, report.Warnings[0], tc.warning)
			} else {
				assert.Empty(t, report.Warnings)
			}
		})
	}
}

// TestImportFolderErrors: a missing folder, or a file where the folder
// belongs, is invalid input naming the path.
func TestImportFolderErrors(t *testing.T) {
	file := filepath.Join(t.TempDir(), "file")
	require.NoError(t, os.WriteFile(file, nil, 0o644))
	tests := []struct {
		name, dir, want string
	}{
		{name: "missing", dir: filepath.Join(t.TempDir(), "nope"), want: "nope: no such folder"},
		{name: "a file", dir: file, want: file + " is not a folder"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, _, err := Import(context.Background(), tc.dir, Options{})
			require.Error(t, err)
			assert.Equal(t, globalsearch.KindInvalidInput, globalsearch.KindOf(err), "%v", err)
			assert.Contains(t, err.Error(), tc.want)
		})
	}
}

func TestImportCanceled(t *testing.T) {
	dir := t.TempDir()
	writeV3(t, dir)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, _, err := Import(ctx, dir, Options{})
	assert.ErrorIs(t, err, context.Canceled)
}

func TestColumnConversions(t *testing.T) {
	type row struct {
		AsFloat  *float64 `parquet:"as_float,optional"`
		AsText   *string  `parquet:"as_text,optional"`
		Nums     []int64  `parquet:"nums,optional,list" parquet-element:",optional"`
		Findings []struct {
			A string `parquet:"a"`
			B string `parquet:"b"`
		} `parquet:"findings,list"`
	}
	dir := t.TempDir()
	writeParquet(t, dir, "t.parquet", []row{
		{AsFloat: ptr(3.0), AsText: ptr(" 4 "), Nums: []int64{1, 2}},
		{},
		{AsFloat: ptr(2.5), AsText: ptr("x"), Nums: []int64{}},
		{AsText: ptr("5.0")},
	})
	tb, err := openTable(filepath.Join(dir, "t.parquet"), "t.parquet")
	require.NoError(t, err)
	floats, err := tb.column("as_float", true)
	require.NoError(t, err)
	texts, err := tb.column("as_text", true)
	require.NoError(t, err)
	nums, err := tb.column("nums", true)
	require.NoError(t, err)

	tests := []struct {
		name    string
		col     *column
		row     int
		want    int64
		wantOK  bool
		wantErr string
	}{
		{name: "integral float", col: floats, row: 0, want: 3, wantOK: true},
		{name: "padded text", col: texts, row: 0, want: 4, wantOK: true},
		{name: "integral float as text", col: texts, row: 3, want: 5, wantOK: true},
		{name: "null", col: floats, row: 1},
		{name: "fraction", col: floats, row: 2, wantErr: `t.parquet row 2: column "as_float": 2.5 is not an integer`},
		{name: "not a number", col: texts, row: 2, wantErr: `"x" is not an integer`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			n, ok, err := tc.col.int(tc.row)
			if tc.wantErr != "" {
				require.Error(t, err)
				assert.Contains(t, err.Error(), tc.wantErr)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tc.want, n)
			assert.Equal(t, tc.wantOK, ok)
		})
	}

	got, err := nums.ints(0)
	require.NoError(t, err)
	assert.Equal(t, []int64{1, 2}, got)
	assert.Nil(t, nums.strs(1), "null list")
	assert.Nil(t, nums.strs(2), "empty list")
	assert.Equal(t, []string{"1", "2"}, nums.strs(0))

	_, err = tb.column("findings", true)
	assert.ErrorContains(t, err, `t.parquet: column "findings": is a group of several columns`)
	absent, err := tb.column("absent", false)
	require.NoError(t, err)
	assert.False(t, absent.present)
	assert.Empty(t, absent.str(3))
}
