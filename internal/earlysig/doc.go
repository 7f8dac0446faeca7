// Package earlysig catches SIGINT and SIGTERM from the moment it is
// initialised, one of the first packages of a program that imports it (its
// only imports are os/signal's), until the program installs its own
// handling and calls Replay: without it a signal in the first tens of
// milliseconds of a Go program's start kills it, whatever it later does
// with signals.
package earlysig
