package build

// Memory a build needs, for the soft limit `publish build` gives the Go
// runtime (MemoryBudget). Measured with the five Bibles of ../shared/bibles
// (the largest, the UHB, 27 MB of USFM; heap profiles and GC traces of
// `make bench-catalogue` builds): with two workers the live heap after a
// collection stays under about 85 MiB and the heap under about 125 MiB
// when one starts, whatever the number of Bibles: the language catalogue
// and the languages' word counts, the Bible being finished (its books'
// indexes and verse texts, its pack and search index in the making), and
// per worker a book being parsed, rendered and compressed.
const (
	// memoryBase is what a build holds besides its workers' books.
	memoryBase = 64 << 20
	// memoryPerWorker is one book in flight (the UHB's Jeremiah, 2 MB of
	// USFM, parses to about 20 MiB) and its share of the packs being
	// compressed and uploaded. 40 MiB (144 MiB for two workers) let a
	// 50-Bible build peak at 171 MiB of RSS against 137–142 for 5 Bibles
	// (1.23); at 28 (120 MiB) the same bench peaked at 133 against 131,
	// with the CPU per Bible unchanged (7.11 s against 7.05).
	memoryPerWorker = 28 << 20
	// memoryPerManifestByte covers the previous build's manifest (decoded,
	// about its size in JSON, and its packs indexed by key, less than half
	// that) and the encoding of the new one at the end of the build: what
	// grows with the catalogue.
	memoryPerManifestByte = 2
	// memoryVolumes is the volume being filled with packs and those being
	// written: one to a directory store, up to the Uploader's MaxBytes
	// (two) to a remote one. With volumes, make bench-catalogue's builds
	// peaked at 227 MiB of RSS for 5 Bibles and 252 for 50 (1.11).
	memoryVolumes = 3 * VolumeBytes
)

// MemoryBudget is the memory a build with workers workers needs when the
// previous build's manifest has manifestBytes bytes. It is a soft limit:
// the Go collector runs more often as the heap nears it, rather than
// letting the heap grow to twice what is live (GOGC=100), which made a
// build's peak follow the worst coincidence of large books and Bible
// packs, and so the number of Bibles. A build that needs more than its
// budget still runs, its collector working harder.
func MemoryBudget(workers int, manifestBytes int64) int64 {
	return memoryBase + memoryVolumes + int64(max(workers, 1))*memoryPerWorker + memoryPerManifestByte*manifestBytes
}
