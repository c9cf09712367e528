package bedrock_test

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/service/bedrockruntime/types"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/graphrag-global/graphrag-global/shared/globalsearch"
	"github.com/graphrag-global/graphrag-global/shared/llm/bedrock"
	"github.com/graphrag-global/graphrag-global/shared/llm/modeltest"
)

const sonnet45 = "us.anthropic.claude-sonnet-4-5-20250929-v1:0"

// docs/contract.md#prompt-cache, #service-tiers: a request's promptCache
// and serviceTier reach the wire over the settings the Model was built
// with, through the real SDK client, in Complete and CompleteStream alike;
// a request that names neither keeps the Model's own.
func TestRequestCallSettingsReachTheWire(t *testing.T) {
	prompt := strings.Repeat("data ", 1200) + "\nQuestion: q\n"
	prefix := strings.Index(prompt, "Question:")
	built := []bedrock.Option{bedrock.WithPromptCache(bedrock.CacheFiveMinute), bedrock.WithServiceTier(globalsearch.StageMap, "flex")}
	tests := []struct {
		name        string
		model       string
		stage       globalsearch.Stage
		cache, tier string
		wantPoint   bool
		wantTTL     string // "" for the 5m default, which sends no ttl
		wantTier    any
	}{
		{"the Model's own", sonnet45, globalsearch.StageMap, "", "", true, "", map[string]any{"type": "flex"}},
		{"off: no cache point", sonnet45, globalsearch.StageMap, bedrock.CacheOff, "", false, "", map[string]any{"type": "flex"}},
		{"1h: the ttl", sonnet45, globalsearch.StageMap, bedrock.CacheOneHour, "", true, "1h", map[string]any{"type": "flex"}},
		{"1h on a family without it: 5m", sonnet4, globalsearch.StageMap, bedrock.CacheOneHour, "", true, "", map[string]any{"type": "flex"}},
		{"the request's tier over the Model's", sonnet45, globalsearch.StageMap, "", "priority", true, "", map[string]any{"type": "priority"}},
		{"rating at the tier it is given", sonnet45, globalsearch.StageRate, "", "default", true, "", map[string]any{"type": "default"}},
		{"reduce at its own", sonnet45, globalsearch.StageReduce, "", "reserved", true, "", map[string]any{"type": "reserved"}},
		{"reduce without one sends none", sonnet45, globalsearch.StageReduce, "", "", true, "", nil},
	}
	for _, stream := range []bool{false, true} {
		for _, tc := range tests {
			t.Run(tc.name, func(t *testing.T) {
				fake := modeltest.NewConverseServer(t, modeltest.InOrder(modeltest.ConverseText(`{"answer":"a","usefulness":1}`, 5, 3)))
				m, err := bedrock.New(testConfig(fake.URL), tc.model, built...)
				require.NoError(t, err)
				req := globalsearch.ModelRequest{Stage: tc.stage, Prompt: prompt, CachePrefix: prefix, MaxTokens: 10, PromptCache: tc.cache, ServiceTier: tc.tier}
				if stream {
					_, err = m.CompleteStream(context.Background(), req, func(string) {})
				} else {
					_, err = m.Complete(context.Background(), req)
				}
				require.NoError(t, err)
				body := fake.Calls()[0].Body
				content := body["messages"].([]any)[0].(map[string]any)["content"].([]any)
				if !tc.wantPoint {
					assert.Len(t, content, 1, "one text block")
				} else {
					require.Len(t, content, 3)
					point := content[1].(map[string]any)["cachePoint"].(map[string]any)
					if tc.wantTTL == "" {
						assert.NotContains(t, point, "ttl")
					} else {
						assert.Equal(t, tc.wantTTL, point["ttl"])
					}
				}
				assert.Equal(t, tc.wantTier, body["serviceTier"])
			})
		}
	}
}

// The diagnostics report the setting a run's calls ran with: the Model's
// own for a run that names none, else what the family makes of the run's,
// with the note when that is not what was asked.
func TestPromptCacheOfARun(t *testing.T) {
	tests := []struct {
		model, built, want, got string
		note                    bool
	}{
		{sonnet45, bedrock.CacheOneHour, "", bedrock.CacheOneHour, false},
		{sonnet45, bedrock.CacheOneHour, bedrock.CacheOff, bedrock.CacheOff, false},
		{sonnet4, bedrock.CacheFiveMinute, bedrock.CacheOneHour, bedrock.CacheFiveMinute, true},
		{"meta.llama3-70b-instruct-v1:0", bedrock.CacheOff, bedrock.CacheFiveMinute, bedrock.CacheOff, true},
	}
	for _, tc := range tests {
		t.Run(tc.model+"/"+tc.want, func(t *testing.T) {
			m, err := bedrock.New(testConfig("http://127.0.0.1:1"), tc.model, bedrock.WithPromptCache(tc.built))
			require.NoError(t, err)
			got, note := m.PromptCache(tc.want)
			assert.Equal(t, tc.got, got)
			assert.Equal(t, tc.note, note != "", note)
			assert.True(t, m.TakesServiceTier())
		})
	}
}

// The request's list of tiers is the SDK's, so a value the request
// accepts is one the SDK sends, and a new SDK tier fails here first.
func TestServiceTiersAreTheSDKs(t *testing.T) {
	var sdk []string
	for _, v := range types.ServiceTierType("").Values() {
		sdk = append(sdk, string(v))
	}
	assert.ElementsMatch(t, sdk, globalsearch.ServiceTiers)
	assert.True(t, slices.Equal(globalsearch.PromptCaches, []string{bedrock.CacheOff, bedrock.CacheFiveMinute, bedrock.CacheOneHour}))
}
