// Command uprobes measures attaching and detaching uprobes on many
// functions of one binary: it generates a C program of -n functions
// (fn_0 … fn_999 by default, each noinline), builds it with cc, and times
//
//   - multi: one uprobe_multi link on all of them (cilium/ebpf),
//   - single: one uprobe perf event link per function (cilium/ebpf),
//   - gotrace: the gotrace binary running uprobe:BIN:fn_* { @ = count(); },
//     from launch to its "Attached" line, and from SIGINT to its exit,
//
// each -r times, the medians reported. It needs root and a C compiler.
//
//	go run ./bench/uprobes [-n 1000] [-r 3] [-gotrace ./gotrace] [-only multi,single,gotrace]
package main
