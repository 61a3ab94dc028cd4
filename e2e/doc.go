// Package e2e holds end-to-end tests that run the platform's parts
// together against real services: the content pipeline publishing to a
// real MinIO and the edge serving from it, and a developer getting an App
// Key on the portal in Chromium and using it through an edge that follows
// dynamic's access snapshot. It has no code of its own.
package e2e
