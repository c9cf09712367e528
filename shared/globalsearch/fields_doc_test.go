package globalsearch

import (
	"encoding/json"
	"os"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The contract's request table and its list of GRAPHRAG_* variables are the
// field table's: the same fields in the same order, the same defaults; the
// CLI reference (docs/cli.md) names the same variables.
func TestContractListsRequestFields(t *testing.T) {
	doc, err := os.ReadFile("../../docs/contract.md")
	require.NoError(t, err)
	cli, err := os.ReadFile("../../docs/cli.md")
	require.NoError(t, err)
	text := string(doc)
	start := strings.Index(text, "| field | type | default |")
	require.GreaterOrEqual(t, start, 0, "request table")
	row := regexp.MustCompile("(?m)^\\| `(\\w+)` \\| [^|]+ \\| ([^|]+) \\|")
	var names []string
	docDefault := map[string]string{}
	for _, line := range strings.Split(text[start:], "\n")[2:] {
		m := row.FindStringSubmatch(line)
		if m == nil {
			break
		}
		names = append(names, m[1])
		docDefault[m[1]] = strings.Trim(strings.TrimSpace(m[2]), "`\"")
	}
	var want []string
	for _, f := range requestFields {
		want = append(want, f.name)
	}
	assert.Equal(t, want, names)

	p := Params{}
	for _, f := range requestFields {
		if f.useDefault == nil {
			continue
		}
		if f.name == "tokenizer" {
			// Its default is the model's family's, not one value: the
			// contract's table says so in words.
			assert.Contains(t, docDefault[f.name], "model family", f.name)
			assert.Contains(t, text, "`"+f.env+"`", "contract names %s", f.env)
			assert.Contains(t, string(cli), "`"+f.env+"`", "docs/cli.md names %s", f.env)
			continue
		}
		f.useDefault(SpecDefaults, &p)
		fields := map[string]json.RawMessage{}
		raw, err := json.Marshal(p)
		require.NoError(t, err)
		require.NoError(t, json.Unmarshal(raw, &fields))
		want := strings.Trim(string(fields[f.name]), `"`)
		if _, set := fields[f.name]; !set {
			want = "none" // a default of no value (no ceiling) is absent from the request
		}
		assert.Equal(t, want, docDefault[f.name], f.name)
		assert.Contains(t, text, "`"+f.env+"`", "contract names %s", f.env)
		assert.Contains(t, string(cli), "`"+f.env+"`", "docs/cli.md names %s", f.env)
	}
}
