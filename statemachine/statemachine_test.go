package statemachine_test

import (
	"bufio"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"sort"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/graphrag-global/graphrag-global/shared/globalsearch"
	"github.com/graphrag-global/graphrag-global/shared/workflow"
	"github.com/graphrag-global/graphrag-global/statemachine"
)

// walk calls fn for every JSON object in v, depth first.
func walk(v any, fn func(map[string]any)) {
	switch v := v.(type) {
	case map[string]any:
		fn(v)
		for _, c := range v {
			walk(c, fn)
		}
	case []any:
		for _, c := range v {
			walk(c, fn)
		}
	}
}

func definition(t *testing.T) map[string]any {
	t.Helper()
	var def map[string]any
	require.NoError(t, json.Unmarshal(statemachine.Definition, &def))
	return def
}

// states returns every state of the definition by name, nested ones too.
func states(t *testing.T) map[string]map[string]any {
	out := map[string]map[string]any{}
	walk(definition(t), func(o map[string]any) {
		if ss, ok := o["States"].(map[string]any); ok {
			for name, s := range ss {
				out[name] = s.(map[string]any)
			}
		}
	})
	return out
}

func TestErrorNamesAreWorkflowTypes(t *testing.T) {
	named := map[string]bool{}
	walk(definition(t), func(o map[string]any) {
		list, ok := o["ErrorEquals"].([]any)
		if !ok {
			return
		}
		for _, n := range list {
			named[n.(string)] = true
		}
	})
	for _, s := range states(t) {
		if e, ok := s["Error"].(string); ok {
			named[e] = true
		}
	}
	var types []string
	for _, e := range workflow.ErrorTypes() {
		types = append(types, workflow.ErrorType(e))
	}
	for name := range named {
		if strings.HasPrefix(name, "States.") || strings.HasPrefix(name, "Lambda.") || strings.HasPrefix(name, "DynamoDB.") {
			continue
		}
		assert.Contains(t, types, name, "the ASL names %s, which no handler returns", name)
	}
	for _, name := range types {
		assert.True(t, named[name], "%s is never matched in the ASL", name)
	}
}

// jsonFields returns the JSON names of a struct's fields.
func jsonFields(v any) []string {
	var out []string
	rt := reflect.TypeOf(v)
	for i := range rt.NumField() {
		name, _, _ := strings.Cut(rt.Field(i).Tag.Get("json"), ",")
		out = append(out, name)
	}
	sort.Strings(out)
	return out
}

// payloadFields returns the field names a Parameters/Payload object writes.
func payloadFields(o map[string]any) []string {
	var out []string
	for k := range o {
		out = append(out, strings.TrimSuffix(k, ".$"))
	}
	sort.Strings(out)
	return out
}

func TestPayloadsAreHandlerInputs(t *testing.T) {
	ss := states(t)
	cases := []struct {
		state    string
		function string
		input    any
	}{
		{"Prepare", "${PrepareFunctionArn}", workflow.PrepareInput{}},
		{"SelectNext", "${PrepareFunctionArn}", workflow.PrepareInput{}},
		{"MapBatch", "${MapFunctionArn}", workflow.MapInput{}},
		{"MapBatchInChild", "${MapFunctionArn}", workflow.MapInput{}},
		{"RateBatch", "${MapFunctionArn}", workflow.MapInput{}},
		{"Reduce", "${ReduceFunctionArn}", workflow.ReduceInput{}},
		{"RecordReduceFailure", "${ReduceFunctionArn}", workflow.ReduceInput{}},
		{"PlanReduceRound", "${ReduceFunctionArn}", workflow.ReduceInput{}},
		{"ReduceGroup", "${ReduceFunctionArn}", workflow.ReduceInput{}},
		{"RecordFailureSpend", "${ReduceFunctionArn}", workflow.ReduceInput{}},
	}
	// The states that invoke one function (Prepare and SelectNext, the map
	// and rating tasks, Reduce, RecordReduceFailure and the reduce rounds'
	// tasks) together write every
	// field of its input, and each writes only fields it has.
	written := map[string]map[string]bool{}
	for _, tc := range cases {
		t.Run(tc.state, func(t *testing.T) {
			s := ss[tc.state]
			require.NotNil(t, s)
			assert.Equal(t, "arn:aws:states:::lambda:invoke", s["Resource"])
			switch tc.state {
			case "RecordReduceFailure", "RecordFailureSpend":
				assert.Contains(t, s, "ResultPath", "the failure task keeps the caught error for the Fail state")
				assert.Nil(t, s["ResultPath"])
			case "PlanReduceRound":
				// A round's output joins the state, whose mapResults
				// Reduce still needs (TestReduceRounds).
				assert.Equal(t, "$.reduceRound", s["ResultPath"])
				assert.NotContains(t, s, "OutputPath")
			case "MapBatchInChild":
				// A child's output is {}: the Distributed Map's output must
				// not grow with the batch count; the answer is in the table.
				assert.Contains(t, s, "OutputPath")
				assert.Nil(t, s["OutputPath"])
			default:
				assert.Equal(t, "$.Payload", s["OutputPath"], "handlers' results are the Payload of lambda:invoke")
			}
			params := s["Parameters"].(map[string]any)
			assert.Equal(t, tc.function, params["FunctionName"])
			fields := payloadFields(params["Payload"].(map[string]any))
			assert.Subset(t, jsonFields(tc.input), fields)
			if written[tc.function] == nil {
				written[tc.function] = map[string]bool{}
			}
			for _, f := range fields {
				written[tc.function][f] = true
			}
		})
	}
	for _, tc := range cases {
		assert.Len(t, written[tc.function], len(jsonFields(tc.input)), "the states invoking %s write every field of its input", tc.function)
	}
	// The Catch inside the iteration writes a MapResult; so does the map
	// function (MapOutput): reduce reads both as MapResult.
	failed := payloadFields(ss["BatchFailed"]["Parameters"].(map[string]any))
	result := jsonFields(workflow.MapResult{})
	for _, f := range append(failed, "batchIndex", "usefulness") {
		assert.Contains(t, result, f)
	}
	// A rating round's Map output is dropped: SelectNext reads the ratings
	// from the runs table (docs/contract.md#dynamic-selection).
	assert.Contains(t, ss["RateCommunities"], "ResultPath")
	assert.Nil(t, ss["RateCommunities"]["ResultPath"])
	assert.Equal(t, "$.ratingBatchIndexes", ss["RateCommunities"]["ItemsPath"])
	assert.Contains(t, jsonFields(workflow.PrepareOutput{}), "ratingBatchIndexes")
	assert.Equal(t, "$.mapConcurrency", ss["RateCommunities"]["MaxConcurrencyPath"])
	assert.Equal(t, "rate", ss["RateBatch"]["Parameters"].(map[string]any)["Payload"].(map[string]any)["task"])
	assert.Equal(t, "select", ss["SelectNext"]["Parameters"].(map[string]any)["Payload"].(map[string]any)["task"])
	assert.Equal(t, "$.batchIndexes", ss["MapBatches"]["ItemsPath"])
	assert.Contains(t, jsonFields(workflow.PrepareOutput{}), "batchIndexes")
	// The Distributed Map's items are the JSON array prepare wrote to the
	// payload bucket (docs/contract.md#payloads-bucket), not a state's list.
	dist := ss["MapBatchesDistributed"]
	assert.NotContains(t, dist, "ItemsPath")
	assert.Equal(t, map[string]any{
		"Resource":     "arn:aws:states:::s3:getObject",
		"ReaderConfig": map[string]any{"InputType": "JSON"},
		"Parameters":   map[string]any{"Bucket": "${PayloadBucketName}", "Key.$": "$.itemsKey"},
	}, dist["ItemReader"])
	assert.Contains(t, jsonFields(workflow.PrepareOutput{}), "itemsKey")
	// The request's concurrency, as prepare capped it (docs/contract.md#state-machine).
	assert.Equal(t, "$.mapConcurrency", ss["MapBatches"]["MaxConcurrencyPath"])
	assert.NotContains(t, ss["MapBatches"], "MaxConcurrency")
	assert.Contains(t, jsonFields(workflow.PrepareOutput{}), "mapConcurrency")
	assert.Equal(t, "$.mapConcurrency", ss["MapBatchesDistributed"]["MaxConcurrencyPath"])
}

func TestMapRetriesOnceOnApplicationErrors(t *testing.T) {
	for _, name := range []string{"MapBatch", "Reduce", "ReduceGroup"} {
		for _, r := range states(t)[name]["Retry"].([]any) {
			r := r.(map[string]any)
			first := r["ErrorEquals"].([]any)[0].(string)
			if strings.HasPrefix(first, "Lambda.") {
				continue
			}
			// MaxAttempts counts retries: 1 is two attempts (docs/contract.md#map-calls).
			assert.EqualValues(t, 1, r["MaxAttempts"], name)
		}
	}
}

// templateSubstitutions reads the DefinitionSubstitutions of template.yaml
// and the logical ids of its functions with a line scanner: enough YAML for
// this file, without a YAML library.
func templateSubstitutions(t *testing.T) (map[string]string, []string) {
	t.Helper()
	f, err := os.Open("../template.yaml")
	require.NoError(t, err)
	defer f.Close()
	subs := map[string]string{}
	var functions []string
	var resource string
	inSubs := false
	entry := regexp.MustCompile(`^\s{8}(\w+):\s*(.+)$`)
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := sc.Text()
		if m := regexp.MustCompile(`^  (\w+):\s*$`).FindStringSubmatch(line); m != nil {
			resource = m[1]
		}
		if strings.TrimSpace(line) == "Type: AWS::Serverless::Function" {
			functions = append(functions, resource)
		}
		if strings.TrimSpace(line) == "DefinitionSubstitutions:" {
			inSubs = true
			continue
		}
		if inSubs {
			if m := entry.FindStringSubmatch(line); m != nil {
				subs[m[1]] = m[2]
				continue
			}
			inSubs = false
		}
	}
	require.NoError(t, sc.Err())
	return subs, functions
}

func TestSubstitutionsAreTemplateFunctions(t *testing.T) {
	subs, functions := templateSubstitutions(t)
	require.NotEmpty(t, subs)
	used := map[string]bool{}
	for _, m := range regexp.MustCompile(`\$\{(\w+)\}`).FindAllStringSubmatch(string(statemachine.Definition), -1) {
		used[m[1]] = true
	}
	for name := range used {
		assert.Contains(t, subs, name, "the ASL uses ${%s}, which template.yaml does not substitute", name)
	}
	for name, value := range subs {
		assert.True(t, used[name], "template.yaml substitutes %s, which the ASL never uses", name)
		if name == "RunsTableName" {
			assert.Equal(t, "!Ref RunsTable", value)
			continue
		}
		if name == "PayloadBucketName" {
			assert.Equal(t, "!Ref PayloadBucket", value)
			continue
		}
		m := regexp.MustCompile(`^!GetAtt (\w+)\.Arn$`).FindStringSubmatch(value)
		require.NotNil(t, m, "%s: %s", name, value)
		assert.Contains(t, functions, m[1])
	}
	// Every function has a Makefile target for SAM and a main package.
	makefile, err := os.ReadFile("../Makefile")
	require.NoError(t, err)
	for _, fn := range functions {
		assert.True(t, strings.Contains(string(makefile), "\nbuild-"+fn+":"), "SAM calls make build-%s", fn)
		dir := strings.ToLower(strings.TrimSuffix(fn, "Function"))
		assert.FileExists(t, filepath.Join("..", "functions", dir, "main.go"))
	}
}

// TestEveryFailureIsRecorded walks every way the definition can fail the
// execution and checks that a failed result is saved first: a Fail state
// is reached only from a catcher whose errors a function saves itself
// (named below), or through RecordFailure; every Lambda task catches
// States.ALL; RecordFailure writes the store's plain failed result.
func TestEveryFailureIsRecorded(t *testing.T) {
	ss := states(t)
	// The errors a function saves as a failed result before returning them.
	savedBy := map[string][]string{
		"Prepare":    {"InvalidInputError", "CorruptIndexError", "PlanTooLargeError"},
		"SelectNext": {"InvalidInputError", "CorruptIndexError", "PlanTooLargeError", "RatingFailedError"},
		"Reduce":     {"AllBatchesFailedError"},
	}
	// The states a run can fail from after its result is saved.
	recorded := map[string]bool{"RecordReduceFailure": true, "RecordFailure": true, "RecordFailureSpend": true, "RecordPrepareFailure": true}
	for name, s := range ss {
		typ := s["Type"].(string)
		if typ != "Task" && typ != "Map" {
			continue
		}
		t.Run(name, func(t *testing.T) {
			catches, _ := s["Catch"].([]any)
			require.NotEmpty(t, catches, "%s fails the execution on any error it does not catch", name)
			last := catches[len(catches)-1].(map[string]any)
			assert.Equal(t, []any{"States.ALL"}, last["ErrorEquals"], "the last catcher of %s takes every error", name)
			for _, c := range catches {
				c := c.(map[string]any)
				if recorded[name] || !reachesFail(ss, c["Next"].(string)) {
					continue
				}
				for _, e := range c["ErrorEquals"].([]any) {
					assert.Contains(t, savedBy[name], e, "%s -> %s: nothing saves %s before the execution fails", name, c["Next"], e)
				}
			}
			if next, ok := s["Next"].(string); ok && reachesFail(ss, next) {
				assert.True(t, recorded[name], "%s ends the execution as failed without recording it", name)
			}
		})
	}
	for name, withRun := range map[string]bool{"RecordFailure": true, "RecordPrepareFailure": false} {
		rf := ss[name]
		require.NotNil(t, rf, name)
		assert.Equal(t, "arn:aws:states:::dynamodb:updateItem", rf["Resource"], "no function has to run to record a failure")
		params := rf["Parameters"].(map[string]any)
		assert.Equal(t, "${RunsTableName}", params["TableName"])
		assert.Equal(t, map[string]any{"queryId": map[string]any{"S.$": "$.queryId"}, "sk": map[string]any{"S": "result"}}, params["Key"])
		// The store's plain failed result; the run ends, and a started
		// run is named for RecordFailureSpend; owner and expiresAt stay
		// as the claim and the run wrote them.
		update := "SET #status = :failed, #error = :error, #cause = :cause, #failedAt = :failedAt REMOVE #resultGzip, #runId"
		if withRun {
			update = "SET #status = :failed, #error = :error, #cause = :cause, #failedAt = :failedAt, #failedRunId = :runId REMOVE #resultGzip, #runId"
			assert.Equal(t, "failedRunId", params["ExpressionAttributeNames"].(map[string]any)["#failedRunId"])
			assert.Equal(t, "RecordFailureSpend", rf["Next"], "the failure is completed with its run's spend")
		}
		assert.Equal(t, update, params["UpdateExpression"], name)
		names := params["ExpressionAttributeNames"].(map[string]any)
		values := params["ExpressionAttributeValues"].(map[string]any)
		assert.Equal(t, map[string]any{"S": string(globalsearch.StatusFailed)}, values[":failed"])
		assert.Equal(t, map[string]any{"S.$": "$$.Execution.Name"}, values[":owner"], "%s: the owner is the execution", name)
		assert.NotContains(t, params["UpdateExpression"], "expiresAt", "%s keeps the run's one expiry", name)
		// Only the owner (and, once the run is known, only that run)
		// writes the result (docs/contract.md#query-ids).
		if withRun {
			assert.Equal(t, "#owner = :owner AND #runId = :runId", params["ConditionExpression"])
			assert.Equal(t, map[string]any{"S.$": "$.runId"}, values[":runId"])
		} else {
			assert.Equal(t, "#owner = :owner", params["ConditionExpression"])
		}
		for placeholder, attr := range map[string]string{"#status": "status", "#error": "error", "#cause": "cause", "#failedAt": "failedAt", "#resultGzip": "resultGzip", "#runId": "runId", "#owner": "owner"} {
			assert.Equal(t, attr, names[placeholder], "%s: %s", name, placeholder)
		}
		assert.Nil(t, rf["ResultPath"], "the caught error stays for the Fail state")
	}
	for _, name := range []string{"FailureQueryId", "FailureByExecutionName"} {
		raw, err := json.Marshal(ss[name])
		require.NoError(t, err)
		assert.Contains(t, string(raw), `"Next":"RecordPrepareFailure"`, "%s: a prepare failure has no run id", name)
		assert.NotContains(t, string(raw), `"Next":"RecordFailure"`, name)
	}
}

// reachesFail reports whether a Fail state can follow name through Choice
// and Pass states only, that is with no task in between to record anything.
func reachesFail(ss map[string]map[string]any, name string) bool {
	s := ss[name]
	switch s["Type"] {
	case "Fail":
		return true
	case "Pass":
		next, ok := s["Next"].(string)
		return ok && reachesFail(ss, next)
	case "Choice":
		if d, ok := s["Default"].(string); ok && reachesFail(ss, d) {
			return true
		}
		for _, c := range s["Choices"].([]any) {
			if reachesFail(ss, c.(map[string]any)["Next"].(string)) {
				return true
			}
		}
	}
	return false
}
