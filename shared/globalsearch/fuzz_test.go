package globalsearch_test

import (
	"encoding/json"
	"strings"
	"testing"
	"unicode/utf8"

	gs "github.com/graphrag-global/graphrag-global/shared/globalsearch"
)

// FuzzParseRequest: whatever the bytes, ParseRequest returns Params or an
// invalid-input error, never a panic; accepted Params meet docs/contract.md#request's rules
// and read back, encoded as JSON, to the very same Params.
func FuzzParseRequest(f *testing.F) {
	for _, s := range []string{
		`{"query":"q"}`,
		`{"query":" what changed? ","namespace":"acme","communityLevel":2,"mapTokenBudget":9000.0,"reduceTokenBudget":1e4,"mapOutputReserve":0,"reduceOutputReserve":0,"mapConcurrency":3,"shuffleSeed":7,"shuffle":false,"queryId":"q-1"}`,
		`{"query":"q","communityLevel":"leaf"}`,
		`{"query":"q"}}`,
		`{"query":"q","query":"r"}`,
		`{"query":"q","reduceTokenBudget":1100}`,
		`[]`, `null`, `{"query":"\u0000"}`,
	} {
		f.Add([]byte(s))
	}
	prompts := gs.DefaultPrompts()
	f.Fuzz(func(t *testing.T, data []byte) {
		p, err := gs.ParseRequest(data, gs.SpecDefaults)
		if err != nil {
			if gs.KindOf(err) != gs.KindInvalidInput {
				t.Fatalf("error of kind %v, not invalid input: %v", gs.KindOf(err), err)
			}
			return
		}
		if p.Query == "" || p.Query != strings.TrimSpace(p.Query) || utf8.RuneCountInString(p.Query) > gs.MaxQueryRunes {
			t.Fatalf("accepted query %q", p.Query)
		}
		if !gs.ValidNamespace(p.Namespace) || p.CommunityLevel < gs.LeafLevel || p.MapConcurrency <= 0 ||
			p.MapOutputReserve < 0 || p.ReduceOutputReserve < 0 || p.ShuffleSeed < 0 || p.QueryID == "" {
			t.Fatalf("accepted %+v", p)
		}
		if p.MapTokenBudget < prompts.Map.SmallestTokenBudget(p.Query, p.MapOutputReserve) ||
			p.ReduceTokenBudget < prompts.Reduce.SmallestTokenBudget(p.Query, p.ReduceOutputReserve) {
			t.Fatalf("accepted budgets that cannot fit their prompts: %+v", p)
		}
		again, err := json.Marshal(p)
		if err != nil {
			t.Fatalf("encode %+v: %v", p, err)
		}
		back, err := gs.ParseRequest(again, gs.SpecDefaults)
		if err != nil {
			t.Fatalf("accepted %q, but not its own encoding %s: %v", data, again, err)
		}
		// The encoding fixes the seed, so the copy read back chose none.
		p.SeedGenerated = false
		if back != p {
			t.Fatalf("round trip changed the request:\n%+v\n%+v", p, back)
		}
	})
}

// FuzzExtractJSON: a value ExtractJSON finds is never null, and encoded
// again it is found as itself; a text that is one JSON value and nothing
// else (no fence) is read whole.
func FuzzExtractJSON(f *testing.F) {
	for _, s := range []string{
		`{"answer":"a","usefulness":50}`, "```json\n{\"a\":1}\n```", "Sure! {\"a\":[1,2]} hope it helps",
		"```\n[1]\n```", `{"a":1} {"b":2}`, `null`, `[null]`, "```json{\"a\":1}```", `{"a":"}"}`, `"just a string"`, `1e400`,
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, text string) {
		v, err := gs.ExtractJSON(text)
		if err != nil {
			if gs.KindOf(err) != gs.KindModelOutput {
				t.Fatalf("error of kind %v: %v", gs.KindOf(err), err)
			}
			var whole any
			if !strings.Contains(text, "```") && json.Unmarshal([]byte(text), &whole) == nil && whole != nil {
				t.Fatalf("%q is one JSON value, yet: %v", text, err)
			}
			return
		}
		if v == nil {
			t.Fatalf("accepted null from %q", text)
		}
		again, err := json.Marshal(v)
		if err != nil {
			t.Fatalf("encode %#v: %v", v, err)
		}
		back, err := gs.ExtractJSON(string(again))
		if err != nil {
			t.Fatalf("%s, the encoding of what %q held, is not found again: %v", again, text, err)
		}
		if again2, _ := json.Marshal(back); string(again2) != string(again) {
			t.Fatalf("round trip changed the value: %s then %s", again, again2)
		}
	})
}
