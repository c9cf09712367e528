package main

import (
	"flag"
	"fmt"
	"strconv"

	"github.com/graphrag-global/graphrag-global/shared/llm/openai"
	"github.com/graphrag-global/graphrag-global/shared/llm/provider"
)

// modelKindOptions are the flags that say how to talk to a model beyond
// which one it is (provider.Kind): reasoning or not, structured output,
// Azure's api-version.
type modelKindOptions struct {
	reasoning  triState
	structured string
	apiVersion string
}

func (k *modelKindOptions) register(fs *flag.FlagSet) {
	fs.Var(&k.reasoning, "reasoning", "the openai/azure model is a reasoning model (max_completion_tokens, no temperature); default: guessed from the name (o1, o3, o4, gpt-5...)")
	fs.StringVar(&k.structured, "structured-output", provider.StructuredAuto,
		"ask the model for JSON-schema output: auto (openai/azure always, bedrock for the models known to support it), on, off")
	fs.StringVar(&k.apiVersion, "azure-api-version", "", "Azure OpenAI api-version (default $"+provider.EnvAzureAPIVersion+", else "+openai.DefaultAzureAPIVersion+")")
}

// kind is the flags as provider.Kind.
func (k *modelKindOptions) kind() provider.Kind {
	out := provider.Kind{Structured: k.structured, AzureAPIVersion: k.apiVersion}
	if k.reasoning.set {
		on := k.reasoning.on
		out.Reasoning = &on
	}
	return out
}

// triState is a boolean flag that may be left unset: --reasoning,
// --reasoning=false, or neither (guess).
type triState struct{ set, on bool }

func (t *triState) String() string {
	if t == nil || !t.set {
		return ""
	}
	return strconv.FormatBool(t.on)
}

func (t *triState) Set(s string) error {
	v, err := strconv.ParseBool(s)
	if err != nil {
		return fmt.Errorf("want true or false, got %q", s)
	}
	t.set, t.on = true, v
	return nil
}

// IsBoolFlag lets --reasoning stand alone.
func (t *triState) IsBoolFlag() bool { return true }
