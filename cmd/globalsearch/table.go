package main

import (
	"fmt"
	"io"

	"github.com/graphrag-global/graphrag-global/shared/globalsearch"
)

// tableFlagHelp is the help of the --table flag that names the index
// table to write.
const tableFlagHelp = "DynamoDB index table (endpoint from AWS_ENDPOINT_URL_DYNAMODB when set)"

// printTableWrite says what ingest or import wrote to a table
// (indexsource.ReplaceInTable).
func printTableWrite(out io.Writer, table, namespace string, r globalsearch.Records) {
	fmt.Fprintf(out, "namespace %s in table %s: wrote %d summaries, %d claims, %d chunks (records not in the file were deleted)\n",
		namespace, table, len(r.Summaries), len(r.Claims), len(r.Chunks))
}
