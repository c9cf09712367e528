package globalsearch

// Reply caps (docs/contract.md#reply-cap): how much of a model's reply a
// model adapter reads before it refuses the reply, as the MCP server caps
// a message. A reply is the answer's text inside the provider's envelope,
// and the answer is at most maxTokens tokens: a token is a few code points,
// each at most 4 bytes of UTF-8 or 12 as a JSON escaped surrogate pair, so
// 64 bytes a token is far above any real answer, and 64 KiB holds the
// envelope (ids, usage, stop reason). A reply past that is not an answer
// the request asked for (a 13 MB rating reply of 60,000 unrequested ids
// took 152 MB to read), and is refused before it is held.
const (
	// ReplyBytesPerToken is the bytes of reply allowed per token of the
	// output reserve.
	ReplyBytesPerToken = 64
	// ReplyEnvelopeBytes is the allowance for the provider's envelope.
	ReplyEnvelopeBytes = 64 << 10
	// MaxReplyBytesNoReserve caps a reply to a call that sent no output
	// limit (a reserve of 0, docs/contract.md#budgets): the provider's own
	// limit applies, which no map, reduce or rating answer needs 1 MiB for.
	MaxReplyBytesNoReserve = 1 << 20
)

// MaxReplyBytes is the most of a reply a model adapter reads for a call
// whose output reserve is maxTokens (0: none sent).
func MaxReplyBytes(maxTokens int) int64 {
	if maxTokens <= 0 {
		return MaxReplyBytesNoReserve
	}
	return ReplyEnvelopeBytes + ReplyBytesPerToken*int64(maxTokens)
}

// ReplyTooLargeError is the model-output-invalid error of a reply past
// MaxReplyBytes; both adapters word it alike.
func ReplyTooLargeError(model string, limit int64, maxTokens int) error {
	return Errorf(KindModelOutput,
		"model %s replied with over %d bytes, more than an answer within %s needs: the reply is refused",
		model, limit, replyReserve(maxTokens))
}

func replyReserve(maxTokens int) string {
	if maxTokens <= 0 {
		return "the provider's own output limit"
	}
	return Plural(maxTokens, "token", "tokens")
}
