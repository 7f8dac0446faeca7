// Package codegen turns a checked gotrace program into BPF instructions with
// github.com/cilium/ebpf/asm and returns the collection spec together with
// the metadata the runtime needs to attach it and decode its output.
//
// Code generation is deterministic and never touches the kernel: every kernel
// dependent choice is an explicit input, decided by the runtime from feature
// probes.
//
// A probe's values (variables, temporaries, map keys, event records) live
// on the 512-byte BPF stack; a probe that needs more, such as one holding
// strings of max_strlen (1024 by default), is compiled again with its
// strings, tuples, keys and records in a scratch map value of its own
// (scratch.go): up to 32 KiB in a per-CPU array, up to 64 KiB in an array
// with one value per CPU. Its integers stay on the stack, where the
// verifier tracks them and bounds loops (slots.go). Past 64 KiB it is an
// error at the expression that does not fit (ErrScratchLimit).
package codegen
