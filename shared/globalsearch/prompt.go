package globalsearch

import (
	_ "embed"
	"fmt"
	"regexp"
	"strings"
	"sync"

	"github.com/graphrag-global/graphrag-global/shared/batch"
)

//go:embed prompts/map.txt
var mapPromptText string

//go:embed prompts/reduce.txt
var reducePromptText string

//go:embed prompts/reduce_round.txt
var reduceRoundPromptText string

//go:embed prompts/system.txt
var systemPromptText string

// SystemPrompt is the fixed system instruction a chat model gets before
// every rendered prompt. The rendered prompt already states the JSON
// contract (docs/contract.md#prompts); repeating it as a system instruction keeps chatty
// models (local ones in particular) from wrapping the JSON in prose.
var SystemPrompt = strings.TrimRight(systemPromptText, "\n")

const (
	queryPlaceholder        = "{{query}}"
	contentPlaceholder      = "{{content}}"
	responseTypePlaceholder = "{{response_type}}"
)

// Template is a prompt with a query placeholder and a content placeholder
// on a line of its own. When text follows the content (docs/contract.md#data-safe-prompts: the
// closing delimiter and a reminder), the line before the placeholder must be
// an opening tag <name> and the line after it the closing tag </name>.
//
// The skeleton is the prompt with the content line left out, and the prompt
// sent is the skeleton with "\n" + content inserted where that line was.
// The token estimate (docs/contract.md#token-estimate) counts code points without regard to their order, so
// estimateTokens(prompt) = estimateTokens(skeleton + "\n" + content): the
// fit test of docs/contract.md#batching and docs/contract.md#reduce measures the very text that is sent.
type Template struct {
	head  string // text before the content line, without its final newline
	tail  string // text after the content line, from the closing tag on; may be empty
	close *regexp.Regexp
	// fixedTail is how much of tail comes before the line holding the
	// query, when the query follows the data (docs/contract.md#prompt-cache):
	// the rendered prompt up to there is the same for every question over
	// a batch. -1 when the query is before the data, so nothing is shared.
	fixedTail int
	// responseType fills {{response_type}} wherever the template has it
	// (docs/contract.md#request); "" stands for DefaultResponseType.
	responseType string
}

// WithResponseType is t with {{response_type}} filled by rt.
func (t Template) WithResponseType(rt string) Template {
	t.responseType = rt
	return t
}

// fill puts the query and the response type in, in one pass, so that
// neither is expanded inside the other.
func (t Template) fill(s, query string) string {
	rt := t.responseType
	if rt == "" {
		rt = DefaultResponseType
	}
	return strings.NewReplacer(queryPlaceholder, query, responseTypePlaceholder, rt).Replace(s)
}

var tagLine = regexp.MustCompile(`^<([a-z_]+)>$`)

// ParseTemplate checks that text has one content placeholder on a line of
// its own, framed by tags when text follows it, and a query placeholder
// before the content or after the closing tag (docs/contract.md#prompt-cache).
func ParseTemplate(text string) (Template, error) {
	body := strings.TrimRight(text, "\n")
	head, tail, ok := strings.Cut(body, "\n"+contentPlaceholder)
	if !ok || (tail != "" && !strings.HasPrefix(tail, "\n")) {
		return Template{}, fmt.Errorf("prompt template must hold %s on its own line", contentPlaceholder)
	}
	tail = strings.TrimPrefix(tail, "\n")
	if !strings.Contains(head+tail, queryPlaceholder) || strings.Contains(head, contentPlaceholder) ||
		strings.Contains(tail, contentPlaceholder) {
		return Template{}, fmt.Errorf("prompt template must hold %s and one %s", queryPlaceholder, contentPlaceholder)
	}
	t := Template{head: head, tail: tail, fixedTail: -1}
	if tail == "" {
		return t, nil
	}
	open := tagLine.FindStringSubmatch(head[strings.LastIndexByte(head, '\n')+1:])
	closing, _, _ := strings.Cut(tail, "\n")
	if open == nil || closing != "</"+open[1]+">" {
		return Template{}, fmt.Errorf("prompt template must frame %s between a line <name> and a line </name>", contentPlaceholder)
	}
	t.close = regexp.MustCompile(`(?i)<\s*/\s*` + open[1] + `\s*>`)
	if !strings.Contains(head, queryPlaceholder) {
		at := strings.Index(tail, queryPlaceholder)
		t.fixedTail = strings.LastIndexByte(tail[:at], '\n') + 1
	}
	return t, nil
}

// Skeleton is the prompt filled with the query and without content. The
// query goes in literally: nothing inside it is expanded.
func (t Template) Skeleton(query string) string {
	s := t.fill(t.head, query)
	if t.tail != "" {
		s += "\n" + t.fill(t.tail, query)
	}
	return s
}

// Render is the prompt sent to the model. Content goes in literally, except
// that anything in it that reads as the closing tag has its "/" turned into
// "_", so content cannot end the data early. That keeps every code point's
// class, so the estimate is unchanged.
func (t Template) Render(query, content string) string {
	prompt, _ := t.render(query, content)
	return prompt
}

// render is Render and the length of the prompt's prefix that no question
// changes (ModelRequest.CachePrefix): 0 when the query comes first.
func (t Template) render(query, content string) (string, int) {
	head := t.fill(t.head, query)
	if t.tail == "" {
		return head + "\n" + content, 0
	}
	content = t.close.ReplaceAllStringFunc(content, func(tag string) string { return strings.Replace(tag, "/", "_", 1) })
	prefix := 0
	if t.fixedTail >= 0 {
		prefix = len(head) + 1 + len(content) + 1 + t.fixedTail
	}
	return head + "\n" + content + "\n" + t.fill(t.tail, query), prefix
}

// Cacheable reports whether the query follows the data, so that prompts
// over one batch share a prefix (docs/contract.md#prompt-cache).
func (t Template) Cacheable() bool { return t.fixedTail >= 0 }

// Prompts are the Map and Reduce prompts and the system prompt sent with
// both (docs/contract.md#prompts). A zero part stands for the project's own
// (DefaultPrompts); LoadPrompts returns every part filled.
type Prompts struct {
	Map    Template
	Reduce Template
	System string
	// Round is the intermediate prompt of a tree reduce's rounds
	// (docs/contract.md#reduce-rounds).
	Round Template
}

// DefaultPrompts are the prompts embedded from prompts/, parsed once by the
// rules a prompts directory meets (docs/contract.md#custom-prompts). A build
// may embed other files there (make build PROMPTS=DIR); the functions call
// CheckDefaultPrompts at start-up, so a bad embedded prompt stops a
// function before its first invocation instead of panicking here.
var DefaultPrompts = sync.OnceValue(func() Prompts {
	p, err := embeddedPrompts()
	if err != nil {
		panic(err) // CheckDefaultPrompts and a test cover the embedded files
	}
	return p
})

// orDefault fills the zero parts of p with the project's own prompts.
func (p Prompts) orDefault() Prompts {
	if p == (Prompts{}) {
		return DefaultPrompts()
	}
	d := DefaultPrompts()
	if p.Map == (Template{}) {
		p.Map = d.Map
	}
	if p.Reduce == (Template{}) {
		p.Reduce = d.Reduce
	}
	if p.System == "" {
		p.System = d.System
	}
	if p.Round == (Template{}) {
		p.Round = d.Round
	}
	return p
}

// MapParts splits a batch's content into its parts at the headers the
// planner wrote (batch.Header). Text before any header (content not built
// by the planner) is one part of no community.
func MapParts(content string) []MapPart {
	var parts []MapPart
	var text strings.Builder
	cur := -1
	flush := func() {
		if cur >= 0 {
			parts[cur].Text = strings.TrimSuffix(text.String(), "\n")
		}
		text.Reset()
	}
	for line := range strings.Lines(content) {
		if id, n, ok := batch.ParseHeader(line); ok {
			flush()
			parts = append(parts, MapPart{CommunityID: id, Part: n})
			cur = len(parts) - 1
			continue
		}
		if cur < 0 {
			parts = append(parts, MapPart{})
			cur = 0
		}
		text.WriteString(line)
	}
	flush()
	return parts
}

// mapRequest is the map call of a batch: the rendered prompt and its parts.
func (t Template) mapRequest(query, content string, maxTokens int) ModelRequest {
	prompt, prefix := t.render(query, content)
	return ModelRequest{Stage: StageMap, Query: query, Content: content,
		Prompt: prompt, CachePrefix: prefix, Parts: MapParts(content), MaxTokens: maxTokens}
}
