package mcp

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
)

// An MCP client starts the server in a working directory of its own
// choosing, often "/" or its own install folder, and shows the server's
// standard error only in a log (docs/mcp.md#paths). A relative path on
// the command line would then name a folder the user never meant, and
// every tool call would fail with no hint why. So the command resolves
// its paths once, at start (ResolvePaths), and the server names what is
// missing, with the absolute path and the working directory, at start
// and in each call's error (checkPaths).

// Path is a path the server's command line names and the tools read.
type Path struct {
	// Flag is the command-line flag that named it ("--graphrag").
	Flag string
	// Path is the absolute path (ResolvePaths); "" when the flag was not
	// given.
	Path string
	// Folder says the path names a folder, for the message; else a file.
	Folder bool
}

// ResolvePaths makes every relative path of paths absolute against wd,
// the working directory at start, in place; an empty one stays empty.
func ResolvePaths(wd string, paths ...*string) {
	for _, p := range paths {
		if *p != "" && !filepath.IsAbs(*p) {
			*p = filepath.Join(wd, *p)
		}
	}
}

// pathProblem says what is wrong with p, "" when nothing is: a path that
// does not exist or is of the wrong kind names the flag, the absolute path
// and the working directory it was resolved against.
func pathProblem(p Path, wd string) string {
	if p.Path == "" {
		return ""
	}
	kind := "file"
	if p.Folder {
		kind = "folder"
	}
	// A path of the other kind is the opener's to refuse: it knows
	// more ("a GraphRAG output folder: search it with --graphrag").
	_, err := os.Stat(p.Path)
	switch {
	case err != nil && os.IsNotExist(err):
		return fmt.Sprintf("%s names %s, and there is no such %s (relative paths are resolved against the working directory the MCP client started this server in, %s: give an absolute path in the client config)",
			p.Flag, p.Path, kind, wd)
	case err != nil:
		return fmt.Sprintf("%s names %s, which cannot be read: %v", p.Flag, p.Path, err)
	}
	return ""
}

// checkPaths is the first problem of the server's paths, as an error;
// nil when there is none. Each call checks again, so a folder made after
// start is read without restarting the client.
func (s *Server) checkPaths() error {
	for _, p := range s.Paths {
		if msg := pathProblem(p, s.WorkDir); msg != "" {
			return fmt.Errorf("%s", msg)
		}
	}
	return nil
}

// reportPaths writes every problem of the server's paths to log, one line
// each, as the server starts: the client shows its servers' standard error.
func (s *Server) reportPaths(log io.Writer) {
	for _, p := range s.Paths {
		if msg := pathProblem(p, s.WorkDir); msg != "" {
			fmt.Fprintf(log, "globalsearch mcp: %s\n", msg)
		}
	}
}
