package search

// QueryCost is the postings entries the clauses of q, as parsed, read.
func (x *Index) QueryCost(q string) int {
	n := 0
	for _, c := range x.parse(q).clauses {
		n += x.clauseCost(c)
	}
	return n
}

const MaxPostings = maxPostings

// SetShortcuts turns the query path's shortcuts (hot.go) on or off.
func SetShortcuts(on bool) { shortcuts = on }

// Vocabulary returns the index's folded words, sorted.
func (x *Index) Vocabulary() []string { return x.words }
