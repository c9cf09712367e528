package globalsearch_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	gs "github.com/graphrag-global/graphrag-global/shared/globalsearch"
)

// TestFileDefaults: an index file's namespace wins over
// GRAPHRAG_NAMESPACE, the variable holds without one, the tokenizer
// default follows the model, and a bad variable fails.
func TestFileDefaults(t *testing.T) {
	env := map[string]string{"GRAPHRAG_NAMESPACE": "deployed"}
	lookup := func(k string) (string, bool) { v, ok := env[k]; return v, ok }
	tests := []struct {
		name, fileNamespace, wantNamespace string
	}{
		{"the file's namespace", "infile", "infile"},
		{"none in the file", "", "deployed"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			d, err := gs.FileDefaults(lookup, tc.fileNamespace, "offline")
			require.NoError(t, err)
			assert.Equal(t, tc.wantNamespace, d.Namespace)
			assert.Equal(t, gs.SpecDefaults.ForModel("offline").Tokenizer, d.Tokenizer)
		})
	}
	_, err := gs.FileDefaults(func(string) (string, bool) { return "lots", true }, "", "offline")
	assert.Error(t, err)
}
