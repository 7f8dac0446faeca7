// Package fuzzwatch is the per-input watchdog of the fuzz targets: it runs
// one input's work with a deadline and an allocation budget, so that a
// runaway (an input that takes seconds or gigabytes) fails the fuzz run as
// a crash does, with the input saved for replay.
package fuzzwatch
