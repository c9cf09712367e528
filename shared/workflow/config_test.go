package workflow_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/graphrag-global/graphrag-global/shared/globalsearch"
	"github.com/graphrag-global/graphrag-global/shared/workflow"
)

func TestConfigFromEnv(t *testing.T) {
	base := map[string]string{"RUNS_TABLE": "runs", "RUNS_TTL_DAYS": "7"}
	with := func(extra map[string]string) map[string]string {
		m := map[string]string{}
		for k, v := range base {
			m[k] = v
		}
		for k, v := range extra {
			m[k] = v
		}
		return m
	}
	tests := []struct {
		name    string
		env     map[string]string
		need    []string
		wantErr string
		check   func(t *testing.T, c workflow.Config)
	}{
		{"common only", base, nil, "", func(t *testing.T, c workflow.Config) {
			assert.Equal(t, "runs", c.RunsTable)
			assert.Equal(t, 7*24*time.Hour, c.RunsTTL)
			assert.Equal(t, 8000, c.Defaults.MapTokenBudget)
		}},
		// docs/contract.md#tokenizer: every function takes the model's family's default.
		{"tokenizer: no model, the estimate", base, nil, "", func(t *testing.T, c workflow.Config) {
			assert.Equal(t, "estimate", c.Defaults.Tokenizer)
		}},
		{"tokenizer: Claude, calibrated, without needing the model", with(map[string]string{"MODEL_ID": "us.anthropic.claude-3-5-haiku-20241022-v1:0"}), nil, "",
			func(t *testing.T, c workflow.Config) {
				assert.Equal(t, "calibrated", c.Defaults.Tokenizer)
				assert.Equal(t, "us.anthropic.claude-3-5-haiku-20241022-v1:0", c.ModelID, "prepare's calibrated rates follow it")
			}},
		{"tokenizer: the deployment's choice", with(map[string]string{"MODEL_ID": "anthropic.claude-3-haiku", "GRAPHRAG_TOKENIZER": "o200k"}), nil, "",
			func(t *testing.T, c workflow.Config) { assert.Equal(t, "o200k", c.Defaults.Tokenizer) }},
		{"tokenizer: a bad one", with(map[string]string{"GRAPHRAG_TOKENIZER": "bpe"}), nil, "GRAPHRAG_TOKENIZER: tokenizer must be one of estimate, o200k, cl100k, calibrated", nil},
		{"prepare", with(map[string]string{"INDEX_TABLE": "idx", "GRAPHRAG_MAP_TOKEN_BUDGET": "12000"}), []string{workflow.EnvIndexTable}, "",
			func(t *testing.T, c workflow.Config) {
				assert.Equal(t, "idx", c.IndexTable)
				assert.Equal(t, 12000, c.Defaults.MapTokenBudget)
			}},
		{"map", with(map[string]string{"MODEL_ID": "m"}), []string{workflow.EnvModelID}, "", func(t *testing.T, c workflow.Config) {
			assert.Equal(t, "m", c.ModelID)
		}},
		{"map with its cache", with(map[string]string{"MODEL_ID": "m", "MAP_CACHE_TABLE": "cache", "MAP_CACHE_TTL_DAYS": "30"}),
			[]string{workflow.EnvModelID, workflow.EnvMapCacheTable}, "", func(t *testing.T, c workflow.Config) {
				assert.Equal(t, "cache", c.MapCacheTable)
				assert.Equal(t, 30*24*time.Hour, c.MapCacheTTL)
			}},
		{"map cache without its ttl", with(map[string]string{"MAP_CACHE_TABLE": "cache"}), []string{workflow.EnvMapCacheTable},
			"MAP_CACHE_TTL_DAYS is not set", nil},
		{"map cache with a bad ttl", with(map[string]string{"MAP_CACHE_TABLE": "cache", "MAP_CACHE_TTL_DAYS": "-2"}), []string{workflow.EnvMapCacheTable},
			`MAP_CACHE_TTL_DAYS must be a positive number of days, not "-2"`, nil},
		{"nothing set: every problem at once", nil, []string{workflow.EnvModelID}, "RUNS_TABLE is not set\nRUNS_TTL_DAYS is not set\nMODEL_ID is not set", nil},
		{"bad ttl", with(map[string]string{"RUNS_TTL_DAYS": "a week"}), nil, `RUNS_TTL_DAYS must be a positive number of days, not "a week"`, nil},
		{"zero ttl", with(map[string]string{"RUNS_TTL_DAYS": "0"}), nil, `RUNS_TTL_DAYS must be a positive number of days, not "0"`, nil},
		// docs/contract.md#tables: a run never outlives its items.
		{"ttl no longer than the longest execution", with(map[string]string{"RUNS_TTL_DAYS": "3"}), nil,
			"RUNS_TTL_DAYS must be more than the 3 days an execution may last (the state machine's TimeoutSeconds), so a run never outlives its items; not 3", nil},
		{"ttl of one day", with(map[string]string{"RUNS_TTL_DAYS": "1"}), nil,
			"RUNS_TTL_DAYS must be more than the 3 days an execution may last (the state machine's TimeoutSeconds), so a run never outlives its items; not 1", nil},
		{"shortest ttl", with(map[string]string{"RUNS_TTL_DAYS": "4"}), nil, "",
			func(t *testing.T, c workflow.Config) { assert.Equal(t, 4*24*time.Hour, c.RunsTTL) }},
		{"bad default", with(map[string]string{"GRAPHRAG_MAP_CONCURRENCY": "-1"}), nil, "GRAPHRAG_MAP_CONCURRENCY: mapConcurrency must be a positive integer", nil},
		{"prepare's concurrency cap", with(map[string]string{"MAP_MAX_CONCURRENCY": "12"}), []string{workflow.EnvMapMaxConcurrency}, "",
			func(t *testing.T, c workflow.Config) { assert.Equal(t, 12, c.MapMaxConcurrency) }},
		{"bad concurrency cap", with(map[string]string{"MAP_MAX_CONCURRENCY": "0"}), []string{workflow.EnvMapMaxConcurrency},
			`MAP_MAX_CONCURRENCY must be a positive integer, not "0"`, nil},
		{"concurrency cap past the inline Map's", with(map[string]string{"MAP_MAX_CONCURRENCY": "41"}), []string{workflow.EnvMapMaxConcurrency},
			"MAP_MAX_CONCURRENCY must be at most 40 (the inline Map runs no more at once), not 41", nil},
		{"the model quota", with(map[string]string{"GRAPHRAG_MODEL_TOKENS_PER_MINUTE": "2000000", "GRAPHRAG_MODEL_REQUESTS_PER_MINUTE": "200", "GRAPHRAG_MAP_CALL_SECONDS": "7.5"}), nil, "",
			func(t *testing.T, c workflow.Config) {
				assert.Equal(t, globalsearch.Quota{TokensPerMinute: 2_000_000, RequestsPerMinute: 200, CallSeconds: 7.5}, c.Quota)
			}},
		{"no model quota", base, nil, "", func(t *testing.T, c workflow.Config) { assert.Equal(t, globalsearch.Quota{}, c.Quota) }},
		{"bad model quota", with(map[string]string{"GRAPHRAG_MODEL_TOKENS_PER_MINUTE": "lots"}), nil,
			`GRAPHRAG_MODEL_TOKENS_PER_MINUTE must be a non-negative integer (0: not known), not "lots"`, nil},
		{"prepare's plan limit", with(map[string]string{"MAX_BATCHES": "20000"}), []string{workflow.EnvMaxBatches}, "",
			func(t *testing.T, c workflow.Config) { assert.Equal(t, 20000, c.MaxBatches) }},
		{"a plan limit once past what prepare's output could list", with(map[string]string{"MAX_BATCHES": "30001"}), []string{workflow.EnvMaxBatches}, "",
			func(t *testing.T, c workflow.Config) { assert.Equal(t, 30001, c.MaxBatches) }},
		{"plan limit past what the runs table keys", with(map[string]string{"MAX_BATCHES": "1000001"}), []string{workflow.EnvMaxBatches},
			"MAX_BATCHES must be at most 1000000 (the runs table keys batches by a six-digit index), not 1000001", nil},
		{"payload bucket", with(map[string]string{"PAYLOAD_BUCKET": "texts"}), []string{workflow.EnvPayloadBucket}, "",
			func(t *testing.T, c workflow.Config) { assert.Equal(t, "texts", c.PayloadBucket) }},
		{"payload bucket not set", base, []string{workflow.EnvPayloadBucket}, "PAYLOAD_BUCKET is not set", nil},
		{"unknown need", base, []string{"NOPE"}, "unknown configuration variable NOPE", nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			c, err := workflow.ConfigFromEnv(func(k string) (string, bool) { v, ok := tc.env[k]; return v, ok }, tc.need...)
			if tc.wantErr != "" {
				require.Error(t, err)
				assert.Equal(t, tc.wantErr, err.Error())
				return
			}
			require.NoError(t, err)
			tc.check(t, c)
		})
	}
}
