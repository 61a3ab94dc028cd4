package build

import (
	"archive/zip"
	"bytes"
	"compress/gzip"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strings"
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

// readSources reads the book files of a folder, a .zip or one file.
func readSources(source string) ([]sourceFile, error) {
	fi, err := os.Stat(source)
	if err != nil {
		return nil, fmt.Errorf("import: %w", err)
	}
	var files []sourceFile
	switch {
	case fi.IsDir():
		err = filepath.WalkDir(source, func(p string, e fs.DirEntry, err error) error {
			if err != nil || e.IsDir() || !isBookName(e.Name()) {
				return err
			}
			data, err := readLimited(p)
			if err == nil {
				files = append(files, sourceFile{p, data})
			}
			return err
		})
	case strings.EqualFold(filepath.Ext(source), ".zip"):
		files, err = readZip(source, isBookName)
	case isBookName(source):
		var data []byte
		data, err = readLimited(source)
		files = append(files, sourceFile{source, data})
	default:
		err = fmt.Errorf("import: %s is not a folder, a .zip, a USFM or a USX file", source)
	}
	if err != nil {
		return nil, err
	}
	if err := gunzipAll(files); err != nil {
		return nil, err
	}
	sort.Slice(files, func(i, j int) bool { return files[i].name < files[j].name })
	return files, nil
}

func gunzipAll(files []sourceFile) error {
	for i := range files {
		if strings.EqualFold(path.Ext(files[i].name), ".gz") {
			zr, err := gzip.NewReader(bytes.NewReader(files[i].data))
			if err == nil {
				files[i].data, err = io.ReadAll(io.LimitReader(zr, maxBookSize+1))
			}
			if err != nil {
				return fmt.Errorf("import: %s: %w", files[i].name, err)
			}
		}
		if len(files[i].data) > maxBookSize {
			return fmt.Errorf("import: %s: larger than %d MiB", files[i].name, maxBookSize>>20)
		}
	}
	return nil
}

// maxBookSize bounds one book file; the largest real book (Jeremiah with
// Strong's numbers) is about 1 MiB.
const maxBookSize = 64 << 20

func readLimited(p string) ([]byte, error) {
	f, err := os.Open(p)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return io.ReadAll(io.LimitReader(f, maxBookSize+1))
}

// readZip reads the files of a zip whose names want accepts. Each is named
// zip:name in diagnostics.
func readZip(p string, want func(name string) bool) ([]sourceFile, error) {
	zr, err := zip.OpenReader(p)
	if err != nil {
		return nil, fmt.Errorf("import: %w", err)
	}
	defer zr.Close()
	var files []sourceFile
	for _, f := range zr.File {
		if f.FileInfo().IsDir() || !want(f.Name) {
			continue
		}
		rc, err := f.Open()
		if err != nil {
			return nil, fmt.Errorf("import: %s: %s: %w", p, f.Name, err)
		}
		data, err := io.ReadAll(io.LimitReader(rc, maxBookSize+1))
		rc.Close()
		if err != nil {
			return nil, fmt.Errorf("import: %s: %s: %w", p, f.Name, err)
		}
		files = append(files, sourceFile{p + ":" + f.Name, data})
	}
	return files, nil
}
