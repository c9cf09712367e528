package offline

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestSentences(t *testing.T) {
	tests := []struct {
		name    string
		content string
		want    []string
	}{
		{
			name:    "headers skipped, sentences split",
			content: "[Community ID: c1 | summary part 2]\n[Community summary]\nFirst one. Second one! Third?\n\n[Supporting claims]",
			want:    []string{"First one.", "Second one!", "Third?"},
		},
		{
			name:    "decimals, abbreviations and quotes stay whole",
			content: "It grew 3.5 percent, e.g. in wool. 'We won,' he said. 'Yes.' Then more.",
			want:    []string{"It grew 3.5 percent, e.g. in wool.", "'We won,' he said.", "'Yes.'", "Then more."},
		},
		{
			name:    "CJK enders need no space",
			content: "海云是买家。贸易增长了三倍！对吗？終わり",
			want:    []string{"海云是买家。", "贸易增长了三倍！", "对吗？", "終わり"},
		},
		{
			name:    "excerpt ids and claim leads stripped",
			content: "[Source excerpts]\n- (ch-01) The berth opened. It was big.\n- Tull -> population: Tull shrank.\n- rural rebate: A rebate was added.",
			want:    []string{"The berth opened.", "It was big.", "Tull shrank.", "rural rebate: A rebate was added."},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			assert.Equal(t, tc.want, sentences(tc.content))
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
