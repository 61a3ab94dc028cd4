package build

import (
	"archive/zip"
	"compress/gzip"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strings"
	"syscall"
)

type sourceFile struct {
	name string
	data []byte
}

// isUSFMName reports whether a file name is a USFM book: .usfm or .sfm
// (any case), optionally gzip'd.
func isUSFMName(name string) bool {
	n := strings.TrimSuffix(strings.ToLower(name), ".gz")
	return strings.HasSuffix(n, ".usfm") || strings.HasSuffix(n, ".sfm")
}

// isUSXName reports whether a file name is a USX book: .usx (any case),
// optionally gzip'd.
func isUSXName(name string) bool {
	return strings.HasSuffix(strings.TrimSuffix(strings.ToLower(name), ".gz"), ".usx")
}

func isBookName(name string) bool { return isUSFMName(name) || isUSXName(name) }

// Caps on what one source may make the import read. Real sources stay far
// below them: the largest shared Bible (the UHB) is 27 MB of USFM in 39
// files, gzip -9 compresses USFM about 4:1 and USX about 8:1, and a DBL
// bundle has a few hundred members. A source beyond them is refused before
// it can fill memory: members are read one at a time, each stops being
// read as soon as it passes a cap, and the caps count bytes as they are
// decompressed, not the sizes an archive declares.
const (
	// maxBookSize bounds one book file; the largest real book (Jeremiah
	// with Strong's numbers) is about 1 MiB.
	maxBookSize = 64 << 20
	// maxSourceBytes bounds all the files of one source read together,
	// after decompression.
	maxSourceBytes = 256 << 20
	// maxMembers bounds the members of one archive, read or not, and the
	// files of a folder.
	maxMembers = 10000
	// maxRatio bounds how many times larger than its compressed form a
	// member may decompress (beyond the first ratioSlack bytes, so that
	// small members of any ratio pass).
	maxRatio   = 100
	ratioSlack = 1 << 20
)

// sourceReader reads the files of one source under the caps.
type sourceReader struct {
	source  string
	total   int64
	members int
	files   []sourceFile
}

// count counts one member (read or not) of the source.
func (r *sourceReader) count() error {
	r.members++
	if r.members > maxMembers {
		return fmt.Errorf("import: %s: more than %d files or members; no Bible has so many", r.source, maxMembers)
	}
	return nil
}

// add reads one file of the source from rd, gunzipping a .gz name.
// compressed is the file's size as stored (the archive member's compressed
// size, the file's size on disk), which bounds its decompression ratio.
func (r *sourceReader) add(name string, rd io.Reader, compressed int64, zipped bool) error {
	ratioCap := int64(-1)
	if zipped {
		ratioCap = maxRatio*compressed + ratioSlack
	}
	if strings.EqualFold(path.Ext(name), ".gz") {
		zr, err := gzip.NewReader(rd)
		if err != nil {
			return fmt.Errorf("import: %s: %w", name, err)
		}
		defer zr.Close()
		rd = zr
		// A .gz file's ratio is its own; in an archive, both layers count
		// against the member's compressed size.
		if !zipped {
			ratioCap = maxRatio*compressed + ratioSlack
		}
	}
	limit := int64(maxBookSize)
	why := fmt.Sprintf("larger than %d MiB, the cap on one book file", maxBookSize>>20)
	if left := maxSourceBytes - r.total; left < limit {
		limit = left
		why = fmt.Sprintf("the source's files together pass %d MiB, the cap on one source", maxSourceBytes>>20)
	}
	if ratioCap >= 0 && ratioCap < limit {
		limit = ratioCap
		why = fmt.Sprintf("decompresses to more than %d times its compressed size (%d bytes): not a real book", maxRatio, compressed)
	}
	data, err := io.ReadAll(io.LimitReader(rd, limit+1))
	if err != nil {
		return fmt.Errorf("import: %s: %w", name, err)
	}
	if int64(len(data)) > limit {
		return fmt.Errorf("import: %s: %s", name, why)
	}
	r.total += int64(len(data))
	r.files = append(r.files, sourceFile{name, data})
	return nil
}

// addFile reads the regular file p, refusing anything else.
func (r *sourceReader) addFile(p string) error {
	if err := r.count(); err != nil {
		return err
	}
	f, fi, err := openRegular(p)
	if err != nil {
		return err
	}
	defer f.Close()
	return r.add(p, f, fi.Size(), false)
}

// openRegular opens p if it is a regular file. A symlink would copy
// whatever it points at into the content directory, and a FIFO or device
// would block the import or never end; both are refused.
func openRegular(p string) (*os.File, fs.FileInfo, error) {
	fi, err := os.Lstat(p)
	if err != nil {
		return nil, nil, fmt.Errorf("import: %w", err)
	}
	if !fi.Mode().IsRegular() {
		return nil, nil, notRegular(p, fi.Mode())
	}
	// O_NONBLOCK: should p become a FIFO after the Lstat, opening it does
	// not wait for a writer; the Stat below then refuses it.
	f, err := os.OpenFile(p, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, nil, fmt.Errorf("import: %w", err)
	}
	if fi, err = f.Stat(); err != nil || !fi.Mode().IsRegular() {
		f.Close()
		if err != nil {
			return nil, nil, fmt.Errorf("import: %w", err)
		}
		return nil, nil, notRegular(p, fi.Mode())
	}
	return f, fi, nil
}

func notRegular(p string, m fs.FileMode) error {
	what := "not a regular file (" + m.Type().String() + ")"
	if m&fs.ModeSymlink != 0 {
		what = "a symbolic link; copy the file it points at into the source instead"
	}
	return fmt.Errorf("import: %s: %s", p, what)
}

// walkFolder reads the files of folder root whose names (relative, slash
// separated) want accepts. Every entry is counted, and any entry that is
// neither a folder nor a regular file is refused, accepted name or not:
// a link to a folder would take the walk outside the source.
func (r *sourceReader) walkFolder(root string, want func(rel string) bool, name func(p, rel string) string) error {
	return filepath.WalkDir(root, func(p string, e fs.DirEntry, err error) error {
		if err != nil {
			return fmt.Errorf("import: %w", err)
		}
		if p == root {
			return nil
		}
		if err := r.count(); err != nil {
			return err
		}
		if e.IsDir() {
			return nil
		}
		if !e.Type().IsRegular() {
			return notRegular(p, e.Type())
		}
		rel, _ := filepath.Rel(root, p)
		rel = filepath.ToSlash(rel)
		if !want(rel) {
			return nil
		}
		f, fi, err := openRegular(p)
		if err != nil {
			return err
		}
		defer f.Close()
		return r.add(name(p, rel), f, fi.Size(), false)
	})
}

// readZip reads the members of the zip p whose names want accepts, one at
// a time. Each is named zip:name in diagnostics.
func (r *sourceReader) readZip(p string, want func(name string) bool) error {
	f, fi, err := openRegular(p)
	if err != nil {
		return err
	}
	defer f.Close()
	zr, err := zip.NewReader(f, fi.Size())
	if err != nil {
		return fmt.Errorf("import: %s: %w", p, err)
	}
	for _, m := range zr.File {
		if err := r.count(); err != nil {
			return err
		}
		mode := m.Mode()
		if mode.IsDir() {
			continue
		}
		if !want(m.Name) {
			continue
		}
		if !mode.IsRegular() {
			return notRegular(p+":"+m.Name, mode)
		}
		if err := r.readMember(p, m); err != nil {
			return err
		}
	}
	return nil
}

func (r *sourceReader) readMember(p string, m *zip.File) error {
	rc, err := m.Open()
	if err != nil {
		return fmt.Errorf("import: %s: %s: %w", p, m.Name, err)
	}
	defer rc.Close()
	// The compressed size bounds what the decompressor reads (zip reads a
	// member's data as a section of that size), so the ratio cap holds
	// whatever the header claims of the uncompressed size.
	compressed := int64(m.CompressedSize64)
	if m.Method == zip.Store {
		compressed = maxBookSize // stored: no ratio to bound
	}
	if err := r.add(p+":"+m.Name, rc, compressed, true); err != nil {
		if errors.Is(err, zip.ErrChecksum) {
			return fmt.Errorf("import: %s: %s: damaged archive member: %w", p, m.Name, err)
		}
		return err
	}
	return nil
}

// readSources reads the book files of a folder, a .zip or one file.
func readSources(source string) ([]sourceFile, error) {
	fi, err := os.Stat(source)
	if err != nil {
		return nil, fmt.Errorf("import: %w", err)
	}
	r := &sourceReader{source: source}
	switch {
	case fi.IsDir():
		err = r.walkFolder(source, func(rel string) bool { return isBookName(path.Base(rel)) },
			func(p, _ string) string { return p })
	case strings.EqualFold(filepath.Ext(source), ".zip"):
		err = r.readZip(source, isBookName)
	case isBookName(source):
		err = r.addFile(source)
	default:
		err = fmt.Errorf("import: %s is not a folder, a .zip, a USFM or a USX file", source)
	}
	if err != nil {
		return nil, err
	}
	sort.Slice(r.files, func(i, j int) bool { return r.files[i].name < r.files[j].name })
	return r.files, nil
}
