package lookup

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/graphrag-global/graphrag-global/shared/globalsearch"
)

// Text is r as `globalsearch show` prints it: a heading line naming the
// record, then one section per list, each item on lines of its own with
// the ids a reader can look up next. The caller makes it safe for a
// terminal (cmdutil.TerminalText): it holds the index's text as is.
func Text(r Record) string {
	var b strings.Builder
	switch r.Kind {
	case KindCommunity:
		communityText(&b, r.Community)
	case KindClaim:
		c := r.Claim
		fmt.Fprintf(&b, "claim %s\n", c.ID)
		if c.Community != nil {
			fmt.Fprintf(&b, "community: %s\n", refText(*c.Community))
		} else {
			fmt.Fprintf(&b, "community: %s (no such summary)\n", c.CommunityID)
		}
		fmt.Fprintf(&b, "%s\n", claimLine(c.Claim))
		excerptsText(&b, c.Excerpts)
	case KindChunk:
		fmt.Fprintf(&b, "chunk %s\n%s", r.Chunk.ID, chunkSource(*r.Chunk))
		fmt.Fprintf(&b, "\n%s\n", r.Chunk.Text)
	case KindEntity:
		fmt.Fprintf(&b, "entity %s\n%s\ncommunities: %s\n", r.Entity.ID, entityLine(*r.Entity), idsOrNone(r.Entity.CommunityIDs))
	case KindRelationship:
		fmt.Fprintf(&b, "relationship %s\n%s\ncommunities: %s\n", r.Relationship.ID, relationshipLine(*r.Relationship), idsOrNone(r.Relationship.CommunityIDs))
	}
	return b.String()
}

func communityText(b *strings.Builder, c *Community) {
	fmt.Fprintf(b, "community %s\n", refText(Ref{ID: c.ID, Title: c.Title, Level: c.Level}))
	switch {
	case c.Parent != nil:
		fmt.Fprintf(b, "parent: %s\n", refText(*c.Parent))
	case c.ParentCommunityID != "":
		fmt.Fprintf(b, "parent: %s (no such summary)\n", c.ParentCommunityID)
	}
	if len(c.Children) > 0 {
		ids := make([]string, len(c.Children))
		for i, ch := range c.Children {
			ids[i] = ch.ID
		}
		fmt.Fprintf(b, "children: %s\n", strings.Join(ids, ", "))
	}
	fmt.Fprintf(b, "\n%s\n", strings.TrimSpace(c.Summary))
	section(b, "claims", len(c.Claims), c.Omitted["claims"])
	for _, cl := range c.Claims {
		fmt.Fprintf(b, "  %s\n", claimLine(cl))
	}
	excerptsText(b, c.Excerpts)
	if n := c.Omitted["excerpts"]; n > 0 {
		fmt.Fprintf(b, "  (%d more)\n", n)
	}
	if len(c.TextUnitIDs) > 0 {
		fmt.Fprintf(b, "\ntext units: %s\n", strings.Join(c.TextUnitIDs, ", "))
	}
	section(b, "documents", len(c.Documents), 0)
	for _, d := range c.Documents {
		fmt.Fprintf(b, "  %s\n", documentText(d.ID, d.Title))
	}
	section(b, "entities", len(c.Entities), c.Omitted["entities"])
	for _, e := range c.Entities {
		fmt.Fprintf(b, "  %s\n", entityLine(e))
	}
	section(b, "relationships", len(c.Relationships), c.Omitted["relationships"])
	for _, r := range c.Relationships {
		fmt.Fprintf(b, "  %s\n", relationshipLine(r))
	}
}

// section heads a list: its name and count, and how many more a limit
// left out; an empty list prints its heading alone, so a reader sees the
// index has none rather than wondering.
func section(b *strings.Builder, name string, n, omitted int) {
	if omitted > 0 {
		fmt.Fprintf(b, "\n%s (%d of %d):\n", name, n, n+omitted)
		return
	}
	fmt.Fprintf(b, "\n%s (%d):\n", name, n)
}

func refText(r Ref) string {
	s := r.ID + " (level " + strconv.Itoa(r.Level) + ")"
	if r.Title != "" {
		s += ": " + r.Title
	}
	return s
}

func claimLine(c globalsearch.Claim) string {
	s := c.ID + "  " + c.Subject
	if c.Object != "" {
		s += " -> " + c.Object
	}
	s += ": " + c.Description
	if len(c.SourceChunkIDs) > 0 {
		s += "  [chunks " + strings.Join(c.SourceChunkIDs, ", ") + "]"
	}
	return s
}

func excerptsText(b *strings.Builder, excerpts []globalsearch.Chunk) {
	section(b, "excerpts", len(excerpts), 0)
	for _, x := range excerpts {
		fmt.Fprintf(b, "  %s\n", x.ID)
		for _, line := range strings.SplitAfter(chunkSource(x), "\n") {
			if line != "" {
				b.WriteString("    " + line)
			}
		}
		fmt.Fprintf(b, "    %s\n", indent(x.Text))
	}
}

// chunkSource names a chunk's text unit and document, a line each.
func chunkSource(c globalsearch.Chunk) string {
	var s string
	if c.TextUnitID != "" {
		s += "text unit: " + c.TextUnitID + "\n"
	}
	if c.DocumentID != "" {
		s += "document: " + documentText(c.DocumentID, c.DocumentTitle) + "\n"
	}
	return s
}

func documentText(id, title string) string {
	if title == "" {
		return id
	}
	return strconv.Quote(title) + " " + id
}

func entityLine(e globalsearch.Entity) string {
	s := e.Title
	var about []string
	if e.Type != "" {
		about = append(about, e.Type)
	}
	if e.Degree > 0 {
		about = append(about, "degree "+strconv.Itoa(e.Degree))
	}
	if len(about) > 0 {
		s += " (" + strings.Join(about, ", ") + ")"
	}
	s += " [" + e.ID + "]"
	if e.Description != "" {
		s += ": " + e.Description
	}
	return s
}

func relationshipLine(r globalsearch.Relationship) string {
	s := r.Source + " -- " + r.Target
	if r.Weight > 0 {
		s += " (weight " + strconv.FormatFloat(r.Weight, 'g', -1, 64) + ")"
	}
	s += " [" + r.ID + "]"
	if r.Description != "" {
		s += ": " + r.Description
	}
	return s
}

func idsOrNone(ids []string) string {
	if len(ids) == 0 {
		return "none"
	}
	return strings.Join(ids, ", ")
}

// indent puts four spaces after each line break of s, so a text of
// several lines stays under its item.
func indent(s string) string {
	return strings.ReplaceAll(strings.TrimRight(s, "\n"), "\n", "\n    ")
}

// ReportsText is Reports as `globalsearch show` without an id prints it:
// a line per level, then one per report.
func ReportsText(namespace string, levels []Level) string {
	var b strings.Builder
	n := 0
	for _, l := range levels {
		n += len(l.Reports)
	}
	fmt.Fprintf(&b, "namespace %s: %s\n", namespace, globalsearch.Plural(n, "community", "communities"))
	for _, l := range levels {
		fmt.Fprintf(&b, "\nlevel %d (%d):\n", l.Level, len(l.Reports))
		for _, r := range l.Reports {
			fmt.Fprintf(&b, "  %s  %s\n", r.ID, r.Title)
		}
	}
	b.WriteString("\n`globalsearch show <id>` prints one of them.\n")
	return b.String()
}
