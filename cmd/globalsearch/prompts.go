package main

import (
	"flag"
	"sync"

	"github.com/graphrag-global/graphrag-global/shared/globalsearch"
)

// promptOptions is --prompts DIR (docs/contract.md#custom-prompts): the
// user's own map.txt, reduce.txt or system.txt in place of the embedded
// ones, for every command that searches or plans.
type promptOptions struct {
	dir string

	once    sync.Once
	prompts globalsearch.Prompts
	err     error
}

func (o *promptOptions) register(fs *flag.FlagSet) {
	fs.StringVar(&o.dir, "prompts", "", "directory of your own prompts: any of map.txt, reduce.txt, system.txt replaces the built-in one")
}

// check is the rule of the flag itself; set holds the flags given.
func (o *promptOptions) check(set map[string]bool) error {
	if set["prompts"] && o.dir == "" {
		return &usageError{Msg: "--prompts needs a directory"}
	}
	return nil
}

// load reads and checks the directory once, so every caller (the request's
// budget check, the engine) sees the same prompts; without --prompts they
// are the zero Prompts, which stand for the embedded ones. The commands call
// it right after their flags, before the index is read.
func (o *promptOptions) load() (globalsearch.Prompts, error) {
	if o.dir == "" {
		return globalsearch.Prompts{}, nil
	}
	o.once.Do(func() { o.prompts, o.err = globalsearch.LoadPrompts(o.dir) })
	return o.prompts, o.err
}
