package provider

import (
	"context"
	"strings"
	"time"

	"github.com/graphrag-global/graphrag-global/shared/awsconfig"
	"github.com/graphrag-global/graphrag-global/shared/globalsearch"
	"github.com/graphrag-global/graphrag-global/shared/llm/bedrock"
	"github.com/graphrag-global/graphrag-global/shared/llm/offline"
	"github.com/graphrag-global/graphrag-global/shared/llm/openai"
)

// The environment variables Open reads through Options.LookupEnv; Azure's
// are named as Microsoft's own tools name them.
const (
	EnvOpenAIAPIKey    = "OPENAI_API_KEY"
	EnvAzureAPIKey     = "AZURE_OPENAI_API_KEY"
	EnvAzureADToken    = "AZURE_OPENAI_AD_TOKEN"
	EnvAzureAPIVersion = "AZURE_OPENAI_API_VERSION"
	EnvTimeout         = "GRAPHRAG_MODEL_TIMEOUT"
	// EnvPromptCache is a Bedrock model's prompt cache: off, 5m (the
	// default) or 1h (docs/contract.md#prompt-cache). It is also the
	// default of the request field promptCache, which a run's calls carry
	// over this construction setting.
	EnvPromptCache = "GRAPHRAG_PROMPT_CACHE"
)

// DefaultTimeout bounds one model call (one attempt). It is generous: a
// local model on a CPU can take minutes over an 8,000-token prompt, and a
// false timeout wastes the whole call; a hung server still fails in
// bounded time.
const DefaultTimeout = 5 * time.Minute

// ParseTimeout parses a call timeout, a positive duration.
func ParseTimeout(s string) (time.Duration, error) {
	d, err := time.ParseDuration(strings.TrimSpace(s))
	if err != nil || d <= 0 {
		return 0, invalid("model timeout must be a positive duration such as 90s or 5m, got %q", s)
	}
	return d, nil
}

// TimeoutFromEnv is the call timeout GRAPHRAG_MODEL_TIMEOUT gives, else
// DefaultTimeout.
func TimeoutFromEnv(lookupEnv func(string) (string, bool)) (time.Duration, error) {
	v, ok := lookupEnv(EnvTimeout)
	if !ok || strings.TrimSpace(v) == "" {
		return DefaultTimeout, nil
	}
	d, err := ParseTimeout(v)
	if err != nil {
		return 0, invalid("%s: %w", EnvTimeout, err)
	}
	return d, nil
}

// Options are what Open needs to open a model.
type Options struct {
	Spec string // the model spec, as --model gives it
	Kind Kind
	// Timeout bounds each call; 0 is DefaultTimeout.
	Timeout time.Duration
	// LookupEnv reads the credentials and the Azure api-version
	// (EnvOpenAIAPIKey, EnvAzure...); nil reads none.
	LookupEnv func(string) (string, bool)
}

// Open opens the model o.Spec names, each call bounded by o.Timeout and
// the model named by its spec in a timeout's message.
func Open(ctx context.Context, o Options) (globalsearch.Model, error) {
	spec, err := Parse(o.Spec)
	if err != nil {
		return nil, err
	}
	m, err := New(ctx, spec, o)
	if err != nil {
		return nil, err
	}
	timeout := o.Timeout
	if timeout == 0 {
		timeout = DefaultTimeout
	}
	return globalsearch.TimeoutModel{Model: m, Name: strings.TrimSpace(o.Spec), Timeout: timeout}, nil
}

// New is the adapter spec names, with o's kind and credentials and no
// timeout of its own (o.Spec and o.Timeout are not read): a caller that
// needs the adapter's own methods (bedrock's CountTokens) uses it.
func New(ctx context.Context, spec Spec, o Options) (globalsearch.Model, error) {
	switch spec.Provider {
	case Bedrock:
		// Region, credentials, profile and endpoint (AWS_ENDPOINT_URL_BEDROCK_RUNTIME)
		// come from the standard AWS environment and config files.
		const what = "--model bedrock:..."
		cfg, err := awsconfig.Load(ctx, what)
		if err != nil {
			return nil, err
		}
		if err := awsconfig.CheckCredentials(ctx, cfg, what); err != nil {
			return nil, err
		}
		opts := o.Kind.bedrockOptions()
		if o.LookupEnv != nil {
			if setting, _ := o.LookupEnv(EnvPromptCache); setting != "" {
				opts = append(opts, bedrock.WithPromptCache(setting))
			}
		}
		return bedrock.New(cfg, spec.Model, opts...)
	case OpenAI:
		opts := o.Kind.openaiOptions()
		// Sent only when set: local servers need no key.
		if o.LookupEnv != nil {
			if key, _ := o.LookupEnv(EnvOpenAIAPIKey); key != "" {
				opts = append(opts, openai.WithAPIKey(key))
			}
		}
		return openai.New(spec.BaseURL, spec.Model, opts...)
	case Azure:
		return o.openAzure(spec)
	}
	return offline.New(), nil
}

// env is the variable name's trimmed value, "" when unset.
func (o Options) env(name string) string {
	if o.LookupEnv == nil {
		return ""
	}
	v, _ := o.LookupEnv(name)
	return strings.TrimSpace(v)
}

// openAzure builds an Azure OpenAI model: its credential is exactly one of
// AZURE_OPENAI_API_KEY (sent as api-key) and AZURE_OPENAI_AD_TOKEN (an
// Entra ID token, sent as Bearer).
func (o Options) openAzure(spec Spec) (globalsearch.Model, error) {
	key, token := o.env(EnvAzureAPIKey), o.env(EnvAzureADToken)
	opts := o.Kind.openaiOptions()
	switch {
	case key != "" && token != "":
		return nil, invalid("--model azure:...: set one of %s and %s, not both", EnvAzureAPIKey, EnvAzureADToken)
	case key != "":
		opts = append(opts, openai.WithAzureAPIKey(key))
	case token != "":
		opts = append(opts, openai.WithAPIKey(token))
	default:
		return nil, invalid("--model azure:... needs a credential: set %s (the resource's key) or %s (an Entra ID token)", EnvAzureAPIKey, EnvAzureADToken)
	}
	version := strings.TrimSpace(o.Kind.AzureAPIVersion)
	if version == "" {
		version = o.env(EnvAzureAPIVersion)
	}
	return openai.NewAzure(spec.BaseURL, spec.Model, version, opts...)
}
