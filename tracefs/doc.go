// Package tracefs gives access to the kernel's tracing file system: finding
// (and if needed mounting) it, listing tracepoints, and parsing their format
// files; and, with WithKernelFiles, what the kernel's symbol table
// (/proc/kallsyms), kprobe blacklist and module lists say about its
// functions (Symbols), which decides where kprobes may attach.
//
// Kernel requirements: tracefs (CONFIG_FTRACE / CONFIG_TRACING), normally
// mounted at /sys/kernel/tracing (Linux 4.1+) and visible on older systems at
// /sys/kernel/debug/tracing through debugfs. Mounting it needs CAP_SYS_ADMIN.
// Env's BTF method needs kernel BTF (CONFIG_DEBUG_INFO_BTF,
// /sys/kernel/btf/vmlinux, Linux 5.4+ in practice).
//
// Env implements lang.Env over any directory laid out like tracefs, so the
// checker and code generator can be tested against the snapshot of format
// files kept in testdata/tracefs. It does not import lang: lang.TracepointFormat
// is an alias of Format.
package tracefs
