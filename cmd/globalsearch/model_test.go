package main

import (
	"context"
	"flag"
	"io"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/graphrag-global/graphrag-global/shared/globalsearch"
	"github.com/graphrag-global/graphrag-global/shared/llm/offline"
	"github.com/graphrag-global/graphrag-global/shared/llm/openai"
	"github.com/graphrag-global/graphrag-global/shared/llm/provider"
)

// fakeEnv is a cliEnv whose environment is vars and nothing else.
func fakeEnv(vars map[string]string) *cliEnv {
	return &cliEnv{stdout: io.Discard, stderr: io.Discard, lookupEnv: func(k string) (string, bool) {
		v, ok := vars[k]
		return v, ok
	}}
}

func TestPrices(t *testing.T) {
	cases := []struct {
		name        string
		args        []string
		env         map[string]string
		wantFlagErr string
		wantErr     string
		wantCost    float64 // for 2,000 in and 500 out
		wantOK      bool
	}{
		{name: "no price", wantOK: false},
		{name: "flags", args: []string{"--price-in", "0.0008", "--price-out", "0.004"}, wantCost: 0.0036, wantOK: true},
		{name: "environment", env: map[string]string{"GRAPHRAG_PRICE_IN": "0.0008", "GRAPHRAG_PRICE_OUT": "0.004"}, wantCost: 0.0036, wantOK: true},
		{
			name: "flags win over environment", args: []string{"--price-in", "1", "--price-out", "2"},
			env: map[string]string{"GRAPHRAG_PRICE_IN": "100", "GRAPHRAG_PRICE_OUT": "100"}, wantCost: 3, wantOK: true,
		},
		{name: "one flag and one variable", args: []string{"--price-in", "1"}, env: map[string]string{"GRAPHRAG_PRICE_OUT": "2"}, wantCost: 3, wantOK: true},
		{name: "free is a price", args: []string{"--price-in", "0", "--price-out", "0"}, wantCost: 0, wantOK: true},
		{name: "only one price", args: []string{"--price-in", "1"}, wantErr: "(or GRAPHRAG_PRICE_IN and GRAPHRAG_PRICE_OUT) go together"},
		{name: "negative flag", args: []string{"--price-in", "-1"}, wantFlagErr: "non-negative number of USD per 1,000 tokens"},
		{name: "bad flag", args: []string{"--price-out", "cheap"}, wantFlagErr: `got "cheap"`},
		{name: "bad variable", env: map[string]string{"GRAPHRAG_PRICE_IN": "NaN", "GRAPHRAG_PRICE_OUT": "1"}, wantErr: "GRAPHRAG_PRICE_IN: price must be"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var o modelOptions
			fs := flag.NewFlagSet("run", flag.ContinueOnError)
			fs.SetOutput(io.Discard)
			o.register(fs)
			err := fs.Parse(tc.args)
			if tc.wantFlagErr != "" {
				require.Error(t, err)
				assert.Contains(t, err.Error(), tc.wantFlagErr)
				return
			}
			require.NoError(t, err)

			err = o.resolve(fakeEnv(tc.env))
			if tc.wantErr != "" {
				var usage *usageError
				require.ErrorAs(t, err, &usage)
				assert.Contains(t, err.Error(), tc.wantErr)
				return
			}
			require.NoError(t, err)
			prices, err := o.prices(fakeEnv(tc.env))
			require.NoError(t, err)
			assert.Equal(t, tc.wantOK, prices != nil)
			if prices != nil {
				usd := prices.UsageCost(globalsearch.StageUsage{InputTokens: 2000, OutputTokens: 500}, globalsearch.StageUsage{})
				assert.InDelta(t, tc.wantCost, usd.Map, 1e-12)
				assert.Equal(t, prices.Map, prices.Reduce, "the shared pair prices both stages")
			}
		})
	}
}

// TestOpen: open passes the flags and the environment to provider.Open
// (whose own tests cover each provider) and reports its invalid input as
// a usage error.
func TestOpen(t *testing.T) {
	// Keep the developer's AWS setup out of the test.
	dir := t.TempDir()
	t.Setenv("AWS_CONFIG_FILE", filepath.Join(dir, "config"))
	t.Setenv("AWS_SHARED_CREDENTIALS_FILE", filepath.Join(dir, "credentials"))
	t.Setenv("AWS_PROFILE", "")
	t.Setenv("AWS_DEFAULT_REGION", "")

	t.Run("offline", func(t *testing.T) {
		o := modelOptions{spec: "offline"}
		m, err := o.open(context.Background(), fakeEnv(nil))
		require.NoError(t, err)
		assert.IsType(t, &offline.Model{}, unwrapTimeout(t, m, provider.DefaultTimeout))
	})
	t.Run("bedrock without a region", func(t *testing.T) {
		t.Setenv("AWS_REGION", "")
		o := modelOptions{spec: "bedrock:anthropic.claude-3-5-haiku-20241022-v1:0"}
		_, err := o.open(context.Background(), fakeEnv(nil))
		var usage *usageError
		require.ErrorAs(t, err, &usage)
		assert.Contains(t, err.Error(), "AWS_REGION")
	})
	t.Run("openai", func(t *testing.T) {
		o := modelOptions{spec: "openai:llama3.1@http://localhost:11434/v1"}
		m, err := o.open(context.Background(), fakeEnv(map[string]string{"OPENAI_API_KEY": "sk-x", "GRAPHRAG_MODEL_TIMEOUT": "45s"}))
		require.NoError(t, err)
		assert.IsType(t, &openai.Model{}, unwrapTimeout(t, m, 45*time.Second))
	})
	t.Run("bad spec", func(t *testing.T) {
		o := modelOptions{spec: "openai:llama3.1"}
		_, err := o.open(context.Background(), fakeEnv(nil))
		var usage *usageError
		require.ErrorAs(t, err, &usage)
		_, err = parseModelSpec("openai:llama3.1")
		require.ErrorAs(t, err, &usage)
	})
	t.Run("bad price in the environment", func(t *testing.T) {
		o := modelOptions{spec: "openai:llama3.1@http://localhost:11434/v1"}
		_, err := o.open(context.Background(), fakeEnv(map[string]string{"GRAPHRAG_PRICE_IN": "-2", "GRAPHRAG_PRICE_OUT": "1"}))
		var usage *usageError
		require.ErrorAs(t, err, &usage)
		assert.Contains(t, err.Error(), "GRAPHRAG_PRICE_IN")
	})
}

// unwrapTimeout checks that m bounds its calls by timeout and returns the
// model inside.
func unwrapTimeout(t *testing.T, m globalsearch.Model, timeout time.Duration) globalsearch.Model {
	t.Helper()
	tm, ok := m.(globalsearch.TimeoutModel)
	require.True(t, ok, "every model the CLI opens has a call timeout, got %T", m)
	assert.Equal(t, timeout, tm.Timeout)
	return tm.Model
}

// TestModelTimeout: a model server that accepts calls and never answers
// fails the run, naming the model and the timeout, instead of hanging it.
func TestModelTimeout(t *testing.T) {
	stop := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body) // so the server sees the client hang up
		select {                           // never answers
		case <-r.Context().Done():
		case <-stop:
		}
	}))
	defer srv.Close()
	defer close(stop)
	spec := "openai:llama3.1@" + srv.URL + "/v1"
	path := writeIndex(t, smallIndex())
	tests := []struct {
		name     string
		args     []string
		env      map[string]string
		wantCode int
		wantErr  string
	}{
		{"flag", []string{"--model-timeout", "50ms"}, nil, 1, "model " + spec + " did not answer within 50ms"},
		{"environment", nil, map[string]string{"GRAPHRAG_MODEL_TIMEOUT": "40ms"}, 1, "model " + spec + " did not answer within 40ms"},
		{"flag wins over environment", []string{"--model-timeout", "30ms"}, map[string]string{"GRAPHRAG_MODEL_TIMEOUT": "1h"}, 1, "did not answer within 30ms"},
		{"zero flag", []string{"--model-timeout", "0s"}, nil, 2, "model timeout must be a positive duration"},
		{"bad variable", nil, map[string]string{"GRAPHRAG_MODEL_TIMEOUT": "soon"}, 2, `GRAPHRAG_MODEL_TIMEOUT: model timeout must be a positive duration such as 90s or 5m, got "soon"`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			env, _, errOut := testEnv("")
			env.lookupEnv = func(k string) (string, bool) { v, ok := tc.env[k]; return v, ok }
			args := append([]string{"run", "--index", path, "--query", "What changed?", "--model", spec}, tc.args...)
			assert.Equal(t, tc.wantCode, runMain(context.Background(), env, args))
			assert.Contains(t, errOut.String(), tc.wantErr)
			assert.False(t, strings.Contains(errOut.String(), "panic"))
		})
	}
}

// TestBedrockWithoutCredentials: with a region but no credentials (no
// profile, no keys, no instance metadata service), run stops before the
// first model call with what to do (exit 2), instead of failing every
// batch with the SDK's error; plan calls no model and needs none.
func TestBedrockWithoutCredentials(t *testing.T) {
	dir := t.TempDir()
	for k, v := range map[string]string{
		"AWS_CONFIG_FILE": filepath.Join(dir, "config"), "AWS_SHARED_CREDENTIALS_FILE": filepath.Join(dir, "credentials"),
		"AWS_REGION": "us-east-1", "AWS_EC2_METADATA_DISABLED": "true", "HOME": dir,
		"AWS_PROFILE": "", "AWS_DEFAULT_PROFILE": "", "AWS_ACCESS_KEY_ID": "", "AWS_SECRET_ACCESS_KEY": "", "AWS_SESSION_TOKEN": "",
		"AWS_WEB_IDENTITY_TOKEN_FILE": "", "AWS_ROLE_ARN": "", "AWS_CONTAINER_CREDENTIALS_FULL_URI": "", "AWS_CONTAINER_CREDENTIALS_RELATIVE_URI": "",
	} {
		t.Setenv(k, v)
	}
	path := writeIndex(t, smallIndex())
	model := "bedrock:anthropic.claude-3-5-haiku-20241022-v1:0"
	tests := []struct {
		name     string
		args     []string
		wantCode int
		want     []string
	}{
		{"run", []string{"run", "--index", path, "--query", "q", "--model", model}, 2, []string{
			"globalsearch run: --model bedrock:... needs AWS credentials and found none that work: set AWS_PROFILE",
			"aws sso login --profile <name>", "AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY", "(the SDK said: ",
		}},
		{"plan needs none", []string{"plan", "--index", path, "--query", "q", "--model", model}, 0, nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			env, _, errOut := testEnv("")
			assert.Equal(t, tc.wantCode, runMain(context.Background(), env, tc.args), errOut.String())
			for _, want := range tc.want {
				assert.Contains(t, errOut.String(), want)
			}
			if tc.want == nil {
				assert.Empty(t, errOut.String())
			}
		})
	}
}
