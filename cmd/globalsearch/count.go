package main

import (
	"github.com/graphrag-global/graphrag-global/shared/cmdutil"
	"github.com/graphrag-global/graphrag-global/shared/globalsearch"
	"github.com/graphrag-global/graphrag-global/shared/localengine"
)

// count is globalsearch.Plural: "1 batch", "2 batches".
var count = globalsearch.Plural

// seedText is localengine's, plan's and run's.
var seedText = localengine.SeedText

// terminalText and checkSomethingToSearch are cmdutil's and the domain's.
var (
	terminalText           = cmdutil.TerminalText
	checkSomethingToSearch = globalsearch.CheckSomethingToSearch
)
