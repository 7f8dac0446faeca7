// Package codegen turns a checked gotrace program into BPF instructions with
// github.com/cilium/ebpf/asm and returns the collection spec together with
// the metadata the runtime needs to attach it and decode its output.
//
// Code generation is deterministic and never touches the kernel: every kernel
// dependent choice is an explicit input, decided by the runtime from feature
// probes.
package codegen
