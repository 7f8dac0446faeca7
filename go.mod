module github.com/gotrace/gotrace

go 1.26.8

require (
	github.com/alecthomas/participle/v2 v2.1.4
	github.com/chzyer/readline v1.5.1
	github.com/cilium/ebpf v0.22.0
	golang.org/x/arch v0.33.0
	golang.org/x/sys v0.48.0
)

require github.com/creack/pty v1.1.24
