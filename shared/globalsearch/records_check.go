package globalsearch

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Validate checks what a well-formed namespace needs before it is stored or
// searched: ids well-formed (CheckID) and unique per kind, the fields that
// name an id (parentCommunityId, communityId, sourceChunkIds) valid UTF-8,
// levels, ranks and sizes non-negative, claims with a subject. The hierarchy itself (cycles, missing parents) is checked
// by the search, which reports it as a corrupt index.
func (r Records) Validate() error {
	err := checkRecords("summaries", r.Summaries, func(s Summary) (string, string) {
		if s.Level < 0 {
			return s.ID, `field "level" must be >= 0`
		}
		if !utf8.ValidString(s.ParentCommunityID) {
			return s.ID, `field "parentCommunityId" is not valid UTF-8`
		}
		if math.IsNaN(s.Rank) || math.IsInf(s.Rank, 0) || s.Rank < 0 {
			return s.ID, `field "rank" must be a finite number >= 0`
		}
		if s.Size < 0 {
			return s.ID, `field "size" must be >= 0`
		}
		return s.ID, ""
	})
	if err != nil {
		return err
	}
	err = checkRecords("claims", r.Claims, func(c Claim) (string, string) {
		if c.Subject == "" {
			return c.ID, `field "subject" is required`
		}
		if !utf8.ValidString(c.CommunityID) {
			return c.ID, `field "communityId" is not valid UTF-8`
		}
		if slices.ContainsFunc(c.SourceChunkIDs, func(id string) bool { return !utf8.ValidString(id) }) {
			return c.ID, `field "sourceChunkIds" holds an id that is not valid UTF-8`
		}
		return c.ID, ""
	})
	if err != nil {
		return err
	}
	err = checkRecords("chunks", r.Chunks, func(c Chunk) (string, string) { return c.ID, "" })
	if err != nil {
		return err
	}
	return r.validateGraph()
}

// checkRecords applies the rules every kind shares (an id, unique within
// the kind) and the kind's own rule, which returns the record's id and what
// is wrong with it, if anything.
func checkRecords[T any](kind string, records []T, check func(T) (id, problem string)) error {
	seen := make(map[string]bool, len(records))
	for i, rec := range records {
		id, problem := check(rec)
		switch {
		case id == "":
			return fmt.Errorf("%s[%d]: field \"id\" is required", kind, i)
		case CheckID(id) != nil:
			return fmt.Errorf("%s[%d] (id %s): field \"id\" %v", kind, i, Echo(id), CheckID(id))
		case seen[id]:
			return fmt.Errorf("%s[%d] (id %s): duplicate id", kind, i, Echo(id))
		case problem != "":
			return fmt.Errorf("%s[%d] (id %s): %s", kind, i, Echo(id), problem)
		}
		seen[id] = true
	}
	return nil
}

// MaxIDBytes is the longest id (docs/contract.md#ids): it leaves room in a DynamoDB
// sort key (1,024 bytes) for the record-kind prefix.
const MaxIDBytes = 256

// CheckID applies docs/contract.md#ids to a summary, claim or chunk id: 1-256 bytes of
// valid UTF-8 without control characters, line breaks or any of "[", "]"
// and "|". Ids are printed into the map prompt's part headers
// ("[Community ID: <id> | summary part <n>]") and excerpt lines, so these
// characters would let an id forge a header or a line of its own.
func CheckID(id string) error {
	switch {
	case id == "":
		return errors.New("is required")
	case len(id) > MaxIDBytes:
		return fmt.Errorf("is %d bytes; an id holds at most %d", len(id), MaxIDBytes)
	case !utf8.ValidString(id):
		return errors.New("is not valid UTF-8")
	}
	for _, r := range id {
		switch {
		case unicode.IsControl(r) || r == '\u2028' || r == '\u2029':
			return fmt.Errorf("holds the control or line-break character %U; ids may not", r)
		case strings.ContainsRune("[]|", r):
			return fmt.Errorf("holds %q; ids may not hold \"[\", \"]\" or \"|\" (they would forge a prompt header)", r)
		}
	}
	return nil
}
