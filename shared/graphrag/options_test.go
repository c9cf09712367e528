package graphrag_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/graphrag-global/graphrag-global/shared/globalsearch"
	"github.com/graphrag-global/graphrag-global/shared/graphrag"
)

func TestParseOptions(t *testing.T) {
	cases := []struct {
		content, excerpts string
		want              graphrag.Options
		wantErr           string
	}{
		{want: graphrag.Options{}},
		{content: "full_content", excerpts: "text-unit", want: graphrag.Options{Content: graphrag.ContentFullContent, Excerpts: graphrag.ExcerptsTextUnit}},
		{content: "summary", excerpts: "none", want: graphrag.Options{Content: graphrag.ContentSummary, Excerpts: graphrag.ExcerptsNone}},
		{content: "title", wantErr: `--content must be "summary" or "full_content"`},
		{excerpts: "all", wantErr: `--excerpts must be "source-text", "text-unit" or "none"`},
	}
	for _, tc := range cases {
		t.Run(tc.content+"/"+tc.excerpts, func(t *testing.T) {
			got, err := graphrag.ParseOptions(tc.content, tc.excerpts)
			if tc.wantErr != "" {
				assert.Equal(t, globalsearch.KindInvalidInput, globalsearch.KindOf(err))
				assert.ErrorContains(t, err, tc.wantErr)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tc.want, got)
		})
	}
}
