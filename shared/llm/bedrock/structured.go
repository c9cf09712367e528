package bedrock

import (
	"errors"
	"strings"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/bedrockruntime/types"
	"github.com/aws/smithy-go"

	"github.com/graphrag-global/graphrag-global/shared/globalsearch"
)

// StructuredOutput says when a call asks Converse for the stage's JSON
// schema (outputConfig.textFormat; docs/contract.md#structured-output).
type StructuredOutput int

const (
	// StructuredAuto asks for models SupportsStructuredOutput knows.
	StructuredAuto StructuredOutput = iota
	// StructuredOn asks for every model.
	StructuredOn
	// StructuredOff never asks.
	StructuredOff
)

// WithStructuredOutput sets when calls ask for the stage's JSON schema
// (default StructuredAuto). A model that refuses it still answers: see
// Model.
func WithStructuredOutput(s StructuredOutput) Option {
	return func(o *options) { o.structured = s }
}

// structuredModels are the model ids (after any region prefix or ARN path)
// whose Converse takes a JSON schema in outputConfig, by prefix: Bedrock's
// structured outputs launched with Anthropic's Claude 4.5 family and Opus
// 4.6. Others are asked only with StructuredOn.
var structuredModels = []string{
	"anthropic.claude-haiku-4-5",
	"anthropic.claude-sonnet-4-5",
	"anthropic.claude-opus-4-5",
	"anthropic.claude-opus-4-6",
}

// regionPrefixes are the cross-region inference profile prefixes.
var regionPrefixes = []string{"us.", "eu.", "apac.", "global.", "us-gov.", "jp.", "au.", "ca."}

// SupportsStructuredOutput reports whether modelID (a model id, an inference
// profile id or an ARN of either) is known to take a JSON schema in
// outputConfig.
func SupportsStructuredOutput(modelID string) bool {
	id := strings.ToLower(strings.TrimSpace(modelID))
	if i := strings.LastIndexByte(id, '/'); i >= 0 && strings.HasPrefix(id, "arn:") {
		id = id[i+1:]
	}
	for _, p := range regionPrefixes {
		if rest, ok := strings.CutPrefix(id, p); ok {
			id = rest
			break
		}
	}
	for _, p := range structuredModels {
		if strings.HasPrefix(id, p) {
			return true
		}
	}
	return false
}

// outputConfig is the stage's JSON schema in Converse's form: the schema as
// JSON text.
func outputConfig(stage globalsearch.Stage) *types.OutputConfig {
	s := globalsearch.StageOutputSchema(stage)
	return &types.OutputConfig{TextFormat: &types.OutputFormat{
		Type: types.OutputFormatTypeJsonSchema,
		Structure: &types.OutputFormatStructureMemberJsonSchema{Value: types.JsonSchemaDefinition{
			Name: aws.String(s.Name), Description: aws.String(s.Description), Schema: aws.String(s.JSON()),
		}},
	}}
}

// isValidation says whether err is Bedrock refusing the request as
// malformed: what a model without structured outputs answers a schema.
func isValidation(err error) bool {
	var apiErr smithy.APIError
	return errors.As(err, &apiErr) && apiErr.ErrorCode() == "ValidationException"
}
