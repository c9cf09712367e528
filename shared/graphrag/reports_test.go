package graphrag

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestWithTitle(t *testing.T) {
	tests := []struct {
		name, title, text, want string
	}{
		{name: "summary gets a heading", title: "The Cratchits", text: "Bob is poor.", want: "# The Cratchits\n\nBob is poor."},
		{name: "full content keeps its own", title: "The Cratchits", text: "# The Cratchits\n\nBob is poor.", want: "# The Cratchits\n\nBob is poor."},
		{name: "another heading is not the title", title: "The Cratchits", text: "# Findings\n\nBob is poor.", want: "# The Cratchits\n\n# Findings\n\nBob is poor."},
		{name: "title on one line", title: " The\nCratchits ", text: "Bob is poor.", want: "# The Cratchits\n\nBob is poor."},
		{name: "no title", title: " ", text: "Bob is poor.", want: "Bob is poor."},
		{name: "a title alone is no summary", title: "The Cratchits", text: " \n", want: " \n"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			assert.Equal(t, tc.want, withTitle(tc.title, tc.text))
		})
	}
}
