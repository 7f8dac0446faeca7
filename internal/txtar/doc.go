// Package txtar reads and writes the minimal text archives of the tests'
// data: a comment, then sections that each start with a "-- NAME --" line
// (the format of golang.org/x/tools/txtar).
package txtar
