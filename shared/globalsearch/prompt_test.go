package globalsearch_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	gs "github.com/graphrag-global/graphrag-global/shared/globalsearch"
)

func TestPromptsInsertLiterally(t *testing.T) {
	prompts := gs.DefaultPrompts()
	for name, tmpl := range map[string]gs.Template{"map": prompts.Map, "reduce": prompts.Reduce} {
		t.Run(name, func(t *testing.T) {
			query := "costs in $HOME and {{content}} and ${x} %s"
			content := "summary with {{query}}, $1 and {{.}}"
			skeleton := tmpl.Skeleton(query)
			rendered := tmpl.Render(query, content)
			assert.Contains(t, skeleton, query)
			assert.NotContains(t, skeleton, "{{query}}x")
			assert.Equal(t, skeleton+"\n"+content, rendered, "the fit test measures exactly the prompt sent")
			assert.Contains(t, rendered, "JSON")
		})
	}
}

func TestParseTemplate(t *testing.T) {
	tests := []struct {
		name, text string
		ok         bool
	}{
		{"good", "Q: {{query}}\n{{content}}\n", true},
		{"content not last", "{{content}}\nQ: {{query}}", false},
		{"no query", "Data:\n{{content}}", false},
		{"content twice", "{{query}} {{content}}\n{{content}}", false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := gs.ParseTemplate(tc.text)
			if tc.ok {
				require.NoError(t, err)
			} else {
				require.Error(t, err)
			}
		})
	}
}
