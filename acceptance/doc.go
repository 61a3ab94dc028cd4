// Package acceptance proves the product as its users meet it: its tests
// start the real stack the way `make run` does (scripts/run.sh: PostgreSQL,
// the dynamic service, the edge), once over the directory store and once
// over MinIO, and walk the spec through real sockets, one line per rule.
// acceptance/js runs the live service's own JavaScript client against the
// same edge. See docs/acceptance.md.
package acceptance
