package globalsearch

// RenderWithPrefix exposes render to the external tests of the batch-first
// layout.
func RenderWithPrefix(t Template, query, content string) (string, int) {
	return t.render(query, content)
}

// RatePromptTemplate is the embedded rating prompt.
func RatePromptTemplate() Template { return ratePrompt() }
