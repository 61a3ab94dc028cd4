package versification

import (
	"slices"
	"sync"
)

// The names of the standard schemes, as bible.json and the Bible resource
// spell them, and Paratext's names for them.
const (
	Org = "org" // Original: the Hebrew Bible (BHS) and the Greek New Testament (UBS, NA); the hub
	Eng = "eng" // English: most English (RSV) and Spanish (RVR) Bibles
	LXX = "lxx" // Septuagint
	Vul = "vul" // Vulgate
	RSC = "rsc" // Russian Synodal, canonical books (Russian Protestant)
	RSO = "rso" // Russian Synodal with the Orthodox books

	// Custom is a Bible's own scheme, kept as versification.vrs beside
	// its bible.json.
	Custom = "custom"
	// Default is the scheme of a Bible that names none: most Bibles
	// published in English and the languages of the Americas and Western
	// Europe number as English Bibles do, and Paratext takes it for a
	// project that names none.
	Default = Eng
)

// Names lists the standard schemes.
var Names = []string{Org, Eng, LXX, Vul, RSC, RSO}

// Valid reports whether name is a scheme a Bible may name: a standard one
// or Custom.
func Valid(name string) bool { return name == Custom || slices.Contains(Names, name) }

var standard = sync.OnceValue(func() map[string]*Scheme {
	m := make(map[string]*Scheme, len(standardData))
	for name, data := range standardData {
		s, err := Decode([]byte(data))
		if err != nil {
			// A broken build, caught by the package's tests.
			panic("versification: standard scheme " + name + ": " + err.Error())
		}
		m[name] = s
	}
	return m
})

// Standard returns a standard scheme by name.
func Standard(name string) (*Scheme, bool) {
	s, ok := standard()[name]
	return s, ok
}

// Identify returns the name of the standard scheme s numbers every verse
// as, or "" when it is none of them: a bundle's versification.vrs is
// often a standard file under another name.
func Identify(s *Scheme) string {
	for _, name := range Names {
		if std, _ := Standard(name); equal(s, std) {
			return name
		}
	}
	return ""
}

// aliases are the verses the original numbering names twice (org.vrs
// maps S3Y, the Song of the Three, to its place in Greek Daniel, DAG
// 3:24-90), each to its other names.
var aliases = sync.OnceValue(func() map[Verse][]Verse {
	org, _ := Standard(Org)
	m := map[Verse][]Verse{}
	for _, mp := range org.mappings {
		mp.Pairs(func(a, b Verse) {
			if !slices.Contains(m[a], b) {
				m[a] = append(m[a], b)
			}
			if !slices.Contains(m[b], a) {
				m[b] = append(m[b], a)
			}
		})
	}
	return m
})
