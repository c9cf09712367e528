package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// invoke's flags and wiring, end to end through runMain: the handlers,
// their seeding and the event check are shared/lambdalocal's, tested there.
func TestInvoke(t *testing.T) {
	otherNamespace := filepath.Join(t.TempDir(), "prepare-other.json")
	require.NoError(t, os.WriteFile(otherNamespace, []byte(`{"request": {"query": "q", "namespace": "other", "queryId": "q-other"}}`), 0o600))
	costly := filepath.Join(t.TempDir(), "prepare-costly.json")
	require.NoError(t, os.WriteFile(costly, []byte(`{"request": {"query": "q", "queryId": "q-costly", "maxCostUsd": 0.0001}}`), 0o600))
	// An API POST with a cost ceiling: the handler holds it to the prices
	// the flags give, as functions/api does to the deployment's.
	apiPost, err := os.ReadFile("../../events/api-post.json")
	require.NoError(t, err)
	var postEvent map[string]any
	require.NoError(t, json.Unmarshal(apiPost, &postEvent))
	postEvent["body"] = `{"query":"q","maxCostUsd":0.5}`
	costlyPost := filepath.Join(t.TempDir(), "api-post-costly.json")
	data, err := json.Marshal(postEvent)
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(costlyPost, data, 0o600))
	cases := []struct {
		name       string
		args       []string
		wantStatus int
		wantOut    string // on stdout; "" when nothing may be printed there
		wantErr    string // on stderr, when set
	}{
		{"prepare rejects", []string{"prepare", "--event", "../../events/prepare-bad.json"}, 1, `"errorType":"InvalidInputError"`, ""},
		{"prepare: a namespace the file does not hold", []string{"prepare", "--event", otherNamespace}, 1, `holds namespace \"sample\", not \"other\"`, ""},
		{"prepare holds maxCostUsd to the prices given", []string{"prepare", "--event", costly, "--price-in", "3", "--price-out", "15"}, 1,
			`"errorType":"PlanTooLargeError"`, ""},
		{"api get", []string{"api", "--event", "../../events/api-get.json"}, 0, `"statusCode":200`, ""},
		{"api post holds maxCostUsd to the prices given", []string{"api", "--event", costlyPost, "--price-in", "3", "--price-out", "15"}, 0, `"statusCode":202`, ""},
		{"api post refuses maxCostUsd without prices", []string{"api", "--event", costlyPost}, 0, `maxCostUsd 0.5 needs the models' prices`, ""},
		{"unknown function", []string{"nope", "--event", "../../events/map.json"}, 2, "", `unknown function "nope": prepare, map, reduce or api`},
		{"no event", []string{"map"}, 2, "", "--event is required"},
		{"map given a prepare event", []string{"map", "--event", "../../events/prepare.json"}, 2, "",
			"globalsearch invoke: ../../events/prepare.json is a prepare event (it has \"request\"), not a map event: run `globalsearch invoke prepare --event ../../events/prepare.json`, or give map a map event such as events/map.json\n"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			env := &cliEnv{stdin: &bytes.Buffer{}, stdout: &stdout, stderr: &stderr,
				lookupEnv: func(string) (string, bool) { return "", false }}
			args := append([]string{"invoke"}, tc.args...)
			args = append(args, "--index", "../../testdata/sample-index.json")
			status := runMain(context.Background(), env, args)
			assert.Equal(t, tc.wantStatus, status, stderr.String())
			if tc.wantOut == "" {
				assert.Empty(t, stdout.String())
			} else {
				assert.Contains(t, stdout.String(), tc.wantOut)
			}
			if tc.wantErr != "" {
				assert.Contains(t, stderr.String(), tc.wantErr)
			}
		})
	}
}

// plan and invoke prepare resolve a request without a namespace the same
// way: the index file's namespace wins over GRAPHRAG_NAMESPACE, so the two
// commands never search different data for one request.
func TestNamespaceDefaultAgrees(t *testing.T) {
	event := filepath.Join(t.TempDir(), "prepare.json")
	require.NoError(t, os.WriteFile(event, []byte(`{"request": {"query": "q", "queryId": "q-ns"}}`), 0o600))
	env := map[string]string{"GRAPHRAG_NAMESPACE": "ns-from-env"}
	for _, args := range [][]string{
		{"plan", "--json", "--query", "q"},
		{"invoke", "prepare", "--event", event},
	} {
		t.Run(args[0], func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			e := fakeEnv(env)
			e.stdin, e.stdout, e.stderr = &bytes.Buffer{}, &stdout, &stderr
			status := runMain(context.Background(), e, append(args, "--index", "../../testdata/sample-index.json"))
			require.Equal(t, 0, status, stderr.String())
			assert.NotContains(t, stdout.String()+stderr.String(), "ns-from-env")
		})
	}
}
