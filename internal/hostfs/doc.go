// Package hostfs reads the files of the local machine that the checker asks
// its environment about: uprobe binaries found by path, on PATH or by library
// name, their ELF symbols, and file inodes (cgroup ids). It implements
// provider.HostFiles for environments backed by the running system.
package hostfs
