package main

import (
	"encoding/binary"
	"os"
	"path/filepath"
	"testing"
)

// TestAnswersRoundTrip: what fetchAnswers writes, loadAnswers finds by
// target and coding, and nothing else.
func TestAnswersRoundTrip(t *testing.T) {
	var b []byte
	b = appendRecord(b, "/v1/bibles/1/passages/JHN.3.16?format=text", 'b', []byte("brotli body"))
	b = appendRecord(b, "/v1/bibles/1/passages/JHN.3.16?format=text", 'g', []byte("gzip body, longer"))
	b = appendRecord(b, "/v1/bibles/1", 'b', nil)
	path := filepath.Join(t.TempDir(), "answers")
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
	a, err := loadAnswers(path)
	if err != nil {
		t.Fatal(err)
	}
	var kb [64]byte
	for _, c := range []struct {
		target string
		coding byte
		want   string
		ok     bool
	}{
		{"/v1/bibles/1/passages/JHN.3.16?format=text", 'b', "brotli body", true},
		{"/v1/bibles/1/passages/JHN.3.16?format=text", 'g', "gzip body, longer", true},
		{"/v1/bibles/1", 'b', "", true},
		{"/v1/bibles/1", 'g', "", false},
		{"/v1/bibles/2", 'b', "", false},
	} {
		got := a.find(kb[:0], []byte(c.target), c.coding)
		if string(got) != c.want || (got != nil) != c.ok {
			t.Errorf("find(%s, %c) = %q (found %v), want %q (%v)", c.target, c.coding, got, got != nil, c.want, c.ok)
		}
	}
	if err := os.WriteFile(path, b[:len(b)-3], 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := loadAnswers(path); err == nil {
		t.Error("a file cut short loaded")
	}
}

// TestAnswersRefusesOtherFiles: a length no file of answers holds is an
// error, not an allocation of that size.
func TestAnswersRefusesOtherFiles(t *testing.T) {
	path := filepath.Join(t.TempDir(), "answers")
	for _, b := range [][]byte{
		binary.AppendUvarint(nil, 1<<40),
		append(append(binary.AppendUvarint(nil, 2), "/x"...), append([]byte{'b'}, binary.AppendUvarint(nil, 1<<40)...)...),
	} {
		if err := os.WriteFile(path, b, 0o644); err != nil {
			t.Fatal(err)
		}
		if _, err := loadAnswers(path); err == nil {
			t.Errorf("%x loaded", b)
		}
	}
}
