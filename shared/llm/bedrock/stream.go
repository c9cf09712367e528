package bedrock

import (
	"context"
	"strings"

	"github.com/aws/aws-sdk-go-v2/service/bedrockruntime"
	"github.com/aws/aws-sdk-go-v2/service/bedrockruntime/types"

	"github.com/graphrag-global/graphrag-global/shared/globalsearch"
)

var _ globalsearch.StreamingModel = (*Model)(nil)

// CompleteStream makes the call Complete makes through ConverseStream,
// passing each text delta to onText as it arrives
// (docs/contract.md#answer-stream); the response is the whole reply, read
// as Complete reads one. A stream that fails partway (an exception event)
// fails the call as Complete's error would, and a reply past
// globalsearch.MaxReplyBytes is refused as soon as it passes it.
func (m *Model) CompleteStream(ctx context.Context, req globalsearch.ModelRequest, onText func(string)) (globalsearch.ModelResponse, error) {
	base, err := m.input(req)
	if err != nil {
		return globalsearch.ModelResponse{}, err
	}
	in := &bedrockruntime.ConverseStreamInput{
		ModelId: base.ModelId, System: base.System, Messages: base.Messages, InferenceConfig: base.InferenceConfig,
		ServiceTier: base.ServiceTier,
	}
	schema := m.schema.Load()
	if schema {
		in.OutputConfig = outputConfig(req.Stage)
	}
	out, err := m.client.ConverseStream(ctx, in)
	if err != nil && schema && isValidation(err) {
		in.OutputConfig = nil
		out, err = m.client.ConverseStream(ctx, in)
		if err == nil || !isValidation(err) {
			m.schema.Store(false)
		}
	}
	if err != nil {
		return globalsearch.ModelResponse{}, m.classify(ctx, err)
	}
	return m.readStream(ctx, req, out.GetStream(), onText)
}

// readStream reads a ConverseStream reply's events to their end.
func (m *Model) readStream(ctx context.Context, req globalsearch.ModelRequest, es *bedrockruntime.ConverseStreamEventStream, onText func(string)) (globalsearch.ModelResponse, error) {
	defer es.Close()
	limit := globalsearch.MaxReplyBytes(req.MaxTokens)
	var (
		b       strings.Builder
		resp    globalsearch.ModelResponse
		stop    types.StopReason
		content bool
	)
	for ev := range es.Events() {
		switch v := ev.(type) {
		case *types.ConverseStreamOutputMemberContentBlockDelta:
			t, ok := v.Value.Delta.(*types.ContentBlockDeltaMemberText)
			if !ok {
				continue
			}
			content = true
			if int64(b.Len()+len(t.Value)) > limit {
				return globalsearch.ModelResponse{}, globalsearch.ReplyTooLargeError("bedrock model "+m.modelID, limit, req.MaxTokens)
			}
			b.WriteString(t.Value)
			onText(t.Value)
		case *types.ConverseStreamOutputMemberMessageStop:
			stop = v.Value.StopReason
		case *types.ConverseStreamOutputMemberMetadata:
			readUsage(&resp, v.Value.Usage)
		}
	}
	if err := es.Err(); err != nil {
		return globalsearch.ModelResponse{}, m.classify(ctx, err)
	}
	if err := ctx.Err(); err != nil {
		return globalsearch.ModelResponse{}, m.classify(ctx, err)
	}
	resp.Text, resp.StopReason = b.String(), string(stop)
	if stop == "" {
		// The event stream reads a cut connection as its end: with no
		// messageStop, what arrived is not the whole reply.
		return globalsearch.ModelResponse{}, globalsearch.Errorf(globalsearch.KindModel,
			"bedrock model %s: the stream ended before the message did (no messageStop)", m.modelID)
	}
	return m.finish(req, resp, stop, content)
}
