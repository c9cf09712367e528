package graphrag

import "github.com/graphrag-global/graphrag-global/shared/globalsearch"

// ParseOptions are the import options content and excerpts name ("" is
// the default of each), the one check of both for an import and for a
// search of the folder in place; a bad value is invalid input, named as
// the CLI's --content and --excerpts flags give it (docs/contract.md#import).
func ParseOptions(content, excerpts string) (Options, error) {
	c, e := Content(content), Excerpts(excerpts)
	switch {
	case c != "" && c != ContentSummary && c != ContentFullContent:
		return Options{}, globalsearch.Errorf(globalsearch.KindInvalidInput, "--content must be %q or %q", ContentSummary, ContentFullContent)
	case e != "" && e != ExcerptsSourceText && e != ExcerptsTextUnit && e != ExcerptsNone:
		return Options{}, globalsearch.Errorf(globalsearch.KindInvalidInput, "--excerpts must be %q, %q or %q", ExcerptsSourceText, ExcerptsTextUnit, ExcerptsNone)
	}
	return Options{Content: c, Excerpts: e}, nil
}
