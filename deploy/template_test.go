package deploy_test

import (
	"context"
	"fmt"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/graphrag-global/graphrag-global/shared/globalsearch"
	"github.com/graphrag-global/graphrag-global/shared/store"
	"github.com/graphrag-global/graphrag-global/shared/workflow"
)

// grants lists what a role allows, one "action resource [when condition]"
// per line, plus "managed <arn>" per managed policy, sorted.
func grants(t *testing.T, s *stack, role string) []string {
	t.Helper()
	props := s.resource(t, role, "AWS::IAM::Role")
	var out []string
	for _, arn := range list(props["ManagedPolicyArns"]) {
		if arn != nil {
			out = append(out, "managed "+render(arn))
		}
	}
	for _, p := range list(props["Policies"]) {
		for _, st := range list(path(p, "PolicyDocument", "Statement")) {
			require.Equal(t, "Allow", path(st, "Effect"), "%s: only Allow statements are expected", role)
			when := ""
			if cond, ok := path(st, "Condition").(map[string]any); ok {
				var parts []string
				for op, kv := range cond {
					for k, v := range kv.(map[string]any) {
						parts = append(parts, fmt.Sprintf("%s %s=%s", op, k, render(v)))
					}
				}
				sort.Strings(parts)
				when = " when " + strings.Join(parts, ", ")
			}
			for _, a := range list(path(st, "Action")) {
				for _, r := range list(path(st, "Resource")) {
					out = append(out, fmt.Sprintf("%v %s%s", a, render(r), when))
				}
			}
		}
	}
	sort.Strings(out)
	return out
}

// TestRolePolicies pins every role to the narrowest grants that work
// (docs/aws.md#iam-least-privilege): a widened action or resource fails here.
func TestRolePolicies(t *testing.T) {
	const (
		basic = "managed arn:aws:iam::aws:policy/service-role/AWSLambdaBasicExecutionRole"
		xray  = "managed arn:aws:iam::aws:policy/AWSXrayWriteOnlyAccess"
		runs  = " ${RunsTable.Arn}"
		index = " ${IndexTable.Arn}"
		// docs/contract.md#payloads-bucket: prepare only writes the batch
		// texts and batches, map only reads them, reduce reads the batches
		// only, nobody else reaches them.
		texts   = " ${PayloadBucket.Arn}/runs/*"
		batches = " ${PayloadBucket.Arn}/runs/*/batches-*"
		region  = "arn:${AWS::Partition}:bedrock:${AWS::Region}"
	)
	// model is what a stage's function may call: its own model's
	// parameter when set (docs/contract.md#stage-models), else FoundationModelId.
	model := func(s *stack, stageParam string) []string {
		fm := s.params["FoundationModelId"]
		if own := s.params[stageParam]; own != "" {
			fm = own
		}
		prefix := s.params["InferenceProfilePrefix"]
		if prefix == "" {
			return []string{"bedrock:InvokeModel " + region + "::foundation-model/" + fm}
		}
		profile := region + ":${AWS::AccountId}:inference-profile/" + prefix + "." + fm
		return []string{
			"bedrock:InvokeModel " + profile,
			"bedrock:InvokeModel arn:${AWS::Partition}:bedrock:*::foundation-model/" + fm +
				" when StringEquals bedrock:InferenceProfileArn=" + profile,
		}
	}
	invoke := func(fn string) string {
		return "lambda:InvokeFunction arn:${AWS::Partition}:lambda:${AWS::Region}:${AWS::AccountId}:function:${" + fn + "}*"
	}
	star := func(actions ...string) []string {
		var out []string
		for _, a := range actions {
			out = append(out, a+" *")
		}
		return out
	}
	want := map[string]func(s *stack) []string{
		"PrepareFunctionRole": func(*stack) []string {
			return []string{basic, xray, "dynamodb:Query" + index, "dynamodb:BatchGetItem" + index,
				"dynamodb:GetItem" + runs, "dynamodb:PutItem" + runs, "dynamodb:UpdateItem" + runs, "dynamodb:BatchWriteItem" + runs,
				"dynamodb:Query" + runs, "s3:PutObject" + texts}
		},
		"MapFunctionRole": func(s *stack) []string {
			// docs/contract.md#map-cache: the map function alone reads and writes the map cache.
			return append([]string{basic, xray, "dynamodb:GetItem" + runs, "dynamodb:PutItem" + runs, "dynamodb:UpdateItem" + runs, "s3:GetObject" + texts,
				"dynamodb:GetItem ${MapCacheTable.Arn}", "dynamodb:PutItem ${MapCacheTable.Arn}"}, model(s, "MapFoundationModelId")...)
		},
		"ReduceFunctionRole": func(s *stack) []string {
			// docs/contract.md#reduce-rounds: BatchWriteItem saves a reduce round's groups.
			return append([]string{basic, xray, "dynamodb:GetItem" + runs, "dynamodb:Query" + runs,
				"dynamodb:UpdateItem" + runs, "dynamodb:BatchWriteItem" + runs, "s3:GetObject" + batches}, model(s, "ReduceFoundationModelId")...)
		},
		"ApiFunctionRole": func(*stack) []string {
			// docs/contract.md#cancel: DELETE stops this state machine's
			// executions only, by the execution ARN pattern, never "*".
			executions := "arn:${AWS::Partition}:states:${AWS::Region}:${AWS::AccountId}:execution:${SearchStateMachine.Name}:*"
			return []string{basic, xray, "dynamodb:GetItem" + runs, "dynamodb:PutItem" + runs,
				"dynamodb:Query" + runs, "dynamodb:UpdateItem" + runs,
				"states:StartExecution ${SearchStateMachine}",
				"states:DescribeExecution " + executions, "states:StopExecution " + executions}
		},
		"SearchStateMachineRole": func(*stack) []string {
			// SAM adds the X-Ray managed policy for Tracing; the template's own
			// xray statement repeats it.
			// The Distributed Map's child executions: this state machine only
			// (named in the template: a !Ref to itself would be circular).
			self := "arn:${AWS::Partition}:states:${AWS::Region}:${AWS::AccountId}:"
			return append(append([]string{xray, invoke("PrepareFunction"), invoke("MapFunction"), invoke("ReduceFunction"),
				"dynamodb:PutItem" + runs, "dynamodb:UpdateItem" + runs, "s3:GetObject" + texts,
				"states:StartExecution " + self + "stateMachine:${AWS::StackName}-globalsearch",
				"states:DescribeExecution " + self + "execution:${AWS::StackName}-globalsearch/*",
				"states:StopExecution " + self + "execution:${AWS::StackName}-globalsearch/*"},
				star("logs:CreateLogDelivery", "logs:GetLogDelivery", "logs:UpdateLogDelivery", "logs:DeleteLogDelivery",
					"logs:ListLogDeliveries", "logs:PutResourcePolicy", "logs:DescribeResourcePolicies", "logs:DescribeLogGroups")...),
				star("xray:PutTraceSegments", "xray:PutTelemetryRecords", "xray:GetSamplingRules", "xray:GetSamplingTargets")...)
		},
		"ScheduleRole": func(*stack) []string {
			return []string{"states:StartExecution ${SearchStateMachine}", "sqs:SendMessage ${ScheduleDeadLetterQueue.Arn}"}
		},
	}
	for _, tc := range []struct {
		name      string
		overrides map[string]string
	}{
		{"inference profile (default)", nil},
		{"foundation model in this region", map[string]string{"InferenceProfilePrefix": ""}},
		{"a model per stage", map[string]string{"MapFoundationModelId": "amazon.nova-micro-v1:0", "ReduceFoundationModelId": "anthropic.claude-sonnet-4-5-20250929-v1:0"}},
		{"a map model of its own, in this region", map[string]string{"MapFoundationModelId": "amazon.nova-micro-v1:0", "InferenceProfilePrefix": ""}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := translate(t, tc.overrides)
			assert.ElementsMatch(t, keys(want), s.ofType("AWS::IAM::Role"), "every role has its expected grants here")
			for role, grantsOf := range want {
				expected := grantsOf(s)
				sort.Strings(expected)
				assert.Equal(t, expected, grants(t, s, role), role)
			}
		})
	}
}

func keys[V any](m map[string]V) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	return out
}

func TestMapReservedConcurrency(t *testing.T) {
	defaults := translate(t, nil)
	def, err := strconv.Atoi(defaults.params["MapReservedConcurrency"])
	require.NoError(t, err)
	require.Positive(t, def, "by default the map function has a reservation")

	for _, tc := range []struct {
		name  string
		value string // "" = the template's default
		want  any    // nil = no ReservedConcurrentExecutions
	}{
		{"default", "", strconv.Itoa(def)},
		{"set", "3", "3"},
		{"0 reserves nothing", "0", nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var overrides map[string]string
			if tc.value != "" {
				overrides = map[string]string{"MapReservedConcurrency": tc.value}
			}
			s := translate(t, overrides)
			fns := map[string]any{}
			for _, id := range s.ofType("AWS::Lambda::Function") {
				if v, ok := s.resources[id].Properties["ReservedConcurrentExecutions"]; ok {
					fns[id] = v
				}
			}
			if tc.want == nil {
				assert.Empty(t, fns, "no function reserves concurrency")
				return
			}
			assert.Equal(t, map[string]any{"MapFunction": tc.want}, fns, "only the map function reserves concurrency")
		})
	}
}

// TestPrepareLimits: the deployment's cap on a request's mapConcurrency and
// its largest plan reach prepare, and only prepare (docs/contract.md#state-machine): prepare
// outputs the capped concurrency the Map reads through MaxConcurrencyPath,
// and refuses plans past MaxBatches, whose bounds are the code's.
func TestPrepareLimits(t *testing.T) {
	defaults := translate(t, nil)
	def, err := strconv.Atoi(defaults.params["MapMaxConcurrency"])
	require.NoError(t, err)
	require.GreaterOrEqual(t, def, 4, "the cap admits the default mapConcurrency")
	assert.Equal(t, strconv.Itoa(workflow.MaxMapConcurrency), defaults.maxValues["MapMaxConcurrency"], "the inline Map's own limit, which prepare holds it to")
	assert.Equal(t, defaults.params["MapMaxConcurrency"], defaults.params["MapReservedConcurrency"],
		"one search at the most it may have in flight fills the reservation")
	assert.Equal(t, "0", defaults.params["ModelTokensPerMinute"], "no quota known unless stated")
	assert.Equal(t, "0", defaults.params["ModelRequestsPerMinute"])
	assert.Equal(t, strconv.Itoa(int(globalsearch.DefaultCallSeconds)), defaults.params["MapCallSeconds"])
	assert.Equal(t, strconv.Itoa(int(globalsearch.MaxCallSeconds)), defaults.maxValues["MapCallSeconds"])
	assert.Equal(t, strconv.Itoa(workflow.DefaultMaxBatches), defaults.params["MaxBatches"])
	assert.Equal(t, strconv.Itoa(workflow.MaxBatchesLimit), defaults.maxValues["MaxBatches"],
		"the runs table's six-digit batch keys; the Distributed Map reads its items from the payload bucket")
	for _, tc := range []struct {
		name, param, env string
		value            string // "" = the template's default
	}{
		{"default concurrency cap", "MapMaxConcurrency", "MAP_MAX_CONCURRENCY", ""},
		{"concurrency cap set", "MapMaxConcurrency", "MAP_MAX_CONCURRENCY", "16"},
		{"default plan limit", "MaxBatches", "MAX_BATCHES", ""},
		{"plan limit set", "MaxBatches", "MAX_BATCHES", "5000"},
		// docs/contract.md#quota: the model's quota and call time size the
		// map concurrency in prepare, and only there.
		{"default tokens quota", "ModelTokensPerMinute", "GRAPHRAG_MODEL_TOKENS_PER_MINUTE", ""},
		{"tokens quota set", "ModelTokensPerMinute", "GRAPHRAG_MODEL_TOKENS_PER_MINUTE", "2000000"},
		{"default requests quota", "ModelRequestsPerMinute", "GRAPHRAG_MODEL_REQUESTS_PER_MINUTE", ""},
		{"requests quota set", "ModelRequestsPerMinute", "GRAPHRAG_MODEL_REQUESTS_PER_MINUTE", "200"},
		{"default call time", "MapCallSeconds", "GRAPHRAG_MAP_CALL_SECONDS", ""},
		{"call time set", "MapCallSeconds", "GRAPHRAG_MAP_CALL_SECONDS", "4"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var overrides map[string]string
			want := defaults.params[tc.param]
			if tc.value != "" {
				overrides = map[string]string{tc.param: tc.value}
				want = tc.value
			}
			s := translate(t, overrides)
			set := map[string]any{}
			for _, id := range s.ofType("AWS::Lambda::Function") {
				if v := path(s.resources[id].Properties, "Environment", "Variables", tc.env); v != nil {
					set[id] = v
				}
			}
			assert.Equal(t, map[string]any{"PrepareFunction": want}, set)
		})
	}
}

// TestStateMachineName: the state machine's own policy names it by the
// name it is given (a !Ref to itself would be circular).
func TestStateMachineName(t *testing.T) {
	s := translate(t, nil)
	sm := s.resource(t, "SearchStateMachine", "AWS::StepFunctions::StateMachine")
	assert.Equal(t, "${AWS::StackName}-globalsearch", render(sm["StateMachineName"]))
}

func TestAPIStageThrottling(t *testing.T) {
	for _, tc := range []struct {
		name      string
		overrides map[string]string
	}{
		{"defaults", nil},
		{"set", map[string]string{"ApiThrottlingRateLimit": "2", "ApiThrottlingBurstLimit": "5"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := translate(t, tc.overrides)
			stages := s.ofType("AWS::ApiGatewayV2::Stage")
			require.Len(t, stages, 1)
			stage := s.resources[stages[0]].Properties
			require.Equal(t, map[string]any{"Ref": "HttpApi"}, stage["ApiId"])
			assert.Equal(t, map[string]any{
				"ThrottlingRateLimit":  s.params["ApiThrottlingRateLimit"],
				"ThrottlingBurstLimit": s.params["ApiThrottlingBurstLimit"],
			}, stage["DefaultRouteSettings"])
			for _, p := range []string{"ApiThrottlingRateLimit", "ApiThrottlingBurstLimit"} {
				n, err := strconv.ParseFloat(s.params[p], 64)
				require.NoError(t, err)
				assert.Positive(t, n, p)
			}
		})
	}
}

// metric names one alarm's metric: namespace, name and its one dimension.
type metric struct {
	namespace, name, dimension string
	value                      any
}

func TestAlarms(t *testing.T) {
	const topic = "arn:aws:sns:us-east-1:123456789012:search-ops"
	for _, tc := range []struct {
		name      string
		overrides map[string]string
		actions   any // nil = none
	}{
		{"no topic: alarms without actions", nil, nil},
		{"topic: every alarm notifies it", map[string]string{"AlarmTopicArn": topic}, []any{topic}},
		{"foundation model in this region", map[string]string{"InferenceProfilePrefix": ""}, nil},
		{"the map model of its own, the reduce model the default", map[string]string{"MapFoundationModelId": "amazon.nova-micro-v1:0"}, nil},
		{"a model per stage", map[string]string{"MapFoundationModelId": "amazon.nova-micro-v1:0", "ReduceFoundationModelId": "anthropic.claude-sonnet-4-5-20250929-v1:0"}, nil},
		{"both stages name one model", map[string]string{"MapFoundationModelId": "amazon.nova-micro-v1:0", "ReduceFoundationModelId": "amazon.nova-micro-v1:0"}, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := translate(t, tc.overrides)
			sm := map[string]any{"Ref": "SearchStateMachine"}
			modelID := path(s.resource(t, "MapFunction", "AWS::Lambda::Function"), "Environment", "Variables", "MODEL_ID")
			require.IsType(t, "", modelID, "MODEL_ID resolves to a string")
			reduceModelID := path(s.resource(t, "ReduceFunction", "AWS::Lambda::Function"), "Environment", "Variables", "MODEL_ID")
			want := []metric{
				{"AWS/States", "ExecutionsFailed", "StateMachineArn", sm},
				{"AWS/States", "ExecutionsTimedOut", "StateMachineArn", sm},
				{"AWS/Lambda", "Errors", "FunctionName", map[string]any{"Ref": "MapFunction"}},
				{"AWS/Lambda", "Throttles", "FunctionName", map[string]any{"Ref": "MapFunction"}},
				{"AWS/Lambda", "Errors", "FunctionName", map[string]any{"Ref": "ReduceFunction"}},
				{"AWS/Lambda", "Throttles", "FunctionName", map[string]any{"Ref": "ReduceFunction"}},
				// The id the functions call, with or without an inference profile.
				{"AWS/Bedrock", "InvocationThrottles", "ModelId", modelID},
				{"AWS/SQS", "ApproximateNumberOfMessagesVisible", "QueueName",
					map[string]any{"Fn::GetAtt": []any{"ScheduleDeadLetterQueue", "QueueName"}}},
			}
			// A reduce model other than the map's has its own throttling alarm.
			if reduceModelID != modelID {
				want = append(want, metric{"AWS/Bedrock", "InvocationThrottles", "ModelId", reduceModelID})
			}

			var got []metric
			for _, id := range s.ofType("AWS::CloudWatch::Alarm") {
				a := s.resources[id].Properties
				dims := list(a["Dimensions"])
				require.Len(t, dims, 1, id)
				got = append(got, metric{fmt.Sprint(a["Namespace"]), fmt.Sprint(a["MetricName"]),
					fmt.Sprint(path(dims[0], "Name")), path(dims[0], "Value")})

				assert.Equal(t, tc.actions, a["AlarmActions"], "%s: AlarmActions", id)
				assert.Equal(t, "GreaterThanOrEqualToThreshold", a["ComparisonOperator"], id)
				assert.Positive(t, a["Threshold"], "%s: a threshold of 0 would always fire", id)
				assert.Equal(t, "notBreaching", a["TreatMissingData"], "%s: no traffic is not an alarm", id)
			}
			assert.ElementsMatch(t, want, got)
		})
	}
}

// TestAlarmTopicArnPattern: CloudFormation refuses a value that is not an
// SNS topic ARN before creating anything, rather than failing on the first
// alarm.
func TestAlarmTopicArnPattern(t *testing.T) {
	s := translate(t, nil)
	pattern, ok := s.patterns["AlarmTopicArn"]
	require.True(t, ok, "AlarmTopicArn has an AllowedPattern")
	re, err := regexp.Compile(pattern)
	require.NoError(t, err)
	for _, tc := range []struct {
		value string
		ok    bool
	}{
		{"", true},
		{"arn:aws:sns:us-east-1:123456789012:search-ops", true},
		{"arn:aws-us-gov:sns:us-gov-west-1:123456789012:Search_Ops-1", true},
		{"search-ops", false},
		{"arn:aws:sqs:us-east-1:123456789012:search-ops", false},
		{"arn:aws:sns:us-east-1:1234:search-ops", false},
		{"arn:aws:sns:us-east-1:123456789012:search-ops extra", false},
	} {
		t.Run(tc.value, func(t *testing.T) {
			assert.Equal(t, tc.ok, re.MatchString(tc.value))
		})
	}
}

func TestScheduleDeadLetterQueue(t *testing.T) {
	s := translate(t, nil)
	target := path(s.resource(t, "NightlySearchSchedule", "AWS::Scheduler::Schedule"), "Target")

	retries, ok := path(target, "RetryPolicy", "MaximumRetryAttempts").(float64)
	require.True(t, ok, "the schedule's target has a RetryPolicy")
	assert.Positive(t, retries)
	assert.Positive(t, path(target, "RetryPolicy", "MaximumEventAgeInSeconds"))

	dlq := path(target, "DeadLetterConfig", "Arn")
	require.Equal(t, map[string]any{"Fn::GetAtt": []any{"ScheduleDeadLetterQueue", "Arn"}}, dlq,
		"undelivered schedule events go to the queue in this template")
	queue := s.resource(t, "ScheduleDeadLetterQueue", "AWS::SQS::Queue")
	encrypted := queue["SqsManagedSseEnabled"] == true || queue["KmsMasterKeyId"] != nil
	assert.True(t, encrypted, "the dead-letter queue is encrypted at rest")
	retention, ok := queue["MessageRetentionPeriod"].(float64)
	require.True(t, ok, "the retention period is set, not left at SQS's default")
	assert.GreaterOrEqual(t, retention, float64(60))
	assert.LessOrEqual(t, retention, float64(1209600), "SQS keeps messages 14 days at most")

	// The scheduler sends to the queue with the target's role.
	require.Equal(t, map[string]any{"Fn::GetAtt": []any{"ScheduleRole", "Arn"}}, path(target, "RoleArn"))
	assert.Contains(t, grants(t, s, "ScheduleRole"), "sqs:SendMessage ${ScheduleDeadLetterQueue.Arn}")
}

// tablesRecorder is the DynamoDB client store.CreateTables uses in tests
// and local setup; it records what the code creates.
type tablesRecorder struct {
	created map[string]*dynamodb.CreateTableInput
	ttl     map[string]*types.TimeToLiveSpecification
}

func (r *tablesRecorder) CreateTable(_ context.Context, in *dynamodb.CreateTableInput, _ ...func(*dynamodb.Options)) (*dynamodb.CreateTableOutput, error) {
	r.created[aws.ToString(in.TableName)] = in
	return &dynamodb.CreateTableOutput{}, nil
}

func (r *tablesRecorder) DescribeTable(context.Context, *dynamodb.DescribeTableInput, ...func(*dynamodb.Options)) (*dynamodb.DescribeTableOutput, error) {
	return &dynamodb.DescribeTableOutput{Table: &types.TableDescription{TableStatus: types.TableStatusActive}}, nil
}

func (r *tablesRecorder) UpdateTimeToLive(_ context.Context, in *dynamodb.UpdateTimeToLiveInput, _ ...func(*dynamodb.Options)) (*dynamodb.UpdateTimeToLiveOutput, error) {
	r.ttl[aws.ToString(in.TableName)] = in.TimeToLiveSpecification
	return &dynamodb.UpdateTimeToLiveOutput{}, nil
}

// TestTablesMatchTheCode checks the template's tables against the ones the
// code creates for tests and local runs (store.CreateTables): same keys,
// same TTL attribute, so what passes locally holds on AWS.
func TestTablesMatchTheCode(t *testing.T) {
	rec := &tablesRecorder{created: map[string]*dynamodb.CreateTableInput{}, ttl: map[string]*types.TimeToLiveSpecification{}}
	require.NoError(t, store.CreateTables(context.Background(), rec, store.Tables{Index: "IndexTable", Runs: "RunsTable"}))
	s := translate(t, nil)

	for _, id := range []string{"IndexTable", "RunsTable"} {
		t.Run(id, func(t *testing.T) {
			table := s.resource(t, id, "AWS::DynamoDB::Table")
			code := rec.created[id]
			require.NotNil(t, code, "store.CreateTables creates %s", id)

			var keySchema, attrs []any
			for _, k := range code.KeySchema {
				keySchema = append(keySchema, map[string]any{"AttributeName": aws.ToString(k.AttributeName), "KeyType": string(k.KeyType)})
			}
			for _, a := range code.AttributeDefinitions {
				attrs = append(attrs, map[string]any{"AttributeName": aws.ToString(a.AttributeName), "AttributeType": string(a.AttributeType)})
			}
			assert.Equal(t, keySchema, table["KeySchema"], "key schema (order: HASH, RANGE)")
			assert.ElementsMatch(t, attrs, table["AttributeDefinitions"])
			assert.Equal(t, string(code.BillingMode), table["BillingMode"])

			var wantTTL any
			if spec := rec.ttl[id]; spec != nil {
				wantTTL = map[string]any{"AttributeName": aws.ToString(spec.AttributeName), "Enabled": aws.ToBool(spec.Enabled)}
			}
			assert.Equal(t, wantTTL, table["TimeToLiveSpecification"], "TTL attribute")
		})
	}
	assert.Equal(t, store.TTLAttribute, path(s.resources["RunsTable"].Properties, "TimeToLiveSpecification", "AttributeName"),
		"runs expire by the attribute the store writes")
	assert.Nil(t, path(s.resources["IndexTable"].Properties, "TimeToLiveSpecification"), "the index never expires")
}
