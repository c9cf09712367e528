package cmdutil

import (
	"bytes"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/graphrag-global/graphrag-global/shared/globalsearch"
)

// The call-setting flags set their request fields when given and leave
// them to the default when not; as serve's and mcp's defaults they are
// checked by the fields' rules, a bad value refused with the field's
// message naming its values (docs/contract.md#request).
func TestCallFlags(t *testing.T) {
	tests := []struct {
		name    string
		args    []string
		want    globalsearch.Defaults // the settings only
		wantErr string
	}{
		{"none given", nil, globalsearch.Defaults{}, ""},
		{"every one", []string{"--prompt-cache", "1h", "--map-service-tier", "flex", "--reduce-service-tier", "priority", "--seed-policy", "namespace"},
			globalsearch.Defaults{PromptCache: "1h", MapServiceTier: "flex", ReduceServiceTier: "priority", SeedPolicy: "namespace"}, ""},
		{"off", []string{"--prompt-cache", "off"}, globalsearch.Defaults{PromptCache: "off"}, ""},
		{"a bad cache", []string{"--prompt-cache", "10m"}, globalsearch.Defaults{}, "promptCache must be one of off, 5m, 1h"},
		{"a bad tier", []string{"--reduce-service-tier", "cheap"}, globalsearch.Defaults{}, "reduceServiceTier must be one of default, priority, flex, reserved"},
		{"a bad policy", []string{"--seed-policy", "corpus"}, globalsearch.Defaults{}, "seedPolicy must be one of question, namespace"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var c CallFlags
			fs := NewFlagSet("test", &bytes.Buffer{})
			c.Register(fs, globalsearch.SpecDefaults)
			set, err := Parse(fs, tc.args)
			require.NoError(t, err)

			var req globalsearch.Request
			c.Request(set, &req)
			req.Query = "q"
			p, err := req.Params(globalsearch.SpecDefaults)
			d := globalsearch.SpecDefaults
			dErr := c.Defaults(set, &d)
			if tc.wantErr != "" {
				for _, e := range []error{err, dErr} {
					require.Error(t, e)
					assert.Equal(t, globalsearch.KindInvalidInput, globalsearch.KindOf(e))
					assert.EqualError(t, e, tc.wantErr)
				}
				return
			}
			require.NoError(t, err)
			require.NoError(t, dErr)
			assert.Equal(t, tc.want.PromptCache, p.PromptCache)
			assert.Equal(t, tc.want.MapServiceTier, p.MapServiceTier)
			assert.Equal(t, tc.want.ReduceServiceTier, p.ReduceServiceTier)
			assert.Equal(t, tc.want.SeedPolicy, p.SeedPolicy)
			assert.Equal(t, [4]string{tc.want.PromptCache, tc.want.MapServiceTier, tc.want.ReduceServiceTier, tc.want.SeedPolicy},
				[4]string{d.PromptCache, d.MapServiceTier, d.ReduceServiceTier, d.SeedPolicy}, "the defaults of serve and mcp")
		})
	}
}

// The help names each flag's values, the default in effect and the
// variable that sets it.
func TestCallFlagsHelp(t *testing.T) {
	var c CallFlags
	fs := NewFlagSet("test", &bytes.Buffer{})
	d := globalsearch.SpecDefaults
	d.SeedPolicy = globalsearch.SeedPolicyNamespace
	c.Register(fs, d)
	tests := []struct{ flag, want string }{
		{"prompt-cache", "off, 5m, 1h (default the model's own; $GRAPHRAG_PROMPT_CACHE sets the default)"},
		{"map-service-tier", "default, priority, flex, reserved (default the model's own; $GRAPHRAG_MAP_SERVICE_TIER sets the default)"},
		{"reduce-service-tier", "$GRAPHRAG_REDUCE_SERVICE_TIER"},
		{"seed-policy", "question, namespace (default namespace; $GRAPHRAG_SEED_POLICY sets the default)"},
	}
	for _, tc := range tests {
		fl := fs.Lookup(tc.flag)
		require.NotNil(t, fl, tc.flag)
		assert.Contains(t, fl.Usage, tc.want, tc.flag)
	}
}
