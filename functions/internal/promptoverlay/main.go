// Command promptoverlay is the step of `make build PROMPTS=DIR` that puts
// a user's prompts into the functions (docs/contract.md#custom-prompts). It
// checks DIR by the rules every prompts directory meets (the CLI's
// --prompts), copies the files it holds under OUT and writes OUT/overlay.json,
// a `go build -overlay` file that builds the functions with those copies in
// place of shared/globalsearch/prompts/<file>. The functions then embed
// them: one binary per function, nothing read from disk at start-up, and
// every function of a build holds the same prompts. Run it from the
// repository root.
package main

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/graphrag-global/graphrag-global/shared/globalsearch"
)

// embeddedDir is where the functions embed their prompts from, from the
// repository root.
var embeddedDir = filepath.Join("shared", "globalsearch", "prompts")

func main() {
	prompts := flag.String("prompts", "", "the prompts directory (map.txt, reduce.txt, system.txt)")
	out := flag.String("out", "", "where the checked copies and overlay.json go")
	flag.Parse()
	if *prompts == "" || *out == "" || flag.NArg() > 0 {
		fmt.Fprintln(os.Stderr, "usage: promptoverlay -prompts DIR -out DIR")
		os.Exit(2)
	}
	if err := build(*prompts, *out, os.Stdout); err != nil {
		fmt.Fprintf(os.Stderr, "make build PROMPTS=%s: %v\n", *prompts, err)
		os.Exit(1)
	}
}

// overlay is the file `go build -overlay` reads.
type overlay struct {
	Replace map[string]string `json:"Replace"`
}

// build checks dir, copies its prompt files into out and writes
// out/overlay.json, saying on w what the functions will embed.
func build(dir, out string, w io.Writer) error {
	if _, err := globalsearch.LoadPrompts(dir); err != nil {
		return err
	}
	if err := os.MkdirAll(out, 0o755); err != nil {
		return err
	}
	// A directory of this run's own: a build of another function at the
	// same time (sam build --parallel) never sees these copies half made,
	// and no copy of an earlier build is left among them.
	copies, err := os.MkdirTemp(out, "prompts-")
	if err != nil {
		return err
	}
	ov := overlay{Replace: map[string]string{}}
	for _, name := range globalsearch.PromptFiles {
		data, err := os.ReadFile(filepath.Join(dir, name))
		if errors.Is(err, os.ErrNotExist) {
			continue // the project's own stays
		}
		if err != nil {
			return err
		}
		target, err := filepath.Abs(filepath.Join(embeddedDir, name))
		if err != nil {
			return err
		}
		if _, err := os.Stat(target); err != nil {
			return fmt.Errorf("run from the repository root: %w", err)
		}
		copyPath, err := filepath.Abs(filepath.Join(copies, name))
		if err != nil {
			return err
		}
		if err := os.WriteFile(copyPath, data, 0o644); err != nil {
			return err
		}
		ov.Replace[target] = copyPath
		sum := sha256.Sum256(data)
		fmt.Fprintf(w, "prompts: the functions embed %s (sha256 %s)\n", filepath.Join(dir, name), hex.EncodeToString(sum[:]))
	}
	// The copies are what the functions embed: checked again, so a file
	// changed between the check and the copy is never embedded unchecked.
	if _, err := globalsearch.LoadPrompts(copies); err != nil {
		return fmt.Errorf("%s changed while it was copied: %w", dir, err)
	}
	data, err := json.MarshalIndent(ov, "", "  ")
	if err != nil {
		return err
	}
	return writeAtomic(filepath.Join(out, "overlay.json"), append(data, '\n'))
}

// writeAtomic writes through a temporary file renamed into place, so
// builds of several functions at once never read a half-written file.
func writeAtomic(path string, data []byte) error {
	tmp, err := os.CreateTemp(filepath.Dir(path), ".tmp-*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	if _, err := tmp.Write(data); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), path)
}
