package publish

import "github.com/bibleplatform/platform/internal/atomicfile"

// OpenDirFS opens a directory store that writes through fsys.
func OpenDirFS(root string, fsys atomicfile.FS) (*Dir, error) { return openDir(root, fsys) }

// Encode is Encoder.encode, for its benchmark.
var Encode = (*Encoder).encode
