package globalsearch_test

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"
	"unicode"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	gs "github.com/graphrag-global/graphrag-global/shared/globalsearch"
)

// decodeAll feeds reply to a decoder in pieces of size bytes (the last
// shorter) and joins what it returns.
func decodeAll(reply string, size int) string {
	var d gs.AnswerDecoder
	var b strings.Builder
	for i := 0; i < len(reply); i += size {
		b.WriteString(d.Write(reply[i:min(i+size, len(reply))]))
	}
	return b.String()
}

// answerField is the answer field of reply's object, as encoding/json
// reads it, leading blanks left out as the decoder leaves them out.
func answerField(t *testing.T, object string) string {
	t.Helper()
	var v struct{ Answer string }
	require.NoError(t, json.Unmarshal([]byte(object), &v), object)
	return strings.TrimLeftFunc(v.Answer, func(r rune) bool { return unicode.IsSpace(r) || r == '\uFEFF' })
}

// The decoder returns the answer field's text as encoding/json reads it,
// however the reply is cut into pieces: mid-escape, mid-surrogate pair,
// mid-UTF-8 sequence.
func TestAnswerDecoderReadsTheAnswerField(t *testing.T) {
	cases := []struct {
		name, reply, object string // object: the JSON in reply ("" when reply is it)
	}{
		{name: "plain", reply: `{"answer": "Ports grew [Data: Reports (1, 2)]."}`},
		{name: "escapes", reply: `{"answer":"line one\nline \"two\"\t\\ \/ \b\f\r end"}`},
		{name: "unicode escapes and a surrogate pair", reply: `{"answer":"caf\u00e9 \ud83c\udf0a \u4e2d"}`},
		{name: "a lone high surrogate", reply: `{"answer":"a\ud83c b"}`},
		{name: "raw UTF-8", reply: `{"answer":"Éire — 東京 🌊 done"}`},
		{name: "leading blanks left out", reply: `{"answer":"  ` + "\ufeff" + ` \n Scrooge."}`},
		{name: "other fields first", reply: `{"note":"the \"answer\": no","n":[1,{"answer":"deeper"}],"answer":"yes"}`},
		{name: "in a code fence", reply: "Here it is:\n```json\n{\"answer\": \"fenced\"}\n```", object: `{"answer": "fenced"}`},
	}
	for _, tc := range cases {
		object := tc.object
		if object == "" {
			object = tc.reply
		}
		want := answerField(t, object)
		for _, size := range []int{1, 2, 3, 5, 7, len(tc.reply)} {
			assert.Equal(t, want, decodeAll(tc.reply, size), "%s in pieces of %d bytes", tc.name, size)
		}
	}
}

// A reply with no answer string streams nothing; the engine's validation
// reports what is wrong with it.
func TestAnswerDecoderReturnsNothingWithoutAnAnswer(t *testing.T) {
	for _, reply := range []string{
		`plain prose, no JSON`,
		`{"answer": 42}`,
		`{"summary": "an answer elsewhere"}`,
		`["answer", "in an array"]`,
		``,
	} {
		assert.Empty(t, decodeAll(reply, 1), reply)
		assert.Empty(t, decodeAll(reply, len(reply)+1), reply)
	}
}

// streamingModel answers as fakeModel does and streams each reply in
// pieces of three bytes, recording the stages it streamed.
type streamingModel struct {
	fakeModel
	mu       sync.Mutex
	streamed []gs.Stage
}

func (m *streamingModel) CompleteStream(ctx context.Context, req gs.ModelRequest, onText func(string)) (gs.ModelResponse, error) {
	m.mu.Lock()
	m.streamed = append(m.streamed, req.Stage)
	m.mu.Unlock()
	resp, err := m.Complete(ctx, req)
	for i := 0; i < len(resp.Text); i += 3 {
		onText(resp.Text[i:min(i+3, len(resp.Text))])
	}
	return resp, err
}

// sink records what it receives.
type sink struct {
	mu     sync.Mutex
	pieces map[int][]string // by attempt
	query  string
}

func (s *sink) AnswerText(queryID string, attempt int, text string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.pieces == nil {
		s.pieces = map[int][]string{}
	}
	s.query = queryID
	s.pieces[attempt] = append(s.pieces[attempt], text)
}

func (s *sink) text(attempt int) string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return strings.Join(s.pieces[attempt], "")
}

// The final reduce call streams its answer to the context's sink, each
// attempt by its number; map calls never stream, and the result holds the
// answer as the engine validated it.
func TestSearchStreamsTheFinalAnswer(t *testing.T) {
	const answer = "Fisheries grew [Data: Reports (c0, c1)]; prices fell é."
	m := &streamingModel{fakeModel: fakeModel{complete: func(req gs.ModelRequest, call int) (gs.ModelResponse, error) {
		if req.Stage == gs.StageReduce && call == 1 {
			return text(`{"answer": "a first try that fails`)
		}
		if req.Stage == gs.StageReduce {
			return text(`{"answer": "  ` + answer + `  "}`)
		}
		return text(`{"answer":"Partial answer","usefulness":50}`)
	}}}
	e, runs := newEngine(t, leafNamespace(3), m)
	got := &sink{}
	res, err := e.Search(gs.WithAnswerSink(context.Background(), got), oneBatchPerSummary(t, "What about fisheries?", nil))
	require.NoError(t, err)

	assert.Equal(t, gs.StatusCompleted, res.Status)
	assert.Equal(t, answer, res.Answer)
	assert.Equal(t, []gs.Stage{gs.StageReduce, gs.StageReduce}, m.streamed, "only the reduce attempts streamed")
	assert.Equal(t, "a first try that fails", got.text(1), "the failed attempt streamed as far as it went")
	assert.Equal(t, answer+"  ", got.text(2), "the second attempt streamed the whole answer")
	assert.Greater(t, len(got.pieces[2]), 1, "in pieces")
	assert.Equal(t, res.QueryID, got.query)
	stored, err := runs.Result(context.Background(), res.QueryID)
	require.NoError(t, err)
	assert.Equal(t, answer, stored.Answer, "the stored answer is the validated whole")
}

// With no sink, or a reduce model that cannot stream, reduce calls
// Complete as before.
func TestSearchWithoutASinkDoesNotStream(t *testing.T) {
	tests := []struct {
		name  string
		ctx   context.Context
		model gs.Model
	}{
		{"no sink", context.Background(), &streamingModel{fakeModel: fakeModel{complete: answerEverything}}},
		{"a model that cannot stream", gs.WithAnswerSink(context.Background(), &sink{}), &fakeModel{complete: answerEverything}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			e, _ := newEngine(t, leafNamespace(2), tc.model)
			res, err := e.Search(tc.ctx, oneBatchPerSummary(t, "What about fisheries?", nil))
			require.NoError(t, err)
			assert.Equal(t, "Synthesised answer", res.Answer)
			if m, ok := tc.model.(*streamingModel); ok {
				assert.Empty(t, m.streamed)
			}
		})
	}
}

// lateModel streams one piece, then another after its call was
// abandoned.
type lateModel struct{ late chan struct{} }

func (m lateModel) Complete(context.Context, gs.ModelRequest) (gs.ModelResponse, error) {
	return gs.ModelResponse{}, errors.New("not called")
}

func (m lateModel) CompleteStream(ctx context.Context, _ gs.ModelRequest, onText func(string)) (gs.ModelResponse, error) {
	onText("early")
	<-ctx.Done()
	time.Sleep(10 * time.Millisecond)
	onText("late")
	close(m.late)
	return gs.ModelResponse{}, ctx.Err()
}

// TimeoutModel streams through, bounds a streamed call by its timeout and
// drops the pieces of a call it abandoned; over a model that cannot
// stream it answers whole.
func TestTimeoutModelStreams(t *testing.T) {
	late := make(chan struct{})
	var pieces []string
	m := gs.TimeoutModel{Model: lateModel{late: late}, Name: "late", Timeout: 20 * time.Millisecond}
	_, err := m.CompleteStream(context.Background(), gs.ModelRequest{}, func(s string) { pieces = append(pieces, s) })
	require.Error(t, err)
	assert.Contains(t, err.Error(), "did not answer within")
	<-late
	assert.Equal(t, []string{"early"}, pieces, "the late piece was dropped")

	whole := gs.TimeoutModel{Model: &fakeModel{complete: answerEverything}, Name: "whole"}
	pieces = nil
	resp, err := whole.CompleteStream(context.Background(), gs.ModelRequest{Stage: gs.StageReduce}, func(s string) { pieces = append(pieces, s) })
	require.NoError(t, err)
	assert.Equal(t, `{"answer":"Synthesised answer"}`, resp.Text)
	assert.Empty(t, pieces)
}

// An escape JSON does not have reads as the replacement character, as
// does a \u escape with a digit that is not hex: the text streams on.
func TestAnswerDecoderReplacesBadEscapes(t *testing.T) {
	for reply, want := range map[string]string{
		`{"answer":"a\qb"}`:     "a\uFFFDb",
		`{"answer":"a\u00zzb"}`: "a\uFFFDb",
		`{"answer":"\udc00x"}`:  "\uFFFDx",
	} {
		for _, size := range []int{1, len(reply)} {
			assert.Equal(t, want, decodeAll(reply, size), "%s in pieces of %d", reply, size)
		}
	}
}

// BenchmarkAnswerDecoder decodes a reduce reply of about 8 KB that
// arrives in pieces of 16 bytes, as a model server streams one.
func BenchmarkAnswerDecoder(b *testing.B) {
	answer := strings.Repeat(`Port Calder doubled its throughput \"after\" the expansion [Data: Reports (12, 7)]. `, 96)
	reply := `{"answer": "` + answer + `"}`
	b.SetBytes(int64(len(reply)))
	b.ReportAllocs()
	for b.Loop() {
		var d gs.AnswerDecoder
		n := 0
		for i := 0; i < len(reply); i += 16 {
			n += len(d.Write(reply[i:min(i+16, len(reply))]))
		}
		if n == 0 {
			b.Fatal("nothing decoded")
		}
	}
}
