package build

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/bibleplatform/platform/bible"
)

// RemoveBooks removes books from Bible id of the content directory: the
// explicit act an import never does on its own. With dryRun it only says
// which files would go. A book the Bible does not have is an error, so
// that a misspelt code removes nothing.
func RemoveBooks(content string, id int32, books []bible.BookID, dryRun bool) ([]string, error) {
	dir := filepath.Join(content, "bibles", fmt.Sprint(id))
	if _, err := os.Stat(filepath.Join(dir, "bible.json")); errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("remove: the content directory %s has no Bible %d", content, id)
	} else if err != nil {
		return nil, fmt.Errorf("remove: %w", err)
	}
	if len(books) == 0 {
		return nil, errors.New("remove: name the books to remove (USFM codes such as TOB JDT)")
	}
	existing, err := bookFiles(dir)
	if err != nil {
		return nil, fmt.Errorf("remove: %w", err)
	}
	var files []string
	for _, b := range books {
		paths, ok := existing[b]
		if !ok {
			return nil, fmt.Errorf("remove: Bible %d has no book %s; nothing was removed", id, b)
		}
		files = append(files, paths...)
	}
	if dryRun {
		return files, nil
	}
	for _, p := range files {
		if err := os.Remove(p); err != nil {
			return nil, fmt.Errorf("remove: %w", err)
		}
	}
	return files, nil
}
