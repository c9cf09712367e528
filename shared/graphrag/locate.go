package graphrag

import (
	"bytes"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/graphrag-global/graphrag-global/shared/globalsearch"
)

// Layout is what a path is to GraphRAG, so that a command given the wrong
// kind of path can say which one it is and what to give instead
// (docs/contract.md#import).
type Layout int

// The layouts Detect tells apart.
const (
	// NotGraphRAG is anything else: a missing path, an index file, another folder.
	NotGraphRAG Layout = iota
	// OutputFolder holds community_reports.parquet (or GraphRAG 1.x's
	// create_final_community_reports.parquet): what Import reads.
	OutputFolder
	// ProjectRoot is a GraphRAG project (settings.yaml, input/) whose
	// output/ subfolder is an OutputFolder.
	ProjectRoot
	// ParquetFile is a single parquet file, such as one file of an output folder.
	ParquetFile
)

// ProjectOutput is the subfolder of a GraphRAG project root that holds the
// index run's output (GraphRAG's default output base_dir).
const ProjectOutput = "output"

// parquetMagic opens (and closes) every parquet file.
var parquetMagic = []byte("PAR1")

// Detect says what path is. It reads at most a parquet file's first four
// bytes and never fails: a path it cannot read is NotGraphRAG, and the
// command reading it reports the error in its own terms.
func Detect(path string) Layout {
	info, err := os.Stat(path)
	switch {
	case err != nil:
		return NotGraphRAG
	case info.IsDir() && holdsReports(path):
		return OutputFolder
	case info.IsDir() && holdsReports(filepath.Join(path, ProjectOutput)):
		return ProjectRoot
	case info.IsDir():
		return NotGraphRAG
	}
	if strings.EqualFold(filepath.Ext(path), ".parquet") {
		return ParquetFile
	}
	f, err := os.Open(path)
	if err != nil {
		return NotGraphRAG
	}
	defer f.Close()
	head := make([]byte, len(parquetMagic))
	if _, err := io.ReadFull(f, head); err != nil || !bytes.Equal(head, parquetMagic) {
		return NotGraphRAG
	}
	return ParquetFile
}

// holdsReports says whether dir holds a community reports file under one
// of its names.
func holdsReports(dir string) bool {
	for _, name := range fileNames["community_reports"] {
		if info, err := os.Stat(filepath.Join(dir, name)); err == nil && !info.IsDir() {
			return true
		}
	}
	return false
}

// OutputDir is the output folder path names for a search of GraphRAG's
// output: path itself, or path/output for a project root. A parquet file,
// a folder without community reports or a missing path is invalid input
// that says what to give instead.
func OutputDir(path string) (string, error) {
	switch Detect(path) {
	case OutputFolder:
		return path, nil
	case ProjectRoot:
		return filepath.Join(path, ProjectOutput), nil
	case ParquetFile:
		return "", globalsearch.Errorf(globalsearch.KindInvalidInput,
			"%s is a parquet file: give the GraphRAG output folder that holds it (%s)", path, filepath.Dir(path))
	}
	if _, err := os.Stat(path); errors.Is(err, os.ErrNotExist) {
		return "", globalsearch.Errorf(globalsearch.KindInvalidInput, "GraphRAG output folder %s: no such folder", path)
	} else if err != nil {
		return "", globalsearch.Errorf(globalsearch.KindInvalidInput, "GraphRAG output folder: %w", err)
	}
	return "", globalsearch.Errorf(globalsearch.KindInvalidInput,
		"%s is not a GraphRAG output folder: neither it nor %s holds %s", path, filepath.Join(path, ProjectOutput), strings.Join(fileNames["community_reports"], " or "))
}
