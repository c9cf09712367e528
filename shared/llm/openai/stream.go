package openai

import (
	"context"
	"errors"
	"io"
	"mime"
	"strings"

	sdk "github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"
	"github.com/openai/openai-go/v3/packages/ssestream"

	"github.com/graphrag-global/graphrag-global/shared/globalsearch"
)

var _ globalsearch.StreamingModel = (*Model)(nil)

// CompleteStream makes the call Complete makes with stream: true and
// stream_options.include_usage, so the server sends the reply as
// server-sent events (data: chunks, the usage in the last one), and
// passes each piece of content to onText as it arrives
// (docs/contract.md#answer-stream). The output-format fallback, the reply
// cap and the errors are Complete's. A server that answers with one JSON
// completion instead is read as Complete reads it, its text one piece.
func (m *Model) CompleteStream(ctx context.Context, req globalsearch.ModelRequest, onText func(string)) (globalsearch.ModelResponse, error) {
	if req.MaxTokens < 0 {
		return globalsearch.ModelResponse{}, globalsearch.Errorf(globalsearch.KindInvalidInput,
			"%s must not be negative to call model %s (got %d)", reserveName(req.Stage), m.model, req.MaxTokens)
	}
	for {
		format := m.Format()
		ex := &exchange{replyLimit: globalsearch.MaxReplyBytes(req.MaxTokens), streaming: true}
		params := m.params(req, format)
		params.StreamOptions = sdk.ChatCompletionStreamOptionsParam{IncludeUsage: sdk.Bool(true)}
		stream := m.chat.NewStreaming(ctx, params, option.WithMiddleware(ex.middleware))
		resp, finished, err := m.readStream(req, stream, ex, onText)
		switch {
		case ex.replyTooLarge:
			return globalsearch.ModelResponse{}, globalsearch.ReplyTooLargeError(m.model, ex.replyLimit, req.MaxTokens)
		case err == nil && ex.tooLarge:
			return globalsearch.ModelResponse{}, m.tooLarge(ex)
		case err != nil && format < FormatText && ex.refusesFormat():
			m.format.CompareAndSwap(int32(format), int32(format+1))
			continue
		case err != nil:
			return globalsearch.ModelResponse{}, m.classify(ctx, err, ex)
		case ex.whole != nil:
			resp, err := m.read(req, ex.whole)
			if resp.Text != "" {
				onText(resp.Text)
			}
			return resp, err
		case !finished:
			// A cut connection reads as the stream's end: with no finish
			// reason, what arrived is not the whole reply.
			return globalsearch.ModelResponse{}, globalsearch.Errorf(globalsearch.KindModel,
				"model %s at %s: the stream ended before the completion did (no finish_reason)", m.model, m.endpoint)
		}
		return m.finish(req, resp)
	}
}

// readStream reads the chunks of one streamed call to their end: the
// text, the finish reason and the usage, and whether a finish reason came.
func (m *Model) readStream(req globalsearch.ModelRequest, stream *ssestream.Stream[sdk.ChatCompletionChunk], ex *exchange, onText func(string)) (globalsearch.ModelResponse, bool, error) {
	defer stream.Close()
	var (
		b        strings.Builder
		resp     globalsearch.ModelResponse
		finished bool
	)
	for stream.Next() {
		c := stream.Current()
		if c.JSON.Usage.Valid() {
			resp.InputTokens, resp.OutputTokens = int(c.Usage.PromptTokens), int(c.Usage.CompletionTokens)
			resp.CacheReadInputTokens = int(c.Usage.PromptTokensDetails.CachedTokens)
		}
		if len(c.Choices) == 0 {
			continue
		}
		if piece := c.Choices[0].Delta.Content; piece != "" {
			if int64(b.Len()+len(piece)) > ex.replyLimit {
				ex.replyTooLarge = true
				return globalsearch.ModelResponse{}, false, errReplyTooLarge
			}
			b.WriteString(piece)
			onText(piece)
		}
		if fr := c.Choices[0].FinishReason; fr != "" {
			resp.StopReason, finished = fr, true
		}
	}
	resp.Text = b.String()
	return resp, finished, stream.Err()
}

var errReplyTooLarge = errors.New("reply over its cap")

// isJSON reports whether a Content-Type is JSON's.
func isJSON(ct string) bool {
	media, _, err := mime.ParseMediaType(ct)
	return err == nil && media == "application/json"
}

// boundedStream reads a streamed reply up to left bytes, then fails: no
// reply within the reply cap (docs/contract.md#reply-cap) sends that much,
// whatever the framing of its chunks.
type boundedStream struct {
	io.ReadCloser
	left int64
}

var errStreamTooLarge = errors.New("streamed reply over the read cap")

func (b *boundedStream) Read(p []byte) (int, error) {
	if b.left <= 0 {
		return 0, errStreamTooLarge
	}
	if int64(len(p)) > b.left {
		p = p[:b.left]
	}
	n, err := b.ReadCloser.Read(p)
	b.left -= int64(n)
	return n, err
}
