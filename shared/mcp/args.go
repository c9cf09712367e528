package mcp

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"reflect"
	"slices"
	"strings"

	"github.com/google/jsonschema-go/jsonschema"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/graphrag-global/graphrag-global/shared/globalsearch"
	"github.com/graphrag-global/graphrag-global/shared/strictjson"
)

// The tools read their own arguments (docs/contract.md#mcp-arguments). The
// SDK would check them against the schema and answer a bad one with schema
// paths ("validating /properties/level: anyOf: ..."), or decode an untyped
// one as it comes (1e2 as 100); here each argument has a JSON-schema type
// the agent lists, and each refusal is one sentence that names the
// argument the agent sent.

// levelArg is the level argument: "leaf", "auto", "graphrag:N", a level
// number, or a level number written as a string, which agents often send.
type levelArg struct {
	level globalsearch.Level
	given bool
}

// levelArgRule is what the level argument may be, in its refusal.
var levelArgRule = "level must be " + globalsearch.LevelRule

func (l *levelArg) UnmarshalJSON(raw []byte) error {
	text := string(raw)
	var s string
	switch {
	case json.Unmarshal(raw, &s) == nil:
		text = s
		if s != "leaf" && s != "auto" && !strings.HasPrefix(s, globalsearch.GraphRAGPrefix) && !isDigits(s) {
			return errors.New(levelArgRule)
		}
	case !isDigits(text): // 1e2, 2.0, -1: a number, but no level number
		return errors.New(levelArgRule)
	}
	v, err := globalsearch.ParseLevel(text)
	if err != nil {
		return errors.New(levelArgRule)
	}
	l.level, l.given = v, true
	return nil
}

func isDigits(s string) bool {
	return s != "" && !strings.ContainsFunc(s, func(r rune) bool { return r < '0' || r > '9' })
}

// levelSchema is the level argument's schema: one of the words, a level
// number, or a string that spells one.
func levelSchema(description string) *jsonschema.Schema {
	minimum := 0.0
	return &jsonschema.Schema{Description: description, AnyOf: []*jsonschema.Schema{
		{Type: "string", Enum: []any{"leaf", "auto"}},
		{Type: "integer", Minimum: &minimum},
		{Type: "string", Pattern: `^(graphrag:)?(0|[1-9][0-9]{0,9})$`, Description: `"graphrag:N" (GraphRAG's community level N), or a level number as a string`},
	}}
}

// callArgs are the arguments of the model-call settings and the seed
// policy, the request fields of the same names (docs/contract.md#request):
// each one word of its field's list, which callSchema enumerates.
type callArgs struct {
	PromptCache       string `json:"promptCache,omitempty" jsonschema:"Bedrock's prompt cache of the model calls: off, 5m or 1h (default: the server's, 5m where the model caches); other models ignore it"`
	MapServiceTier    string `json:"mapServiceTier,omitempty" jsonschema:"Bedrock's service tier of the map and rating calls, e.g. flex for a cheaper, slower map (default: the model's own)"`
	ReduceServiceTier string `json:"reduceServiceTier,omitempty" jsonschema:"Bedrock's service tier of the reduce calls (default: the model's own)"`
	SeedPolicy        string `json:"seedPolicy,omitempty" jsonschema:"\"question\": a fresh shuffle per question; \"namespace\": one seed per namespace version, so every question packs the same batches and the prompt cache hits across questions (default: the server's)"`
}

// callSchema enumerates callArgs' values in the schema.
func callSchema(props map[string]*jsonschema.Schema) {
	for name, values := range map[string][]string{
		"promptCache": globalsearch.PromptCaches, "mapServiceTier": globalsearch.ServiceTiers,
		"reduceServiceTier": globalsearch.ServiceTiers, "seedPolicy": globalsearch.SeedPolicies,
	} {
		props[name].Enum = make([]any, len(values))
		for i, v := range values {
			props[name].Enum[i] = v
		}
	}
}

// request sets the request's fields of the arguments given, passed on as
// the agent sent them for the request's rules to judge.
func (c callArgs) request(req *globalsearch.Request) {
	for _, f := range []struct {
		arg   string
		field **string
	}{{c.PromptCache, &req.PromptCache}, {c.MapServiceTier, &req.MapServiceTier}, {c.ReduceServiceTier, &req.ReduceServiceTier}, {c.SeedPolicy, &req.SeedPolicy}} {
		if f.arg != "" {
			arg := f.arg
			*f.field = &arg
		}
	}
}

// argFields lists the arguments of a tool input struct by their JSON
// names, embedded structs' included, with the value each is read into.
func argFields(v reflect.Value, out map[string]reflect.Value) {
	for i := range v.NumField() {
		f := v.Type().Field(i)
		if f.Anonymous {
			argFields(v.Field(i), out)
			continue
		}
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		if name != "" && name != "-" {
			out[name] = v.Field(i)
		}
	}
}

// readArgs reads a tool call's arguments into in, a pointer to the tool's
// input struct: an argument the tool does not take, or a value of the
// wrong JSON type, is refused naming the argument; null is an argument
// left out. What a value must be beyond its type is the request's rule
// to judge.
func readArgs(raw json.RawMessage, in any) error {
	fields := map[string]reflect.Value{}
	argFields(reflect.ValueOf(in).Elem(), fields)
	names := slices.Sorted(func(yield func(string) bool) {
		for n := range fields {
			if !yield(n) {
				return
			}
		}
	})
	var args map[string]json.RawMessage
	if len(bytes.TrimSpace(raw)) > 0 && json.Unmarshal(raw, &args) != nil {
		return globalsearch.Errorf(globalsearch.KindInvalidInput, "arguments must be a JSON object, not %s", strictjson.Kind(raw))
	}
	for _, name := range slices.Sorted(func(yield func(string) bool) {
		for n := range args {
			if !yield(n) {
				return
			}
		}
	}) {
		field, ok := fields[name]
		if !ok {
			return globalsearch.Errorf(globalsearch.KindInvalidInput, "unknown argument %s: the arguments are %s", globalsearch.EchoQuoted(name), strings.Join(names, ", "))
		}
		if string(bytes.TrimSpace(args[name])) == "null" {
			continue
		}
		if err := json.Unmarshal(args[name], field.Addr().Interface()); err != nil {
			return globalsearch.Errorf(globalsearch.KindInvalidInput, "%s", argError(name, field.Type(), err))
		}
	}
	return nil
}

// argError is the refusal of a value of the wrong type: the level's own
// rule, else what the argument's type is.
func argError(name string, t reflect.Type, err error) string {
	if t == reflect.TypeFor[levelArg]() {
		return levelArgRule
	}
	if t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	switch t.Kind() {
	case reflect.String:
		return name + " must be a string"
	case reflect.Int, reflect.Int64:
		return name + " must be an integer"
	}
	return fmt.Sprintf("%s: %v", name, err)
}

// addTool adds a tool that reads its own arguments (readArgs): its input
// schema is In's, with adjust's changes, and its output In's reply, as
// sdk.AddTool would give them. A handler's error, and a bad argument, is
// the call's tool error; a panic is one too (guardTool).
func addTool[In, Out any](srv *sdk.Server, tool *sdk.Tool, log io.Writer, adjust func(map[string]*jsonschema.Schema), h sdk.ToolHandlerFor[In, Out]) {
	input, err := jsonschema.For[In](nil)
	if err != nil {
		panic(err) // the input structs are this package's: a bug
	}
	adjust(input.Properties)
	input.AdditionalProperties = &jsonschema.Schema{Not: &jsonschema.Schema{}} // false: readArgs refuses another
	output, err := jsonschema.For[Out](nil)
	if err != nil {
		panic(err)
	}
	tool.InputSchema, tool.OutputSchema = input, output
	guarded := guardTool(log, h)
	srv.AddTool(tool, func(ctx context.Context, req *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
		var in In
		if err := readArgs(req.Params.Arguments, &in); err != nil {
			return toolError(err), nil
		}
		res, out, err := guarded(ctx, req, in)
		if err != nil {
			return toolError(err), nil
		}
		data, err := json.Marshal(out)
		if err != nil {
			return nil, fmt.Errorf("marshal the reply: %w", err)
		}
		if res == nil {
			res = &sdk.CallToolResult{}
		}
		res.StructuredContent = json.RawMessage(data)
		if res.Content == nil {
			res.Content = []sdk.Content{&sdk.TextContent{Text: string(data)}}
		}
		return res, nil
	})
}

func toolError(err error) *sdk.CallToolResult {
	var res sdk.CallToolResult
	res.SetError(err)
	return &res
}
