package build

import (
	"bytes"
	"context"
	"fmt"
	"testing"

	"github.com/bibleplatform/platform/publish"
)

// TestRepack: a volume whose named packs are less than half of it is
// written again with those packs alone; one mostly named stays.
func TestRepack(t *testing.T) {
	ctx := context.Background()
	store, err := publish.OpenDir(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	// One volume of three packs of the same size.
	first := newVolumes(store, 1<<20)
	var refs []publish.PackRef
	var datas [][]byte
	for i := range 3 {
		w := publish.NewPackWriter()
		w.AddRaw("x", publish.JSON, bytes.Repeat([]byte(fmt.Sprint(i)), 4000))
		data := w.Bytes(publish.NewEncoder())
		if _, err := first.add(ctx, w.Key(), data); err != nil {
			t.Fatal(err)
		}
		refs = append(refs, publish.PackRef{Key: w.Key(), Size: int64(len(data))})
		datas = append(datas, data)
	}
	if err := first.flush(ctx); err != nil {
		t.Fatal(err)
	}
	m := &publish.Manifest{Site: &refs[0], Files: map[string]publish.PackRef{"a": refs[1], "b": refs[2]}}
	if err := first.place(m); err != nil {
		t.Fatal(err)
	}
	vol := m.Site.Volume
	if vol == "" || m.Files["a"].Volume != vol || m.Files["b"].Volume != vol {
		t.Fatalf("not placed in one volume: %+v", m)
	}

	repack := func(m *publish.Manifest) *builder {
		t.Helper()
		b := &builder{opt: Options{Store: store}, vols: newVolumes(store, 1<<20), rep: &Report{}}
		if err := b.repack(ctx, m); err != nil {
			t.Fatal(err)
		}
		if err := b.vols.flush(ctx); err != nil {
			t.Fatal(err)
		}
		if err := b.vols.place(m); err != nil {
			t.Fatal(err)
		}
		return b
	}
	// Two of three named: kept.
	two := &publish.Manifest{Site: new(*m.Site), Files: map[string]publish.PackRef{"a": m.Files["a"]}}
	if b := repack(two); b.rep.Repacked != 0 || two.Site.Volume != vol || two.Files["a"].Volume != vol {
		t.Errorf("two thirds named: %d repacked, %+v", b.rep.Repacked, two)
	}
	// One of three: moved.
	one := &publish.Manifest{Files: map[string]publish.PackRef{"b": m.Files["b"]}}
	b := repack(one)
	got := one.Files["b"]
	if b.rep.Repacked != 1 || b.vols.objects != 1 || got.Volume == vol || got.Volume == "" || got.Key != refs[2].Key {
		t.Fatalf("a third named: %d repacked into %d volumes, %+v", b.rep.Repacked, b.vols.objects, got)
	}
	data, err := publish.GetPack(ctx, store, &got)
	if err != nil || !bytes.Equal(data, datas[2]) {
		t.Errorf("the repacked pack reads %d bytes, %v; want its %d", len(data), err, len(datas[2]))
	}
}

// FuzzVolumeIndex: a volume's index, as the next build reads it back from
// a store it does not write alone, is taken only when every pack it names
// lies within the volume, and never panics.
func FuzzVolumeIndex(f *testing.F) {
	f.Add(int64(1000), []byte(`{"packs":[{"key":"packs/a","offset":0,"size":10}]}`))
	f.Add(int64(10), []byte(`{"packs":[{"key":"packs/a","offset":5,"size":-1}]}`))
	f.Add(int64(100), []byte(`{"packs":[{"key":"../a","offset":0,"size":1}]}`))
	f.Fuzz(func(t *testing.T, size int64, index []byte) {
		packs, err := decodeVolumeIndex(size, index)
		if err != nil {
			return
		}
		end := size - int64(len(index)) - int64(volumeTrailer)
		for _, p := range packs {
			if p.Offset < 0 || p.Size <= 0 || p.Offset+p.Size > end || publish.CheckKey(p.Key) != nil {
				t.Fatalf("accepted %+v in a volume whose packs end at %d", p, end)
			}
		}
	})
}

// TestVolumeIndexRoundTrip: the index written is the index read.
func TestVolumeIndexRoundTrip(t *testing.T) {
	body := bytes.Repeat([]byte("p"), 30)
	packs := []placed{{key: "packs/a", off: 0, size: 10}, {key: "packs/b", off: 10, size: 20}}
	vol := appendVolumeIndex(body, packs)
	size := int64(len(vol))
	n, err := volumeIndexLen(size, vol[size-int64(volumeTrailer):])
	if err != nil {
		t.Fatal(err)
	}
	got, err := decodeVolumeIndex(size, vol[size-int64(volumeTrailer)-n:size-int64(volumeTrailer)])
	if err != nil || len(got) != 2 || got[1] != (volumePack{Key: "packs/b", Offset: 10, Size: 20}) {
		t.Fatalf("%+v, %v", got, err)
	}
	if _, err := volumeIndexLen(size, []byte("12345678")); err == nil {
		t.Error("a trailer without the magic was read")
	}
}
