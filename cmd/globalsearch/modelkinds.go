package main

import (
	"flag"
	"fmt"
	"net/url"
	"strconv"
	"strings"

	"github.com/graphrag-global/graphrag-global/shared/globalsearch"
	"github.com/graphrag-global/graphrag-global/shared/llm/bedrock"
	"github.com/graphrag-global/graphrag-global/shared/llm/openai"
)

// Environment variables of Azure OpenAI, as Microsoft's own tools name them.
const (
	envAzureAPIKey     = "AZURE_OPENAI_API_KEY"
	envAzureADToken    = "AZURE_OPENAI_AD_TOKEN"
	envAzureAPIVersion = "AZURE_OPENAI_API_VERSION"
)

// modelKindOptions are the flags that say how to talk to a model beyond
// which one it is: reasoning or not, structured output, Azure's api-version.
type modelKindOptions struct {
	reasoning  triState
	structured string
	apiVersion string
}

// The --structured-output values.
const (
	structuredAuto = "auto"
	structuredOn   = "on"
	structuredOff  = "off"
)

func (k *modelKindOptions) register(fs *flag.FlagSet) {
	fs.Var(&k.reasoning, "reasoning", "the openai/azure model is a reasoning model (max_completion_tokens, no temperature); default: guessed from the name (o1, o3, o4, gpt-5...)")
	fs.StringVar(&k.structured, "structured-output", structuredAuto,
		"ask the model for JSON-schema output: auto (openai/azure always, bedrock for the models known to support it), on, off")
	fs.StringVar(&k.apiVersion, "azure-api-version", "", "Azure OpenAI api-version (default $"+envAzureAPIVersion+", else "+openai.DefaultAzureAPIVersion+")")
}

// check refuses a bad --structured-output, and --reasoning or
// --azure-api-version given for a model they cannot apply to, before
// anything is read: a flag that silently does nothing misleads.
func (k *modelKindOptions) check(spec string) error {
	switch k.structured {
	case "", structuredAuto, structuredOn, structuredOff:
	default:
		return &usageError{fmt.Sprintf("--structured-output %q: want auto, on or off", k.structured)}
	}
	provider, _, _ := strings.Cut(strings.TrimSpace(spec), ":")
	if k.reasoning.set && provider != providerOpenAI && provider != providerAzure {
		return &usageError{"--reasoning applies to openai: and azure: models only"}
	}
	if strings.TrimSpace(k.apiVersion) != "" && provider != providerAzure {
		return &usageError{"--azure-api-version applies to azure: models only"}
	}
	return nil
}

func (k *modelKindOptions) openaiOptions() []openai.Option {
	var opts []openai.Option
	if k.reasoning.set {
		opts = append(opts, openai.WithReasoning(k.reasoning.on))
	}
	if k.structured == structuredOff {
		// Off is the JSON mode of servers without schemas, not no format:
		// every OpenAI-compatible server that has one reads json_object.
		opts = append(opts, openai.WithFormat(openai.FormatJSON))
	}
	return opts
}

func (k *modelKindOptions) bedrockOptions() []bedrock.Option {
	switch k.structured {
	case structuredOn:
		return []bedrock.Option{bedrock.WithStructuredOutput(bedrock.StructuredOn)}
	case structuredOff:
		return []bedrock.Option{bedrock.WithStructuredOutput(bedrock.StructuredOff)}
	}
	return nil
}

// openAzure builds an Azure OpenAI model: its credential is exactly one of
// AZURE_OPENAI_API_KEY (sent as api-key) and AZURE_OPENAI_AD_TOKEN (an
// Entra ID token, sent as Bearer).
func (k *modelKindOptions) openAzure(env *cliEnv, spec modelSpec) (globalsearch.Model, error) {
	get := func(name string) string {
		v, _ := env.lookupEnv(name)
		return strings.TrimSpace(v)
	}
	key, token := get(envAzureAPIKey), get(envAzureADToken)
	opts := k.openaiOptions()
	switch {
	case key != "" && token != "":
		return nil, &usageError{"--model azure:...: set one of " + envAzureAPIKey + " and " + envAzureADToken + ", not both"}
	case key != "":
		opts = append(opts, openai.WithAzureAPIKey(key))
	case token != "":
		opts = append(opts, openai.WithAPIKey(token))
	default:
		return nil, &usageError{"--model azure:... needs a credential: set " + envAzureAPIKey + " (the resource's key) or " + envAzureADToken + " (an Entra ID token)"}
	}
	version := strings.TrimSpace(k.apiVersion)
	if version == "" {
		version = get(envAzureAPIVersion)
	}
	return openai.NewAzure(spec.baseURL, spec.model, version, opts...)
}

// parseAzureSpec parses the rest of azure:<deployment>@<endpoint>.
func parseAzureSpec(s, rest string) (modelSpec, error) {
	example := "e.g. azure:gpt-4o@https://my-resource.openai.azure.com"
	deployment, endpoint, found := strings.Cut(rest, "@")
	if !found || deployment == "" || endpoint == "" || strings.ContainsAny(deployment, "/?# \t") {
		return modelSpec{}, &usageError{fmt.Sprintf("--model %q: want azure:<deployment>@<endpoint>, %s", s, example)}
	}
	u, err := url.Parse(endpoint)
	if err != nil || u.Scheme != "https" && u.Scheme != "http" || u.Host == "" {
		return modelSpec{}, &usageError{fmt.Sprintf("--model %q: endpoint %q must be an https URL, %s", s, endpoint, example)}
	}
	return modelSpec{provider: providerAzure, model: deployment, baseURL: strings.TrimRight(endpoint, "/")}, nil
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
