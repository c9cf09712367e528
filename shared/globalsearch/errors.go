package globalsearch

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Kind classifies an error for callers that must react to it: the CLI's exit
// status, the HTTP status, and the Lambda error type Step Functions matches.
type Kind int

// The closed set of error kinds.
const (
	// KindInternal is any failure not classified below (I/O, bugs).
	KindInternal Kind = iota
	// KindInvalidInput is a request that cannot run as given; nothing was read,
	// written or called.
	KindInvalidInput
	// KindCorruptIndex is an index whose hierarchy is broken (a cycle, a
	// missing parent, a child not below its parent's level); it names the
	// offending ids.
	KindCorruptIndex
	// KindModelOutput is a model answer that breaks the JSON contract of
	// docs/contract.md#model-output or docs/contract.md#reduce-call, or was cut off by the output reserve.
	KindModelOutput
	// KindThrottled is a model or store that refused for load after its
	// own retries; a later attempt may succeed.
	KindThrottled
	// KindModel is any other failed model call.
	KindModel
	// KindAllBatchesFailed is a search whose every map batch failed.
	KindAllBatchesFailed
	// KindPlanTooLarge is a plan beyond the deployment's limits: the state
	// machine's batches, or the map-text bytes prepare may hold.
	KindPlanTooLarge
	// KindNotFound is a run or record that does not exist.
	KindNotFound
	// KindConflict is a query id that already names a different request
	// (docs/contract.md#query-ids); nothing stored changed. It is last so
	// that the kinds before it keep their values.
	KindConflict
	// KindCorruptPayload is a stored payload object that is not the one its
	// run wrote: its bytes do not match the digest its key names, or it was
	// replaced since (docs/contract.md#payloads-bucket). Reading it again
	// reads the same bytes, so no caller retries it.
	KindCorruptPayload
)

var kindNames = map[Kind]string{
	KindInternal:         "internal",
	KindInvalidInput:     "invalid input",
	KindCorruptIndex:     "corrupt index",
	KindModelOutput:      "model output invalid",
	KindThrottled:        "throttled",
	KindModel:            "model call failed",
	KindAllBatchesFailed: "every map batch failed",
	KindPlanTooLarge:     "plan too large",
	KindNotFound:         "not found",
	KindConflict:         "conflict",
	KindCorruptPayload:   "corrupt payload",
}

func (k Kind) String() string { return kindNames[k] }

// Error is an error with a Kind. Its message is the message of Err alone, so
// Contract messages reach users verbatim.
type Error struct {
	Kind Kind
	Err  error
}

func (e *Error) Error() string { return e.Err.Error() }
func (e *Error) Unwrap() error { return e.Err }

// Errorf returns an *Error of kind k with a formatted message; %w wraps.
func Errorf(k Kind, format string, args ...any) error {
	return &Error{Kind: k, Err: fmt.Errorf(format, args...)}
}

// ErrNotFound is returned by stores for a run or record that does not exist.
var ErrNotFound = &Error{Kind: KindNotFound, Err: errors.New("not found")}

// KindOf returns the kind of the first *Error in err's chain, or
// KindInternal.
func KindOf(err error) Kind {
	var e *Error
	if errors.As(err, &e) {
		return e.Kind
	}
	return KindInternal
}

// BatchError is the failure of an attempt at one map batch, as MapBatch
// returns it: the batch index is kept as data beside the cause, and the
// message's "map batch <n>: " prefix is written here only.
type BatchError struct {
	Index int
	Err   error
	// refused is a model call the model refused for load (KindThrottled
	// from Complete itself): AutoConcurrency retries it without spending
	// an attempt (docs/contract.md#auto-concurrency).
	refused bool
	// attempt is the attempt's number, and called says its model call
	// started: a run that a cancel stopped counts the calls it made
	// (callsMade, docs/contract.md#cancel).
	attempt int
	called  bool
}

func (e *BatchError) Error() string { return fmt.Sprintf("map batch %d: %v", e.Index, e.Err) }
func (e *BatchError) Unwrap() error { return e.Err }

// BatchFailure is a map batch that failed every attempt.
type BatchFailure struct {
	BatchIndex   int      `json:"batchIndex"`
	CommunityIDs []string `json:"communityIds"`
	Message      string   `json:"message"`
	// Attempts is the model calls the batch took (0 when it never reached
	// the model, e.g. a cancelled run).
	Attempts int `json:"attempts"`
	// err is the BatchError of this batch that Message is the message of,
	// when it is one (a batch of an in-process Search): grouping takes the
	// cause from it rather than cutting the prefix off Message.
	err *BatchError
}

// failureOf is the failure of batch index whose last attempt ended in err.
func failureOf(index int, err error, attempts int) BatchFailure {
	f := BatchFailure{BatchIndex: index, Message: err.Error(), Attempts: attempts}
	// MapBatch's own error, not one that wraps it: only then is Message
	// the prefix and the cause alone.
	if be, ok := err.(*BatchError); ok && be.Index == index {
		f.err = be
	}
	return f
}

// cause is the failure's message without a prefix naming its own batch,
// which differs by batch but says nothing more.
func (f BatchFailure) cause() string {
	if f.err != nil {
		return f.err.Err.Error()
	}
	return f.Message
}

// allFailedError lists every batch's error so that a failed search says why
// (docs/contract.md#map-calls); batches that failed the same way are listed once.
func allFailedError(failures []BatchFailure) error {
	var b strings.Builder
	fmt.Fprintf(&b, "every map batch failed (%s)", Plural(len(failures), "batch", "batches"))
	for i, g := range GroupFailures(failures) {
		if i == 0 {
			b.WriteString(": ")
		} else {
			b.WriteString("; ")
		}
		b.WriteString(g.String())
	}
	return &Error{Kind: KindAllBatchesFailed, Err: errors.New(b.String())}
}

// MaxListed is how many items an error message lists before it says how
// many more there are: enough to find the records, small enough that a
// corrupt index of 100,000 summaries still gives a one-line message.
const MaxListed = 20

// ListCapped joins items with sep, listing at most MaxListed of them and
// then "… and N more": every message that lists records uses it.
func ListCapped(items []string, sep string) string {
	if len(items) <= MaxListed {
		return strings.Join(items, sep)
	}
	return strings.Join(items[:MaxListed], sep) + fmt.Sprintf("%s… and %d more", sep, len(items)-MaxListed)
}

// MaxEchoedRunes is how much of one value from the input (an id, a field
// name, a flag value) a message shows (docs/contract.md#errors): enough to
// recognise it, short enough that a 1 MB id gives a short message.
const MaxEchoedRunes = 64

// Echo shows a value taken from the input in a message; every message that
// repeats input uses it (or EchoQuoted), and lists of such values also go
// through ListCapped. Plain text (letters, digits, punctuation and
// symbols) is shown as it is; anything else (spaces, control, format and
// separator characters, invalid UTF-8, an empty value) is quoted as
// EchoQuoted quotes it, so it is visible and cannot break a line or a
// terminal. Either way a value is cut after MaxEchoedRunes characters,
// which "…" marks.
func Echo(s string) string {
	shown, more := cutEchoed(s)
	if shown == "" || strings.ContainsFunc(shown, notPlain) || !utf8.ValidString(shown) {
		return strconv.Quote(shown) + more
	}
	return shown + more
}

// EchoQuoted is Echo for a message that always quotes the value (a field
// or key name, as %q would): Go syntax, cut after MaxEchoedRunes
// characters with "…" after the closing quote.
func EchoQuoted(s string) string {
	shown, more := cutEchoed(s)
	return strconv.Quote(shown) + more
}

// cutEchoed returns the first MaxEchoedRunes code points of s (an invalid
// byte counts as one) and "…" when that is not all of s.
func cutEchoed(s string) (shown, more string) {
	n := 0
	for i := range s {
		if n == MaxEchoedRunes {
			return s[:i], "…"
		}
		n++
	}
	return s, ""
}

// notPlain is what Echo quotes: what is not a letter, mark, digit,
// punctuation or symbol, and the quote that would make a plain value look
// quoted.
func notPlain(r rune) bool {
	return r == '"' || r == utf8.RuneError || !unicode.In(r, unicode.L, unicode.M, unicode.N, unicode.P, unicode.S)
}

// FailureGroup is the batches that failed with one message.
type FailureGroup struct {
	Message      string
	BatchIndexes []int
}

// String reads "batch 3: msg" or "batches 0-2, 5 (4): msg".
func (g FailureGroup) String() string {
	if len(g.BatchIndexes) == 1 {
		return fmt.Sprintf("batch %d: %s", g.BatchIndexes[0], g.Message)
	}
	return fmt.Sprintf("batches %s (%d): %s", indexRanges(g.BatchIndexes), len(g.BatchIndexes), g.Message)
}

// GroupFailures groups failures by message, in order of each group's first
// batch, so that forty batches failing the same way read as one line. A
// batch's error names its own batch (BatchError); that prefix is left out,
// since it differs by batch but says nothing more.
func GroupFailures(failures []BatchFailure) []FailureGroup {
	var groups []FailureGroup
	byMessage := map[string]int{}
	for _, f := range failures {
		msg := f.cause()
		i, ok := byMessage[msg]
		if !ok {
			i = len(groups)
			byMessage[msg] = i
			groups = append(groups, FailureGroup{Message: msg})
		}
		groups[i].BatchIndexes = append(groups[i].BatchIndexes, f.BatchIndex)
	}
	return groups
}

// indexRanges writes ascending indexes as "0-16, 18, 20-42".
func indexRanges(indexes []int) string {
	var parts []string
	for i := 0; i < len(indexes); {
		j := i
		for j+1 < len(indexes) && indexes[j+1] == indexes[j]+1 {
			j++
		}
		if j == i {
			parts = append(parts, fmt.Sprint(indexes[i]))
		} else {
			parts = append(parts, fmt.Sprintf("%d-%d", indexes[i], indexes[j]))
		}
		i = j + 1
	}
	return strings.Join(parts, ", ")
}
