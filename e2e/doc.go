// Package e2e holds end-to-end tests that run the platform's parts
// together against real services: the content pipeline publishing to a
// real MinIO and the edge serving from it. It has no code of its own.
package e2e
