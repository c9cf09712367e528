package dircache

// SetRead replaces how d reads an entry file, for what no file system in a
// test can do on demand: a read that blocks.
func SetRead(d *Dir, read func(name string) ([]byte, error)) { d.read = read }
