package main

import (
	"flag"

	"github.com/graphrag-global/graphrag-global/shared/cmdutil"
	"github.com/graphrag-global/graphrag-global/shared/llm/openai"
	"github.com/graphrag-global/graphrag-global/shared/llm/provider"
)

// modelKindOptions are the flags that say how to talk to a model beyond
// which one it is (provider.Kind): reasoning or not, structured output,
// Azure's api-version.
type modelKindOptions struct {
	reasoning  cmdutil.TriState
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
	if k.reasoning.Given {
		on := k.reasoning.On
		out.Reasoning = &on
	}
	return out
}
