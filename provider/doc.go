// Package provider holds one definition per probe provider (begin, end,
// tracepoint, kprobe, fentry, uprobe, interval, profile, software, ...).
// Each definition answers every stage's question about its kind, as ply's
// struct provider does: its spellings, how an attach point is expanded and
// validated, how args, argN, retval, func and ctx are typed, whether its
// attach points share one program, whether -p needs an in-program pid
// test, the program and attach type the code generator emits, the kernel
// feature it needs, how the runtime attaches it, and what -l lists for it.
//
// The checker (lang/check), the code generator (codegen), the runtime and
// the CLI ask the definition found with Lookup; none of them switches on a
// provider's name. What a provider's Compile tells its Attach about each
// target is a value of the provider's own type (FuncTarget, BinaryTarget,
// ...) in object.Probe.Targets, never text to parse again. The package is
// a leaf: it imports the contract (object), tracefs, lang/srcpos,
// lang/types and cilium/ebpf, never the stages.
//
// Adding a kind is one file here, its line in the table (provider.go) and
// its test.
package provider
