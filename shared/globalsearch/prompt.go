package globalsearch

import (
	_ "embed"
	"fmt"
	"strings"
	"sync"
)

//go:embed prompts/map.txt
var mapPromptText string

//go:embed prompts/reduce.txt
var reducePromptText string

const (
	queryPlaceholder   = "{{query}}"
	contentPlaceholder = "{{content}}"
)

// Template is a prompt with a query placeholder and, at its very end, a
// content placeholder. A rendered prompt is exactly Skeleton(query) + "\n" +
// content, so the budget's fit test (SPEC §4.3, §6) measures the very text
// that is sent.
type Template struct {
	head string // text before the content placeholder, without its final newline
}

// ParseTemplate checks that text has a query placeholder and ends with the
// content placeholder on a line of its own.
func ParseTemplate(text string) (Template, error) {
	body := strings.TrimRight(text, "\n")
	head, ok := strings.CutSuffix(body, "\n"+contentPlaceholder)
	if !ok {
		return Template{}, fmt.Errorf("prompt template must end with %s on its own line", contentPlaceholder)
	}
	if !strings.Contains(head, queryPlaceholder) || strings.Contains(head, contentPlaceholder) {
		return Template{}, fmt.Errorf("prompt template must hold %s and one final %s", queryPlaceholder, contentPlaceholder)
	}
	return Template{head: head}, nil
}

// Skeleton is the prompt filled with the query and empty content. The query
// goes in literally: nothing inside it is expanded.
func (t Template) Skeleton(query string) string {
	return strings.ReplaceAll(t.head, queryPlaceholder, query)
}

// Render is the prompt sent to the model. Content goes in literally.
func (t Template) Render(query, content string) string {
	return t.Skeleton(query) + "\n" + content
}

// Prompts are the Map and Reduce prompts (SPEC §5.1).
type Prompts struct {
	Map    Template
	Reduce Template
}

// DefaultPrompts are the project's own prompts, embedded from prompts/,
// parsed once.
var DefaultPrompts = sync.OnceValue(func() Prompts {
	return Prompts{Map: mustParse(mapPromptText), Reduce: mustParse(reducePromptText)}
})

func mustParse(text string) Template {
	t, err := ParseTemplate(text)
	if err != nil {
		panic(err) // the embedded files are part of the build; a test covers them
	}
	return t
}
