// Package testbtf gives tests a fixed kernel BTF: a gzip-compressed copy of
// a Linux 6.18 /sys/kernel/btf/vmlinux kept in testdata/btf/vmlinux.btf.gz.
// Code generation golden tests use it so that their output does not depend
// on the kernel of the machine running them.
package testbtf
