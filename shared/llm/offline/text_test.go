package offline

import (
	"testing"

	"github.com/graphrag-global/graphrag-global/shared/globalsearch"
	"github.com/stretchr/testify/assert"
)

func TestSentences(t *testing.T) {
	tests := []struct {
		name          string
		content       string
		want          []string
		wantFragments []string
	}{
		{
			name:    "headers skipped, sentences split",
			content: "[Community ID: c1 | summary part 1]\n[Community summary]\nFirst one. Second one! Third?\n\n[Supporting claims]",
			want:    []string{"First one.", "Second one!", "Third?"},
		},
		{
			name:    "decimals, abbreviations and quotes stay whole",
			content: "It grew 3.5 percent, e.g. in wool. 'We won,' he said. 'Yes.' Then more.",
			want:    []string{"It grew 3.5 percent, e.g. in wool.", "'We won,' he said.", "'Yes.'", "Then more."},
		},
		{
			name:          "CJK enders need no space",
			content:       "海云是买家。贸易增长了三倍！对吗？終わり",
			want:          []string{"海云是买家。", "贸易增长了三倍！", "对吗？"},
			wantFragments: []string{"終わり"},
		},
		{
			// A claim is its description: the lead is index syntax. Outside
			// the claims only the arrow form is a claim's lead.
			name: "excerpt ids and claim leads stripped",
			content: "[Source excerpts]\n- (ch-01) The berth opened. It was big.\n- Tull -> population: Tull shrank.\n- Note: a line.\n" +
				"[Supporting claims]\n- rural rebate: A rebate was added.\n- Tull -> ferry: the ferry stopped.",
			want:          []string{"The berth opened.", "It was big.", "Tull shrank.", "Note: a line.", "A rebate was added."},
			wantFragments: []string{"the ferry stopped."},
		},
		{
			name: "hard-wrapped lines join into paragraphs",
			content: "[Source excerpts]\n- (ch-01) title: a-christmas-carol.txt.\nScrooge never spoke of it\nagain. No change, no\nrest for him.\n\n" +
				"Marley was dead: to begin\nwith.\n- (ch-02) Bob smiled.",
			want:          []string{"Scrooge never spoke of it again.", "No change, no rest for him.", "Marley was dead: to begin with.", "Bob smiled."},
			wantFragments: []string{"title: a-christmas-carol.txt."},
		},
		{
			name:    "abbreviations and initials do not end a sentence",
			content: "Mr. Fezziwig danced with Mrs. Fezziwig by St. Paul's. Dr. Jones, e.g. Dr. Smith, came. Servant, C. D. Dickens wrote it. So did I.",
			want:    []string{"Mr. Fezziwig danced with Mrs. Fezziwig by St. Paul's.", "Dr. Jones, e.g. Dr. Smith, came.", "Servant, C. D. Dickens wrote it.", "So did I."},
		},
		{
			name:          "a text cut mid-sentence leaves fragments",
			content:       "[Community ID: c1 | summary part 2]\nMarley's name. Scrooge signed it. He was cold and\n[Community ID: c2 | summary part 1]\nTiny Tim lived.",
			want:          []string{"Scrooge signed it.", "Tiny Tim lived."},
			wantFragments: []string{"Marley's name.", "He was cold and"},
		},
		{
			name:          "a title is a heading, not a sentence",
			content:       "[Community summary]\n# Scrooge and Marley\n\nThe firm was known as Scrooge and Marley.",
			want:          []string{"The firm was known as Scrooge and Marley."},
			wantFragments: nil,
		},
		{
			name:    "GraphRAG's data references are left out",
			content: "[Community summary]\n## Finding\n\nScrooge changes [Data: Entities (4, 7); Relationships (3, +more)]. Marley warns him.",
			want:    []string{"Scrooge changes.", "Marley warns him."},
		},
		{
			name:          "elisions",
			content:       "Scrooge signed it. ... Scrooge never painted out Old Marley's name. ...then ran home to Camden Town",
			want:          []string{"Scrooge signed it.", "Scrooge never painted out Old Marley's name."},
			wantFragments: []string{"...then ran home to Camden Town"},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			whole, fragments := partSentences(globalsearch.MapParts(tc.content))
			assert.Equal(t, tc.want, whole)
			assert.Equal(t, tc.wantFragments, fragments)
		})
	}
}

func TestTerms(t *testing.T) {
	tests := []struct {
		name string
		in   string
		want []string
	}{
		{"stopwords, possessive and plurals", "What are the main themes across Veloria's development?", []string{"theme", "veloria", "development"}},
		{"question words are stopwords", "List the top, primary and most significant themes", []string{"theme"}},
		{"ies plural and digits", "Ferries in 2020", []string{"ferry", "2020"}},
		{"ss and is kept", "The crisis of access", []string{"crisis", "access"}},
		{"Chinese bigrams", "海产品", []string{"海产", "产品"}},
		{"single CJK char and mixed script", "鱼 and café", []string{"鱼", "café"}},
		{"kana bigrams", "ケッサ海峡", []string{"ケッ", "ッサ", "サ海", "海峡"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			assert.Equal(t, tc.want, terms(tc.in))
		})
	}
}
