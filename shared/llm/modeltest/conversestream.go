package modeltest

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"hash/crc32"
	"net/http"
)

// The ConverseStream side of ConverseServer (POST
// /model/{modelId}/converse-stream): a success streams its reply as the
// AWS event-stream messages Bedrock sends (messageStart, a
// contentBlockDelta per piece of Pieces or of Text, contentBlockStop,
// messageStop, metadata); an error with StreamError set starts the stream
// and then sends that exception mid-stream, as a model that fails while
// it writes; any other error is the HTTP error Converse answers.

// EventStream is the media type of an AWS event stream.
const EventStream = "application/vnd.amazon.eventstream"

// StreamText is a streamed success that sends its text in pieces.
func StreamText(inputTokens, outputTokens int, pieces ...string) ConverseReply {
	r := ConverseText("", inputTokens, outputTokens)
	r.Pieces = pieces
	for _, p := range pieces {
		r.Text += p
	}
	return r
}

// streamReply writes rep as an event stream and flushes each message.
func (s *ConverseServer) streamReply(w http.ResponseWriter, rep ConverseReply, stop string) {
	w.Header().Set("Content-Type", EventStream)
	w.WriteHeader(http.StatusOK)
	flush := func() {
		if f, ok := w.(http.Flusher); ok {
			f.Flush()
		}
	}
	send := func(eventType string, payload any) {
		_, _ = w.Write(EventMessage(eventType, payload))
		flush()
	}
	send("messageStart", map[string]any{"role": "assistant"})
	pieces := rep.Pieces
	if pieces == nil && rep.Text != "" {
		pieces = []string{rep.Text}
	}
	for _, p := range pieces {
		send("contentBlockDelta", map[string]any{"contentBlockIndex": 0, "delta": map[string]any{"text": p}})
		if rep.Between != nil {
			rep.Between()
		}
	}
	if rep.StreamError != "" {
		_, _ = w.Write(ExceptionMessage(rep.StreamError, rep.StreamError+" from the fake ConverseStream endpoint"))
		flush()
		return
	}
	if rep.CutShort {
		return
	}
	send("contentBlockStop", map[string]any{"contentBlockIndex": 0})
	send("messageStop", map[string]any{"stopReason": stop})
	send("metadata", map[string]any{
		"usage":   rep.usage(),
		"metrics": map[string]any{"latencyMs": 1},
	})
}

// EventMessage is one event of an AWS event stream: :message-type event,
// :event-type eventType and payload as JSON.
func EventMessage(eventType string, payload any) []byte {
	body, _ := json.Marshal(payload)
	return encodeMessage([][2]string{{":event-type", eventType}, {":content-type", "application/json"}, {":message-type", "event"}}, body)
}

// ExceptionMessage is an exception of an AWS event stream, named as the
// ConverseStream output names its members (throttlingException,
// modelStreamErrorException, …).
func ExceptionMessage(exceptionType, message string) []byte {
	body, _ := json.Marshal(map[string]string{"message": message})
	return encodeMessage([][2]string{{":exception-type", exceptionType}, {":content-type", "application/json"}, {":message-type", "exception"}}, body)
}

// encodeMessage is the event-stream wire format of one message: total
// and header lengths and their CRC32, the headers (string values, type
// 7), the payload and the CRC32 of all before it, big-endian throughout.
func encodeMessage(headers [][2]string, payload []byte) []byte {
	var h bytes.Buffer
	for _, kv := range headers {
		h.WriteByte(byte(len(kv[0])))
		h.WriteString(kv[0])
		h.WriteByte(7)
		_ = binary.Write(&h, binary.BigEndian, uint16(len(kv[1])))
		h.WriteString(kv[1])
	}
	total := 12 + h.Len() + len(payload) + 4
	var m bytes.Buffer
	_ = binary.Write(&m, binary.BigEndian, uint32(total))
	_ = binary.Write(&m, binary.BigEndian, uint32(h.Len()))
	_ = binary.Write(&m, binary.BigEndian, crc32.ChecksumIEEE(m.Bytes()))
	m.Write(h.Bytes())
	m.Write(payload)
	_ = binary.Write(&m, binary.BigEndian, crc32.ChecksumIEEE(m.Bytes()))
	return m.Bytes()
}
