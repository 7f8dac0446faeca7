// Package btfnames lists the names in a raw BTF blob without decoding its
// types: the functions (FUNC), the typedefs and the enumerators, each with
// the ID of the type that declares it. Wildcard expansion (kprobe:vfs_*,
// fentry:tcp_*, rawtracepoint:*, -l) matches names here and decodes only the
// matches through btf.Spec.TypeByID, instead of inflating every type of
// vmlinux with btf.Spec.All.
//
// The reader walks the header, the string section and the type records just
// far enough to know each record's kind, name and length (Documentation/bpf/
// btf.rst in the kernel tree). Type IDs are the record's position, starting
// at 1, as in the Spec cilium/ebpf parses from the same blob.
package btfnames
