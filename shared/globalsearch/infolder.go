package globalsearch

import (
	"fmt"
	"path/filepath"
	"strings"
)

// InFolder refuses path, a file of the folder dir that a user gave (a
// prompts directory, a GraphRAG output folder), when it is a link, or sits
// below one, whose target lies outside dir (docs/contract.md#custom-prompts,
// docs/contract.md#import). Following it would read a file the user never
// gave, such as p/system.txt -> /etc/passwd sent with every model call. A
// link within the folder, and a folder given through a link, are fine: both
// are compared resolved. A path that does not resolve is left to the read
// that follows, which says why in its own words.
func InFolder(dir, path string) error {
	root, err := resolved(dir)
	if err != nil {
		return nil
	}
	target, err := resolved(path)
	if err != nil {
		return nil
	}
	rel, err := filepath.Rel(root, target)
	if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return fmt.Errorf("%s is a link to %s, outside the folder %s: copy the file into the folder (a link within it is fine)", path, target, dir)
	}
	return nil
}

// resolved is path with every link followed, made absolute.
func resolved(path string) (string, error) {
	p, err := filepath.EvalSymlinks(path)
	if err != nil {
		return "", err
	}
	return filepath.Abs(p)
}
