// Package lspbench holds the script the language server's benchmarks
// edit (bench/lsp, lsp's BenchmarkAnalyze).
package lspbench

import (
	"fmt"
	"strings"
)

// Script returns a script of about lines lines: tracepoints with their
// fields, kprobes with BTF arguments, struct members through curtask,
// loops.
func Script(lines int) string {
	events := []string{"openat", "read", "write", "close", "mmap", "execve", "clone", "futex"}
	funcs := []string{"vfs_read", "vfs_write", "vfs_open", "do_sys_openat2"}
	var b strings.Builder
	for i := 0; b.Len() == 0 || strings.Count(b.String(), "\n") < lines-10; i++ {
		switch i % 3 {
		case 0:
			ev := events[i%len(events)]
			fmt.Fprintf(&b, "tracepoint:syscalls:sys_enter_%s\n/pid > %d/\n{\n  @calls%d[comm, args.__syscall_nr] = count();\n  $t = curtask;\n  @pids%d[$t->pid, $t->tgid] = sum(%d);\n  printf(\"%%s %%d %%d\\n\", comm, pid, $t->prio);\n}\n\n", ev, i, i, i, i)
		case 1:
			f := funcs[i%len(funcs)]
			fmt.Fprintf(&b, "kprobe:%s\n{\n  $c = args.%s;\n  @lat%d = hist(nsecs - %d);\n  if ($c > 0) {\n    @n%d++;\n  }\n}\n\n", f, map[string]string{"vfs_read": "count", "vfs_write": "count", "vfs_open": "path", "do_sys_openat2": "dfd"}[f], i, i, i)
		default:
			fmt.Fprintf(&b, "interval:s:%d\n{\n  $x = %d;\n  for ($i : 0..4) {\n    $x += $i * 2;\n  }\n  @sum%d = $x;\n}\n\n", i+1, i, i)
		}
	}
	return b.String()
}
