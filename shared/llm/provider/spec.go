// Package provider turns a model spec (offline, bedrock:<id>,
// openai:<model>@<base-url>, azure:<deployment>@<endpoint>; docs/models.md)
// into an open globalsearch.Model: it parses the spec, says which
// provider it names, resolves each stage's model
// (docs/contract.md#stage-models) and opens the adapter with its options.
// It sits at the edge, beside the mains: it wires the llm adapters and the
// AWS configuration together and reads no flag or variable itself, except
// through the lookup it is handed.
package provider

import (
	"net/url"
	"strings"

	"github.com/graphrag-global/graphrag-global/shared/globalsearch"
)

// The providers a spec names.
const (
	Offline = "offline"
	Bedrock = "bedrock"
	OpenAI  = "openai"
	Azure   = "azure"
)

// Usage is the forms a spec takes, for help and messages.
const Usage = "offline | bedrock:<model-or-inference-profile-id> | openai:<model>@<base-url> | azure:<deployment>@<endpoint>"

// Spec is a parsed model spec.
type Spec struct {
	Provider string
	Model    string // bedrock model or profile id; openai model name; azure deployment
	BaseURL  string // openai base URL; azure endpoint
}

// invalid is the error of a spec or option that cannot run: invalid
// input, which the CLI reports as a usage error.
func invalid(format string, args ...any) error {
	return globalsearch.Errorf(globalsearch.KindInvalidInput, format, args...)
}

// Parse parses a spec; a bad one is invalid input that says what was
// expected. Messages name --model, the one place a spec is written.
func Parse(s string) (Spec, error) {
	s = strings.TrimSpace(s)
	if s == Offline {
		return Spec{Provider: Offline}, nil
	}
	provider, rest, found := strings.Cut(s, ":")
	if !found {
		return Spec{}, invalid("unknown --model %q; want %s", s, Usage)
	}
	switch provider {
	case Bedrock:
		if rest == "" || strings.ContainsAny(rest, " \t\n") {
			return Spec{}, invalid("--model %q: want bedrock:<model-or-inference-profile-id>, e.g. bedrock:anthropic.claude-3-5-haiku-20241022-v1:0", s)
		}
		return Spec{Provider: Bedrock, Model: rest}, nil
	case OpenAI:
		// The model is before the first '@': model names carry ':' and '/'
		// (llama3.1:8b, meta-llama/Llama-3.1-8B-Instruct) but not '@'.
		model, base, found := strings.Cut(rest, "@")
		example := "e.g. openai:llama3.1@http://localhost:11434/v1"
		if !found || model == "" || base == "" {
			return Spec{}, invalid("--model %q: want openai:<model>@<base-url>, %s", s, example)
		}
		u, err := url.Parse(base)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			return Spec{}, invalid("--model %q: base URL %q must be an http(s) URL, %s", s, base, example)
		}
		return Spec{Provider: OpenAI, Model: model, BaseURL: strings.TrimRight(base, "/")}, nil
	case Azure:
		return parseAzure(s, rest)
	}
	return Spec{}, invalid("unknown model provider %q in --model %q; want %s", provider, s, Usage)
}

// parseAzure parses the rest of azure:<deployment>@<endpoint>.
func parseAzure(s, rest string) (Spec, error) {
	example := "e.g. azure:gpt-4o@https://my-resource.openai.azure.com"
	deployment, endpoint, found := strings.Cut(rest, "@")
	if !found || deployment == "" || endpoint == "" || strings.ContainsAny(deployment, "/?# \t") {
		return Spec{}, invalid("--model %q: want azure:<deployment>@<endpoint>, %s", s, example)
	}
	u, err := url.Parse(endpoint)
	if err != nil || u.Scheme != "https" && u.Scheme != "http" || u.Host == "" {
		return Spec{}, invalid("--model %q: endpoint %q must be an https URL, %s", s, endpoint, example)
	}
	return Spec{Provider: Azure, Model: deployment, BaseURL: strings.TrimRight(endpoint, "/")}, nil
}
