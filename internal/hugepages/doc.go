// Package hugepages asks Linux to back a process's heap with transparent
// huge pages where the kernel gives them only when asked (Advise).
package hugepages
