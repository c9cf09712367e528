package globalsearch

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/graphrag-global/graphrag-global/shared/batch"
	"github.com/graphrag-global/graphrag-global/shared/tokens"
)

// The files of a prompts directory (docs/contract.md#custom-prompts).
const (
	MapPromptFile    = "map.txt"
	ReducePromptFile = "reduce.txt"
	SystemPromptFile = "system.txt"
	// ReduceRoundPromptFile is the intermediate prompt of a tree reduce
	// (docs/contract.md#reduce-rounds).
	ReduceRoundPromptFile = "reduce_round.txt"
)

// PromptFiles are the names a prompts directory may hold, in the order
// they are checked.
var PromptFiles = []string{MapPromptFile, ReducePromptFile, SystemPromptFile, ReduceRoundPromptFile}

// MaxPromptFileBytes is the most of a prompt file that is read: far more
// than any skeleton that fits a default budget, so a larger file cannot be a
// prompt, and a huge one is refused without being read whole.
const MaxPromptFileBytes = 1 << 20

// MaxSystemPromptTokens bounds the system prompt: it is sent with every
// call outside the budgets (docs/contract.md#budgets), so it must stay
// small against them.
const MaxSystemPromptTokens = 1000

// templateRule is what a map or reduce prompt file must meet.
type templateRule struct {
	file         string
	tag          string   // the delimiter lines around {{content}}
	placeholders []string // the placeholders it may hold
	required     []string // those it must hold
	keys         []string // the JSON keys of the output it must ask for
	budget       int      // the default prompt budget its skeleton must fit
	budgetName   string
}

var (
	mapRule = templateRule{file: MapPromptFile, tag: "community_data",
		placeholders: []string{queryPlaceholder, contentPlaceholder},
		required:     []string{queryPlaceholder, contentPlaceholder},
		keys:         []string{`"answer"`, `"usefulness"`},
		budget:       SpecDefaults.MapTokenBudget - SpecDefaults.MapOutputReserve,
		budgetName:   fmt.Sprintf("map prompt budget of %d (mapTokenBudget %d - mapOutputReserve %d)", SpecDefaults.MapTokenBudget-SpecDefaults.MapOutputReserve, SpecDefaults.MapTokenBudget, SpecDefaults.MapOutputReserve),
	}
	reduceRule = templateRule{file: ReducePromptFile, tag: "intermediate_answers",
		placeholders: []string{queryPlaceholder, responseTypePlaceholder, contentPlaceholder},
		required:     []string{queryPlaceholder, responseTypePlaceholder, contentPlaceholder},
		keys:         []string{`"answer"`},
		budget:       SpecDefaults.ReduceTokenBudget - SpecDefaults.ReduceOutputReserve,
		budgetName:   fmt.Sprintf("reduce prompt budget of %d (reduceTokenBudget %d - reduceOutputReserve %d)", SpecDefaults.ReduceTokenBudget-SpecDefaults.ReduceOutputReserve, SpecDefaults.ReduceTokenBudget, SpecDefaults.ReduceOutputReserve),
	}
	// The intermediate prompt writes no final answer, so it has no
	// response type (docs/contract.md#reduce-rounds).
	roundRule = templateRule{file: ReduceRoundPromptFile, tag: "intermediate_answers",
		placeholders: []string{queryPlaceholder, contentPlaceholder},
		required:     []string{queryPlaceholder, contentPlaceholder},
		keys:         []string{`"answer"`},
		budget:       reduceRule.budget,
		budgetName:   reduceRule.budgetName,
	}
)

var (
	placeholderPattern = regexp.MustCompile(`\{\{[^{}]*\}\}`)
	// GraphRAG's own prompts are Python format strings; one ported as it
	// is would send its placeholders to the model unfilled.
	graphRAGPlaceholder = regexp.MustCompile(`(?:^|[^{])(\{(?:context_data|report_data|response_type|max_length)\})(?:[^}]|$)`)
)

// LoadPrompts reads the prompts directory dir (docs/contract.md#custom-prompts):
// each of map.txt, reduce.txt and system.txt it holds replaces the project's
// own, which the others keep (reduce_round.txt too). Every file is checked before anything is
// used; any problem is invalid input naming the file and what is wrong,
// all problems at once. Names starting with "." are ignored, any other
// name is refused, and so is a directory holding none of the three; a
// prompt file that links out of dir is refused too (InFolder).
func LoadPrompts(dir string) (Prompts, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return Prompts{}, Errorf(KindInvalidInput, "prompts directory %s cannot be read: %w", dir, pathCause(err))
	}
	texts := map[string]string{}
	var errs []error
	for _, entry := range entries {
		name := entry.Name()
		path := filepath.Join(dir, name)
		switch {
		case strings.HasPrefix(name, "."):
		case !slices.Contains(PromptFiles, name):
			errs = append(errs, fmt.Errorf("%s: not a prompt file: a prompts directory holds only %s", path, strings.Join(PromptFiles, ", ")))
		default:
			if err := InFolder(dir, path); err != nil {
				errs = append(errs, err)
				continue
			}
			text, err := readPromptFile(path)
			if err != nil {
				errs = append(errs, err)
				continue
			}
			texts[name] = text
		}
	}
	if len(errs) == 0 && len(texts) == 0 {
		errs = append(errs, fmt.Errorf("prompts directory %s holds none of %s", dir, strings.Join(PromptFiles, ", ")))
	}
	p, err := parsePrompts(texts, func(name string) string { return filepath.Join(dir, name) })
	if err != nil {
		errs = append(errs, errors.Unwrap(err))
	}
	if len(errs) > 0 {
		return Prompts{}, &Error{Kind: KindInvalidInput, Err: errors.Join(errs...)}
	}
	return p.orDefault(), nil
}

// CheckDefaultPrompts checks the embedded prompts by LoadPrompts' rules: a
// function calls it at start-up, since a build may embed prompts of its own
// (docs/contract.md#custom-prompts).
func CheckDefaultPrompts() error {
	_, err := embeddedPrompts()
	return err
}

// EmbeddedPromptDigests are the SHA-256 (hex) of each embedded prompt
// file, by name: a function logs them at start-up, so that which prompts a
// deployment runs can be read off its log and compared with sha256sum of
// the files it was built with.
func EmbeddedPromptDigests() map[string]string {
	digests := map[string]string{}
	for name, text := range embeddedTexts() {
		sum := sha256.Sum256([]byte(text))
		digests[name] = hex.EncodeToString(sum[:])
	}
	return digests
}

func embeddedPrompts() (Prompts, error) {
	return parsePrompts(embeddedTexts(), func(name string) string { return "embedded prompts/" + name })
}

// embeddedTexts are the embedded prompt files by name.
func embeddedTexts() map[string]string {
	return map[string]string{MapPromptFile: mapPromptText, ReducePromptFile: reducePromptText,
		SystemPromptFile: systemPromptText, ReduceRoundPromptFile: reduceRoundPromptText}
}

// pathCause drops the path a *PathError repeats, since the message names it.
func pathCause(err error) error {
	var pe *os.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

// readPromptFile reads a regular file of at most MaxPromptFileBytes. A
// named pipe or device is refused before it is opened, so a load never waits.
func readPromptFile(path string) (string, error) {
	info, err := os.Stat(path)
	if err != nil {
		return "", fmt.Errorf("%s cannot be read: %w", path, pathCause(err))
	}
	if !info.Mode().IsRegular() {
		return "", fmt.Errorf("%s is not a regular file", path)
	}
	f, err := os.Open(path)
	if err != nil {
		return "", fmt.Errorf("%s cannot be read: %w", path, pathCause(err))
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, MaxPromptFileBytes+1))
	if err != nil {
		return "", fmt.Errorf("%s cannot be read: %w", path, pathCause(err))
	}
	if len(data) > MaxPromptFileBytes {
		return "", fmt.Errorf("%s is over %d bytes: no prompt that large fits a default budget", path, MaxPromptFileBytes)
	}
	return string(data), nil
}

// parsePrompts checks the texts given (by file name); the parts of files
// not given stay zero. where names a file in messages.
func parsePrompts(texts map[string]string, where func(string) string) (Prompts, error) {
	var p Prompts
	var errs []error
	for _, rule := range []templateRule{mapRule, reduceRule, roundRule} {
		text, ok := texts[rule.file]
		if !ok {
			continue
		}
		t, err := rule.parse(normalisePrompt(text))
		if err != nil {
			errs = append(errs, fmt.Errorf("%s: %w", where(rule.file), err))
			continue
		}
		switch rule.file {
		case MapPromptFile:
			p.Map = t
		case ReducePromptFile:
			p.Reduce = t
		default:
			p.Round = t
		}
	}
	if text, ok := texts[SystemPromptFile]; ok {
		system, err := parseSystemPrompt(normalisePrompt(text))
		if err != nil {
			errs = append(errs, fmt.Errorf("%s: %w", where(SystemPromptFile), err))
		}
		p.System = system
	}
	if len(errs) > 0 {
		return Prompts{}, &Error{Kind: KindInvalidInput, Err: errors.Join(errs...)}
	}
	return p, nil
}

// normalisePrompt reads CRLF line ends as LF, so a prompt written on
// Windows keeps its content placeholder on a line of its own.
func normalisePrompt(text string) string { return strings.ReplaceAll(text, "\r\n", "\n") }

// checkText is what every prompt file must be: UTF-8 text that is not blank.
func checkText(text string) error {
	switch {
	case !utf8.ValidString(text) || strings.ContainsRune(text, 0):
		return errors.New("is not UTF-8 text")
	case strings.TrimSpace(text) == "":
		return errors.New("is empty")
	}
	return nil
}

// parse checks text by r and returns its template.
func (r templateRule) parse(text string) (Template, error) {
	if err := checkText(text); err != nil {
		return Template{}, err
	}
	if m := graphRAGPlaceholder.FindStringSubmatch(text); m != nil {
		return Template{}, fmt.Errorf("holds %s, a GraphRAG placeholder that is never filled here: this file may use %s", m[1], strings.Join(r.placeholders, ", "))
	}
	for _, ph := range placeholderPattern.FindAllString(text, -1) {
		if !slices.Contains(r.placeholders, ph) {
			return Template{}, fmt.Errorf("holds the unknown placeholder %s: this file may use %s", EchoQuoted(ph), strings.Join(r.placeholders, ", "))
		}
	}
	for _, ph := range r.required {
		if !strings.Contains(text, ph) {
			return Template{}, fmt.Errorf("lacks the placeholder %s", ph)
		}
	}
	if !strings.Contains(text, "\n<"+r.tag+">\n"+contentPlaceholder+"\n</"+r.tag+">") {
		return Template{}, fmt.Errorf("must frame %s between a line <%s> and a line </%s> (docs/contract.md#data-safe-prompts)", contentPlaceholder, r.tag, r.tag)
	}
	t, err := ParseTemplate(text)
	if err != nil {
		return Template{}, err
	}
	if strings.Contains(t.tail, responseTypePlaceholder) {
		return Template{}, fmt.Errorf("must hold %s before the content, where it is filled", responseTypePlaceholder)
	}
	for _, key := range r.keys {
		if !strings.Contains(text, key) {
			return Template{}, fmt.Errorf("must ask for the JSON output the model's answer is read as, naming its key %s (docs/contract.md#model-output)", key)
		}
	}
	skeleton := t.Skeleton("")
	if err := batch.CheckSkeleton(skeleton, r.budget); err != nil {
		return Template{}, fmt.Errorf("takes %d tokens before any query or content, more than the default %s", batch.SmallestBudget(skeleton), r.budgetName)
	}
	return t, nil
}

// parseSystemPrompt checks a system prompt: sent as it is, it may hold no
// placeholder, and it must stay within MaxSystemPromptTokens.
func parseSystemPrompt(text string) (string, error) {
	if err := checkText(text); err != nil {
		return "", err
	}
	if ph := placeholderPattern.FindString(text); ph != "" {
		return "", fmt.Errorf("holds the placeholder %s, but the system prompt is sent as it is: it may hold none", EchoQuoted(ph))
	}
	system := strings.TrimRight(text, "\n")
	if n := tokens.Estimate(system); n > MaxSystemPromptTokens {
		return "", fmt.Errorf("takes %d tokens, more than the %d a system prompt may: it is sent with every call, outside the token budgets", n, MaxSystemPromptTokens)
	}
	return system, nil
}
