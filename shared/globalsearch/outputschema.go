package globalsearch

import (
	"encoding/json"
	"maps"
	"slices"
)

// OutputSchema is the JSON schema of one stage's answer, as data: the model
// adapters hand it to servers that constrain their output to a schema
// (docs/contract.md#structured-output), each in its own wire format. It
// states only the shape the output rules already check (docs/contract.md#model-output):
// value rules (usefulness 0 to 100, a non-blank answer) stay with the parser,
// since not every server enforces numeric bounds, and the parser still reads
// the output of servers that ignore the schema.
type OutputSchema struct {
	// Name names the schema to the server: letters, digits, '_' and '-'.
	Name        string
	Description string
	// Schema is a JSON Schema object; a fresh copy on every call.
	Schema map[string]any
}

// StageOutputSchema is the schema of stage's answer: map {answer, usefulness},
// reduce {answer}, rate {ratings: [{id, score}]}. Both are closed objects (no other keys) with every key
// required, the form strict servers demand.
func StageOutputSchema(stage Stage) OutputSchema {
	answer := map[string]any{"type": "string"}
	if stage == StageRate {
		return ratingSchema()
	}
	if stage == StageReduce {
		return OutputSchema{
			Name:        "reduce_answer",
			Description: "The synthesised answer to the question, with its citations.",
			Schema:      closedObject(map[string]any{"answer": answer}),
		}
	}
	return OutputSchema{
		Name:        "map_answer",
		Description: "The answer from this batch of community data and how useful the batch is to the question.",
		Schema: closedObject(map[string]any{
			"answer": answer,
			"usefulness": map[string]any{
				"type":        "number",
				"description": "0 to 100: how much this batch helps answer the question; 0 when nothing is relevant.",
			},
		}),
	}
}

// closedObject is the schema of an object with exactly properties, every
// one required (in name order): the form strict servers demand.
func closedObject(properties map[string]any) map[string]any {
	required := make([]any, 0, len(properties))
	for _, name := range slices.Sorted(maps.Keys(properties)) {
		required = append(required, name)
	}
	return map[string]any{"type": "object", "properties": properties, "required": required, "additionalProperties": false}
}

// JSON is the schema as compact JSON text, the form Bedrock's Converse
// takes it in.
func (s OutputSchema) JSON() string {
	b, err := json.Marshal(s.Schema)
	if err != nil {
		// Schema is built above from strings, slices and maps only.
		panic("globalsearch: output schema does not encode: " + err.Error())
	}
	return string(b)
}
