package bedrock

import (
	"context"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/bedrockruntime"
	"github.com/aws/aws-sdk-go-v2/service/bedrockruntime/types"

	"github.com/graphrag-global/graphrag-global/shared/globalsearch"
)

// CountTokens implements globalsearch.TokenCounter with Bedrock's
// CountTokens, which counts the input tokens of a Converse request as the
// model's own tokenizer does, without inference and without charge
// (docs/contract.md#calibrate). It counts what Complete sends: the system
// prompt and the one user message. A model that does not count tokens
// fails with Bedrock's validation error.
func (m *Model) CountTokens(ctx context.Context, req globalsearch.ModelRequest) (int, error) {
	system, messages := conversation(req)
	out, err := m.client.CountTokens(ctx, &bedrockruntime.CountTokensInput{
		ModelId: aws.String(m.modelID),
		Input:   &types.CountTokensInputMemberConverse{Value: types.ConverseTokensRequest{System: system, Messages: messages}},
	})
	if err != nil {
		return 0, m.classify(ctx, err)
	}
	n := int(aws.ToInt32(out.InputTokens))
	if n <= 0 {
		return 0, globalsearch.Errorf(globalsearch.KindModel, "bedrock model %s counted %d input tokens for a prompt of %d bytes", m.modelID, n, len(req.Prompt))
	}
	return n, nil
}

var _ globalsearch.TokenCounter = (*Model)(nil)
