// Package tracingmulti creates tracing_multi links (Linux 7.3): one
// fentry or fexit program attached to many kernel functions, each named by
// its vmlinux BTF ID (attach types BPF_TRACE_FENTRY_MULTI and
// BPF_TRACE_FEXIT_MULTI, link type BPF_LINK_TYPE_TRACING_MULTI).
// The program is loaded with one of those attach types and no attach
// target: the kernel binds it to bpf_multi_func, a function without
// parameters, so the program reads arguments and the return value with
// bpf_get_func_arg and bpf_get_func_ret, and the function with
// bpf_get_func_ip. cilium/ebpf has no API for them:
// the link is created with bpf(2) directly, its attribute laid out as the
// kernel's UAPI lays out union bpf_attr's link_create:
//
//	offset  0: __u32 prog_fd
//	offset  4: __u32 target_fd (0)
//	offset  8: __u32 attach_type
//	offset 12: __u32 flags (0)
//	offset 16: __aligned_u64 tracing_multi.ids     (__u32 BTF IDs)
//	offset 24: __aligned_u64 tracing_multi.cookies (__u64 each, or 0)
//	offset 32: __u32 tracing_multi.cnt
package tracingmulti
