package provider

import (
	"strings"

	"github.com/graphrag-global/graphrag-global/shared/llm/bedrock"
	"github.com/graphrag-global/graphrag-global/shared/llm/openai"
)

// The Kind.Structured values.
const (
	StructuredAuto = "auto"
	StructuredOn   = "on"
	StructuredOff  = "off"
)

// Kind says how to talk to a model beyond which one it is.
type Kind struct {
	// Reasoning says whether an openai/azure model is a reasoning model;
	// nil guesses from its name.
	Reasoning *bool
	// Structured asks for JSON-schema output: StructuredAuto ("" too),
	// StructuredOn or StructuredOff.
	Structured string
	// AzureAPIVersion is Azure's api-version; "" reads
	// AZURE_OPENAI_API_VERSION, else openai.DefaultAzureAPIVersion.
	AzureAPIVersion string
}

// Check refuses a bad Structured, and Reasoning or AzureAPIVersion given
// for a model spec they cannot apply to, before anything is read: an
// option that silently does nothing misleads.
func (k Kind) Check(spec string) error {
	switch k.Structured {
	case "", StructuredAuto, StructuredOn, StructuredOff:
	default:
		return invalid("--structured-output %q: want auto, on or off", k.Structured)
	}
	provider, _, _ := strings.Cut(strings.TrimSpace(spec), ":")
	if k.Reasoning != nil && provider != OpenAI && provider != Azure {
		return invalid("--reasoning applies to openai: and azure: models only")
	}
	if strings.TrimSpace(k.AzureAPIVersion) != "" && provider != Azure {
		return invalid("--azure-api-version applies to azure: models only")
	}
	return nil
}

func (k Kind) openaiOptions() []openai.Option {
	var opts []openai.Option
	if k.Reasoning != nil {
		opts = append(opts, openai.WithReasoning(*k.Reasoning))
	}
	if k.Structured == StructuredOff {
		// Off is the JSON mode of servers without schemas, not no format:
		// every OpenAI-compatible server that has one reads json_object.
		opts = append(opts, openai.WithFormat(openai.FormatJSON))
	}
	return opts
}

// bedrockOptions are the Bedrock adapter's options for k.
func (k Kind) bedrockOptions() []bedrock.Option {
	switch k.Structured {
	case StructuredOn:
		return []bedrock.Option{bedrock.WithStructuredOutput(bedrock.StructuredOn)}
	case StructuredOff:
		return []bedrock.Option{bedrock.WithStructuredOutput(bedrock.StructuredOff)}
	}
	return nil
}
