// Package docs holds gotrace's documentation: the manual page gotrace(1),
// written in gotrace.1.md and generated into gotrace.1 by go-md2man
// (Debian's go-md2man package), and the guides in markdown. Its test
// checks that gotrace.1 is up to date and renders with man, that the
// manual names every option of `gotrace --help`, and runs the guides'
// examples.
package docs

//go:generate go-md2man -in gotrace.1.md -out gotrace.1
