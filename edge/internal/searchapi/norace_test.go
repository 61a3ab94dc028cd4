//go:build !race

package searchapi

const raceEnabled = false
